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
	if !ok || e.Sequence != 2 {
		t.Fatalf("child sequence %v (found %v), want 2 (the pool's first is 1, as bitcoind's)", e.Sequence, ok)
	}
	good := spend([]wire.OutPoint{op}, 97_900)
	good.TxOut[0].PkScript = p2wpkh(53)
	h.mustAccept(good)
	if len(removed) != 2 {
		t.Fatalf("%d removals reported, want 2", len(removed))
	}
	if removed[0].seq == removed[1].seq || removed[0].seq < 3 || removed[1].seq < 3 {
		t.Fatalf("removal sequences %+v", removed)
	}
	ge, _ := h.pool.Get(good.TxHash())
	if ge.Sequence != 5 || h.pool.Sequence() != 6 {
		t.Fatalf("replacement sequence %d, pool %d; want 5, 6", ge.Sequence, h.pool.Sequence())
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
		c.OnReplaced = func(tx *wire.MsgTx, _ wire.Hash) { replaced = append(replaced, tx) }
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

// A connected block empties the pool in the block's order, each
// transaction's double-spends right after it, as bitcoind: a conflict of
// the block's first transaction takes its removal sequence before the
// block's later transactions take theirs.
func TestBlockRemovalOrder(t *testing.T) {
	type removal struct {
		txid wire.Hash
		seq  uint64
	}
	var removed []removal
	h := newHarness(t, func(c *Config) {
		c.OnRemove = func(txid wire.Hash, seq uint64) { removed = append(removed, removal{txid, seq}) }
	})
	op := h.coin(100_000)
	mined := spend([]wire.OutPoint{op}, 99_000)
	inPool := spend([]wire.OutPoint{op}, 98_000) // the pool's version
	inPool.TxOut[0].PkScript = p2wpkh(61)
	h.mustAccept(inPool)
	later := spend([]wire.OutPoint{h.coin(50_000)}, 49_000)
	h.mustAccept(later)
	before := h.pool.Sequence()
	h.pool.BlockConnected(h.chain.connect(mined, later), 1)
	if len(removed) != 1 || removed[0].txid != inPool.TxHash() || removed[0].seq != before {
		t.Fatalf("removals %+v, want the conflict at sequence %d", removed, before)
	}
	if h.pool.Sequence() != before+2 {
		t.Fatalf("pool sequence %d, want %d (one per removal)", h.pool.Sequence(), before+2)
	}
}

// Transactions a disconnected block returns to the pool are reported to
// OnReaccept with their new sequence numbers, and not to OnAccept (they
// are not relayed again).
func TestOnReaccept(t *testing.T) {
	var back []uint64
	var accepted int
	h := newHarness(t, func(c *Config) {
		c.OnReaccept = func(tx *wire.MsgTx, seq uint64) { back = append(back, seq) }
		c.OnAccept = func(*Entry) { accepted++ }
	})
	op := h.coin(100_000)
	tx := spend([]wire.OutPoint{op}, 99_000)
	spent := map[wire.OutPoint]Coin{op: h.chain.coins[op]}
	blk := h.chain.connect(tx)
	h.pool.BlockConnected(blk, h.chain.height)
	seq := h.pool.Sequence()
	h.chain.disconnect(blk, spent)
	h.pool.BlockDisconnected(blk)
	if !h.pool.Has(tx.TxHash()) || len(back) != 1 || back[0] != seq || accepted != 0 {
		t.Fatalf("returned %v (want [%d]), OnAccept %d times", back, seq, accepted)
	}
}
