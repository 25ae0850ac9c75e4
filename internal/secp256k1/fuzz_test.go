package secp256k1

import (
	"github.com/btcnode/btcd/internal/secp256k1/libsecp"
	"math/rand/v2"
	"testing"
)

// FuzzVerifyECDSA compares ECDSA verification (key parsing included)
// with btcec, and with libsecp256k1 when built with its tag, on arbitrary
// keys, r || s and hashes.
func FuzzVerifyECDSA(f *testing.F) {
	rng := rand.New(rand.NewPCG(41, 41))
	for range 8 {
		c := genECDSA(rng)
		f.Add(c.pub, c.rs()[:], c.msg[:])
	}
	for _, c := range ecdsaEdgeCases(rng)[:60] {
		f.Add(c.pub, c.rs()[:], c.msg[:])
	}
	f.Fuzz(func(t *testing.T, pub, rs, msg []byte) {
		if len(pub) > 100 {
			return
		}
		var c ecdsaCase
		c.pub = pub
		copy(c.r[:], rs)
		if len(rs) > 32 {
			copy(c.s[:], rs[32:])
		}
		copy(c.msg[:], msg)
		got, want := oursECDSA(&c), btcecECDSA(&c)
		if got != want {
			t.Fatalf("ours %v btcec %v: %s", got, want, c.String())
		}
		if libsecp.Available && libsecpECDSACase(&c) != got {
			t.Fatalf("ours %v, libsecp256k1 differs: %s", got, c.String())
		}
	})
}

// FuzzVerifySchnorr is FuzzVerifyECDSA for BIP340.
func FuzzVerifySchnorr(f *testing.F) {
	rng := rand.New(rand.NewPCG(42, 42))
	for range 8 {
		c := genSchnorr(rng)
		f.Add(c.pub[:], c.sig[:], c.msg[:])
	}
	for _, c := range schnorrEdgeCases(rng)[:60] {
		f.Add(c.pub[:], c.sig[:], c.msg[:])
	}
	f.Fuzz(func(t *testing.T, pub, sig, msg []byte) {
		var c schnorrCase
		copy(c.pub[:], pub)
		copy(c.sig[:], sig)
		copy(c.msg[:], msg)
		got, want := oursSchnorr(&c), btcecSchnorr(&c)
		if got != want {
			t.Fatalf("ours %v btcec %v: %s", got, want, c.String())
		}
		if libsecp.Available && libsecpSchnorrCase(&c) != got {
			t.Fatalf("ours %v, libsecp256k1 differs: %s", got, c.String())
		}
	})
}
