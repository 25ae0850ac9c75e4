package node

import (
	"testing"
	"time"
)

// utxoStats flushes a node and returns its UTXO set statistics.
func utxoStats(t testing.TB, n *testNode) (outputs uint64, amount int64, hash [32]byte) {
	t.Helper()
	if err := n.s.chain.Flush(); err != nil {
		t.Fatal(err)
	}
	st, err := n.s.cs.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return st.Outputs, st.TotalAmount, st.Hash
}

// TestSyncFollowAndReorg: node B syncs A's chain (with transactions)
// through headers-first download, follows new blocks, and both reorganize
// to a longer chain mined by C.
func TestSyncFollowAndReorg(t *testing.T) {
	a := newTestNode(t)
	a.mine(t, 110)
	txs := 0
	for h := int32(1); h <= 10; h++ {
		txs += a.addTxs(t, h, 8)
		a.mine(t, 1)
	}
	a.mine(t, 80)
	if a.s.pool.Count() != 0 {
		t.Fatalf("mempool not emptied by mining: %d", a.s.pool.Count())
	}

	b := newTestNode(t, "--connect="+a.s.p2pAddr())
	sameTip(t, 60*time.Second, a, b)
	oa, va, ha := utxoStats(t, a)
	ob, vb, hb := utxoStats(t, b)
	if oa != ob || va != vb || ha != hb {
		t.Fatalf("UTXO sets differ: A %d/%d/%x B %d/%d/%x", oa, va, ha, ob, vb, hb)
	}
	blocks, btxs := b.s.sync.Processed()
	t.Logf("B synced %d blocks, %d transactions (%d non-coinbase made)", blocks, btxs, txs)

	// B follows blocks A mines now, with transactions relayed to B's
	// mempool first.
	a.addTxs(t, 20, 4)
	waitFor(t, 60*time.Second, "transactions relayed to B", func() bool { return b.s.pool.Count() == 5 })
	a.mine(t, 3)
	sameTip(t, 20*time.Second, a, b)
	if b.s.pool.Count() != 0 {
		t.Fatalf("B's mempool keeps %d mined transactions", b.s.pool.Count())
	}

	// C mines a longer chain of its own and connects to A; A and B
	// reorganize to it.
	c := newTestNode(t)
	ha0 := a.s.chain.BestSnapshot().Height
	c.mine(t, int(ha0)+5)
	if err := c.s.connect(a.s.p2pAddr(), true); err != nil {
		t.Fatal(err)
	}
	sameTip(t, 60*time.Second, c, a)
	sameTip(t, 60*time.Second, c, b)
}
