package netsync

import (
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// Transactions kept outside the pool fill a compact block's short ids the
// pool cannot; one that is in both is no collision.
func TestPartialBlockExtraTxns(t *testing.T) {
	b := newNode(t, func(c *Config) { c.Mempool = newTestPool(c.Chain) })
	f := newCmpctFixture(t, 4, b.chain)
	addToPool(t, b.m.pool, f.txs[:2])
	blk := f.mine(f.txs).Block
	c := wire.NewMsgCmpctBlock(blk, 5)

	if pb, err := newPartialBlock(c, b.m.pool, nil); err != nil || len(pb.missing) != 2 {
		t.Fatalf("pool only: err %v, missing %v", err, pb.missing)
	}
	var e extraTxns
	e.max = DefaultExtraTxns
	for _, tx := range append([]*wire.MsgTx{f.txs[0]}, f.txs[2:]...) {
		e.add(tx, tx.WitnessHash())
	}
	pb, err := newPartialBlock(c, b.m.pool, e.snapshot())
	if err != nil || len(pb.missing) != 0 {
		t.Fatalf("with the extra transactions: err %v, missing %v", err, pb.missing)
	}
	if got, err := pb.block(); err != nil || got.BlockHash() != blk.BlockHash() {
		t.Fatalf("rebuilt block: %v", err)
	}
	// Without a pool at all, the extra transactions alone.
	if pb, err := newPartialBlock(c, nil, e.snapshot()); err != nil || len(pb.missing) != 1 {
		t.Fatalf("no pool: err %v, missing %v (only txs[1] is nowhere)", err, pb.missing)
	}
}

// The ring keeps the newest transactions up to its size, none when off,
// and skips large ones.
func TestExtraTxnsRing(t *testing.T) {
	mk := func(i int) *wire.MsgTx {
		return &wire.MsgTx{
			Version: 2,
			TxIn:    []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: uint32(i)}}},
			TxOut:   []wire.TxOut{{Value: int64(i)}},
		}
	}
	e := extraTxns{max: 3}
	for i := range 5 {
		e.add(mk(i), mk(i).WitnessHash())
	}
	got := map[int64]bool{}
	for _, x := range e.snapshot() {
		got[x.tx.TxOut[0].Value] = true
		if x.wtxid != x.tx.WitnessHash() {
			t.Fatal("wtxid not the transaction's")
		}
	}
	if len(got) != 3 || !got[2] || !got[3] || !got[4] {
		t.Fatalf("kept %v, want the last three", got)
	}
	big := mk(9)
	big.TxOut[0].PkScript = make([]byte, maxExtraTxSize)
	e.add(big, big.WitnessHash())
	for _, x := range e.snapshot() {
		if x.tx == big {
			t.Fatal("a transaction over the size bound was kept")
		}
	}
	off := extraTxns{max: -1}
	off.add(mk(1), mk(1).WitnessHash())
	if len(off.snapshot()) != 0 {
		t.Fatal("kept with the ring off")
	}
}

// A relayed transaction the pool refuses for policy, and an orphan, are
// kept for compact blocks; one that breaks consensus is not.
func TestRelayedTxsKeptForCompactBlocks(t *testing.T) {
	n, pool, b := newPoolNode(t, nil)
	cbs := b.MatureCoinbases(b.Tip)
	cb := cbs[0]
	// Below the relay fee floor: refused, but a miner may take it.
	cheap := b.Spend([]*chaintest.Output{cb}, []wire.TxOut{{Value: cb.Value, PkScript: opTrue}}, 0)
	orphan := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{7}}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: 1000, PkScript: opTrue}}}
	cb2 := cbs[1]
	invalid := b.Spend([]*chaintest.Output{cb2}, []wire.TxOut{{Value: cb2.Value + 1, PkScript: opTrue}}, 0)

	sender, in := linkFakeWith(t, n, fakeConfig(n, 103), nil)
	for _, tx := range []*wire.MsgTx{cheap, orphan} {
		sender.QueueMessage(tx, nil)
	}
	kept := func() map[wire.Hash]bool {
		out := map[wire.Hash]bool{}
		for _, x := range n.m.extra.snapshot() {
			out[x.wtxid] = true
		}
		return out
	}
	waitCond(t, 10*time.Second, "refused and orphan transactions kept", func() bool {
		k := kept()
		return k[cheap.WitnessHash()] && k[orphan.WitnessHash()]
	})
	// The invalid one gets its sender dropped; by then it was handled.
	sender.QueueMessage(invalid, nil)
	waitCond(t, 10*time.Second, "sender of an invalid transaction dropped", func() bool { return !in.Connected() })
	if kept()[invalid.WitnessHash()] {
		t.Fatal("a transaction breaking consensus was kept")
	}
	if pool.Has(cheap.TxHash()) {
		t.Fatal("the fee-less transaction entered the pool")
	}
}
