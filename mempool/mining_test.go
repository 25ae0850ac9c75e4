package mempool

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestTemplateCPFPOrder(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-200)     // ~1.8 sat/vB
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 100_000-200-5000) // child pays for parent
	c := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-1500)    // ~13.6 sat/vB
	d := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-3000)    // ~27 sat/vB
	for _, tx := range []*wire.MsgTx{a, b, c, d} {
		h.mustAccept(tx)
	}
	tmpl := h.pool.SelectTransactions(TemplateOptions{})
	want := []wire.Hash{d.TxHash(), a.TxHash(), b.TxHash(), c.TxHash()}
	if len(tmpl.TxIDs) != len(want) {
		t.Fatalf("selected %d", len(tmpl.TxIDs))
	}
	for i := range want {
		if tmpl.TxIDs[i] != want[i] {
			t.Fatalf("position %d: got %s want %s", i, tmpl.TxIDs[i], want[i])
		}
	}
	if tmpl.TotalFees != 200+5000+1500+3000 || tmpl.Fees[0] != 3000 {
		t.Fatalf("fees %d %v", tmpl.TotalFees, tmpl.Fees)
	}
	var w int64 = DefaultBlockReservedWeight
	for _, tx := range tmpl.Txs {
		w += tx.Weight()
	}
	if tmpl.Weight != w || tmpl.SigOpCost != CoinbaseReservedSigOps+4 { // four P2WPKH spends, one witness sigop each
		t.Fatalf("weight %d/%d sigops %d", tmpl.Weight, w, tmpl.SigOpCost)
	}

	// The minimum fee rate stops selection at the first package below it.
	tmpl = h.pool.SelectTransactions(TemplateOptions{MinFeeRate: 20_000})
	if len(tmpl.Txs) != 3 {
		t.Fatalf("with min fee rate: %d", len(tmpl.Txs))
	}

	// A weight limit that fits d and c but not the a+b package: the package
	// fails and the smaller c still goes in.
	e, _ := h.pool.Get(d.TxHash())
	limit := int64(DefaultBlockReservedWeight) + 4*e.VSize*2 + 4*e.VSize/2
	tmpl = h.pool.SelectTransactions(TemplateOptions{MaxWeight: limit})
	if len(tmpl.Txs) != 2 || tmpl.TxIDs[0] != d.TxHash() || tmpl.TxIDs[1] != c.TxHash() {
		t.Fatalf("weight-limited selection: %v", tmpl.TxIDs)
	}
}

func TestTemplateModifiedDescendants(t *testing.T) {
	// Two children of one parent: after the best child's package is taken,
	// the other child competes with its parent no longer counted.
	h := newHarness(t, nil)
	p := spend([]wire.OutPoint{h.coin(200_000)}, 99_000, 99_000) // fee 2000 over ~140 vB
	c1 := spend([]wire.OutPoint{outpoint(p, 0)}, 99_000-8000)
	c2 := spend([]wire.OutPoint{outpoint(p, 1)}, 99_000-2500)
	x := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-2000)
	for _, tx := range []*wire.MsgTx{p, c1, c2, x} {
		h.mustAccept(tx)
	}
	tmpl := h.pool.SelectTransactions(TemplateOptions{})
	want := []wire.Hash{p.TxHash(), c1.TxHash(), c2.TxHash(), x.TxHash()}
	for i := range want {
		if tmpl.TxIDs[i] != want[i] {
			t.Fatalf("position %d: got %s want %s", i, tmpl.TxIDs[i], want[i])
		}
	}
}
