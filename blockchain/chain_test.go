package blockchain

import (
	"testing"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

func TestChainSpendAllKinds(t *testing.T) {
	for _, par := range []int{1, 4} {
		t.Run(itoa(par), func(t *testing.T) { testSpendAllKinds(t, par) })
	}
}

func testSpendAllKinds(t *testing.T, par int) {
	tc := newTestChain(t, regtest(t), func(c *Config) { c.Par = par })
	tc.mine(101)
	cbs := tc.b.MatureCoinbases(tc.b.Tip)
	if len(cbs) < 2 {
		t.Fatalf("%d mature coinbases", len(cbs))
	}
	// Fan the first coinbase out to one output of each kind.
	kinds := []chaintest.Kind{chaintest.OpTrue, chaintest.P2PKH, chaintest.P2WPKH, chaintest.P2TR}
	var outs []wire.TxOut
	for _, k := range kinds {
		outs = append(outs, wire.TxOut{Value: 10_000_000, PkScript: tc.b.Script(k)})
	}
	fan := tc.b.Spend(cbs[:1], outs, 0)
	e := tc.b.NextBlock(nil, []*wire.MsgTx{fan}, nil)
	tc.accept(e)

	// Spend each kind in its own transaction in the next block, and chain
	// a spend of an output created in the same block.
	fanID := fan.TxHash()
	var txs []*wire.MsgTx
	for i := range kinds {
		o := tc.b.Output(wire.OutPoint{Hash: fanID, Index: uint32(i)})
		txs = append(txs, tc.b.Spend([]*chaintest.Output{o}, nil, 1000))
	}
	e2 := tc.b.NextBlock(nil, txs, nil)
	tc.accept(e2)
	child := tc.b.Spend([]*chaintest.Output{tc.b.Output(wire.OutPoint{Hash: txs[2].TxHash()})}, nil, 1000)
	e3 := tc.b.NextBlock(nil, []*wire.MsgTx{child}, nil)
	tc.accept(e3)
	if s := tc.chain.BestSnapshot(); s.Height != 104 {
		t.Fatalf("height %d", s.Height)
	}
	// Restart and check the tip survived.
	tc.reopen()
	tc.tipIs(e3.Hash)
}

// TestCrashBeforeFlush drops the chain without flushing: it restarts from
// the last flushed tip and accepts the lost blocks again.
func TestCrashBeforeFlush(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(10)
	if err := tc.chain.Flush(); err != nil {
		t.Fatal(err)
	}
	flushed := tc.chain.BestSnapshot().Hash
	lost := tc.b.MineCoinbases(5)
	for _, e := range lost {
		tc.accept(e)
	}
	// Crash: stop the workers and close the databases without a flush.
	tc.chain.scripts.stop()
	tc.cs.Close()
	tc.db.Close()
	tc.chain = nil
	tc.open(nil)
	tc.tipIs(flushed)
	for _, e := range lost {
		if _, err := tc.chain.ProcessBlock(e.Block); err != nil {
			t.Fatal(err)
		}
	}
	tc.tipIs(lost[4].Hash)
}
