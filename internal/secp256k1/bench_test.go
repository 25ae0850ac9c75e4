package secp256k1

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/secp256k1/libsecp"
)

// benchCases returns valid signature cases with compressed keys.
func benchCases() (ecdsaCase, schnorrCase) {
	rng := rand.New(rand.NewPCG(31, 31))
	for {
		e := genECDSA(rng)
		if len(e.pub) == 33 && btcecECDSA(&e) {
			for {
				s := genSchnorr(rng)
				if btcecSchnorr(&s) {
					return e, s
				}
			}
		}
	}
}

// BenchmarkVerifyVsLibsecp measures a verification from bytes (key
// parse included, as libsecp256k1 parses its key too) with this package
// and with libsecp256k1 in the same run.
func BenchmarkVerifyVsLibsecp(b *testing.B) {
	e, s := benchCases()
	rs := e.rs()
	genTables()
	b.Run("ecdsa/own", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !oursECDSA(&e) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("ecdsa/libsecp", func(b *testing.B) {
		if !libsecp.Available {
			b.Skip(libsecpSkip)
		}
		b.ReportAllocs()
		for b.Loop() {
			if !libsecp.ECDSA(e.pub, rs, &e.msg) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("ecdsa/interleaved", func(b *testing.B) {
		if !libsecp.Available {
			b.Skip(libsecpSkip)
		}
		interleaved(b, func() bool { return oursECDSA(&e) }, func() bool { return libsecp.ECDSA(e.pub, rs, &e.msg) })
	})
	b.Run("schnorr/own", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !oursSchnorr(&s) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("schnorr/libsecp", func(b *testing.B) {
		if !libsecp.Available {
			b.Skip(libsecpSkip)
		}
		b.ReportAllocs()
		for b.Loop() {
			if !libsecpSchnorrCase(&s) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("schnorr/interleaved", func(b *testing.B) {
		if !libsecp.Available {
			b.Skip(libsecpSkip)
		}
		interleaved(b, func() bool { return oursSchnorr(&s) }, func() bool { return libsecpSchnorrCase(&s) })
	})
}

// interleaved alternates rounds of 20 verifications with each
// implementation (one b.Loop iteration is a pair of rounds) and reports
// the best per-verification time of each and their ratio. On a shared
// machine whose load changes from second to second, the sub-benchmarks
// above run seconds apart and see different loads; adjacent rounds see
// the same one, so this ratio is the stable figure.
func interleaved(b *testing.B, own, lib func() bool) {
	const round = 20
	bestOwn, bestLib := time.Duration(1<<62), time.Duration(1<<62)
	for b.Loop() {
		t0 := time.Now()
		for range round {
			if !own() {
				b.Fatal("invalid")
			}
		}
		t1 := time.Now()
		for range round {
			if !lib() {
				b.Fatal("invalid")
			}
		}
		t2 := time.Now()
		bestOwn = min(bestOwn, t1.Sub(t0)/round)
		bestLib = min(bestLib, t2.Sub(t1)/round)
	}
	b.ReportMetric(float64(bestOwn.Nanoseconds()), "own-ns/verify")
	b.ReportMetric(float64(bestLib.Nanoseconds()), "libsecp-ns/verify")
	b.ReportMetric(float64(bestOwn)/float64(bestLib), "own/libsecp")
}

func TestVerifyAllocs(t *testing.T) {
	e, s := benchCases()
	genTables()
	if n := testing.AllocsPerRun(20, func() { oursECDSA(&e) }); n != 0 {
		t.Errorf("ECDSA: %v allocs per verify", n)
	}
	if n := testing.AllocsPerRun(20, func() { oursSchnorr(&s) }); n != 0 {
		t.Errorf("Schnorr: %v allocs per verify", n)
	}
}
