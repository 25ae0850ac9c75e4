package mempool

import (
	"bytes"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// pair builds a parent spending op with one output and a child spending
// it; tag varies the outputs so pairs on the same coin differ.
func pair(op wire.OutPoint, parentFee, childFee int64, tag byte) (*wire.MsgTx, *wire.MsgTx) {
	parent := spend([]wire.OutPoint{op}, 1_000_000-parentFee)
	parent.TxOut[0].PkScript = p2wpkh(tag)
	child := spend([]wire.OutPoint{outpoint(parent, 0)}, 1_000_000-parentFee-childFee)
	child.TxOut[0].PkScript = p2wpkh(tag + 1)
	return parent, child
}

func TestPackageRBF(t *testing.T) {
	h := newHarness(t, nil)
	op := h.coin(1_000_000)
	p1, c1 := pair(op, 1000, 1000, 10)
	if res := h.pool.AcceptPackage([]*wire.MsgTx{p1, c1}, PackageOptions{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	// The new parent alone pays no more than p1 and fails the
	// replacement rules; its child pays for both.
	p2, c2 := pair(op, 1000, 4000, 20)
	res := h.pool.AcceptPackage([]*wire.MsgTx{p2, c2}, PackageOptions{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	h.check()
	got := res.Results[p2.WitnessHash()].Replaced
	if len(got) != 2 || h.pool.Has(p1.TxHash()) || h.pool.Has(c1.TxHash()) || !h.pool.Has(c2.TxHash()) {
		t.Fatalf("replaced %v", got)
	}

	// Less in absolute fees than what it replaces.
	p3, c3 := pair(op, 1000, 3999, 30)
	res = h.pool.AcceptPackage([]*wire.MsgTx{p3, c3}, PackageOptions{})
	want := "package RBF failed: insufficient anti-DoS fees, rejecting replacement " + c3.TxHash().String() +
		", less fees than conflicting txs; 0.00004999 < 0.00005"
	if res.Err == nil || res.Err.Error() != want {
		t.Fatalf("got %v\nwant %s", res.Err, want)
	}
	// A child not raising the pair above its parent's own rate (both
	// have the same size); the parent alone pays less than it evicts.
	p4, c4 := pair(op, 4000, 4000, 40)
	res = h.pool.AcceptPackage([]*wire.MsgTx{p4, c4}, PackageOptions{})
	if res.Err == nil || !strings.HasPrefix(res.Err.Error(), "package RBF failed: package feerate is less than or equal to parent feerate, package feerate ") {
		t.Fatalf("%v", res.Err)
	}
}

func TestPackageRBFRestrictions(t *testing.T) {
	h := newHarness(t, nil)
	op1, op2 := h.coin(1_000_000), h.coin(1_000_000)
	pa, ca := pair(op1, 1000, 1000, 10)
	pb, cb := pair(op2, 1000, 1000, 12)
	for _, pkg := range [][]*wire.MsgTx{{pa, ca}, {pb, cb}} {
		if res := h.pool.AcceptPackage(pkg, PackageOptions{}); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	// Three members: not a package replacement.
	x1 := spend([]wire.OutPoint{op1}, 999_000)
	x1.TxOut[0].PkScript = p2wpkh(50)
	x2 := spend([]wire.OutPoint{op2}, 999_000)
	x2.TxOut[0].PkScript = p2wpkh(51)
	xc := spend([]wire.OutPoint{outpoint(x1, 0), outpoint(x2, 0)}, 1_900_000)
	res := h.pool.AcceptPackage([]*wire.MsgTx{x1, x2, xc}, PackageOptions{})
	if res.Err == nil || res.Err.Reason != "package RBF failed: package must be 1-parent-1-child" {
		t.Fatalf("%v", res.Err)
	}
	// A member with an in-pool ancestor.
	anc := spend([]wire.OutPoint{h.coin(1_000_000)}, 999_000)
	h.mustAccept(anc)
	y := spend([]wire.OutPoint{outpoint(anc, 0)}, 998_900)
	yc := spend([]wire.OutPoint{outpoint(y, 0), op1}, 1_990_000)
	res = h.pool.TestAcceptPackage([]*wire.MsgTx{y, yc})
	if res.Err == nil {
		// testmempoolaccept does not replace at all.
		if txErr(t, res, yc).Reason != ReasonReplacementDisallowed {
			t.Fatal("conflict allowed in a test")
		}
	}
	h.pool.rollingMinFee = 2000
	res = h.pool.AcceptPackage([]*wire.MsgTx{y, yc}, PackageOptions{})
	if res.Err == nil || res.Err.Reason != "package RBF failed: new transaction cannot have mempool ancestors" {
		t.Fatalf("%v", res.Err)
	}
}

func TestPackageRBFClusterTopology(t *testing.T) {
	h := newHarness(t, nil)
	c1, c2, c3 := h.coin(1_000_000), h.coin(1_000_000), h.coin(1_000_000)
	// parent -> child -> grandchild, each also spending a coin.
	parent := spend([]wire.OutPoint{c1}, 999_000)
	child := spend([]wire.OutPoint{outpoint(parent, 0), c2}, 1_998_000)
	grand := spend([]wire.OutPoint{outpoint(child, 0), c3}, 2_997_000)
	for _, tx := range []*wire.MsgTx{parent, child, grand} {
		h.mustAccept(tx)
	}
	msgs := map[wire.Hash]string{
		parent.TxHash(): parent.TxHash().String() + " has 2 descendants, max 1 allowed",
		child.TxHash():  child.TxHash().String() + " has both ancestor and descendant, exceeding cluster limit of 2",
		grand.TxHash():  grand.TxHash().String() + " has 2 ancestors, max 1 allowed",
	}
	// The evicted set is walked in txid byte order, as Core's sets are:
	// the first offender names the failure.
	first := func(txs ...*wire.MsgTx) string {
		best := txs[0].TxHash()
		for _, tx := range txs[1:] {
			if id := tx.TxHash(); bytes.Compare(id[:], best[:]) < 0 {
				best = id
			}
		}
		return "package RBF failed: " + msgs[best]
	}
	for _, c := range []struct {
		op   wire.OutPoint
		want string
	}{
		{c1, first(parent, child, grand)},
		{c2, first(child, grand)},
		{c3, first(grand)},
	} {
		p, k := pair(c.op, 1000, 40_000, 70)
		res := h.pool.AcceptPackage([]*wire.MsgTx{p, k}, PackageOptions{})
		if res.Err == nil || res.Err.Error() != c.want {
			t.Fatalf("got %v\nwant %s", res.Err, c.want)
		}
	}
	// A parent with two children, evicted through one child.
	h = newHarness(t, nil)
	d1, d2, d3 := h.coin(1_000_000), h.coin(1_000_000), h.coin(1_000_000)
	top := spend([]wire.OutPoint{d1}, 499_000, 499_000)
	k1 := spend([]wire.OutPoint{outpoint(top, 0), d2}, 1_498_000)
	k2 := spend([]wire.OutPoint{outpoint(top, 1), d3}, 1_498_000)
	for _, tx := range []*wire.MsgTx{top, k1, k2} {
		h.mustAccept(tx)
	}
	p, k := pair(d3, 1000, 40_000, 80)
	res := h.pool.AcceptPackage([]*wire.MsgTx{p, k}, PackageOptions{})
	want := "package RBF failed: " + k2.TxHash().String() + " is not the only child of parent " + top.TxHash().String()
	if res.Err == nil || res.Err.Error() != want {
		t.Fatalf("got %v\nwant %s", res.Err, want)
	}
}

func TestPackageRBFFeerateDiagram(t *testing.T) {
	h := newHarness(t, nil)
	op := h.coin(1_000_000)
	// A high-rate parent with a cheap child.
	p1, c1 := pair(op, 4000, 1000, 10)
	if res := h.pool.AcceptPackage([]*wire.MsgTx{p1, c1}, PackageOptions{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	// More fees in total, but the new pair's rate is below the evicted
	// parent's: the diagram gets worse at its start.
	p2, c2 := pair(op, 3999, 4000, 20)
	res := h.pool.AcceptPackage([]*wire.MsgTx{p2, c2}, PackageOptions{})
	if res.Err == nil || res.Err.Error() != "package RBF failed: insufficient feerate: does not improve feerate diagram" {
		t.Fatalf("%v", res.Err)
	}
}

func TestDiagramBetter(t *testing.T) {
	for _, c := range []struct {
		a, b []feeFrac
		want bool
	}{
		{[]feeFrac{{200, 100}}, []feeFrac{{100, 100}}, true},
		{[]feeFrac{{100, 100}}, []feeFrac{{100, 100}}, false},
		// Same total, worse start.
		{[]feeFrac{{150, 200}}, []feeFrac{{100, 50}, {50, 150}}, false},
		// Better start, same end.
		{[]feeFrac{{100, 50}, {50, 150}}, []feeFrac{{150, 200}}, true},
		// Larger but lower rate: more fee overall, worse start.
		{[]feeFrac{{300, 400}}, []feeFrac{{200, 100}}, false},
	} {
		if got := diagramBetter(c.a, c.b); got != c.want {
			t.Fatalf("%v vs %v: %v", c.a, c.b, got)
		}
	}
}
