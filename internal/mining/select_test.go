package mining

import (
	"slices"
	"testing"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/wire"
)

// TestSelectCPFP: a child paying for its parent lifts the package above a
// transaction with a better own rate than the parent's; the package goes
// in parent first. The minimum fee rate ends selection and a weight limit
// skips a package that does not fit for a smaller one that does.
func TestSelectCPFP(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-200)     // ~1.8 sat/vB
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 100_000-200-5000) // child pays for parent
	c := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-1500)    // ~13.6 sat/vB
	d := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-3000)    // ~27 sat/vB
	h.accept(a, b, c, d)
	sel := h.selection(Policy{})
	if want := ids(d, a, b, c); !slices.Equal(sel.TxIDs, want) {
		t.Fatalf("order %v, want %v", sel.TxIDs, want)
	}
	if sel.TotalFees != 200+5000+1500+3000 || sel.Fees[0] != 3000 {
		t.Fatalf("fees %d %v", sel.TotalFees, sel.Fees)
	}
	var w int64 = DefaultBlockReservedWeight
	for _, tx := range sel.Txs {
		w += tx.Weight()
	}
	if sel.Weight != w || sel.SigOpCost != CoinbaseReservedSigOps+4 { // four P2WPKH spends, one witness sigop each
		t.Fatalf("weight %d/%d sigops %d", sel.Weight, w, sel.SigOpCost)
	}

	// The minimum fee rate stops selection at the first package below it.
	if sel := h.selection(Policy{MinFeeRate: 20_000}); len(sel.Txs) != 3 {
		t.Fatalf("with min fee rate: %d", len(sel.Txs))
	}

	// A weight limit that fits d and c but not the a+b package: the package
	// fails and the smaller c still goes in.
	e, _ := h.pool.Get(d.TxHash())
	limit := int64(DefaultBlockReservedWeight) + 4*e.VSize*2 + 4*e.VSize/2
	if sel := h.selection(Policy{MaxWeight: limit}); !slices.Equal(sel.TxIDs, ids(d, c)) {
		t.Fatalf("weight-limited selection: %v", sel.TxIDs)
	}
}

// TestSelectModifiedDescendants: after the best child's package is taken,
// the other child competes with its parent no longer counted.
func TestSelectModifiedDescendants(t *testing.T) {
	h := newHarness(t, nil)
	p := spend([]wire.OutPoint{h.coin(200_000)}, 99_000, 99_000) // fee 2000 over ~140 vB
	c1 := spend([]wire.OutPoint{outpoint(p, 0)}, 99_000-8000)
	c2 := spend([]wire.OutPoint{outpoint(p, 1)}, 99_000-2500)
	x := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-2000)
	h.accept(p, c1, c2, x)
	if sel := h.selection(Policy{}); !slices.Equal(sel.TxIDs, ids(p, c1, c2, x)) {
		t.Fatalf("order %v", sel.TxIDs)
	}
}

// TestSelectPrioritised: selection ranks by the modified fee and reports
// the real one.
func TestSelectPrioritised(t *testing.T) {
	h := newHarness(t, nil)
	cheap := spend([]wire.OutPoint{h.coin(100_000)}, 99_900)
	dear := spend([]wire.OutPoint{h.coin(100_000)}, 90_000)
	h.accept(cheap, dear)
	h.pool.PrioritiseTransaction(cheap.TxHash(), 1_000_000)
	sel := h.selection(Policy{})
	if !slices.Equal(sel.TxIDs, ids(cheap, dear)) {
		t.Fatal("prioritised transaction not first")
	}
	if sel.Fees[0] != 100 || sel.TotalFees != 10_100 {
		t.Fatalf("fees %v total %d", sel.Fees, sel.TotalFees)
	}
}

// TestSelectMinFeeRateDefault: a zero-fee transaction is not mined under
// the default -blockmintxfee, and is with a negative floor.
func TestSelectMinFeeRateDefault(t *testing.T) {
	h := newHarness(t, nil)
	free := spend([]wire.OutPoint{h.coin(100_000)}, 100_000)
	if _, err := h.pool.AcceptTransaction(free, mempool.AcceptOptions{BypassLimits: true}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.selection(Policy{}).Txs); n != 0 {
		t.Fatalf("free transaction mined: %d", n)
	}
	if n := len(h.selection(Policy{MinFeeRate: -1}).Txs); n != 1 {
		t.Fatalf("no floor: %d", n)
	}
}

// synthetic builds a candidate set directly: fee, vsize and sigops per
// transaction, parents by index; ancestor statistics are summed here.
func synthetic(specs ...[3]int64) *mempool.Candidates {
	c := &mempool.Candidates{Tip: mempool.ChainTip{Height: 100}}
	for i, s := range specs {
		tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: uint32(i)}}}}
		c.Txs = append(c.Txs, mempool.Candidate{
			Tx: tx, TxID: tx.TxHash(), Fee: s[0], ModFee: s[0], VSize: s[1], Weight: 4 * s[1], SigOpCost: s[2],
			AncCount: 1, AncSize: s[1], AncFees: s[0], AncSigOps: s[2],
		})
	}
	return c
}

