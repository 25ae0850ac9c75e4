package txscript

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
)

// curveN is the secp256k1 group order.
var curveN, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)

func scalarBig(s *btcec.ModNScalar) *big.Int {
	b := s.Bytes()
	return new(big.Int).SetBytes(b[:])
}

// TestEndomorphismConstants re-derives the constants of ecmult.go from
// the curve: lambda is a cube root of unity mod n with lambda*G =
// (beta*Gx, Gy), and (a1, b1), (a2, b2) with b2 = a1 are the short
// lattice vectors g1 and g2 were rounded from.
func TestEndomorphismConstants(t *testing.T) {
	lambda := new(big.Int).Sub(curveN, scalarBig(endoLambdaNeg))
	if new(big.Int).Exp(lambda, big.NewInt(3), curveN).Cmp(big.NewInt(1)) != 0 {
		t.Fatal("lambda is not a cube root of unity")
	}
	var l btcec.ModNScalar
	lb := lambda.FillBytes(make([]byte, 32))
	l.SetByteSlice(lb)
	var lG btcec.JacobianPoint
	btcec.ScalarBaseMultNonConst(&l, &lG)
	lG.ToAffine()
	var one btcec.ModNScalar
	one.SetInt(1)
	var g btcec.JacobianPoint
	btcec.ScalarBaseMultNonConst(&one, &g)
	g.ToAffine()
	var bx btcec.FieldVal
	bx.Set(&g.X).Mul(endoBeta).Normalize()
	if !lG.X.Equals(&bx) || !lG.Y.Equals(&g.Y) {
		t.Fatal("lambda*G != (beta*Gx, Gy)")
	}
	a1 := new(big.Int).SetBytes(hexSlice("3086d221a7d46bcde86c90e49284eb15"))
	minusB1 := scalarBig(endoMinusB1)
	a2 := new(big.Int).SetBytes(hexSlice("0114ca50f7a8e2f3f657c1108d9d44cfd8"))
	b2 := a1
	// a + b*lambda = 0 mod n for both vectors.
	v1 := new(big.Int).Sub(a1, new(big.Int).Mul(minusB1, lambda))
	v2 := new(big.Int).Add(a2, new(big.Int).Mul(b2, lambda))
	if v1.Mod(v1, curveN).Sign() != 0 || v2.Mod(v2, curveN).Sign() != 0 {
		t.Fatal("lattice vectors are not in the kernel")
	}
	if new(big.Int).Sub(curveN, b2).Cmp(scalarBig(endoMinusB2)) != 0 {
		t.Fatal("-b2 constant")
	}
	round := func(num *big.Int) *big.Int {
		x := new(big.Int).Lsh(num, 384)
		x.Add(x, new(big.Int).Rsh(curveN, 1))
		return x.Quo(x, curveN)
	}
	limbs := func(l [4]uint64) *big.Int {
		x := new(big.Int)
		for i := 3; i >= 0; i-- {
			x.Lsh(x, 64).Or(x, new(big.Int).SetUint64(l[i]))
		}
		return x
	}
	if round(b2).Cmp(limbs(endoG1)) != 0 || round(minusB1).Cmp(limbs(endoG2)) != 0 {
		t.Fatal("g1/g2 are not round(2^384*b/n)")
	}
}

func hexSlice(s string) []byte {
	b := make([]byte, len(s)/2)
	for i := range b {
		b[i] = unhex(s[2*i])<<4 | unhex(s[2*i+1])
	}
	return b
}

// ecmultScalars returns edge and random scalars.
func ecmultScalars(rng *rand.Rand, n int) []btcec.ModNScalar {
	lambda := new(big.Int).Sub(curveN, scalarBig(endoLambdaNeg))
	edges := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(15), big.NewInt(16), big.NewInt(17),
		new(big.Int).Sub(curveN, big.NewInt(1)), new(big.Int).Sub(curveN, big.NewInt(2)),
		new(big.Int).Rsh(curveN, 1), new(big.Int).Add(new(big.Int).Rsh(curveN, 1), big.NewInt(1)),
		lambda, new(big.Int).Sub(curveN, lambda), new(big.Int).Lsh(big.NewInt(1), 128),
		new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1)), new(big.Int).Lsh(big.NewInt(1), 255)}
	var out []btcec.ModNScalar
	for _, e := range edges {
		var s btcec.ModNScalar
		s.SetByteSlice(new(big.Int).Mod(e, curveN).FillBytes(make([]byte, 32)))
		out = append(out, s)
	}
	for range n {
		var b [32]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		switch rng.IntN(4) {
		case 0: // short scalars
			for i := range 20 {
				b[i] = 0
			}
		case 1: // all ones in the top half
			for i := range 16 {
				b[i] = 0xff
			}
		}
		var s btcec.ModNScalar
		s.SetBytes(&b)
		out = append(out, s)
	}
	return out
}

