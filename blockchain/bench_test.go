package blockchain

import (
	"syscall"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// benchBlock builds a regtest chain whose tip holds nTx mature P2WPKH
// outputs and returns the chain with a block spending each of them in its
// own one-input, one-output transaction, serialized.
func benchBlock(b *testing.B, nTx int, mod func(*Config)) (*testChain, []byte) {
	tc := newTestChain(b, regtest(b), mod)
	tc.mine(101)
	cb := tc.b.MatureCoinbases(tc.b.Tip)[0]
	outs := make([]wire.TxOut, nTx)
	each := (cb.Value - 100_000) / int64(nTx)
	for i := range outs {
		outs[i] = wire.TxOut{Value: each, PkScript: tc.b.Script(chaintest.P2WPKH)}
	}
	fan := tc.b.Spend([]*chaintest.Output{cb}, outs, 0)
	tc.accept(tc.b.NextBlock(nil, []*wire.MsgTx{fan}, nil))
	id := fan.TxHash()
	txs := make([]*wire.MsgTx, nTx)
	for i := range txs {
		o := tc.b.Output(wire.OutPoint{Hash: id, Index: uint32(i)})
		txs[i] = tc.b.Spend([]*chaintest.Output{o}, nil, 1000)
	}
	e := tc.b.NextBlock(nil, txs, nil)
	return tc, e.Block.Bytes()
}

// benchConnect measures decoding, the context-free and contextual checks,
// and connecting a block against the UTXO cache (coins fetched, scripts
// verified on all workers, undo written). The block is disconnected again
// outside the timed region after each iteration.
func benchConnect(b *testing.B, nTx int, scripts bool) {
	tc, raw := benchBlock(b, nTx, func(c *Config) { c.Par = 0 })
	c := tc.chain
	c.noScripts = !scripts
	var blk wire.MsgBlock
	if _, err := blk.Decode(raw); err != nil {
		b.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.acceptHeader(&blk.Header, blk.BlockHash())
	if err != nil {
		b.Fatal(err)
	}
	if err := c.acceptBlock(n, &blk); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	// The machine may be shared: CPU time per block is reported too, as
	// it is less sensitive to other load than wall time.
	cpu0 := cpuTime()
	var paused time.Duration
	for i := 0; i < b.N; i++ {
		var m wire.MsgBlock
		if _, err := m.Decode(raw); err != nil {
			b.Fatal(err)
		}
		if err := CheckBlockSanity(&m, c.params.PowLimit); err != nil {
			b.Fatal(err)
		}
		if err := CheckBlockContext(c.params, &m, n.height, n.parent.medianTimePast()); err != nil {
			b.Fatal(err)
		}
		if err := c.connectBlock(n, &m); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		p0 := cpuTime()
		if err := c.disconnectBlock(n, &m); err != nil {
			b.Fatal(err)
		}
		paused += cpuTime() - p0
		b.StartTimer()
	}
	b.ReportMetric(float64(cpuTime()-cpu0-paused)/float64(b.N), "cpu-ns/op")
}

// cpuTime returns the process's user plus system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConnectBlock2000P2WPKH validates and connects a block of 2,000
// P2WPKH spends with every signature verified (no signature cache).
func BenchmarkConnectBlock2000P2WPKH(b *testing.B) { benchConnect(b, 2000, true) }

// BenchmarkConnectBlock2000P2WPKHNoScripts is the same block with script
// checks skipped; the difference is the time spent verifying signatures.
func BenchmarkConnectBlock2000P2WPKHNoScripts(b *testing.B) {
	benchConnect(b, 2000, false)
}

// BenchmarkProcessHeaders2000 adds a "headers" message worth of regtest
// headers to the tree (proof of work, retarget and time rules, node
// creation).
func BenchmarkProcessHeaders2000(b *testing.B) {
	p := regtest(b)
	bld := chaintest.New(p)
	es := bld.MineCoinbases(2000)
	hdrs := headersOf(es)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tc := newTestChain(b, p, nil)
		b.StartTimer()
		if _, _, err := tc.chain.ProcessHeaders(hdrs); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		tc.close()
		b.StartTimer()
	}
}
