package txscript

import (
	"math/rand/v2"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// TestVerifySchnorrMatchesBtcec is the differential test between the
// engine's BIP340 verification and btcec's, on signatures of random keys
// and messages and on single-bit mutations of signature, key and message.
func TestVerifySchnorrMatchesBtcec(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 300
	if testing.Short() {
		n = 50
	}
	valid := 0
	for i := range n {
		var skb, msg [32]byte
		for j := range skb {
			skb[j], msg[j] = byte(rng.Uint32()), byte(rng.Uint32())
		}
		priv, _ := btcec.PrivKeyFromBytes(skb[:])
		sig, err := schnorr.Sign(priv, msg[:])
		if err != nil {
			t.Fatal(err)
		}
		sb := sig.Serialize()
		pk := schnorr.SerializePubKey(priv.PubKey())
		for m := range 4 {
			s, p, h := append([]byte(nil), sb...), append([]byte(nil), pk...), msg
			switch m {
			case 1:
				s[rng.IntN(len(s))] ^= 1 << rng.IntN(8)
			case 2:
				p[rng.IntN(len(p))] ^= 1 << rng.IntN(8)
			case 3:
				h[rng.IntN(32)] ^= 1 << rng.IntN(8)
			}
			want := false
			if ps, err := schnorr.ParseSignature(s); err == nil {
				if pub, err := schnorr.ParsePubKey(p); err == nil {
					want = ps.Verify(h[:], pub)
				}
			}
			if got := verifySchnorr(s, p, &h); got != want {
				t.Fatalf("case %d/%d: sig %x pk %x msg %x: got %v, btcec %v", i, m, s, p, h, got, want)
			}
			if want {
				valid++
			}
		}
	}
	if valid < n {
		t.Fatalf("only %d valid cases; the generator is broken", valid)
	}
}

// TestVerifySchnorrAllocs pins that a BIP340 check does not allocate.
func TestVerifySchnorrAllocs(t *testing.T) {
	priv, _ := btcec.PrivKeyFromBytes([]byte("a private key for the alloc test"))
	msg := [32]byte{1, 2, 3}
	sig, err := schnorr.Sign(priv, msg[:])
	if err != nil {
		t.Fatal(err)
	}
	sb := sig.Serialize()
	pk := schnorr.SerializePubKey(priv.PubKey())
	if !verifySchnorr(sb, pk, &msg) {
		t.Fatal("valid signature rejected")
	}
	if a := testing.AllocsPerRun(20, func() { verifySchnorr(sb, pk, &msg) }); a != 0 {
		t.Fatalf("verifySchnorr allocates %v times per call", a)
	}
}
