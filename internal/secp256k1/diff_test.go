package secp256k1

import (
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
)

func schnorrChallenge(c *schnorrCase) [32]byte {
	var buf []byte
	buf = append(buf, challengeTag[:]...)
	buf = append(buf, challengeTag[:]...)
	buf = append(buf, c.sig[:32]...)
	buf = append(buf, c.pub[:]...)
	buf = append(buf, c.msg[:]...)
	return sha256.Sum256(buf)
}

// diffCount is how many random cases each algorithm's differential test
// runs: 20,000, or the count in SECP256K1_DIFF_N (not under -short) for
// the long runs, e.g. SECP256K1_DIFF_N=1000000, about ten minutes per
// algorithm on two cores. The default stays small because the repository's
// test script runs every package without -short.
func diffCount() int {
	n := 20000
	if v := os.Getenv("SECP256K1_DIFF_N"); v != "" && !testing.Short() {
		if m, err := strconv.Atoi(v); err == nil && m > 0 {
			n = m
		}
	}
	return n
}

// parallel runs f(worker, i) for i < n over two goroutines.
func parallel(n int, f func(rng *rand.Rand, i int) bool) (failed int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for i := w; i < n; i += 2 {
				if !f(rng, i) {
					mu.Lock()
					failed++
					mu.Unlock()
					if failed > 5 {
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return failed
}

func TestECDSAMatchesBtcec(t *testing.T) {
	var valid, total int
	var mu sync.Mutex
	failed := parallel(diffCount(), func(rng *rand.Rand, i int) bool {
		c := genECDSA(rng)
		got, want := oursECDSA(&c), btcecECDSA(&c)
		mu.Lock()
		total++
		if want {
			valid++
		}
		mu.Unlock()
		if got != want {
			t.Errorf("case %d: ours %v btcec %v: pub %x r %x s %x msg %x", i, got, want, c.pub, c.r, c.s, c.msg)
			return false
		}
		return true
	})
	if failed > 0 {
		t.Fatalf("%d mismatches", failed)
	}
	if valid < total/3 || valid == total {
		t.Fatalf("%d of %d cases valid: the generator is off", valid, total)
	}
}

func TestSchnorrMatchesBtcec(t *testing.T) {
	var valid, total int
	var mu sync.Mutex
	failed := parallel(diffCount(), func(rng *rand.Rand, i int) bool {
		c := genSchnorr(rng)
		got, want := oursSchnorr(&c), btcecSchnorr(&c)
		mu.Lock()
		total++
		if want {
			valid++
		}
		mu.Unlock()
		if got != want {
			t.Errorf("case %d: ours %v btcec %v: pub %x sig %x msg %x", i, got, want, c.pub, c.sig, c.msg)
			return false
		}
		return true
	})
	if failed > 0 {
		t.Fatalf("%d mismatches", failed)
	}
	if valid < total/3 || valid == total {
		t.Fatalf("%d of %d cases valid: the generator is off", valid, total)
	}
}

func TestECDSAEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	cases := ecdsaEdgeCases(rng)
	var rn, inf, validN int
	for i, c := range cases {
		got, want := oursECDSA(&c), btcecECDSA(&c)
		if got != want {
			t.Errorf("edge case %d: ours %v btcec %v: pub %x r %x s %x msg %x", i, got, want, c.pub, c.r, c.s, c.msg)
		}
		if want {
			validN++
		}
	}
	// The constructed r + n and infinity cases must behave as intended,
	// not just agree.
	for i, c := range rPlusNCases(rand.New(rand.NewPCG(8, 8))) {
		want := i%3 == 0
		if oursECDSA(&c) != want {
			t.Errorf("r+n case %d: got %v want %v", i, !want, want)
		}
		rn++
	}
	for _, c := range infinityCases(rand.New(rand.NewPCG(9, 9))) {
		if oursECDSA(&c) {
			t.Error("infinity case verified")
		}
		inf++
	}
	if rn < 12 || inf == 0 || validN < 5 {
		t.Fatalf("edge generator: %d r+n cases, %d infinity, %d valid", rn, inf, validN)
	}
}

func TestSchnorrEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	cases := schnorrEdgeCases(rng)
	var validN int
	for i, c := range cases {
		got, want := oursSchnorr(&c), btcecSchnorr(&c)
		if got != want {
			t.Errorf("edge case %d: ours %v btcec %v: pub %x sig %x msg %x", i, got, want, c.pub, c.sig, c.msg)
		}
		if want {
			validN++
		}
	}
	if validN < 20 || validN > len(cases)-50 {
		t.Fatalf("edge generator: %d of %d valid", validN, len(cases))
	}
}

// TestEcmultMatchesBtcec checks a*G + b*P point by point, including zero
// scalars and P = +-G.
func TestEcmultMatchesBtcec(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	scalars := func() []Scalar {
		var out []Scalar
		for _, h := range []string{
			"0000000000000000000000000000000000000000000000000000000000000000",
			"0000000000000000000000000000000000000000000000000000000000000001",
			"fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140",
			"00000000000000000000000000000001ffffffffffffffffffffffffffffffff",
			"fffffffffffffffffffffffffffffffe00000000000000000000000000000000",
		} {
			out = append(out, scalarHex(h))
		}
		for range 60 {
			b := randBytes32(rng)
			var s Scalar
			s.SetBytes(&b)
			out = append(out, s)
		}
		out = append(out, endoLambda, endoLambdaNeg)
		return out
	}()
	keys := []*btcec.PublicKey{}
	for range 10 {
		keys = append(keys, randPriv(rng).PubKey())
	}
	var one btcec.ModNScalar
	one.SetInt(1)
	keys = append(keys, btcec.PrivKeyFromScalar(&one).PubKey())
	one.Negate()
	keys = append(keys, btcec.PrivKeyFromScalar(&one).PubKey())
	for _, key := range keys {
		var pk PublicKey
		if !ParsePubKey(key.SerializeUncompressed(), &pk) {
			t.Fatal("parse")
		}
		var P btcec.JacobianPoint
		key.AsJacobian(&P)
		for i := range scalars {
			for j := range scalars {
				if (i+j)%5 != 0 && i > 6 && j > 6 {
					continue
				}
				a, b := &scalars[i], &scalars[j]
				var out jacobian
				if !ecmult(&out, &pk.p, a, b) {
					t.Fatal("ecmult degenerate")
				}
				var ab, bb [32]byte
				a.Bytes(&ab)
				b.Bytes(&bb)
				var as, bs btcec.ModNScalar
				as.SetBytes(&ab)
				bs.SetBytes(&bb)
				var aG, bP, sum btcec.JacobianPoint
				btcec.ScalarBaseMultNonConst(&as, &aG)
				btcec.ScalarMultNonConst(&bs, &P, &bP)
				btcec.AddNonConst(&aG, &bP, &sum)
				wantInf := (sum.X.IsZero() && sum.Y.IsZero()) || sum.Z.IsZero()
				if out.inf != wantInf {
					t.Fatalf("a=%x b=%x: infinity %v want %v", ab, bb, out.inf, wantInf)
				}
				if wantInf {
					continue
				}
				sum.ToAffine()
				got := out.toAffine()
				var gx, gy [32]byte
				got.x.bytes(&gx)
				got.y.bytes(&gy)
				if gx != *sum.X.Bytes() || gy != *sum.Y.Bytes() {
					t.Fatalf("a=%x b=%x: point differs", ab, bb)
				}
			}
		}
	}
}

func TestWNAF(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for range 2000 {
		v := [3]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64() & 3}
		switch rng.IntN(4) {
		case 0:
			v[0] = 0
		case 1:
			v[1] = 0
		}
		for _, w := range []uint{wnafWidthP, wnafWidthG} {
			var naf [wnafMax]int16
			n := wnaf(v, w, &naf)
			// Sum the digits back (as a 3-limb two's complement value)
			// and check their shape.
			var acc, pow [3]uint64
			pow[0] = 1
			last := -100
			for i := range n {
				d := int64(naf[i])
				if d != 0 {
					if d%2 == 0 || d >= 1<<(w-1) || d <= -(1<<(w-1)) || i-last < int(w) {
						t.Fatalf("bad digit %d at %d", d, i)
					}
					last = i
					addScaled(&acc, &pow, d)
				}
				pow = [3]uint64{pow[0] << 1, pow[1]<<1 | pow[0]>>63, pow[2]<<1 | pow[1]>>63}
			}
			if acc != v {
				t.Fatalf("wnaf of %x: sums to %x", v, acc)
			}
		}
	}
}