// TestScalarMultMatchesBtcec compares scalarMult with
// btcec.ScalarMultNonConst for edge and random scalars on points with
// Z = 1 and with other Z (as the verifiers pass them).
func TestScalarMultMatchesBtcec(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3000
	if testing.Short() {
		n = 300
	}
	ks := ecmultScalars(rng, n)
	for i := range ks {
		// A point: a random multiple of G, in Jacobian form (Z != 1) for
		// odd i, affine for even i.
		P := randomPoint(rng, i == 0)
		if i%2 == 0 {
			P.ToAffine()
		}
		var want, got btcec.JacobianPoint
		btcec.ScalarMultNonConst(&ks[i], &P, &want)
		scalarMult(&ks[i], &P, &got)
		if msg := pointsDiffer(&want, &got); msg != "" {
			t.Fatalf("case %d: k=%x: %s", i, ks[i].Bytes(), msg)
		}
	}
}

// randomPoint returns a random multiple of G (G itself if gen), in
// Jacobian form with Z != 1.
func randomPoint(rng *rand.Rand, gen bool) btcec.JacobianPoint {
	var e btcec.ModNScalar
	var eb [32]byte
	for j := range eb {
		eb[j] = byte(rng.Uint32())
	}
	e.SetBytes(&eb)
	if gen {
		e.SetInt(1)
	}
	var P btcec.JacobianPoint
	btcec.ScalarBaseMultNonConst(&e, &P)
	return P
}

// pointsDiffer compares two Jacobian points (infinity: Z = 0 or X = Y =
// 0) and describes how btcec's (want) and ours (got) differ, or "".
func pointsDiffer(want, got *btcec.JacobianPoint) string {
	wInf := (want.X.IsZero() && want.Y.IsZero()) || want.Z.IsZero()
	gInf := (got.X.IsZero() && got.Y.IsZero()) || got.Z.IsZero()
	if wInf || gInf {
		if wInf != gInf {
			return fmt.Sprintf("infinity mismatch (btcec %v, ours %v)", wInf, gInf)
		}
		return ""
	}
	w, g := *want, *got
	w.ToAffine()
	g.ToAffine()
	if !w.X.Equals(&g.X) || !w.Y.Equals(&g.Y) {
		return "points differ"
	}
	return ""
}

// TestSplitScalarBounds checks k = k1 + k2*lambda and that both halves
// (or their negations) stay within the NAF's length.
func TestSplitScalarBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lambda := new(big.Int).Sub(curveN, scalarBig(endoLambdaNeg))
	half := new(big.Int).Rsh(curveN, 1)
	for _, k := range ecmultScalars(rng, 5000) {
		var k1, k2 btcec.ModNScalar
		splitScalar(&k, &k1, &k2)
		sum := new(big.Int).Mul(scalarBig(&k2), lambda)
		sum.Add(sum, scalarBig(&k1)).Mod(sum, curveN)
		if sum.Cmp(scalarBig(&k)) != 0 {
			t.Fatalf("k1 + k2*lambda != k for %x", k.Bytes())
		}
		for _, h := range []*big.Int{scalarBig(&k1), scalarBig(&k2)} {
			if h.Cmp(half) > 0 {
				h.Sub(curveN, h)
			}
			if h.BitLen() > 129 {
				t.Fatalf("half of %d bits for %x", h.BitLen(), k.Bytes())
			}
		}
	}
}

// TestWNAF checks the digits: odd, below 16 in magnitude, at least four
// zeros after each non-zero one, and summing to k.
func TestWNAF(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		var b [32]byte
		for i := 15; i < 32; i++ {
			b[i] = byte(rng.Uint32())
		}
		b[15] &= 3 // below 2^130
		var k btcec.ModNScalar
		k.SetBytes(&b)
		var naf [wnafMaxLen]int16
		n := wnaf(&k, &naf)
		sum := new(big.Int)
		last := -wnafWidth
		for i := n - 1; i >= 0; i-- {
			sum.Lsh(sum, 1).Add(sum, big.NewInt(int64(naf[i])))
		}
		for i := 0; i < n; i++ {
			if d := naf[i]; d != 0 {
				if d%2 == 0 || d > 15 || d < -15 || i-last < wnafWidth {
					t.Fatalf("bad digit %d at %d", d, i)
				}
				last = i
			}
		}
		if sum.Cmp(scalarBig(&k)) != 0 {
			t.Fatalf("NAF of %x sums to %x", b, sum)
		}
	}
}

