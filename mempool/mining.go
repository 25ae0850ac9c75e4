package mempool

import (
	"github.com/btcnode/btcd/wire"
)

// This file is what block assembly (internal/mining) reads of the pool: a
// consistent copy of the transactions with their package statistics, and
// a signal for "the contents changed" that long polls wait on.

// Candidate is one pool transaction as block assembly sees it.
type Candidate struct {
	Tx   *wire.MsgTx
	TxID wire.Hash
	// Fee is the absolute fee (what the coinbase collects); ModFee adds
	// the prioritisetransaction delta and is what selection ranks by.
	Fee, ModFee int64
	// VSize is the sigop-adjusted virtual size, Weight the BIP141 weight.
	VSize, Weight int64
	SigOpCost     int64
	// Ancestor statistics include the transaction itself; fees are
	// modified fees.
	AncCount, AncSize, AncFees, AncSigOps int64
	// Parents are the indexes in Candidates.Txs of the in-pool parents.
	Parents []int32
}

// Candidates is a copy of the pool taken under its lock.
type Candidates struct {
	Txs []Candidate
	// Tip is the chain tip the pool's contents are valid on; selection
	// decides finality for its child.
	Tip ChainTip
	// Sequence is Pool.Sequence at the time of the copy.
	Sequence uint64
}

// Candidates copies the pool for block assembly. The copy is consistent
// (one read lock) and shares only the immutable transactions, so the
// caller may work on it without holding up the pool.
func (p *Pool) Candidates() *Candidates {
	p.mu.RLock()
	defer p.mu.RUnlock()
	c := &Candidates{Txs: make([]Candidate, 0, len(p.byTxID)), Tip: p.cfg.Chain.Tip(), Sequence: p.sequence}
	index := make(map[*Entry]int32, len(p.byTxID))
	nlinks := 0
	for _, e := range p.byTxID {
		index[e] = int32(len(c.Txs))
		nlinks += len(e.parents)
		c.Txs = append(c.Txs, Candidate{
			Tx: e.Tx, TxID: e.TxID, Fee: e.Fee, ModFee: e.ModFee, VSize: e.VSize,
			Weight: e.Weight, SigOpCost: e.SigOpCost, AncCount: e.AncCount,
			AncSize: e.AncSize, AncFees: e.AncFees, AncSigOps: e.AncSigOps,
		})
	}
	// One backing array for every parent list.
	links := make([]int32, 0, nlinks)
	for e, i := range index {
		start := len(links)
		for _, pe := range e.parents {
			links = append(links, index[pe])
		}
		c.Txs[i].Parents = links[start:len(links):len(links)]
	}
	return c
}

// closedChan is returned to waiters whose change already happened.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// SequenceChanged returns a channel that is closed once the pool's
// sequence differs from seq (at once if it already does): a transaction
// entered or left.
func (p *Pool) SequenceChanged(seq uint64) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sequence != seq {
		return closedChan
	}
	if p.seqWake == nil {
		p.seqWake = make(chan struct{})
	}
	return p.seqWake
}

// bumpSequence advances the sequence and wakes SequenceChanged's waiters.
// The caller holds the write lock.
func (p *Pool) bumpSequence() {
	p.sequence++
	if p.seqWake != nil {
		close(p.seqWake)
		p.seqWake = nil
	}
}
