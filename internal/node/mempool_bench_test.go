package node

import (
	"runtime"
	"testing"
	"time"

	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// BenchmarkMempoolAcceptRealChain accepts 10,000 independent signed
// P2WPKH spends (one input, one output) into a fresh pool per op over a
// real regtest node: coins come from the node's UTXO set through the same
// ChainView adapter as server.newMempool, and scripts are checked by the
// daemon's own server.verifyScripts (txscript, standard flags) with a
// fresh signature cache per op. Only AcceptTransaction is timed.
func BenchmarkMempoolAcceptRealChain(b *testing.B) {
	const nTx, perFan = 10_000, 2_500
	n := newTestNode(b)
	w := newMPWallet()
	if _, err := n.s.generate(100+nTx/perFan, w.pkScript, 0, nil, false); err != nil {
		b.Fatal(err)
	}
	// Fan four mature coinbases out to 2,500 outputs each and confirm them.
	var coins []mpCoin
	for h := int32(1); h <= nTx/perFan; h++ {
		fan, outs := w.split(n.coinbaseCoin(b, h), perFan, 200_000)
		if _, err := n.s.pool.AcceptTransaction(fan, mempool.AcceptOptions{}); err != nil {
			b.Fatal(err)
		}
		coins = append(coins, outs...)
	}
	if _, err := n.s.generate(1, w.pkScript, 0, nil, true); err != nil {
		b.Fatal(err)
	}
	if c := n.s.pool.Count(); c != 0 {
		b.Fatalf("%d fan-outs not mined", c)
	}
	txs := make([]*wire.MsgTx, nTx)
	for i, c := range coins {
		tx := w.build([]mpCoin{c}, []wire.TxOut{{Value: c.value - 1_000, PkScript: w.pkScript}})
		var dec wire.MsgTx
		if _, err := dec.Decode(tx.Bytes()); err != nil {
			b.Fatal(err)
		}
		txs[i] = &dec
	}
	s := n.s
	view := mempool.ChainView{ // as in server.newMempool
		FetchCoin: func(op wire.OutPoint) (mempool.Coin, bool) {
			e, ok, err := s.chain.FetchUtxo(op)
			if err != nil || !ok {
				return mempool.Coin{}, false
			}
			return mempool.Coin{Value: e.Amount, PkScript: e.PkScript, Height: e.Height, IsCoinBase: e.IsCoinBase}, true
		},
		Tip: func() mempool.ChainTip {
			t := s.chain.BestSnapshot()
			return mempool.ChainTip{Height: t.Height, Hash: t.Hash, MedianTimePast: t.MedianTime}
		},
		MedianTimePast: s.chain.MedianTimePast,
	}
	b.ReportAllocs()
	b.ResetTimer()
	var ms0, ms1 runtime.MemStats
	var elapsed time.Duration
	var mallocs, bytes uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cfg := mempool.DefaultConfig()
		cfg.Chain = view
		cfg.CoinbaseMaturity = s.cfg.params.CoinbaseMaturity
		cfg.Policy.MinRelayFee = mempool.FeeRate(s.cfg.minRelayTxFeeSat)
		verifier := &server{chain: s.chain, sigCache: txscript.NewSigCache(100_000)}
		cfg.VerifyScripts = verifier.verifyScripts
		cfg.FeeEstimator = mempool.NewFeeEstimator()
		p := mempool.New(cfg)
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		b.StartTimer()
		for _, tx := range txs {
			if _, err := p.AcceptTransaction(tx, mempool.AcceptOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		elapsed += time.Since(start)
		runtime.ReadMemStats(&ms1)
		mallocs += ms1.Mallocs - ms0.Mallocs
		bytes += ms1.TotalAlloc - ms0.TotalAlloc
		b.StartTimer()
	}
	total := float64(nTx * b.N)
	b.ReportMetric(total/elapsed.Seconds(), "tx/s")
	b.ReportMetric(float64(elapsed.Nanoseconds())/total, "ns/tx")
	b.ReportMetric(float64(bytes)/total, "B/tx")
	b.ReportMetric(float64(mallocs)/total, "allocs/tx")
}
