package node

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// buildSyncChain makes a regtest chain with about ntx transactions:
// 100 coinbase blocks, then blocks of perBlock transactions where the first
// fans a mature coinbase out to perBlock outputs and the others each spend
// one output of the previous block's fan-out into two outputs, so the UTXO
// set grows as the chain does. Outputs are anyone-can-spend (OP_TRUE) when
// kind is chaintest.OpTrue, signed P2WPKH when chaintest.P2WPKH.
func buildSyncChain(tb testing.TB, params *chaintest.Builder, ntx, perBlock int, kind chaintest.Kind) []*wire.MsgBlock {
	bld := params
	var blocks []*wire.MsgBlock
	opts := &chaintest.BlockOpts{CoinbaseKind: kind}
	for i := 0; i < 100; i++ {
		blocks = append(blocks, bld.NextBlock(nil, nil, opts).Block)
	}
	script := bld.Script(kind)
	var prevFan *wire.MsgTx
	made := 0
	for made < ntx {
		tip := bld.Tip
		cbEntry := tip
		for cbEntry.Height > tip.Height+1-100 {
			cbEntry = cbEntry.Parent
		}
		cb := cbEntry.Block.Transactions[0]
		cbOut := bld.Output(wire.OutPoint{Hash: cb.TxHash(), Index: 0})
		outs := make([]wire.TxOut, perBlock)
		for i := range outs {
			outs[i] = wire.TxOut{Value: (cbOut.Value - 100_000) / int64(perBlock), PkScript: script}
		}
		fan := bld.Spend([]*chaintest.Output{cbOut}, outs, 0)
		txs := []*wire.MsgTx{fan}
		if prevFan != nil {
			id := prevFan.TxHash()
			for i := 1; i < perBlock; i++ {
				in := bld.Output(wire.OutPoint{Hash: id, Index: uint32(i)})
				half := (in.Value - 1000) / 2
				txs = append(txs, bld.Spend([]*chaintest.Output{in},
					[]wire.TxOut{{Value: half, PkScript: script}, {Value: half, PkScript: script}}, 0))
			}
		}
		prevFan = fan
		made += len(txs)
		blocks = append(blocks, bld.NextBlock(nil, txs, opts).Block)
	}
	return blocks
}

// BenchmarkP2PSync measures node B syncing a long chain from node A over
// loopback: headers-first, then blocks, until B has A's tip. The chain has
// BTCD_SYNC_TXS transactions (default 100,000) in blocks of
// BTCD_SYNC_PERBLOCK (default 250); BTCD_SYNC_SIGNED=1 uses signed P2WPKH
// spends instead of OP_TRUE. Run with:
//
//	go test -run '^$' -bench P2PSync -benchtime 1x .
func BenchmarkP2PSync(b *testing.B) {
	ntx := envInt("BTCD_SYNC_TXS", 100_000)
	per := envInt("BTCD_SYNC_PERBLOCK", 250)
	kind := chaintest.OpTrue
	if os.Getenv("BTCD_SYNC_SIGNED") == "1" {
		kind = chaintest.P2WPKH
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		a := newTestNode(b, "--utxocachemaxsize=450")
		t0 := time.Now()
		blocks := buildSyncChain(b, chaintest.New(a.s.cfg.params), ntx, per, kind)
		nt := 0
		for _, blk := range blocks {
			nt += len(blk.Transactions)
		}
		b.Logf("built %d blocks, %d transactions in %v", len(blocks), nt, time.Since(t0).Round(time.Millisecond))
		t0 = time.Now()
		for _, blk := range blocks {
			if _, err := a.s.chain.ProcessBlock(blk); err != nil {
				b.Fatal(err)
			}
		}
		imp := time.Since(t0)
		b.Logf("node A connected them in %v (%.0f blocks/s, %.0f tx/s)", imp.Round(time.Millisecond),
			float64(len(blocks))/imp.Seconds(), float64(nt)/imp.Seconds())

		bn := newTestNode(b, "--utxocachemaxsize=450")
		b.StartTimer()
		t0 = time.Now()
		if err := bn.s.connect(a.s.p2pAddr(), true); err != nil {
			b.Fatal(err)
		}
		sameTip(b, 10*time.Minute, a, bn)
		d := time.Since(t0)
		b.StopTimer()
		b.ReportMetric(float64(len(blocks))/d.Seconds(), "blocks/s")
		b.ReportMetric(float64(nt)/d.Seconds(), "tx/s")
		b.Logf("node B synced %d blocks, %d transactions in %v (%.0f blocks/s, %.0f tx/s)",
			len(blocks), nt, d.Round(time.Millisecond), float64(len(blocks))/d.Seconds(), float64(nt)/d.Seconds())
		b.Logf("node B spent %v in ProcessBlock", bn.s.sync.ProcessTime().Round(time.Millisecond))
		bn.s.Stop()
		a.s.Stop()
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
