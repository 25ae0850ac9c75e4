package mempool

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

func deltaOf(p *Pool, txid wire.Hash) (PrioritisedTx, bool) {
	for _, pt := range p.PrioritisedTransactions() {
		if pt.TxID == txid {
			return pt, true
		}
	}
	return PrioritisedTx{}, false
}

func TestPrioritiseInPool(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	c := spend([]wire.OutPoint{outpoint(b, 0)}, 97_000)
	for _, tx := range []*wire.MsgTx{a, b, c} {
		h.mustAccept(tx)
	}
	if err := h.pool.PrioritiseTransaction(b.TxHash(), 5000); err != nil {
		t.Fatal(err)
	}
	h.check()
	eb, _ := h.pool.Get(b.TxHash())
	ea, _ := h.pool.Get(a.TxHash())
	ec, _ := h.pool.Get(c.TxHash())
	if eb.Fee != 1000 || eb.ModFee != 6000 || ea.DescFees != 8000 || ec.AncFees != 8000 || ea.AncFees != 1000 {
		t.Fatalf("b %d/%d a desc %d c anc %d", eb.Fee, eb.ModFee, ea.DescFees, ec.AncFees)
	}
	pt, ok := deltaOf(h.pool, b.TxHash())
	if !ok || pt.Delta != 5000 || !pt.InMempool || pt.ModifiedFee != 6000 {
		t.Fatalf("%+v", pt)
	}
	// Deltas add up; back to zero they are forgotten.
	h.pool.PrioritiseTransaction(b.TxHash(), -5000)
	if _, ok := deltaOf(h.pool, b.TxHash()); ok {
		t.Fatal("zero delta kept")
	}
	h.pool.PrioritiseTransaction(wire.Hash{1}, 0)
	if len(h.pool.PrioritisedTransactions()) != 0 {
		t.Fatal("zero delta added")
	}
	h.check()
}

func TestPrioritiseBeforeEntryAndMined(t *testing.T) {
	h := newHarness(t, nil)
	free := spend([]wire.OutPoint{h.coin(100_000)}, 100_000)
	h.mustReject(free, ReasonMinRelayFee)
	h.pool.PrioritiseTransaction(free.TxHash(), 1000)
	if pt, _ := deltaOf(h.pool, free.TxHash()); pt.InMempool || pt.Delta != 1000 {
		t.Fatalf("%+v", pt)
	}
	res := h.mustAccept(free)
	if res.Fee != 0 || res.ModifiedFee != 1000 || res.Entry.ModFee != 1000 {
		t.Fatalf("%+v", res)
	}
	// Mining forgets the delta.
	blk := h.chain.connect(free)
	h.pool.BlockConnected(blk, h.chain.height)
	if len(h.pool.PrioritisedTransactions()) != 0 {
		t.Fatal("delta outlived the block")
	}
}

func TestPrioritiseSurvivesReplacement(t *testing.T) {
	h := newHarness(t, nil)
	op := h.coin(100_000)
	old := spend([]wire.OutPoint{op}, 99_000)
	h.pool.PrioritiseTransaction(old.TxHash(), 100)
	h.mustAccept(old)
	// The replacement must beat the modified fee: 1100 + relay.
	low := spend([]wire.OutPoint{op}, 98_950)
	low.TxOut[0].PkScript = p2wpkh(40)
	h.mustReject(low, ReasonInsufficientFee)
	repl := spend([]wire.OutPoint{op}, 98_000)
	repl.TxOut[0].PkScript = p2wpkh(41)
	h.mustAccept(repl)
	if pt, ok := deltaOf(h.pool, old.TxHash()); !ok || pt.InMempool || pt.Delta != 100 {
		t.Fatalf("%+v %v", pt, ok)
	}
}

func TestPrioritiseMiningAndEviction(t *testing.T) {
	h := newHarness(t, nil)
	cheap := spend([]wire.OutPoint{h.coin(100_000)}, 99_900)
	dear := spend([]wire.OutPoint{h.coin(100_000)}, 90_000)
	h.mustAccept(cheap)
	h.mustAccept(dear)
	h.pool.PrioritiseTransaction(cheap.TxHash(), 1_000_000)
	// Block assembly ranks by the modified fee and pays the real one
	// (internal/mining's TestSelectPrioritised mines it first).
	found := false
	for _, c := range h.pool.Candidates().Txs {
		if c.TxID == cheap.TxHash() {
			found = true
			if c.Fee != 100 || c.ModFee != 1_000_100 || c.AncFees != 1_000_100 {
				t.Fatalf("fee %d modified %d ancestor fees %d", c.Fee, c.ModFee, c.AncFees)
			}
		}
	}
	if !found {
		t.Fatal("prioritised transaction not a candidate")
	}
	// Eviction goes by modified fee: the de-prioritised one leaves first.
	h.pool.PrioritiseTransaction(dear.TxHash(), -9_990)
	h.pool.TrimToSize(h.pool.Usage() - 1)
	if h.pool.Has(dear.TxHash()) || !h.pool.Has(cheap.TxHash()) {
		t.Fatal("evicted by base fee")
	}
	h.check()
}

func TestFeeRateAndMoneyStrings(t *testing.T) {
	for _, c := range []struct {
		sat  int64
		want string
	}{{50000, "0.0005"}, {100_000_000, "1.00"}, {313, "0.00000313"}, {-4999, "-0.00004999"}, {0, "0.00"}} {
		if got := formatMoney(c.sat); got != c.want {
			t.Fatalf("formatMoney(%d) = %s", c.sat, got)
		}
	}
	if s := FeeRate(1000).String(); s != "0.00001000 BTC/kvB" {
		t.Fatal(s)
	}
}
