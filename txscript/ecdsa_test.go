package txscript

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"

	"github.com/btcnode/btcd/internal/secp256k1"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
)

// verifyECDSABtcec is verifyECDSA on btcec: lax DER parsing followed by
// btcec's key parsing and ecdsa.Verify. It is the reference the
// allocation-free verifyECDSA must agree with on every input.
func verifyECDSABtcec(sig, pubKey []byte, hash *[32]byte) bool {
	if !pubKeySizeValid(pubKey) {
		return false
	}
	r, s, ok := parseDERLax(sig)
	if !ok {
		return false
	}
	pk, err := btcec.ParsePubKey(pubKey)
	if err != nil {
		return false
	}
	br, bs := toModN(&r), toModN(&s)
	return ecdsa.NewSignature(&br, &bs).Verify(hash[:], pk)
}

// toModN converts a scalar to btcec's type.
func toModN(s *secp256k1.Scalar) btcec.ModNScalar {
	var b [32]byte
	s.Bytes(&b)
	var m btcec.ModNScalar
	m.SetBytes(&b)
	return m
}

// ecdsaCase is one (signature, key, hash) triple for the differential test.
type ecdsaCase struct {
	sig, pk []byte
	hash    [32]byte
}

// ecdsaCases returns valid signatures in every key encoding (compressed,
// uncompressed, hybrid), high-S variants, and mutations of each.
func ecdsaCases(t testing.TB, n int) []ecdsaCase {
	rng := rand.New(rand.NewPCG(1, 2))
	var cases []ecdsaCase
	for i := range n {
		var seed [32]byte
		for j := range seed {
			seed[j] = byte(rng.Uint32())
		}
		priv, _ := btcec.PrivKeyFromBytes(seed[:])
		hash := sha256.Sum256(seed[:])
		if i%7 == 0 {
			hash = [32]byte{0: 0xff, 1: 0xff, 31: byte(i)} // e >= n: reduced mod n
		}
		der := ecdsa.Sign(priv, hash[:]).Serialize()
		pub := priv.PubKey()
		comp := pub.SerializeCompressed()
		unc := pub.SerializeUncompressed()
		hyb := append([]byte(nil), unc...)
		hyb[0] = 0x06 | unc[64]&1
		badHyb := append([]byte(nil), hyb...)
		badHyb[0] ^= 1
		for _, pk := range [][]byte{comp, unc, hyb, badHyb} {
			cases = append(cases, ecdsaCase{der, pk, hash})
		}
		cases = append(cases, ecdsaCase{highS(t, der), comp, hash})
		// Mutations: flip one bit of the signature, key or hash.
		for range 4 {
			c := ecdsaCase{append([]byte(nil), der...), append([]byte(nil), comp...), hash}
			switch rng.IntN(3) {
			case 0:
				c.sig[rng.IntN(len(c.sig))] ^= 1 << rng.IntN(8)
			case 1:
				c.pk[rng.IntN(len(c.pk))] ^= 1 << rng.IntN(8)
			default:
				c.hash[rng.IntN(32)] ^= 1 << rng.IntN(8)
			}
			cases = append(cases, c)
		}
		// Random garbage of plausible lengths.
		g := make([]byte, 8+rng.IntN(66))
		for j := range g {
			g[j] = byte(rng.Uint32())
		}
		cases = append(cases, ecdsaCase{g, comp, hash})
	}
	// Edge values: r or s zero, r = s = n-1, the point at infinity key.
	zeroR := []byte{0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01}
	zeroS := []byte{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x00}
	cases = append(cases, ecdsaCase{sig: zeroR, pk: cases[0].pk}, ecdsaCase{sig: zeroS, pk: cases[0].pk})
	return cases
}

// highS returns the signature with s replaced by n-s (still valid for
// Core, which normalises S before verifying).
func highS(t testing.TB, der []byte) []byte {
	r, s, ok := parseDERLax(der)
	if !ok {
		t.Fatal("own signature does not parse")
	}
	br, bs := toModN(&r), toModN(&s)
	bs.Negate()
	return ecdsa.NewSignature(&br, &bs).Serialize()
}

// TestVerifyECDSAMatchesBtcec is the differential test between the
// allocation-free verification and btcec's.
func TestVerifyECDSAMatchesBtcec(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	valid := 0
	for i, c := range ecdsaCases(t, n) {
		got := verifyECDSA(c.sig, c.pk, &c.hash)
		want := verifyECDSABtcec(c.sig, c.pk, &c.hash)
		if got != want {
			t.Fatalf("case %d: sig %x pk %x hash %x: got %v, btcec %v", i, c.sig, c.pk, c.hash, got, want)
		}
		if got {
			valid++
		}
	}
	if valid < n*4 {
		t.Fatalf("only %d valid cases; the generator is broken", valid)
	}
}

// TestVerifyECDSAAllocs pins the point of verifyECDSA: no heap allocation.
func TestVerifyECDSAAllocs(t *testing.T) {
	c := ecdsaCases(t, 1)[0]
	if !verifyECDSA(c.sig, c.pk, &c.hash) {
		t.Fatal("valid signature rejected")
	}
	if a := testing.AllocsPerRun(20, func() { verifyECDSA(c.sig, c.pk, &c.hash) }); a != 0 {
		t.Fatalf("verifyECDSA allocates %v times per call", a)
	}
}

// FuzzVerifyECDSA compares verifyECDSA with btcec on arbitrary inputs.
func FuzzVerifyECDSA(f *testing.F) {
	for _, c := range ecdsaCases(f, 4) {
		f.Add(c.sig, c.pk, c.hash[:])
	}
	f.Fuzz(func(t *testing.T, sig, pk, hash []byte) {
		var h [32]byte
		copy(h[:], hash)
		if got, want := verifyECDSA(sig, pk, &h), verifyECDSABtcec(sig, pk, &h); got != want {
			t.Fatalf("sig %x pk %x hash %x: got %v, btcec %v", sig, pk, h, got, want)
		}
	})
}

func BenchmarkVerifyECDSA(b *testing.B) {
	c := ecdsaCases(b, 1)[0]
	b.Run("own", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			verifyECDSA(c.sig, c.pk, &c.hash)
		}
	})
	b.Run("btcec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			verifyECDSABtcec(c.sig, c.pk, &c.hash)
		}
	})
}

// TestCacheStoreOff checks that an engine told not to store still finds
// entries another engine stored, and adds none of its own.
func TestCacheStoreOff(t *testing.T) {
	cache := NewSigCache(100)
	look := NewEngine()
	look.SetCacheStore(false)
	for _, in := range makeSignedInputs(t) {
		hs := NewTxSigHashes(in.tx, []wire.TxOut{in.prev})
		before := cache.Len()
		if err := look.Verify(in.tx, 0, &in.prev, in.flags, cache, hs); err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		if cache.Len() != before {
			t.Fatalf("%s: lookup-only engine stored an entry", in.name)
		}
		if err := VerifyInput(in.tx, 0, &in.prev, in.flags, cache, hs); err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		hits, _ := cache.Stats()
		if err := look.Verify(in.tx, 0, &in.prev, in.flags, cache, hs); err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		if h2, _ := cache.Stats(); h2 == hits {
			t.Fatalf("%s: lookup-only engine missed a stored entry", in.name)
		}
	}
}
