package mempool

import (
	"runtime"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// BenchmarkAccept10k measures accepting 10,000 independent one-input,
// two-output P2WPKH transactions into an empty pool with a fake script
// verifier (one op = 10,000 acceptances).
func BenchmarkAccept10k(b *testing.B) {
	const n = 10_000
	chain := newFakeChain()
	txs := make([]*wire.MsgTx, n)
	for i := range txs {
		op := chain.addCoin(100_000, p2wpkh(1))
		txs[i] = spend([]wire.OutPoint{op}, 50_000, 49_000)
		// Decode a serialized copy so the transaction has the one-buffer
		// layout a relayed transaction has.
		var tx wire.MsgTx
		if _, err := tx.Decode(txs[i].Bytes()); err != nil {
			b.Fatal(err)
		}
		txs[i] = &tx
	}
	newPool := func() *Pool {
		cfg := DefaultConfig()
		cfg.Chain = chain.view()
		cfg.VerifyScripts = func(*wire.MsgTx, []Coin, bool) error { return nil }
		cfg.FeeEstimator = NewFeeEstimator()
		return New(cfg)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var ms0, ms1 runtime.MemStats
	var elapsed time.Duration
	var mallocs uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p := newPool()
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		b.StartTimer()
		for _, tx := range txs {
			if _, err := p.AcceptTransaction(tx, AcceptOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		elapsed += time.Since(start)
		runtime.ReadMemStats(&ms1)
		mallocs += ms1.Mallocs - ms0.Mallocs
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "tx/s")
	b.ReportMetric(float64(mallocs)/float64(n*b.N), "allocs/tx")
}
