package mempool

import "github.com/btcnode/btcd/wire"

// The unbroadcast set is Core's m_unbroadcast_txids: transactions the node
// itself submitted (sendrawtransaction) that no peer has asked for yet. The
// daemon re-announces them periodically until a peer requests one, so a
// transaction submitted while the node had no peers still goes out. The
// set only names pool transactions: an entry leaving the pool leaves the
// set too.

// AddUnbroadcast records a pool transaction as not yet sent to any peer.
// It does nothing for a txid that is not in the pool.
func (p *Pool) AddUnbroadcast(txid wire.Hash) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.byTxID[txid]; !ok {
		return
	}
	if p.unbroadcast == nil {
		p.unbroadcast = make(map[wire.Hash]struct{})
	}
	p.unbroadcast[txid] = struct{}{}
}

// RemoveUnbroadcast forgets txid once a peer has requested it.
func (p *Pool) RemoveUnbroadcast(txid wire.Hash) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropUnbroadcastLocked(txid, "")
}

// dropUnbroadcastLocked removes txid from the set, logging as Core does;
// why is appended to the log line.
func (p *Pool) dropUnbroadcastLocked(txid wire.Hash, why string) {
	if _, ok := p.unbroadcast[txid]; !ok {
		return
	}
	delete(p.unbroadcast, txid)
	log.Debugf("Removed %s from set of unbroadcast txns%s", txid, why)
}

// IsUnbroadcast reports whether txid is in the unbroadcast set
// (getmempoolentry's "unbroadcast").
func (p *Pool) IsUnbroadcast(txid wire.Hash) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	_, ok := p.unbroadcast[txid]
	return ok
}

// Unbroadcast returns the entries of the unbroadcast set, for the daemon
// to announce again.
func (p *Pool) Unbroadcast() []*Entry {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]*Entry, 0, len(p.unbroadcast))
	for txid := range p.unbroadcast {
		if e, ok := p.byTxID[txid]; ok {
			out = append(out, snapshot(e))
		}
	}
	return out
}
