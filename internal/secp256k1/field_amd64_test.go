//go:build amd64 && !purego

package secp256k1

import (
	"math/rand/v2"
	"testing"
)

// TestVerifyGenericField runs the differential cases with the pure Go
// field multiplication, which processors without BMI2/ADX use.
func TestVerifyGenericField(t *testing.T) {
	if !useADX {
		t.Skip("the assembly is not in use on this processor")
	}
	genTables() // built with the assembly; the tables are the same
	useADX = false
	defer func() { useADX = true }()
	rng := rand.New(rand.NewPCG(51, 51))
	n := 2000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		e := genECDSA(rng)
		if oursECDSA(&e) != btcecECDSA(&e) {
			t.Fatalf("ecdsa case %d: %s", i, e.String())
		}
		s := genSchnorr(rng)
		if oursSchnorr(&s) != btcecSchnorr(&s) {
			t.Fatalf("schnorr case %d: %s", i, s.String())
		}
	}
}