func addScaled(acc, pow *[3]uint64, d int64) {
	neg := d < 0
	if neg {
		d = -d
	}
	for range d {
		var c uint64
		if neg {
			acc[0], c = subC(acc[0], pow[0], 0)
			acc[1], c = subC(acc[1], pow[1], c)
			acc[2], _ = subC(acc[2], pow[2], c)
		} else {
			acc[0], c = addC(acc[0], pow[0], 0)
			acc[1], c = addC(acc[1], pow[1], c)
			acc[2], _ = addC(acc[2], pow[2], c)
		}
	}
}

// TestGenTables checks sampled entries of the generator tables against
// btcec: genLo[i] = (2i+1)*G and genHi[i] = (2i+1)*2^128*G.
func TestGenTables(t *testing.T) {
	lo, hi := genTables()
	rng := rand.New(rand.NewPCG(13, 13))
	idx := []int{0, 1, 2, tableG - 2, tableG - 1}
	for range 40 {
		idx = append(idx, rng.IntN(tableG))
	}
	for _, i := range idx {
		for h, tab := range []*[tableG]affine{lo, hi} {
			var b [32]byte
			b[31] = byte(2*i + 1)
			b[30] = byte((2*i + 1) >> 8)
			if h == 1 {
				b[15] = b[31]
				b[14] = b[30]
				b[31], b[30] = 0, 0
			}
			var k btcec.ModNScalar
			k.SetBytes(&b)
			var P btcec.JacobianPoint
			btcec.ScalarBaseMultNonConst(&k, &P)
			P.ToAffine()
			var x, y [32]byte
			tab[i].x.bytes(&x)
			tab[i].y.bytes(&y)
			if x != *P.X.Bytes() || y != *P.Y.Bytes() {
				t.Fatalf("table %d entry %d differs", h, i)
			}
		}
	}
}
