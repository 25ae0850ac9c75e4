package mining

import (
	"slices"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/mempool"
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
	DefaultBlockMinTxFee       = mempool.FeeRate(1)
	// maxConsecutiveFailures ends selection early when the block is nearly
	// full and packages keep failing to fit.
	maxConsecutiveFailures = 1000
)

// Policy is the block assembler's limits (-blockmaxweight,
// -blockreservedweight, -blockmintxfee).
type Policy struct {
	MaxWeight      int64 // 0 means DefaultBlockMaxWeight
	ReservedWeight int64 // 0 means DefaultBlockReservedWeight
	// MinFeeRate is -blockmintxfee: packages whose modified fee rate is
	// below it are not included. Zero means DefaultBlockMinTxFee, so that
	// a zero-fee transaction (a prioritised-away or ephemeral-dust parent)
	// is not mined without a child paying for it; negative includes all.
	MinFeeRate mempool.FeeRate
}

func (p Policy) withDefaults() Policy {
	if p.MaxWeight == 0 {
		p.MaxWeight = DefaultBlockMaxWeight
	}
	if p.ReservedWeight == 0 {
		p.ReservedWeight = DefaultBlockReservedWeight
	}
	if p.MinFeeRate == 0 {
		p.MinFeeRate = DefaultBlockMinTxFee
	}
	return p
}

// Selection is the chosen transactions in block order with their fees
// and sigop costs. Weight and SigOpCost include the coinbase reserves.
type Selection struct {
	Txs        []*wire.MsgTx
	TxIDs      []wire.Hash
	Fees       []int64
	SigOpCosts []int64
	TotalFees  int64
	Weight     int64
	SigOpCost  int64
}

// Transaction states during selection.
const (
	stPending uint8 = iota
	stIncluded
	stFailed
)

// selector is one run of Select over a candidate set; transactions are
// named by their index in the set.
type selector struct {
	txs      []mempool.Candidate
	children [][]int32
	state    []uint8
	// mod holds the package statistics of transactions some of whose
	// ancestors are already in the block (Core's
	// CTxMemPoolModifiedEntry); modPos is a transaction's place in the
	// heap, -1 when it is not there.
	mod    []modStats
	modPos []int32
	heap   []int32
	// mark and epoch make each ancestor or descendant walk visit a
	// transaction once without clearing a set between walks.
	mark  []uint32
	epoch uint32
	walk  []int32
}

type modStats struct{ size, fees, sigs int64 }

// better reports whether package (fa, sa) of a ranks before (fb, sb) of
// b: the score is the lower of the transaction's own rate and its package
// rate, ties broken by txid.
func (s *selector) better(a int32, fa, sa int64, b int32, fb, sb int64) bool {
	fa, sa = scoreOf(&s.txs[a], fa, sa)
	fb, sb = scoreOf(&s.txs[b], fb, sb)
	return s.cmpScores(a, fa, sa, b, fb, sb) < 0
}

// cmpScores orders a with score fa/sa against b with fb/sb, higher
// scores first, then by txid.
func (s *selector) cmpScores(a int32, fa, sa int64, b int32, fb, sb int64) int {
	switch l, r := fa*sb, fb*sa; {
	case l > r:
		return -1
	case l < r:
		return 1
	case hashLess(&s.txs[a].TxID, &s.txs[b].TxID):
		return -1
	case a == b:
		return 0
	}
	return 1
}

func scoreOf(c *mempool.Candidate, ancFees, ancSize int64) (int64, int64) {
	if c.ModFee*ancSize > ancFees*c.VSize {
		return ancFees, ancSize
	}
	return c.ModFee, c.VSize
}

