package mempool

import "github.com/btcnode/btcd/wire"

// PassesFeeFilter reports whether the pool transaction txid may be
// announced to a peer whose BIP133 feefilter is filter (sat/kvB): its fee
// must reach the filter's fee for its virtual size, as Core checks before
// announcing. Unknown transactions do not pass.
func (p *Pool) PassesFeeFilter(txid wire.Hash, filter FeeRate) bool {
	p.mu.RLock()
	e, ok := p.byTxID[txid]
	p.mu.RUnlock()
	if !ok {
		return false
	}
	return filter <= 0 || e.Fee >= filter.Fee(e.VSize)
}

// FeeFilter returns the rate to advertise in our own feefilter message:
// the larger of the mempool minimum fee and the relay floor.
func (p *Pool) FeeFilter() FeeRate {
	m := p.MinFee()
	if m < p.cfg.Policy.MinRelayFee {
		m = p.cfg.Policy.MinRelayFee
	}
	return m
}
