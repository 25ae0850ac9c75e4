package mempool

import (
	"crypto/sha256"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

const benchTxs = 10_000

// redecode returns a decoded copy of tx so that it has the one-buffer
// layout of a relayed transaction.
func redecode(tb testing.TB, tx *wire.MsgTx) *wire.MsgTx {
	var out wire.MsgTx
	if _, err := out.Decode(tx.Bytes()); err != nil {
		tb.Fatal(err)
	}
	return &out
}

// runAccept10k accepts txs into a fresh pool from newPool per op and
// reports tx/s, ns/tx, B/tx and allocs/tx of AcceptTransaction alone.
func runAccept10k(b *testing.B, txs []*wire.MsgTx, newPool func() *Pool) {
	b.ReportAllocs()
	b.ResetTimer()
	var ms0, ms1 runtime.MemStats
	var elapsed time.Duration
	var mallocs, bytes uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p := newPool()
		runtime.GC()
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
		bytes += ms1.TotalAlloc - ms0.TotalAlloc
		b.StartTimer()
	}
	total := float64(len(txs) * b.N)
	b.ReportMetric(total/elapsed.Seconds(), "tx/s")
	b.ReportMetric(float64(elapsed.Nanoseconds())/total, "ns/tx")
	b.ReportMetric(float64(bytes)/total, "B/tx")
	b.ReportMetric(float64(mallocs)/total, "allocs/tx")
}

// BenchmarkAccept10k measures accepting 10,000 independent one-input,
// two-output P2WPKH transactions into an empty pool with a fake script
// verifier (one op = 10,000 acceptances): the pool's own cost.
func BenchmarkAccept10k(b *testing.B) {
	chain := newFakeChain()
	txs := make([]*wire.MsgTx, benchTxs)
	for i := range txs {
		op := chain.addCoin(100_000, p2wpkh(1))
		txs[i] = redecode(b, spend([]wire.OutPoint{op}, 50_000, 49_000))
	}
	runAccept10k(b, txs, func() *Pool {
		cfg := DefaultConfig()
		cfg.Chain = chain.view()
		cfg.VerifyScripts = func(*wire.MsgTx, []Coin, bool) error { return nil }
		cfg.FeeEstimator = NewFeeEstimator()
		return New(cfg)
	})
}

// txscriptVerifier is the daemon's script seam (server.verifyScripts in
// the root package) with the consensus flags of a post-taproot block.
func txscriptVerifier(cache *txscript.SigCache) VerifyScriptsFunc {
	return func(tx *wire.MsgTx, coins []Coin, standard bool) error {
		flags := txscript.MandatoryVerifyFlags
		if standard {
			flags |= txscript.StandardVerifyFlags
		}
		prevs := make([]wire.TxOut, len(tx.TxIn))
		for i := range prevs {
			prevs[i] = wire.TxOut{Value: coins[i].Value, PkScript: coins[i].PkScript}
		}
		hashes := txscript.NewTxSigHashes(tx, prevs)
		for i := range tx.TxIn {
			if err := txscript.VerifyInput(tx, i, &prevs[i], flags, cache, hashes); err != nil {
				return err
			}
		}
		return nil
	}
}

// signedP2WPKHSpends funds n P2WPKH coins of one key in chain and returns
// n one-input, two-output spends of them with real ECDSA signatures.
func signedP2WPKHSpends(tb testing.TB, chain *fakeChain, n int) []*wire.MsgTx {
	seed := sha256.Sum256([]byte("mempool bench key"))
	key, _ := btcec.PrivKeyFromBytes(seed[:])
	pub := key.PubKey().SerializeCompressed()
	h := txscript.Hash160(pub)
	pk := append([]byte{0x00, 0x14}, h[:]...)
	code := append(append([]byte{0x76, 0xa9, 0x14}, h[:]...), 0x88, 0xac)
	txs := make([]*wire.MsgTx, n)
	for i := range txs {
		const value = 100_000
		op := chain.addCoin(value, pk)
		tx := &wire.MsgTx{Version: 2,
			TxIn:  []wire.TxIn{{PreviousOutPoint: op, Sequence: 0xfffffffd}},
			TxOut: []wire.TxOut{{Value: 50_000, PkScript: pk}, {Value: 49_000, PkScript: p2wpkh(byte(i))}},
		}
		hashes := txscript.NewTxSigHashes(tx, []wire.TxOut{{Value: value, PkScript: pk}})
		sh := txscript.CalcWitnessSigHash(code, hashes, 1, 0, value)
		tx.TxIn[0].Witness = [][]byte{append(ecdsa.Sign(key, sh[:]).Serialize(), 1), pub}
		txs[i] = redecode(tb, tx)
	}
	return txs
}

// BenchmarkAccept10kSigned is BenchmarkAccept10k with real signatures
// checked by txscript under the standard flags, with a fresh (cold)
// signature cache per op as for transactions never seen before.
func BenchmarkAccept10kSigned(b *testing.B) {
	chain := newFakeChain()
	txs := signedP2WPKHSpends(b, chain, benchTxs)
	runAccept10k(b, txs, func() *Pool {
		cfg := DefaultConfig()
		cfg.Chain = chain.view()
		cfg.VerifyScripts = txscriptVerifier(txscript.NewSigCache(100_000))
		cfg.FeeEstimator = NewFeeEstimator()
		return New(cfg)
	})
}

// TestSignedSpendsAccepted checks the benchmark's transactions really
// pass the txscript verifier, and that a broken signature does not.
func TestSignedSpendsAccepted(t *testing.T) {
	chain := newFakeChain()
	txs := signedP2WPKHSpends(t, chain, 3)
	cfg := DefaultConfig()
	cfg.Chain = chain.view()
	cfg.VerifyScripts = txscriptVerifier(txscript.NewSigCache(100))
	p := New(cfg)
	for _, tx := range txs[:2] {
		if _, err := p.AcceptTransaction(tx, AcceptOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	bad := redecode(t, txs[2])
	bad.TxOut[0].Value--
	_, err := p.AcceptTransaction(bad, AcceptOptions{})
	if !errors.Is(err, ErrConsensus) {
		t.Fatalf("bad signature: %v, want a consensus rejection", err)
	}
}

// BenchmarkBlockConnected3k measures the pool's side of a block that
// confirms all of its 3,000 transactions, 1,000 chains of three (one op
// = one block; the pool is filled outside the timer).
func BenchmarkBlockConnected3k(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		chain := newFakeChain()
		cfg := DefaultConfig()
		cfg.Chain = chain.view()
		cfg.VerifyScripts = func(*wire.MsgTx, []Coin, bool) error { return nil }
		p := New(cfg)
		txs := make([]*wire.MsgTx, 0, 3000)
		for range 1000 {
			op := chain.addCoin(100_000, p2wpkh(1))
			a := spend([]wire.OutPoint{op}, 90_000)
			c1 := spend([]wire.OutPoint{outpoint(a, 0)}, 80_000)
			c2 := spend([]wire.OutPoint{outpoint(c1, 0)}, 70_000)
			for _, tx := range []*wire.MsgTx{a, c1, c2} {
				if _, err := p.AcceptTransaction(tx, AcceptOptions{}); err != nil {
					b.Fatal(err)
				}
				txs = append(txs, tx)
			}
		}
		blk := chain.connect(txs...)
		b.StartTimer()
		p.BlockConnected(blk, chain.height)
		if p.Count() != 0 {
			b.Fatalf("%d left", p.Count())
		}
	}
}
