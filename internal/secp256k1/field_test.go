package secp256k1

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"
)

var (
	bigP = new(big.Int).SetBytes(hex32("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")[:])
	bigN = new(big.Int).SetBytes(hex32("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")[:])
)

func limbsToBig(v *[4]uint64) *big.Int {
	b := new(big.Int)
	for i := 3; i >= 0; i-- {
		b.Lsh(b, 64)
		b.Or(b, new(big.Int).SetUint64(v[i]))
	}
	return b
}

func bigToLimbs(b *big.Int) [4]uint64 {
	var buf [32]byte
	b.FillBytes(buf[:])
	var v fe
	v[3], v[2], v[1], v[0] = be64(buf[0:]), be64(buf[8:]), be64(buf[16:]), be64(buf[24:])
	return v
}

func be64(b []byte) uint64 {
	var x uint64
	for _, c := range b[:8] {
		x = x<<8 | uint64(c)
	}
	return x
}

// interesting returns limb values that stress carries and reductions:
// 0, 1, small, p-1, p, p+1, 2^256-1, 2^256-feC and around limb borders.
func interestingLimbs() [][4]uint64 {
	out := [][4]uint64{
		{}, {1}, {2}, {feC}, {feC - 1},
		feP, {feP[0] - 1, feP[1], feP[2], feP[3]}, {feP[0] + 1, feP[1], feP[2], feP[3]},
		{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)},
		{^uint64(0) - feC, ^uint64(0), ^uint64(0), ^uint64(0)},
		{0, 0, 0, 1 << 63}, {^uint64(0), 0, ^uint64(0), 0}, {0, ^uint64(0), 0, ^uint64(0)},
		scN, {scN[0] - 1, scN[1], scN[2], scN[3]}, scHalfN,
		{^uint64(0)}, {0, 1}, {0, 0, 1}, {0, 0, 0, 1},
	}
	return out
}

func randLimbs(rng *rand.Rand) [4]uint64 {
	v := [4]uint64{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()}
	// Bias some values to the top and bottom of the range.
	switch rng.IntN(8) {
	case 0:
		v[3], v[2], v[1] = ^uint64(0), ^uint64(0), ^uint64(0)
	case 1:
		v[3], v[2] = 0, 0
	}
	return v
}

func fieldInputs(rng *rand.Rand, n int) [][4]uint64 {
	in := interestingLimbs()
	for range n {
		in = append(in, randLimbs(rng))
	}
	return in
}

func checkFe(t *testing.T, op string, got *fe, want *big.Int) {
	t.Helper()
	w := new(big.Int).Mod(want, bigP)
	g := limbsToBig((*[4]uint64)(got))
	if g.Mod(g, bigP).Cmp(w) != 0 {
		t.Fatalf("%s: got %x want %x", op, limbsToBig((*[4]uint64)(got)), w)
	}
}

func TestFieldOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	in := fieldInputs(rng, 300)
	for i := range in {
		for j := range in {
			if j%7 != 0 && i%5 != 0 && rng.IntN(4) != 0 {
				continue
			}
			a, b := fe(in[i]), fe(in[j])
			ba, bb := limbsToBig(&in[i]), limbsToBig(&in[j])
			var r fe
			feMul(&r, &a, &b)
			checkFe(t, "mul", &r, new(big.Int).Mul(ba, bb))
			mulGeneric(&r, &a, &b)
			checkFe(t, "mulGeneric", &r, new(big.Int).Mul(ba, bb))
			r.add(&a, &b)
			checkFe(t, "add", &r, new(big.Int).Add(ba, bb))
			r.sub(&a, &b)
			checkFe(t, "sub", &r, new(big.Int).Sub(ba, bb))
			if a.equal(&b) != (new(big.Int).Mod(ba, bigP).Cmp(new(big.Int).Mod(bb, bigP)) == 0) {
				t.Fatalf("equal %x %x", ba, bb)
			}
		}
		a := fe(in[i])
		ba := limbsToBig(&in[i])
		var r fe
		feSqr(&r, &a)
		checkFe(t, "sqr", &r, new(big.Int).Mul(ba, ba))
		sqrGeneric(&r, &a)
		checkFe(t, "sqrGeneric", &r, new(big.Int).Mul(ba, ba))
		r.neg(&a)
		checkFe(t, "neg", &r, new(big.Int).Neg(ba))
		for _, k := range []uint64{0, 1, 2, 3, 4, 7, 8, 1<<32 - 1} {
			r.mulInt(&a, k)
			checkFe(t, "mulInt", &r, new(big.Int).Mul(ba, new(big.Int).SetUint64(k)))
		}
		r = a
		r.normalize()
		if limbsToBig((*[4]uint64)(&r)).Cmp(new(big.Int).Mod(ba, bigP)) != 0 {
			t.Fatalf("normalize %x", ba)
		}
		if r.isZero() != (new(big.Int).Mod(ba, bigP).Sign() == 0) || a.isZero() != r.isZero() {
			t.Fatalf("isZero %x", ba)
		}
		if a.isOdd() != (new(big.Int).Mod(ba, bigP).Bit(0) == 1) {
			t.Fatalf("isOdd %x", ba)
		}
		am := new(big.Int).Mod(ba, bigP)
		want := new(big.Int).ModInverse(am, bigP)
		if want == nil {
			want = new(big.Int)
		}
		r.inv(&a)
		checkFe(t, "inv", &r, want)
		r.invFermat(&a)
		checkFe(t, "invFermat", &r, want)
		ok := r.sqrt(&a)
		wantOK := big.Jacobi(am, bigP) >= 0
		if ok != wantOK {
			t.Fatalf("sqrt ok of %x: %v", ba, ok)
		}
		if ok {
			var s fe
			feSqr(&s, &r)
			if !s.equal(&a) {
				t.Fatalf("sqrt of %x", ba)
			}
		}
		// Round trip through bytes.
		var b [32]byte
		a.bytes(&b)
		var c fe
		if c.setBytes(&b) || !c.equal(&a) {
			t.Fatalf("bytes round trip %x", ba)
		}
		ba.FillBytes(b[:])
		if c.setBytes(&b) != (ba.Cmp(bigP) >= 0) {
			t.Fatalf("setBytes overflow of %x", ba)
		}
	}
}

func TestScalarOps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	in := fieldInputs(rng, 300)
	toSc := func(v [4]uint64) (Scalar, *big.Int) {
		b := limbsToBig(&v)
		var buf [32]byte
		b.FillBytes(buf[:])
		var s Scalar
		if s.SetBytes(&buf) != (b.Cmp(bigN) >= 0) {
			t.Fatalf("SetBytes overflow %x", b)
		}
		return s, b.Mod(b, bigN)
	}
	check := func(op string, got *Scalar, want *big.Int) {
		t.Helper()
		w := new(big.Int).Mod(want, bigN)
		if limbsToBig(&got.v).Cmp(w) != 0 {
			t.Fatalf("%s: got %x want %x", op, limbsToBig(&got.v), w)
		}
	}
	for i := range in {
		a, ba := toSc(in[i])
		check("SetBytes", &a, ba)
		for j := range in {
			if j%5 != 0 && rng.IntN(3) != 0 {
				continue
			}
			b, bb := toSc(in[j])
			var r Scalar
			r.mul(&a, &b)
			check("mul", &r, new(big.Int).Mul(ba, bb))
			r.add(&a, &b)
			check("add", &r, new(big.Int).Add(ba, bb))
		}
		var r Scalar
		r.neg(&a)
		check("neg", &r, new(big.Int).Neg(ba))
		want := new(big.Int).ModInverse(ba, bigN)
		if want == nil {
			want = new(big.Int)
		}
		r.inv(&a)
		check("inv", &r, want)
		if a.IsHigh() != (ba.Cmp(new(big.Int).Rsh(bigN, 1)) > 0) {
			t.Fatalf("IsHigh %x", ba)
		}
		var k1, k2 Scalar
		a.split(&k1, &k2)
		lam := limbsToBig(&endoLambda.v)
		sum := new(big.Int).Mul(limbsToBig(&k2.v), lam)
		sum.Add(sum, limbsToBig(&k1.v))
		if sum.Mod(sum, bigN).Cmp(ba) != 0 {
			t.Fatalf("split of %x", ba)
		}
		for _, k := range []*Scalar{&k1, &k2} {
			v := limbsToBig(&k.v)
			if k.IsHigh() {
				v.Sub(bigN, v)
			}
			if v.BitLen() > 128 {
				t.Fatalf("split of %x: half of %d bits", ba, v.BitLen())
			}
		}
	}
}

