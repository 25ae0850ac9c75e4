package blockchain

import (
	"testing"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// TestInBlockSpends checks which inputs are found to spend outputs of
// earlier transactions of the same block: not those of later ones (an
// invalid block, whose inputs must still be looked up), nor outside coins.
func TestInBlockSpends(t *testing.T) {
	tx := func(prev ...wire.Hash) *wire.MsgTx {
		m := &wire.MsgTx{Version: 2, TxOut: []wire.TxOut{{Value: 1}}}
		for _, h := range prev {
			m.TxIn = append(m.TxIn, wire.TxIn{PreviousOutPoint: wire.OutPoint{Hash: h}})
		}
		return m
	}
	ids := []wire.Hash{{0xc0}, {0xa1}, {0xa2}, {0xa3}}
	outside := wire.Hash{0xee}
	txs := []*wire.MsgTx{
		tx(wire.Hash{}),             // coinbase: not counted
		tx(outside, ids[2]),         // spends a later tx: looked up
		tx(ids[1], ids[0]),          // spends earlier txs, coinbase included
		tx(outside, ids[3], ids[1]), // its own txid, then an earlier one
	}
	var s inBlockSpends
	for round := range 2 { // the buffers are reused
		got := s.mark(txs, ids, 7)
		want := []bool{false, false, true, true, false, false, true}
		if len(got) != len(want) {
			t.Fatalf("round %d: %d flags, want %d", round, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d: input %d: %v, want %v (all %v)", round, i, got[i], want[i], got)
			}
		}
	}
}

// TestInBlockSpendsWithCoinsOnDisk connects a block whose transactions
// chain on each other while the coins they spend are on disk only (the
// case where in-block inputs are not looked up first), and rejects one
// whose transaction spends an output of a later transaction.
func TestInBlockSpendsWithCoinsOnDisk(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(103)
	if err := tc.chain.Flush(); err != nil {
		t.Fatal(err)
	}
	tc.reopen() // an empty cache over a chainstate holding the coins
	if !tc.cache.MayReadDisk() {
		t.Fatal("coins flushed, but the cache does not read the disk")
	}
	cbs := tc.b.MatureCoinbases(tc.b.Tip)
	opTrue := tc.b.Script(chaintest.OpTrue)
	chained := func(c *chaintest.Output) (parent, child *wire.MsgTx) {
		parent = tc.b.Spend([]*chaintest.Output{c}, []wire.TxOut{{Value: c.Value - 1000, PkScript: opTrue}}, 0)
		child = &wire.MsgTx{Version: 2,
			TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: parent.TxHash()}, Sequence: wire.MaxTxInSequenceNum}},
			TxOut: []wire.TxOut{{Value: c.Value - 2000, PkScript: opTrue}},
		}
		return parent, child
	}
	parent, child := chained(cbs[0])
	other := tc.b.Spend(cbs[1:2], nil, 1000)
	e := tc.b.NextBlock(nil, []*wire.MsgTx{parent, child, other}, nil)
	tc.accept(e)

	parent, child = chained(cbs[2])
	bad := tc.b.NextBlock(nil, []*wire.MsgTx{child, parent}, nil)
	tc.reject(bad, ErrBadTxnsMissingInputs)
	tc.tipIs(e.Hash)
}
