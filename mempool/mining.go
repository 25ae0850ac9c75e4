package mempool

import (
	"container/heap"
	"sort"

	"github.com/btcnode/btcd/wire"
)

// Block template defaults (Core 30: -blockmaxweight is the consensus
// maximum and -blockreservedweight 8000 is kept back for the coinbase and
// header; 400 sigop cost is kept for the coinbase; -blockmintxfee is
// 1 sat/kvB).
const (
	DefaultBlockMaxWeight      = wire.MaxBlockWeight
	DefaultBlockReservedWeight = 8000
	CoinbaseReservedSigOps     = 400
	DefaultBlockMinTxFee       = FeeRate(1)
	// maxConsecutiveFailures ends selection early when the block is nearly
	// full and packages keep failing to fit.
	maxConsecutiveFailures = 1000
)

// TemplateOptions configures transaction selection.
type TemplateOptions struct {
	MaxWeight      int64 // 0 means DefaultBlockMaxWeight
	ReservedWeight int64 // 0 means DefaultBlockReservedWeight
	// MinFeeRate is -blockmintxfee: packages whose modified fee rate is
	// below it are not included. Zero means DefaultBlockMinTxFee, so that
	// a zero-fee transaction (a prioritised-away or ephemeral-dust parent)
	// is not mined without a child paying for it; negative includes all.
	MinFeeRate FeeRate
	// Height and LockTimeCutoff (the median time past of the tip) decide
	// finality; zero values mean the pool's view of the next block.
	Height         int32
	LockTimeCutoff int64
}

// Template is the selected transactions in block order with their fees
// and sigop costs. Weight and SigOpCost include the coinbase reserves.
type Template struct {
	Txs        []*wire.MsgTx
	TxIDs      []wire.Hash
	Fees       []int64
	SigOpCosts []int64
	TotalFees  int64
	Weight     int64
	SigOpCost  int64
}

// modEntry is an entry some of whose ancestors are already in the block;
// its package statistics exclude them (Core's CTxMemPoolModifiedEntry).
type modEntry struct {
	e                         *Entry
	ancSize, ancFees, ancSigs int64
	idx                       int
}

// ancestorScoreLess reports whether package (fa, sa) of entry a sorts
// after (fb, sb) of b: the score is the lower of the transaction's own
// rate and its package rate, ties broken by txid.
func ancestorScoreBetter(a *Entry, fa, sa int64, b *Entry, fb, sb int64) bool {
	fa, sa = scoreOf(a, fa, sa)
	fb, sb = scoreOf(b, fb, sb)
	l, r := fa*sb, fb*sa
	if l != r {
		return l > r
	}
	return hashLess(a.TxID[:], b.TxID[:])
}

func scoreOf(e *Entry, ancFees, ancSize int64) (int64, int64) {
	if e.ModFee*ancSize > ancFees*e.VSize {
		return ancFees, ancSize
	}
	return e.ModFee, e.VSize
}

type modHeap []*modEntry

func (h modHeap) Len() int { return len(h) }
func (h modHeap) Less(i, j int) bool {
	return ancestorScoreBetter(h[i].e, h[i].ancFees, h[i].ancSize, h[j].e, h[j].ancFees, h[j].ancSize)
}
func (h modHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].idx = i; h[j].idx = j }
func (h *modHeap) Push(x any)   { m := x.(*modEntry); m.idx = len(*h); *h = append(*h, m) }
func (h *modHeap) Pop() any {
	old := *h
	m := old[len(old)-1]
	*h = old[:len(old)-1]
	m.idx = -1
	return m
}