func BenchmarkScalarMult(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	ks := ecmultScalars(rng, 64)
	var P btcec.JacobianPoint
	btcec.ScalarBaseMultNonConst(&ks[20], &P)
	P.ToAffine()
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		var out btcec.JacobianPoint
		for i := 0; b.Loop(); i++ {
			scalarMult(&ks[i&63], &P, &out)
		}
	})
	b.Run("btcec", func(b *testing.B) {
		b.ReportAllocs()
		var out btcec.JacobianPoint
		for i := 0; b.Loop(); i++ {
			btcec.ScalarMultNonConst(&ks[i&63], &P, &out)
		}
	})
}

// TestDoubleMultMatchesBtcec checks a*G + b*P against btcec's separate
// products and sum, for edge and random scalars (both halves of a empty,
// full or straddling 2^128) and random keys, and for P = G with b = a
// (the chain adds equal points) and b = -a (the sum is infinity).
func TestDoubleMultMatchesBtcec(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 2000
	if testing.Short() {
		n = 200
	}
	as := ecmultScalars(rng, n)
	bs := ecmultScalars(rng, n)
	var one btcec.ModNScalar
	one.SetInt(1)
	var G btcec.JacobianPoint
	btcec.ScalarBaseMultNonConst(&one, &G)
	G.ToAffine()
	check := func(i int, a, b *btcec.ModNScalar, P *btcec.JacobianPoint) {
		t.Helper()
		var aG, bP, want, got btcec.JacobianPoint
		btcec.ScalarBaseMultNonConst(a, &aG)
		btcec.ScalarMultNonConst(b, P, &bP)
		btcec.AddNonConst(&aG, &bP, &want)
		if !doubleMultAffine(a, b, &P.X, &P.Y, &got) {
			t.Fatalf("case %d: declined for a point of prime order", i)
		}
		if msg := pointsDiffer(&want, &got); msg != "" {
			t.Fatalf("case %d: a=%x b=%x: %s", i, a.Bytes(), b.Bytes(), msg)
		}
	}
	for i := range as {
		P := randomPoint(rng, false)
		P.ToAffine()
		check(i, &as[i], &bs[i], &P)
		// P = G: b = a doubles, b = -a cancels.
		check(i, &as[i], &as[i], &G)
		var neg btcec.ModNScalar
		neg.Set(&as[i]).Negate()
		check(i, &as[i], &neg, &G)
	}
}

// TestGenNAF checks the wide NAF of 128-bit values: it sums back to the
// value, its digits are odd and below 2^(genWidth-1) in magnitude, and
// nonzero digits are at least genWidth apart.
func TestGenNAF(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vals := [][2]uint64{{0, 0}, {1, 0}, {^uint64(0), ^uint64(0)}, {0, 1 << 63}, {1<<genWidth - 1, 0}}
	for range 2000 {
		vals = append(vals, [2]uint64{rng.Uint64(), rng.Uint64() >> rng.IntN(64)})
	}
	for _, v := range vals {
		var g genNAF
		g.set(v[0], v[1])
		sum := new(big.Int)
		last := -genWidth
		for i := g.n - 1; i >= 0; i-- {
			d := g.d[i]
			if d != 0 {
				if d%2 == 0 || d >= 1<<(genWidth-1) || d <= -(1<<(genWidth-1)) {
					t.Fatalf("%x: digit %d at %d", v, d, i)
				}
				if last-i < genWidth && last >= 0 {
					t.Fatalf("%x: digits at %d and %d", v, last, i)
				}
				last = i
			}
			sum.Lsh(sum, 1).Add(sum, big.NewInt(int64(d)))
		}
		want := new(big.Int).Lsh(new(big.Int).SetUint64(v[1]), 64)
		want.Add(want, new(big.Int).SetUint64(v[0]))
		if sum.Cmp(want) != 0 {
			t.Fatalf("%x: NAF sums to %x", v, sum)
		}
	}
}
