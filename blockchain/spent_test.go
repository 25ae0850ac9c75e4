package blockchain

import (
	"bytes"
	"testing"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// TestSpentOutputs reads back, from the undo data, the outputs a block
// spent, in input order, as the filter index needs them.
func TestSpentOutputs(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(101)
	coins := tc.b.MatureCoinbases(tc.b.Tip)
	tx := tc.b.Spend(coins[:2], nil, 1000)
	blk := tc.b.NextBlock(nil, []*wire.MsgTx{tx}, nil)
	tc.accept(blk)
	var u database.BlockUndo
	if err := tc.chain.SpentOutputs(&blk.Hash, &u); err != nil {
		t.Fatal(err)
	}
	if len(u.Spent) != 2 {
		t.Fatalf("got %d spent outputs, want 2", len(u.Spent))
	}
	for i, c := range coins[:2] {
		if u.Spent[i].Amount != c.Value || !bytes.Equal(u.Spent[i].PkScript, c.PkScript) {
			t.Fatalf("spent %d: %+v, want %+v", i, u.Spent[i], c)
		}
	}
	g := tc.p.GenesisHash
	if err := tc.chain.SpentOutputs(&g, &u); err != nil || len(u.Spent) != 0 {
		t.Fatalf("genesis: %v %d", err, len(u.Spent))
	}
}

// TestCoinbaseHeightHint reads BIP34 heights the way prefetching uses
// them, and refuses what is not a height push.
func TestCoinbaseHeightHint(t *testing.T) {
	cases := []struct {
		sig  []byte
		h    int32
		okay bool
	}{
		{AppendHeightScript(nil, 1), 1, true},
		{AppendHeightScript(nil, 16), 16, true},
		{AppendHeightScript(nil, 17), 17, true},
		{AppendHeightScript(nil, 200), 200, true},
		{AppendHeightScript(nil, 840000), 840000, true},
		{append(AppendHeightScript(nil, 70000), 0x04, 1, 2, 3, 4), 70000, true},
		{nil, 0, false},
		{[]byte{0x00}, 0, false},
		{[]byte{0x05, 1, 2, 3, 4, 5}, 0, false},
		{[]byte{0x03, 1}, 0, false},
		{[]byte{0x04, 0xff, 0xff, 0xff, 0xff}, 0, false},
	}
	for _, c := range cases {
		blk := &wire.MsgBlock{Transactions: []*wire.MsgTx{{TxIn: []wire.TxIn{{SignatureScript: c.sig}}}}}
		if h, ok := coinbaseHeightHint(blk); ok != c.okay || (ok && h != c.h) {
			t.Errorf("%x: got %d %v, want %d %v", c.sig, h, ok, c.h, c.okay)
		}
	}
	if _, ok := coinbaseHeightHint(&wire.MsgBlock{}); ok {
		t.Error("block without transactions")
	}
}