// SelectTransactions chooses pool transactions for a block the way Core's
// BlockAssembler::addPackageTxs does: packages (a transaction with its
// not-yet-included ancestors) in order of ancestor score, re-scoring
// descendants of included transactions, within the weight and sigop
// limits, stopping at the minimum fee rate.
func (p *Pool) SelectTransactions(opts TemplateOptions) *Template {
	if opts.MaxWeight == 0 {
		opts.MaxWeight = DefaultBlockMaxWeight
	}
	if opts.ReservedWeight == 0 {
		opts.ReservedWeight = DefaultBlockReservedWeight
	}
	if opts.MinFeeRate == 0 {
		opts.MinFeeRate = DefaultBlockMinTxFee
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if opts.Height == 0 {
		tip := p.cfg.Chain.Tip()
		opts.Height, opts.LockTimeCutoff = tip.Height+1, tip.MedianTimePast
	}
	t := &Template{Weight: opts.ReservedWeight, SigOpCost: CoinbaseReservedSigOps}

	sorted := make([]*Entry, 0, len(p.byTxID))
	for _, e := range p.byTxID {
		sorted = append(sorted, e)
	}
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		return ancestorScoreBetter(a, a.AncFees, a.AncSize, b, b.AncFees, b.AncSize)
	})
	included := make(map[*Entry]bool)
	failed := make(map[*Entry]bool)
	modified := make(map[*Entry]*modEntry)
	var mh modHeap
	consecutiveFailed := 0
	var pkg []*Entry
	for mi := 0; mi < len(sorted) || mh.Len() > 0; {
		if mi < len(sorted) {
			e := sorted[mi]
			if included[e] || failed[e] || modified[e] != nil {
				mi++
				continue
			}
		}
		var e *Entry
		var size, fees, sigs int64
		fromMod := false
		if mh.Len() > 0 && (mi >= len(sorted) || ancestorScoreBetter(mh[0].e, mh[0].ancFees, mh[0].ancSize,
			sorted[mi], sorted[mi].AncFees, sorted[mi].AncSize)) {
			m := mh[0]
			e, size, fees, sigs, fromMod = m.e, m.ancSize, m.ancFees, m.ancSigs, true
		} else {
			e = sorted[mi]
			mi++
			size, fees, sigs = e.AncSize, e.AncFees, e.AncSigOps
		}
		if fees < opts.MinFeeRate.Fee(size) {
			break
		}
		if t.Weight+size*wire.WitnessScaleFactor >= opts.MaxWeight || t.SigOpCost+sigs >= MaxBlockSigOpsCost {
			if fromMod {
				heap.Remove(&mh, modified[e].idx)
				delete(modified, e)
			}
			failed[e] = true
			consecutiveFailed++
			if consecutiveFailed > maxConsecutiveFailures && t.Weight > opts.MaxWeight-4000 {
				break
			}
			continue
		}
		pkg = pkg[:0]
		epoch := p.nextEpoch()
		for _, a := range p.ancestorsOf(e.parents, epoch, nil) {
			if !included[a] {
				pkg = append(pkg, a)
			}
		}
		pkg = append(pkg, e)
		final := true
		for _, x := range pkg {
			if !isFinalTx(x.Tx, opts.Height, opts.LockTimeCutoff) {
				final = false
				break
			}
		}
		if !final {
			if fromMod {
				heap.Remove(&mh, modified[e].idx)
				delete(modified, e)
			}
			failed[e] = true
			continue
		}
		consecutiveFailed = 0
		// Fewer in-pool ancestors first is a valid topological order.
		sort.Slice(pkg, func(i, j int) bool {
			if pkg[i].AncCount != pkg[j].AncCount {
				return pkg[i].AncCount < pkg[j].AncCount
			}
			return hashLess(pkg[i].TxID[:], pkg[j].TxID[:])
		})
		for _, x := range pkg {
			included[x] = true
			if m := modified[x]; m != nil {
				heap.Remove(&mh, m.idx)
				delete(modified, x)
			}
			t.Txs = append(t.Txs, x.Tx)
			t.TxIDs = append(t.TxIDs, x.TxID)
			t.Fees = append(t.Fees, x.Fee)
			t.SigOpCosts = append(t.SigOpCosts, x.SigOpCost)
			t.TotalFees += x.Fee
			t.Weight += x.Weight
			t.SigOpCost += x.SigOpCost
		}
		// Re-score the descendants of what was added.
		for _, x := range pkg {
			for _, d := range p.descendantsOf(x, p.nextEpoch(), nil) {
				if included[d] {
					continue
				}
				m := modified[d]
				if m == nil {
					m = &modEntry{e: d, ancSize: d.AncSize, ancFees: d.AncFees, ancSigs: d.AncSigOps}
					modified[d] = m
					heap.Push(&mh, m)
				}
				m.ancSize -= x.VSize
				m.ancFees -= x.ModFee
				m.ancSigs -= x.SigOpCost
				heap.Fix(&mh, m.idx)
			}
		}
	}
	return t
}