// hashLess orders txids as the numbers they display as.
func hashLess(a, b *wire.Hash) bool {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// The heap of modified packages: s.heap ordered by better, with
// s.modPos tracking each member's place (a typed heap, so that pushing a
// transaction index does not box it).

func (s *selector) less(i, j int) bool {
	a, b := s.heap[i], s.heap[j]
	return s.better(a, s.mod[a].fees, s.mod[a].size, b, s.mod[b].fees, s.mod[b].size)
}

func (s *selector) swap(i, j int) {
	s.heap[i], s.heap[j] = s.heap[j], s.heap[i]
	s.modPos[s.heap[i]], s.modPos[s.heap[j]] = int32(i), int32(j)
}

func (s *selector) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !s.less(j, i) {
			break
		}
		s.swap(i, j)
		j = i
	}
}

// down sifts i down and reports whether it moved.
func (s *selector) down(i int) bool {
	start, n := i, len(s.heap)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && s.less(r, l) {
			j = r
		}
		if !s.less(j, i) {
			break
		}
		s.swap(i, j)
		i = j
	}
	return i > start
}

func (s *selector) push(x int32) {
	s.modPos[x] = int32(len(s.heap))
	s.heap = append(s.heap, x)
	s.up(len(s.heap) - 1)
}

func (s *selector) fix(i int) {
	if !s.down(i) {
		s.up(i)
	}
}

// dropModified takes x out of the heap if it is there.
func (s *selector) dropModified(x int32) {
	i := int(s.modPos[x])
	if i < 0 {
		return
	}
	last := len(s.heap) - 1
	if i != last {
		s.swap(i, last)
	}
	s.heap = s.heap[:last]
	s.modPos[x] = -1
	if i != last {
		s.fix(i)
	}
}

// relatives collects the ancestors (up) or descendants of i, not i.
func (s *selector) relatives(i int32, up bool) []int32 {
	s.epoch++
	s.walk = s.walk[:0]
	next := func(j int32) []int32 {
		if up {
			return s.txs[j].Parents
		}
		return s.children[j]
	}
	for _, r := range next(i) {
		if s.mark[r] != s.epoch {
			s.mark[r] = s.epoch
			s.walk = append(s.walk, r)
		}
	}
	for k := 0; k < len(s.walk); k++ {
		for _, r := range next(s.walk[k]) {
			if s.mark[r] != s.epoch {
				s.mark[r] = s.epoch
				s.walk = append(s.walk, r)
			}
		}
	}
	return s.walk
}

