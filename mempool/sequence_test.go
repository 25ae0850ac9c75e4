package mempool

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestSequenceAndOnRemove checks bitcoind's mempool_sequence semantics:
// each addition and each removal takes its own number, and removals other
// than by a block are reported with theirs.
func TestSequenceAndOnRemove(t *testing.T) {
	type removal struct {
		txid wire.Hash
		seq  uint64
	}
	var removed []removal
	h := newHarness(t, func(c *Config) {
		c.OnRemove = func(txid wire.Hash, seq uint64) { removed = append(removed, removal{txid, seq}) }
	})
	op := h.coin(100_000)
	orig := spend([]wire.OutPoint{op}, 99_000)
	h.mustAccept(orig)
	child := spend([]wire.OutPoint{outpoint(orig, 0)}, 98_000)
	h.mustAccept(child)
	e, ok := h.pool.Get(child.TxHash())
	if !ok || e.Sequence != 1 {
		t.Fatalf("child sequence %v (found %v), want 1", e.Sequence, ok)
	}
	good := spend([]wire.OutPoint{op}, 97_900)
	good.TxOut[0].PkScript = p2wpkh(53)
	h.mustAccept(good)
	if len(removed) != 2 {
		t.Fatalf("%d removals reported, want 2", len(removed))
	}
	if removed[0].seq == removed[1].seq || removed[0].seq < 2 || removed[1].seq < 2 {
		t.Fatalf("removal sequences %+v", removed)
	}
	ge, _ := h.pool.Get(good.TxHash())
	if ge.Sequence != 4 || h.pool.Sequence() != 5 {
		t.Fatalf("replacement sequence %d, pool %d; want 4, 5", ge.Sequence, h.pool.Sequence())
	}
	// Confirmation in a block is not reported as a removal.
	removed = nil
	blk := h.chain.connect(good)
	h.pool.BlockConnected(blk, 1)
	if len(removed) != 0 {
		t.Fatalf("block removal reported: %+v", removed)
	}
}

// OnReplaced is given the transactions a replacement evicts, whole, and
// nothing that leaves for another reason.
func TestOnReplaced(t *testing.T) {
	var replaced []*wire.MsgTx
	h := newHarness(t, func(c *Config) {
		c.OnReplaced = func(tx *wire.MsgTx) { replaced = append(replaced, tx) }
	})
	op := h.coin(100_000)
	orig := spend([]wire.OutPoint{op}, 99_000)
	h.mustAccept(orig)
	child := spend([]wire.OutPoint{outpoint(orig, 0)}, 98_000)
	h.mustAccept(child)
	good := spend([]wire.OutPoint{op}, 97_900)
	good.TxOut[0].PkScript = p2wpkh(53)
	h.mustAccept(good)
	if len(replaced) != 2 {
		t.Fatalf("%d replaced transactions reported, want 2", len(replaced))
	}
	got := map[wire.Hash]bool{replaced[0].TxHash(): true, replaced[1].TxHash(): true}
	if !got[orig.TxHash()] || !got[child.TxHash()] {
		t.Fatal("the replaced transactions are not the original and its child")
	}
	replaced = nil
	h.pool.BlockConnected(h.chain.connect(good), 1)
	if len(replaced) != 0 {
		t.Fatal("a confirmation reported as a replacement")
	}
}
