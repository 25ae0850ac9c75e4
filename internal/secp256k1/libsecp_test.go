package secp256k1

import (
	"github.com/btcnode/btcd/internal/secp256k1/libsecp"
	"math/rand/v2"
	"testing"
)

const libsecpSkip = "libsecp256k1 oracle not built: run with -tags libsecp256k1 (needs cgo and the system libsecp256k1)"

func (c *ecdsaCase) rs() *[64]byte {
	var b [64]byte
	copy(b[:32], c.r[:])
	copy(b[32:], c.s[:])
	return &b
}

func libsecpECDSACase(c *ecdsaCase) bool { return libsecp.ECDSA(c.pub, c.rs(), &c.msg) }

func libsecpSchnorrCase(c *schnorrCase) bool { return libsecp.Schnorr(&c.pub, &c.sig, &c.msg) }

// TestMatchesLibsecp runs the random and edge cases of the btcec
// differential tests against libsecp256k1.
func TestMatchesLibsecp(t *testing.T) {
	if !libsecp.Available {
		t.Skip(libsecpSkip)
	}
	check := func(kind string, i int, got, want bool, detail func() string) {
		t.Helper()
		if got != want {
			t.Errorf("%s case %d: ours %v libsecp %v: %s", kind, i, got, want, detail())
		}
	}
	rng := rand.New(rand.NewPCG(21, 21))
	for i, c := range ecdsaEdgeCases(rng) {
		check("ecdsa edge", i, oursECDSA(&c), libsecpECDSACase(&c), func() string { return c.String() })
	}
	for i, c := range schnorrEdgeCases(rng) {
		check("schnorr edge", i, oursSchnorr(&c), libsecpSchnorrCase(&c), func() string { return c.String() })
	}
	n := diffCount()
	failed := parallel(n, func(rng *rand.Rand, i int) bool {
		c := genECDSA(rng)
		if oursECDSA(&c) != libsecpECDSACase(&c) {
			t.Errorf("ecdsa case %d: %s", i, c.String())
			return false
		}
		s := genSchnorr(rng)
		if oursSchnorr(&s) != libsecpSchnorrCase(&s) {
			t.Errorf("schnorr case %d: %s", i, s.String())
			return false
		}
		return true
	})
	if failed > 0 {
		t.Fatalf("%d mismatches", failed)
	}
}