// Select chooses candidates for a block the way Core's
// BlockAssembler::addPackageTxs does: packages (a transaction with its
// not-yet-included ancestors) in order of ancestor score, re-scoring
// descendants of included transactions, within the weight and sigop
// limits, stopping at the minimum fee rate. Finality is judged for the
// child of c.Tip.
func Select(c *mempool.Candidates, pol Policy) *Selection {
	pol = pol.withDefaults()
	n := len(c.Txs)
	height, cutoff := c.Tip.Height+1, c.Tip.MedianTimePast
	s := &selector{
		txs:      c.Txs,
		children: make([][]int32, n),
		state:    make([]uint8, n),
		mod:      make([]modStats, n),
		modPos:   make([]int32, n),
		mark:     make([]uint32, n),
	}
	// Children lists share one backing array.
	counts := make([]int32, n)
	total := 0
	for i := range c.Txs {
		for _, p := range c.Txs[i].Parents {
			counts[p]++
			total++
		}
	}
	flat := make([]int32, total)
	off := 0
	for i := range s.children {
		s.children[i] = flat[off : off : off+int(counts[i])]
		off += int(counts[i])
	}
	sorted := make([]int32, n)
	for i := range c.Txs {
		s.modPos[i] = -1
		sorted[i] = int32(i)
		for _, p := range c.Txs[i].Parents {
			s.children[p] = append(s.children[p], int32(i))
		}
	}
	// Each transaction's score is worked out once for the sort.
	scores := make([][2]int64, n)
	for i := range c.Txs {
		f, sz := scoreOf(&c.Txs[i], c.Txs[i].AncFees, c.Txs[i].AncSize)
		scores[i] = [2]int64{f, sz}
	}
	slices.SortFunc(sorted, func(a, b int32) int {
		return s.cmpScores(a, scores[a][0], scores[a][1], b, scores[b][0], scores[b][1])
	})

	t := &Selection{Weight: pol.ReservedWeight, SigOpCost: CoinbaseReservedSigOps}
	consecutiveFailed := 0
	var pkg []int32
	for mi := 0; mi < n || len(s.heap) > 0; {
		if mi < n {
			if e := sorted[mi]; s.state[e] != stPending || s.modPos[e] >= 0 {
				mi++
				continue
			}
		}
		var e int32
		var size, fees, sigs int64
		fromMod := false
		if len(s.heap) > 0 {
			h := s.heap[0]
			if mi >= n || s.better(h, s.mod[h].fees, s.mod[h].size, sorted[mi], c.Txs[sorted[mi]].AncFees, c.Txs[sorted[mi]].AncSize) {
				e, fromMod = h, true
				size, fees, sigs = s.mod[h].size, s.mod[h].fees, s.mod[h].sigs
			}
		}
		if !fromMod {
			e = sorted[mi]
			mi++
			size, fees, sigs = c.Txs[e].AncSize, c.Txs[e].AncFees, c.Txs[e].AncSigOps
		}
		if fees < pol.MinFeeRate.Fee(size) {
			break
		}
		if t.Weight+size*wire.WitnessScaleFactor >= pol.MaxWeight || t.SigOpCost+sigs >= blockchain.MaxBlockSigOpsCost {
			s.dropModified(e)
			s.state[e] = stFailed
			consecutiveFailed++
			if consecutiveFailed > maxConsecutiveFailures && t.Weight > pol.MaxWeight-4000 {
				break
			}
			continue
		}
		pkg = pkg[:0]
		for _, a := range s.relatives(e, true) {
			if s.state[a] != stIncluded {
				pkg = append(pkg, a)
			}
		}
		pkg = append(pkg, e)
		final := true
		for _, x := range pkg {
			if !blockchain.IsFinalTx(c.Txs[x].Tx, height, cutoff) {
				final = false
				break
			}
		}
		if !final {
			s.dropModified(e)
			s.state[e] = stFailed
			continue
		}
		consecutiveFailed = 0
		// Fewer in-pool ancestors first is a valid topological order.
		slices.SortFunc(pkg, func(a, b int32) int {
			ta, tb := &c.Txs[a], &c.Txs[b]
			switch {
			case ta.AncCount != tb.AncCount:
				if ta.AncCount < tb.AncCount {
					return -1
				}
				return 1
			case hashLess(&ta.TxID, &tb.TxID):
				return -1
			case hashLess(&tb.TxID, &ta.TxID):
				return 1
			}
			return 0
		})
		for _, x := range pkg {
			s.state[x] = stIncluded
			s.dropModified(x)
			tx := &c.Txs[x]
			t.Txs = append(t.Txs, tx.Tx)
			t.TxIDs = append(t.TxIDs, tx.TxID)
			t.Fees = append(t.Fees, tx.Fee)
			t.SigOpCosts = append(t.SigOpCosts, tx.SigOpCost)
			t.TotalFees += tx.Fee
			t.Weight += tx.Weight
			t.SigOpCost += tx.SigOpCost
		}
		// Re-score the descendants of what was added.
		for _, x := range pkg {
			added := &c.Txs[x]
			for _, d := range s.relatives(x, false) {
				if s.state[d] == stIncluded {
					continue
				}
				if s.modPos[d] < 0 {
					// A package that failed to fit may fit once its
					// ancestors are in: it competes again (as Core's
					// mapModifiedTx).
					s.mod[d] = modStats{size: c.Txs[d].AncSize, fees: c.Txs[d].AncFees, sigs: c.Txs[d].AncSigOps}
					s.push(d)
				}
				m := &s.mod[d]
				m.size -= added.VSize
				m.fees -= added.ModFee
				m.sigs -= added.SigOpCost
				s.fix(int(s.modPos[d]))
			}
		}
	}
	return t
}