// link makes parent a parent of child (ancestor statistics of one level).
func link(c *mempool.Candidates, child, parent int32) {
	x, p := &c.Txs[child], &c.Txs[parent]
	x.Parents = append(x.Parents, parent)
	x.AncCount += p.AncCount
	x.AncSize += p.AncSize
	x.AncFees += p.AncFees
	x.AncSigOps += p.AncSigOps
}

func order(c *mempool.Candidates, sel *Selection) []int {
	var out []int
	for _, id := range sel.TxIDs {
		for i := range c.Txs {
			if c.Txs[i].TxID == id {
				out = append(out, i)
			}
		}
	}
	return out
}

// TestSelectAncestorScore: packages go by the lower of own and package
// rate; a package is taken whole, ancestors first; equal scores go by
// txid.
func TestSelectAncestorScore(t *testing.T) {
	c := synthetic(
		[3]int64{1000, 100, 0},  // 0: 10 sat/vB
		[3]int64{100, 100, 0},   // 1: 1 sat/vB parent of 2
		[3]int64{5000, 100, 0},  // 2: package with 1: 25.5 sat/vB
		[3]int64{2000, 100, 0},  // 3: 20 sat/vB
		[3]int64{30000, 100, 0}, // 4: 300 sat/vB, parent of 5
		[3]int64{100, 100, 0},   // 5: own 1 sat/vB: its score is its own rate
		[3]int64{2000, 100, 0},  // 6: ties with 3
	)
	link(c, 2, 1)
	link(c, 5, 4)
	sel := Select(c, Policy{})
	tie := []int{3, 6}
	if hashLess(&c.Txs[6].TxID, &c.Txs[3].TxID) {
		tie = []int{6, 3}
	}
	want := append(append([]int{4, 1, 2}, tie...), 0, 5)
	if got := order(c, sel); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// TestSelectSigOpLimit: a package whose sigops would pass the block limit
// is skipped and smaller ones after it still go in.
func TestSelectSigOpLimit(t *testing.T) {
	room := int64(blockchain.MaxBlockSigOpsCost - CoinbaseReservedSigOps)
	c := synthetic(
		[3]int64{10000, 100, room / 2}, // 0: best
		[3]int64{9000, 100, room / 2},  // 1: would reach the limit
		[3]int64{8000, 100, 10},        // 2: fits
	)
	if got := order(c, Select(c, Policy{})); !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("order %v", got)
	}
}

// TestSelectWeightLimitPackage: a package over the weight room fails as a
// whole; its parent alone still fits later.
func TestSelectWeightLimitPackage(t *testing.T) {
	c := synthetic(
		[3]int64{500, 1000, 0},   // 0: parent, 0.5 sat/vB
		[3]int64{50000, 1000, 0}, // 1: child: package 25.25 sat/vB over 2000 vB
		[3]int64{1000, 100, 0},   // 2: 10 sat/vB
	)
	link(c, 1, 0)
	pol := Policy{MaxWeight: DefaultBlockReservedWeight + 4*1500}
	if got := order(c, Select(c, pol)); !slices.Equal(got, []int{2, 0}) {
		t.Fatalf("order %v", got)
	}
}

// TestSelectNonFinal: a package with a transaction not final in the next
// block is left out.
func TestSelectNonFinal(t *testing.T) {
	c := synthetic([3]int64{1000, 100, 0}, [3]int64{2000, 100, 0}, [3]int64{500, 100, 0})
	c.Txs[0].Tx.LockTime = 500 // height lock above the next block (101)
	c.Txs[0].Tx.TxIn[0].Sequence = 0
	link(c, 1, 0)
	if got := order(c, Select(c, Policy{})); !slices.Equal(got, []int{2}) {
		t.Fatalf("order %v", got)
	}
}

// BenchmarkSelect5000 selects from 5,000 candidates, three quarters of
// them in chains of four whose fees vary (so packages are re-scored).
func BenchmarkSelect5000(b *testing.B) {
	var specs [][3]int64
	for i := range 5000 {
		specs = append(specs, [3]int64{int64(300 + (i*7919)%5000), 110, 1})
	}
	c := synthetic(specs...)
	for i := 0; i+4 <= len(c.Txs); i += 4 {
		// Chains i <- i+1 <- i+2 <- i+3 in three groups of four.
		if (i/4)%4 != 0 {
			for d := 1; d < 4; d++ {
				link(c, int32(i+d), int32(i+d-1))
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Select(c, Policy{})
	}
}