func TestEndomorphismConstants(t *testing.T) {
	// beta^3 = 1 (mod p), lambda^3 = 1 (mod n), both non-trivial.
	beta := limbsToBig((*[4]uint64)(&endoBeta))
	lam := limbsToBig(&endoLambda.v)
	if new(big.Int).Exp(beta, big.NewInt(3), bigP).Cmp(big.NewInt(1)) != 0 || beta.Cmp(big.NewInt(1)) == 0 {
		t.Fatal("beta")
	}
	if new(big.Int).Exp(lam, big.NewInt(3), bigN).Cmp(big.NewInt(1)) != 0 || lam.Cmp(big.NewInt(1)) == 0 {
		t.Fatal("lambda")
	}
	if new(big.Int).Add(lam, limbsToBig(&endoLambdaNeg.v)).Cmp(bigN) != 0 {
		t.Fatal("-lambda")
	}
	// a1 = b2, b1, a2 from the lattice; g1, g2 the rounded quotients.
	b2 := limbsToBig(hexLimbs("000000000000000000000000000000003086d221a7d46bcde86c90e49284eb15"))
	mb1 := limbsToBig(&endoMinusB1.v)
	a2 := limbsToBig(hexLimbs("0000000000000000000000000000000114ca50f7a8e2f3f657c1108d9d44cfd8"))
	// a1 + b1*lambda = 0 and a2 + b2*lambda = 0 (mod n).
	x := new(big.Int).Sub(b2, new(big.Int).Mul(mb1, lam))
	if x.Mod(x, bigN).Sign() != 0 {
		t.Fatal("a1 + b1*lambda")
	}
	x = new(big.Int).Add(a2, new(big.Int).Mul(b2, lam))
	if x.Mod(x, bigN).Sign() != 0 {
		t.Fatal("a2 + b2*lambda")
	}
	if new(big.Int).Add(limbsToBig(&endoMinusB2.v), b2).Cmp(bigN) != 0 {
		t.Fatal("-b2")
	}
	round := func(num *big.Int) *big.Int {
		q := new(big.Int).Lsh(num, 384)
		q.Add(q, new(big.Int).Rsh(bigN, 1))
		return q.Div(q, bigN)
	}
	if round(b2).Cmp(limbsToBig(&endoG1.v)) != 0 || round(mb1).Cmp(limbsToBig(&endoG2.v)) != 0 {
		t.Fatal("g1/g2")
	}
}

func hexLimbs(s string) *[4]uint64 {
	b := new(big.Int).SetBytes(hex32(s)[:])
	v := bigToLimbs(b)
	return &v
}

func BenchmarkFieldMul(b *testing.B) {
	x, y := feHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee"), feHex("3086d221a7d46bcde86c90e49284eb153daa8a1471e8ca7fe893209a45dbb031")
	for b.Loop() {
		feMul(&x, &x, &y)
	}
}

func BenchmarkFieldSqr(b *testing.B) {
	x := feHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
	for b.Loop() {
		feSqr(&x, &x)
	}
}

func BenchmarkFieldInv(b *testing.B) {
	x := feHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
	for b.Loop() {
		x.inv(&x)
	}
}

func BenchmarkFieldSqrt(b *testing.B) {
	x := feHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
	for b.Loop() {
		x.sqrt(&x)
	}
}

func BenchmarkScalarInv(b *testing.B) {
	x := scalarHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
	for b.Loop() {
		x.inv(&x)
	}
}

func addC(a, b, c uint64) (uint64, uint64) { return bits.Add64(a, b, c) }
func subC(a, b, c uint64) (uint64, uint64) { return bits.Sub64(a, b, c) }

// TestMulIntWrap hits the rare final carry of mulInt: a = 2^256 - j with
// k = 2^32 - 1 leaves a value just below 2^64 after the wrap, so adding
// 2^256 mod p carries into the second limb.
func TestMulIntWrap(t *testing.T) {
	k := uint64(1<<32 - 1)
	bk := new(big.Int).SetUint64(k)
	base := new(big.Int).Mul(new(big.Int).SetUint64(k-1), new(big.Int).SetUint64(feC))
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	found := 0
	for tt := int64(1); tt < 1<<22 && found < 20; tt++ {
		v := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(tt))
		num := new(big.Int).Sub(base, v)
		j, m := new(big.Int).QuoRem(num, bk, new(big.Int))
		if m.Sign() != 0 || j.Sign() <= 0 {
			continue
		}
		found++
		ba := new(big.Int).Sub(two256, j)
		a := fe(bigToLimbs(ba))
		var r fe
		r.mulInt(&a, k)
		checkFe(t, "mulInt wrap", &r, new(big.Int).Mul(ba, bk))
	}
	if found == 0 {
		t.Fatal("no wrap case constructed")
	}
}
