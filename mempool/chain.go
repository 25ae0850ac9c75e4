package mempool

import (
	"slices"
	"sort"
	"time"

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
	// In block order, as bitcoind: each transaction leaves, then what
	// double-spends it, so the sequence numbers of ZMQ's removals match.
	// The block's transactions go in runs (one removal walk for a whole
	// run, in order), a transaction with conflicts ending its run.
	run := confirmed[:0] // reused: confirmed is not read again
	var conflicts []*Entry
	for i, tx := range block.Transactions {
		if e, ok := p.byTxID[txids[i]]; ok {
			// The pool's own spends of its inputs are this entry's:
			// nothing in the pool conflicts with it.
			run = append(run, e)
			continue
		}
		conflicts = conflicts[:0]
		for j := range tx.TxIn {
			if c, ok := p.spends[tx.TxIn[j].PreviousOutPoint]; ok && !containsPtr(conflicts, c) {
				conflicts = append(conflicts, c)
			}
		}
		if len(conflicts) > 0 {
			p.removeSet(run, removeBlock)
			run = run[:0]
			p.removeSet(p.withDescendants(conflicts), removeConflict)
		}
	}
	p.removeSet(run, removeBlock)
	if n := p.orphans.removeForBlock(block, txids); n > 0 {
		log.Debugf("Erased %d orphan transaction(s) included or conflicted by block", n)
	}
	p.clearPrioritisationLocked(txids)
	if len(p.reorgPending) > 0 {
		// The end of a reorg: the last chance for what the new chain
		// did not confirm.
		p.readdLocked(p.reorgPending, false)
		p.relinkAllLocked()
		p.removeForReorgLocked(false)
		p.trimToSizeLocked(p.cfg.MaxMempoolBytes)
	}
	p.recon.reset()
	p.lastRollingFeeUpdate = p.now().Unix()
	p.blockSinceBump = true

	// Orphans waiting for a transaction the block confirmed may now enter.
	var accepted []*Entry
	for i, tx := range block.Transactions {
		accepted = p.tryOrphansLocked(accepted, txids[i], len(tx.TxOut))
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
//
// The chain may announce a reorg's disconnections only once its view has
// moved to the new tip, when the transactions of the blocks below are not
// back yet: those that miss inputs are kept (up to
// maxReorgPendingBytes, as Core's disconnected-transactions pool) and
// tried again after each older block, and once more after the next
// connected block.
func (p *Pool) BlockDisconnected(block *wire.MsgBlock) {
	txids := block.TxHashes()
	p.mu.Lock()
	defer p.mu.Unlock()
	dropped := p.disconnected.add(block, txids)
	p.dropDisconnectedLocked(dropped)
	txs := make([]reorgTx, 0, len(block.Transactions)+len(p.reorgPending))
	for i, tx := range block.Transactions {
		if tx.IsCoinBase() {
			continue
		}
		if _, drop := dropped[txids[i]]; drop {
			continue
		}
		// A decoded block's transactions share the block's buffers; a copy
		// keeps the pool from pinning the whole block.
		txs = append(txs, reorgTx{tx: tx.Copy()})
	}
	// The pending transactions come from newer blocks (or spend them),
	// so after these.
	txs = append(txs, p.reorgPending...)
	p.readdLocked(txs, true)
	p.relinkAllLocked()
	p.removeForReorgLocked(true)
	p.trimToSizeLocked(p.cfg.MaxMempoolBytes)
}

// reorgTx is a transaction waiting to return to the pool in a reorg, with
// its entry time when it was a pool transaction (zero for a block's).
type reorgTx struct {
	tx   *wire.MsgTx
	time time.Time
}

// maxReorgPendingBytes bounds the transactions kept for a reorg (Core's
// MAX_DISCONNECTED_TX_POOL_BYTES).
const maxReorgPendingBytes = 20_000_000

// readdLocked returns transactions of disconnected blocks to the pool in
// order. Failures (now invalid, or non-standard) stay out; with keep,
// those missing inputs are kept for the next try.
func (p *Pool) readdLocked(txs []reorgTx, keep bool) {
	p.reorgPending, p.reorgPendingBytes = nil, 0
	for _, rt := range txs {
		res, err := p.acceptLocked(rt.tx, AcceptOptions{BypassLimits: true, Time: rt.time})
		if err == nil && p.cfg.OnReaccept != nil {
			p.cfg.OnReaccept(res.Entry.Tx, res.Entry.Sequence)
		}
		if err != nil && !(keep && IsMissingInputs(err)) {
			log.Debugf("Transaction %s not returned to the mempool after a reorg: %v", rt.tx.TxHash(), err)
		}
		if keep && IsMissingInputs(err) {
			p.keepForReorg(rt)
		}
	}
}

// keepForReorg adds rt to the transactions waiting in a reorg, within
// maxReorgPendingBytes.
func (p *Pool) keepForReorg(rt reorgTx) {
	if size := rt.tx.SerializeSize(); p.reorgPendingBytes+size <= maxReorgPendingBytes {
		p.reorgPending = append(p.reorgPending, rt)
		p.reorgPendingBytes += size
	}
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
		e.AncCount, e.AncSize, e.AncFees, e.AncSigOps = 1, e.VSize, e.ModFee, e.SigOpCost
		e.DescCount, e.DescSize, e.DescFees = 1, e.VSize, e.ModFee
	}
	var buf []*Entry
	for _, e := range p.byTxID {
		buf = p.ancestorsOf(e.parents, p.nextEpoch(), buf[:0])
		for _, a := range buf {
			e.AncCount++
			e.AncSize += a.VSize
			e.AncFees += a.ModFee
			e.AncSigOps += a.SigOpCost
			a.DescCount++
			a.DescSize += e.VSize
			a.DescFees += e.ModFee
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
// With deferMissing, those that lost an input (and their descendants)
// leave the pool to wait with the reorg's pending transactions instead:
// the input may be a transaction of an older disconnected block not
// announced yet.
func (p *Pool) removeForReorgLocked(deferMissing bool) {
	tip := p.cfg.Chain.Tip()
	var bad, missing []*Entry
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
			if !found && deferMissing {
				missing = append(missing, e)
				ok = false
				break
			}
			if !found || (c.IsCoinBase && tip.Height+1-c.Height < p.cfg.CoinbaseMaturity) {
				bad = append(bad, e)
				ok = false
				break
			}
			coins = append(coins, c)
		}
		if !ok {
			continue
		}
		h, t := sequenceLock(tx, coins, tip, p.cfg.Chain.MedianTimePast)
		if h >= tip.Height+1 || t >= tip.MedianTimePast {
			bad = append(bad, e)
			continue
		}
		e.lockHeight, e.lockTime = h, t
	}
	if len(missing) > 0 {
		set := p.withDescendants(missing)
		// Fewer in-pool ancestors first is a topological order.
		sort.Slice(set, func(i, j int) bool { return set[i].AncCount < set[j].AncCount })
		for _, e := range set {
			p.keepForReorg(reorgTx{tx: e.Tx, time: e.Time})
		}
		p.removeSet(set, removeReorg)
		bad = slices.DeleteFunc(bad, func(e *Entry) bool { _, still := p.byTxID[e.TxID]; return !still })
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
