package node

import (
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// Node-level tests with really signed transactions for the mempool rules
// that mempool's own tests cover only with fakes: the CPFP carve-out,
// -mempoolexpiry and -datacarriersize.

// TestMempoolCPFPCarveOut fills a parent's descendant count (25) through
// one output, then shows Core's carve-out: one more child of at most
// 10,000 vB whose only unconfirmed ancestor is that parent is accepted,
// while a child over 10,000 vB, a second carve-out child and a grandchild
// of the carve-out child are refused.
func TestMempoolCPFPCarveOut(t *testing.T) {
	n, w := mempoolNode(t, 101)
	cb := n.coinbaseCoin(t, 1)
	// Three outputs: branch A, the carve-out output and a second
	// would-be carve-out output.
	parent, outs := w.split(cb, 3, 10_000)
	n.mustSend(t, parent)

	// Branch A: one child with 24 outputs and 23 grandchildren makes the
	// parent's descendant count (itself included) 25.
	a1, aOuts := w.split(outs[0], 24, 10_000)
	n.mustSend(t, a1)
	spend := func(c mpCoin) *wire.MsgTx {
		return w.build([]mpCoin{c}, []wire.TxOut{{Value: c.value - 1_000, PkScript: w.pkScript}})
	}
	for i := 0; i < 23; i++ {
		n.mustSend(t, spend(aOuts[i]))
	}
	pe, ok := n.s.pool.Get(parent.TxHash())
	if !ok || pe.DescCount != 25 {
		t.Fatalf("parent in pool %v, descendant count %d, want 25", ok, pe.DescCount)
	}

	// The 24th grandchild has two unconfirmed ancestors, so the carve-out
	// does not apply: the parent's descendant limit refuses it.
	// testmempoolaccept gives the bare reason (as Core does);
	// sendrawtransaction's error carries the detail.
	gc24 := spend(aOuts[23])
	wantReason(t, "26th descendant on branch A", n.testAccept(t, gc24), "too-long-mempool-chain")
	r := n.sendTx(t, gc24)
	wantReason(t, "26th descendant on branch A (send)", r, "too-long-mempool-chain")
	if !strings.Contains(r, "too many descendants for tx "+parent.TxHash().String()) {
		t.Errorf("26th descendant rejected with %q, want the parent's descendant limit", r)
	}

	// A carve-out candidate over 10,000 vB is refused.
	big := make([]wire.TxOut, 330)
	for i := range big {
		big[i] = wire.TxOut{Value: (outs[1].value - 50_000) / int64(len(big)), PkScript: w.pkScript}
	}
	bigTx := w.build([]mpCoin{outs[1]}, big)
	if vs := (bigTx.Weight() + 3) / 4; vs <= 10_000 {
		t.Fatalf("big child is only %d vB", vs)
	}
	wantReason(t, "carve-out child over 10,000 vB", n.testAccept(t, bigTx), "too-long-mempool-chain")

	// A small child with the parent as its only unconfirmed ancestor is
	// the carve-out.
	c1 := w.build([]mpCoin{outs[1]}, []wire.TxOut{
		{Value: outs[1].value/2 - 1_000, PkScript: w.pkScript},
		{Value: outs[1].value / 2, PkScript: w.pkScript},
	})
	if r := n.testAccept(t, c1); r != "" {
		t.Fatalf("carve-out child refused by testmempoolaccept: %s", r)
	}
	n.mustSend(t, c1)
	if pe, _ := n.s.pool.Get(parent.TxHash()); pe.DescCount != 26 {
		t.Fatalf("parent descendant count %d after carve-out, want 26", pe.DescCount)
	}

	// Only one carve-out: a second small child of the parent is refused,
	// and so is a child of the carve-out child (two unconfirmed
	// ancestors).
	c2 := spend(outs[2])
	wantReason(t, "second carve-out child", n.sendTx(t, c2), "too-long-mempool-chain")
	gc := spend(txCoins(c1)[0])
	wantReason(t, "grandchild of carve-out child", n.sendTx(t, gc), "too-long-mempool-chain")
	if n.s.pool.Has(c2.TxHash()) || n.s.pool.Has(gc.TxHash()) {
		t.Fatal("a refused transaction is in the pool")
	}
	if got := n.s.pool.Count(); got != 1+1+23+1 {
		t.Fatalf("pool holds %d transactions, want 26", got)
	}
}

// TestMempoolExpiry: with --mempoolexpiry=1 a transaction (and its
// descendant) leaves the pool once the pool's clock is more than an hour
// past its entry time, and stays before that. The node's pool uses the
// wall clock (server.go sets no mempool.Config.Now), so the test drives
// the pool's Expire with a later time instead of waiting.
func TestMempoolExpiry(t *testing.T) {
	n, w := mempoolNode(t, 101, "--mempoolexpiry=1")
	cb := n.coinbaseCoin(t, 1)
	parent := w.build([]mpCoin{cb}, []wire.TxOut{{Value: cb.value - 1_000, PkScript: w.pkScript}})
	n.mustSend(t, parent)
	pc := txCoins(parent)[0]
	child := w.build([]mpCoin{pc}, []wire.TxOut{{Value: pc.value - 1_000, PkScript: w.pkScript}})
	n.mustSend(t, child)
	start := time.Now()

	if got := n.s.pool.Expire(start.Add(50 * time.Minute)); got != 0 {
		t.Fatalf("Expire 50 min later removed %d transactions, want 0", got)
	}
	if n.s.pool.Count() != 2 {
		t.Fatalf("pool holds %d transactions before expiry, want 2", n.s.pool.Count())
	}
	if got := n.s.pool.Expire(start.Add(61 * time.Minute)); got != 2 {
		t.Fatalf("Expire 61 min later removed %d transactions, want 2", got)
	}
	for _, tx := range []*wire.MsgTx{parent, child} {
		if n.s.pool.Has(tx.TxHash()) {
			t.Errorf("%v still in the pool after expiry", tx.TxHash())
		}
		if _, rerr := n.rpcCall(t, "getmempoolentry", tx.TxHash().String()); rerr == nil {
			t.Errorf("getmempoolentry %v succeeded after expiry", tx.TxHash())
		}
	}
	// The expired coins are spendable again: the parent is re-accepted.
	n.mustSend(t, parent)
}

// TestMempoolDataCarrier: --datacarriersize=N bounds the summed size of
// all OP_RETURN output scripts (Core 30); a script of N bytes is
// accepted, N+1 bytes or two scripts summing past N are refused with
// "datacarrier".
func TestMempoolDataCarrier(t *testing.T) {
	const limit = 40
	n, w := mempoolNode(t, 101, "--datacarriersize=40")
	cb := n.coinbaseCoin(t, 1)
	// nullData is an OP_RETURN script of exactly size bytes: OP_RETURN,
	// one direct push opcode and its data.
	nullData := func(size int) []byte {
		s := make([]byte, size)
		s[0], s[1] = 0x6a, byte(size-2)
		for i := 2; i < size; i++ {
			s[i] = byte(i)
		}
		return s
	}
	withData := func(scripts ...[]byte) *wire.MsgTx {
		outs := []wire.TxOut{{Value: cb.value - 10_000, PkScript: w.pkScript}}
		for _, s := range scripts {
			outs = append(outs, wire.TxOut{Value: 0, PkScript: s})
		}
		return w.build([]mpCoin{cb}, outs)
	}

	over := withData(nullData(limit + 1))
	wantReason(t, "OP_RETURN over the limit", n.testAccept(t, over), "datacarrier")
	two := withData(nullData(limit/2+1), nullData(limit/2))
	wantReason(t, "two OP_RETURNs summing over the limit", n.testAccept(t, two), "datacarrier")
	wantReason(t, "sendrawtransaction over the limit", n.sendTx(t, over), "datacarrier")

	at := withData(nullData(limit))
	if r := n.testAccept(t, at); r != "" {
		t.Fatalf("OP_RETURN at the limit refused: %s", r)
	}
	split := withData(nullData(limit/2), nullData(limit/2))
	if r := n.testAccept(t, split); r != "" {
		t.Fatalf("two OP_RETURNs summing to the limit refused: %s", r)
	}
	n.mustSend(t, at)
	if !n.s.pool.Has(at.TxHash()) {
		t.Fatal("accepted OP_RETURN transaction is not in the pool")
	}
}
