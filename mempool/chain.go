package mempool

import (
	"github.com/btcnode/btcd/wire"
)

// BlockConnected updates the pool for a block that became the tip at
// height: confirmed transactions leave (feeding the fee estimator),
// transactions double-spending the block's inputs leave with their
// descendants, orphans made invalid are dropped and orphans whose parents
// the block confirmed are retried. Call it after the chain view reflects
// the block.
func (p *Pool) BlockConnected(block *wire.MsgBlock, height int32) {
	txids := block.TxHashes()
	p.mu.Lock()
	var confirmed []*Entry
	for i := range block.Transactions {
		if e, ok := p.byTxID[txids[i]]; ok {
			confirmed = append(confirmed, e)
		}
	}
	if p.est != nil {
		ct := make([]ConfirmedTx, len(confirmed))
		for i, e := range confirmed {
			ct[i] = ConfirmedTx{TxID: e.TxID, Height: e.Height, Fee: e.Fee, VSize: e.VSize}
		}
		p.est.ProcessBlock(height, ct)
	}
	p.removeSet(confirmed, removeBlock)
	var conflicts []*Entry
	for i, tx := range block.Transactions {
		for j := range tx.TxIn {
			if c, ok := p.spends[tx.TxIn[j].PreviousOutPoint]; ok && c.TxID != txids[i] && !containsPtr(conflicts, c) {
				conflicts = append(conflicts, c)
			}
		}
	}
	if len(conflicts) > 0 {
		p.removeSet(p.withDescendants(conflicts), removeConflict)
	}
	p.orphans.removeForBlock(block, txids)
	p.lastRollingFeeUpdate = p.now().Unix()
	p.blockSinceBump = true

	// Orphans waiting for a transaction the block confirmed may now enter.
	var accepted []*Entry
	for i, tx := range block.Transactions {
		for _, or := range p.orphans.children(txids[i], len(tx.TxOut)) {
			if _, still := p.orphans.byID[or.txid]; !still {
				continue
			}
			res, err := p.acceptLocked(or.tx, AcceptOptions{})
			if err != nil {
				if !IsMissingInputs(err) {
					p.orphans.remove(or)
				}
				continue
			}
			p.orphans.remove(or)
			accepted = append(accepted, res.Entry)
		}
	}
	accepted = p.snapshots(p.processOrphansLocked(accepted))
	p.mu.Unlock()
	p.announce(accepted)
}

// BlockDisconnected returns a disconnected block's transactions to the
// pool. Call it after the chain view has been rolled back past the block;
// when several blocks are disconnected, call it for each from the old tip
// downwards. Transactions that are no longer valid are dropped; pool
// transactions that depended on the block are re-linked to the returned
// parents, and everything is re-checked against the new tip (lock times,
// BIP68, coinbase maturity).
func (p *Pool) BlockDisconnected(block *wire.MsgBlock) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, tx := range block.Transactions {
		if tx.IsCoinBase() {
			continue
		}
		// A decoded block's transactions share the block's buffers; a copy
		// keeps the pool from pinning the whole block. Failures (now
		// invalid, or non-standard) simply stay out.
		_, _ = p.acceptLocked(tx.Copy(), AcceptOptions{BypassLimits: true})
	}
	p.relinkAllLocked()
	p.removeForReorgLocked()
	p.trimToSizeLocked(p.cfg.MaxMempoolBytes)
}

// relinkAllLocked rebuilds every parent/child link and all package
// statistics from the transactions themselves. It is only needed after a
// reorg, when confirmed parents return to the pool beneath existing
// children.
func (p *Pool) relinkAllLocked() {
	for _, e := range p.byTxID {
		e.parents = e.parents[:0]
		e.children = e.children[:0]
	}
	for _, e := range p.byTxID {
		for i := range e.Tx.TxIn {
			if pe, ok := p.byTxID[e.Tx.TxIn[i].PreviousOutPoint.Hash]; ok && !containsPtr(e.parents, pe) {
				e.parents = append(e.parents, pe)
				pe.children = append(pe.children, e)
			}
		}
	}
	for _, e := range p.byTxID {
		e.AncCount, e.AncSize, e.AncFees, e.AncSigOps = 1, e.VSize, e.Fee, e.SigOpCost
		e.DescCount, e.DescSize, e.DescFees = 1, e.VSize, e.Fee
	}
	var buf []*Entry
	for _, e := range p.byTxID {
		buf = p.ancestorsOf(e.parents, p.nextEpoch(), buf[:0])
		for _, a := range buf {
			e.AncCount++
			e.AncSize += a.VSize
			e.AncFees += a.Fee
			e.AncSigOps += a.SigOpCost
			a.DescCount++
			a.DescSize += e.VSize
			a.DescFees += e.Fee
		}
	}
	p.usage = 0
	for _, e := range p.byTxID {
		e.usage = entryMemUsage(e)
		p.usage += e.usage
	}
}

// removeForReorgLocked drops transactions that the new tip makes
// non-final, BIP68-locked, immature coinbase spends or that lost an input.
func (p *Pool) removeForReorgLocked() {
	tip := p.cfg.Chain.Tip()
	var bad []*Entry
	var coins []Coin
	for _, e := range p.byTxID {
		tx := e.Tx
		if !isFinalTx(tx, tip.Height+1, tip.MedianTimePast) {
			bad = append(bad, e)
			continue
		}
		coins = coins[:0]
		ok := true
		for i := range tx.TxIn {
			op := tx.TxIn[i].PreviousOutPoint
			if pe, inPool := p.byTxID[op.Hash]; inPool && int(op.Index) < len(pe.Tx.TxOut) {
				out := &pe.Tx.TxOut[op.Index]
				coins = append(coins, Coin{Value: out.Value, PkScript: out.PkScript, Height: mempoolHeight})
				continue
			}
			c, found := p.cfg.Chain.FetchCoin(op)
			if !found || (c.IsCoinBase && tip.Height+1-c.Height < p.cfg.CoinbaseMaturity) {
				ok = false
				break
			}
			coins = append(coins, c)
		}
		if !ok {
			bad = append(bad, e)
			continue
		}
		h, t := sequenceLock(tx, coins, tip, p.cfg.Chain.MedianTimePast)
		if h >= tip.Height+1 || t >= tip.MedianTimePast {
			bad = append(bad, e)
			continue
		}
		e.lockHeight, e.lockTime = h, t
	}
	if len(bad) > 0 {
		p.removeSet(p.withDescendants(bad), removeReorg)
	}
}

// RemoveTransaction removes txid and every pool transaction that
// descends from it, and reports whether txid was present.
func (p *Pool) RemoveTransaction(txid wire.Hash) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.byTxID[txid]
	if !ok {
		return false
	}
	p.removeSet(p.withDescendants([]*Entry{e}), removeConflict)
	return true
}
