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
