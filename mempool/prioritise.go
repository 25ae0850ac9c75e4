package mempool

import (
	"errors"

	"github.com/btcnode/btcd/wire"
)

// ErrDustPriority refuses a fee delta for a pool transaction with a dust
// output: ephemeral dust is only accepted with no fee, modified or not, so
// its fee may not change afterwards either.
var ErrDustPriority = errors.New("mempool: no fee delta for a transaction with dust outputs")

// PrioritisedTx is one fee delta (getprioritisedtransactions).
type PrioritisedTx struct {
	TxID  wire.Hash
	Delta int64
	// InMempool tells whether the transaction is in the pool; ModifiedFee
	// is its fee with the delta then.
	InMempool   bool
	ModifiedFee int64
}

// PrioritiseTransaction adds delta satoshis to the fee of txid as policy
// and block selection see it (Core's PrioritiseTransaction, behind the
// prioritisetransaction RPC). Deltas add up, are kept for transactions
// not in the pool until they enter, and are forgotten when they reach
// zero or the transaction is mined. A pool transaction's ancestors and
// descendants see the change in their package fees at once.
func (p *Pool) PrioritiseTransaction(txid wire.Hash, delta int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, inPool := p.byTxID[txid]
	if inPool && p.cfg.Policy.RequireStandard && countDust(e.Tx, p.cfg.Policy.DustRelayFee) > 0 {
		return ErrDustPriority
	}
	total := saturatingAdd(p.deltas[txid], delta)
	if inPool {
		e.ModFee = saturatingAdd(e.ModFee, delta)
		e.AncFees = saturatingAdd(e.AncFees, delta)
		e.DescFees = saturatingAdd(e.DescFees, delta)
		for _, a := range p.ancestorsOf(e.parents, p.nextEpoch(), nil) {
			a.DescFees = saturatingAdd(a.DescFees, delta)
		}
		for _, d := range p.descendantsOf(e, p.nextEpoch(), nil) {
			d.AncFees = saturatingAdd(d.AncFees, delta)
		}
	}
	where := ""
	if !inPool {
		where = "not "
	}
	if total == 0 {
		delete(p.deltas, txid)
		log.Infof("PrioritiseTransaction: %s (%sin mempool) delta cleared", txid, where)
		return nil
	}
	p.deltas[txid] = total
	log.Infof("PrioritiseTransaction: %s (%sin mempool) fee += %s, new delta=%s", txid, where, formatMoney(delta), formatMoney(total))
	return nil
}

// PrioritisedTransactions lists every fee delta, in no particular order.
func (p *Pool) PrioritisedTransactions() []PrioritisedTx {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]PrioritisedTx, 0, len(p.deltas))
	for id, d := range p.deltas {
		pt := PrioritisedTx{TxID: id, Delta: d}
		if e, ok := p.byTxID[id]; ok {
			pt.InMempool, pt.ModifiedFee = true, e.ModFee
		}
		out = append(out, pt)
	}
	return out
}

// clearPrioritisationLocked forgets the deltas of a block's transactions:
// a mined transaction cannot come back but by a reorg, and Core drops
// them then too.
func (p *Pool) clearPrioritisationLocked(txids []wire.Hash) {
	if len(p.deltas) == 0 {
		return
	}
	for _, id := range txids {
		delete(p.deltas, id)
	}
}
