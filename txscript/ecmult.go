package txscript

import (
	"encoding/binary"
	"math/bits"

	"github.com/btcsuite/btcd/btcec/v2"
)

// This file holds the variable-base scalar multiplication of signature
// verification: k*P for the public key of every ECDSA and Schnorr check,
// which is most of the CPU of an initial sync that checks scripts.
//
// Like btcec.ScalarMultNonConst it splits k with the secp256k1
// endomorphism (k = k1 + k2*lambda, both halves about 128 bits, and
// lambda*P = (beta*x, y)), but it walks the halves in width-5 NAF over a
// table of the odd multiples P, 3P, ..., 15P and their images under the
// endomorphism, instead of plain NAF over P alone: about 43 point
// additions per multiplication instead of about 86, for the same ~129
// doublings. Nothing here depends on secret data, so variable time is
// fine: verification only handles public values.

// Endomorphism and lattice constants of secp256k1 (the values used by
// libsecp256k1 and GECC section 3.5, re-derived for this file from the
// curve parameters; see ecmult_test.go).
var (
	endoLambdaNeg = scalarFromHex("ac9c52b33fa3cf1f5ad9e3fd77ed9ba4a880b9fc8ec739c2e0cfc810b51283cf") // -lambda mod n
	endoBeta      = fieldFromHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
	endoMinusB1   = scalarFromHex("00000000000000000000000000000000e4437ed6010e88286f547fa90abfe4c3")
	endoMinusB2   = scalarFromHex("fffffffffffffffffffffffffffffffe8a280ac50774346dd765cda83db1562c")
	// g1 = round(2^384 * b2 / n), g2 = round(2^384 * -b1 / n), as
	// little-endian 64-bit limbs.
	endoG1 = limbsFromHex("3086d221a7d46bcde86c90e49284eb153daa8a1471e8ca7fe893209a45dbb031")
	endoG2 = limbsFromHex("e4437ed6010e88286f547fa90abfe4c4221208ac9df506c61571b4ae8ac47f71")
)

// wnafWidth is the window of the NAF: digits are odd and below 2^(w-1)
// in magnitude, so the table holds 2^(w-2) = 8 odd multiples.
const (
	wnafWidth = 5
	wnafTable = 1 << (wnafWidth - 2)
	// wnafMaxLen bounds the digits of a half scalar (at most 129 bits
	// after the split, one more digit for the carry).
	wnafMaxLen = 131
)

// scalarMult sets out = k*P, the same result as btcec.ScalarMultNonConst
// (the point at infinity has Z = 0).
func scalarMult(k *btcec.ModNScalar, P *btcec.JacobianPoint, out *btcec.JacobianPoint) {
	var z btcec.FieldVal
	z.Set(&P.Z).Normalize()
	if z.IsOne() && scalarMultAffine(k, &P.X, &P.Y, out) {
		return
	}
	scalarMultJacobian(k, P, out)
}

// scalarMultJacobian is scalarMult for any P, with its table in Jacobian
// coordinates (general additions).
func scalarMultJacobian(k *btcec.ModNScalar, P *btcec.JacobianPoint, out *btcec.JacobianPoint) {
	var odd [wnafTable]btcec.JacobianPoint
	odd[0].Set(P)
	odd[0].X.Normalize()
	odd[0].Y.Normalize()
	odd[0].Z.Normalize()
	var twoP btcec.JacobianPoint
	btcec.DoubleNonConst(&odd[0], &twoP)
	for i := 1; i < wnafTable; i++ {
		btcec.AddNonConst(&odd[i-1], &twoP, &odd[i])
	}
	wnafMul(k, &odd, out)
}

// wnafMul sets out = k*P given odd = P, 3P, ..., 15P (normalized, any Z,
// all on one curve: the real one or an isomorphic one): it splits k,
// writes both halves in NAF, makes the sign-adjusted tables for k1 (the
// odd multiples) and k2 (their images (beta*x, y)), each with its
// negation for the negative digits, and runs the shared doubling chain.
func wnafMul(k *btcec.ModNScalar, odd *[wnafTable]btcec.JacobianPoint, out *btcec.JacobianPoint) {
	wnafMulGen(k, odd, nil, out)
}

// wnafMulGen is wnafMul that also adds the generator's multiple g (nil:
// none) in the same doubling chain: out = k*P + g's scalar*G, where odd
// and g's scale put P and G on the same (isomorphic) curve.
func wnafMulGen(k *btcec.ModNScalar, odd *[wnafTable]btcec.JacobianPoint, g *genTerms, out *btcec.JacobianPoint) {
	var k1, k2 btcec.ModNScalar
	splitScalar(k, &k1, &k2)
	neg1, neg2 := k1.IsOverHalfOrder(), k2.IsOverHalfOrder()
	if neg1 {
		k1.Negate()
	}
	if neg2 {
		k2.Negate()
	}
	var naf1, naf2 [wnafMaxLen]int16
	len1 := wnaf(&k1, &naf1)
	len2 := wnaf(&k2, &naf2)

	var pos1, negT1, pos2, negT2 [wnafTable]btcec.JacobianPoint
	for i := range odd {
		o := &odd[i]
		pos1[i].Set(o)
		negT1[i].Set(o)
		negT1[i].Y.Negate(1).Normalize()
		if neg1 {
			pos1[i], negT1[i] = negT1[i], pos1[i]
		}
		pos2[i].Set(o)
		pos2[i].X.Mul(endoBeta).Normalize()
		negT2[i].Set(&pos2[i])
		negT2[i].Y.Negate(1).Normalize()
		if neg2 {
			pos2[i], negT2[i] = negT2[i], pos2[i]
		}
	}

	top := max(len1, len2)
	if g != nil {
		top = max(top, g.lo.n, g.hi.n)
	}
	var r btcec.JacobianPoint // infinity
	for i := top - 1; i >= 0; i-- {
		btcec.DoubleNonConst(&r, &r)
		if d := naf1[i]; d > 0 {
			btcec.AddNonConst(&r, &pos1[d>>1], &r)
		} else if d < 0 {
			btcec.AddNonConst(&r, &negT1[(-d)>>1], &r)
		}
		if d := naf2[i]; d > 0 {
			btcec.AddNonConst(&r, &pos2[d>>1], &r)
		} else if d < 0 {
			btcec.AddNonConst(&r, &negT2[(-d)>>1], &r)
		}
		if g != nil {
			if d := g.lo.d[i]; d != 0 && i < g.lo.n {
				g.add(&r, g.tlo, d)
			}
			if d := g.hi.d[i]; d != 0 && i < g.hi.n {
				g.add(&r, g.thi, d)
			}
		}
	}
	out.Set(&r)
}

// scalarMultAffine sets out = k*(x, y) for an affine point, the keys of
// the signature checks. Its table is in "effective affine" form: the odd
// multiples are built with additions that report their Z ratios, brought
// to one common Z, and then treated as affine points of an isomorphic
// curve (x*Z^2, y*Z^3 lies on y^2 = x^3 + 7*Z^6, and neither the doubling
// nor the addition formulas use the curve constant). Every addition of the
// main loop is then a mixed one (about 30% cheaper than a general one);
// the result goes back to the real curve by multiplying its Z by the
// common Z. It reports false (out untouched) if building the table met a
// degenerate addition, which a point of prime order cannot produce.
func scalarMultAffine(k *btcec.ModNScalar, x, y *btcec.FieldVal, out *btcec.JacobianPoint) bool {
	var odd [wnafTable]btcec.JacobianPoint
	var gz btcec.FieldVal
	if !affineTable(x, y, &odd, &gz) {
		return false
	}
	var r btcec.JacobianPoint
	wnafMul(k, &odd, &r)
	fromIsomorphic(&r, &gz, out)
	return true
}

// fromIsomorphic sets out to the real-curve point of r, a point of the
// isomorphic curve whose common Z is gz (see scalarMultAffine).
func fromIsomorphic(r *btcec.JacobianPoint, gz *btcec.FieldVal, out *btcec.JacobianPoint) {
	if (r.X.IsZero() && r.Y.IsZero()) || r.Z.IsZero() {
		*out = btcec.JacobianPoint{}
		return
	}
	out.X.Set(&r.X)
	out.Y.Set(&r.Y)
	out.Z.Mul2(&r.Z, gz).Normalize()
}

// affineTable builds scalarMultAffine's table for (x, y): the odd
// multiples as Z = 1 points of the isomorphic curve whose common Z on the
// real curve is gz. It reports false on a degenerate addition.
func affineTable(x, y *btcec.FieldVal, odd *[wnafTable]btcec.JacobianPoint, gz *btcec.FieldVal) bool {
	// d = 2P in Jacobian coordinates; on the curve scaled by d's Z, d is
	// affine (dX, dY) and P is (x*dZ^2, y*dZ^3).
	var p, d btcec.JacobianPoint
	p.X.Set(x).Normalize()
	p.Y.Set(y).Normalize()
	p.Z.SetInt(1)
	btcec.DoubleNonConst(&p, &d)
	d.X.Normalize()
	d.Y.Normalize()
	d.Z.Normalize()
	if d.Z.IsZero() {
		return false
	}
	var zz, zzz btcec.FieldVal
	zz.SquareVal(&d.Z)
	zzz.Mul2(&zz, &d.Z)
	var acc [wnafTable]btcec.JacobianPoint
	var ratio [wnafTable]btcec.FieldVal
	acc[0].X.Mul2(&p.X, &zz).Normalize()
	acc[0].Y.Mul2(&p.Y, &zzz).Normalize()
	acc[0].Z.SetInt(1)
	for i := 1; i < wnafTable; i++ {
		if !maddRatio(&acc[i-1], &d.X, &d.Y, &acc[i], &ratio[i]) {
			return false
		}
	}
	// Bring every entry to the last one's Z; the common Z on the real
	// curve is that Z times d's.
	gz.Mul2(&acc[wnafTable-1].Z, &d.Z).Normalize()
	var tabX, tabY [wnafTable]btcec.FieldVal
	var sc, s2, s3 btcec.FieldVal
	sc.SetInt(1)
	for i := wnafTable - 1; i >= 0; i-- {
		s2.SquareVal(&sc)
		s3.Mul2(&s2, &sc)
		tabX[i].Mul2(&acc[i].X, &s2).Normalize()
		tabY[i].Mul2(&acc[i].Y, &s3).Normalize()
		if i > 0 {
			sc.Mul(&ratio[i]).Normalize()
		}
	}

	// Z = 1 points of the isomorphic curve.
	for i := range odd {
		odd[i].X.Set(&tabX[i])
		odd[i].Y.Set(&tabY[i])
		odd[i].Z.SetInt(1)
	}
	return true
}

// maddRatio sets r = a + (bx, by) for a Jacobian a and an affine point
// (both normalized, "madd-2007-bl" formulas) and ratio = r.Z / a.Z. It
// reports false when a and b share x (doubling or opposite points), which
// the table construction never meets for a point of prime order.
func maddRatio(a *btcec.JacobianPoint, bx, by *btcec.FieldVal, r *btcec.JacobianPoint, ratio *btcec.FieldVal) bool {
	var z1z1, u2, s2, h, hh, i4, j, rr, v, t, x3, y3 btcec.FieldVal
	z1z1.SquareVal(&a.Z)
	u2.Mul2(bx, &z1z1)
	s2.Mul2(by, &a.Z).Mul(&z1z1)
	h.NegateVal(&a.X, 1).Add(&u2).Normalize() // H = U2 - X1
	if h.IsZero() {
		return false
	}
	hh.SquareVal(&h)
	i4.Set(&hh).MulInt(4)                    // I = 4*HH (magnitude 4)
	j.Mul2(&h, &i4)                          // J = H*I
	rr.NegateVal(&a.Y, 1).Add(&s2).MulInt(2) // r = 2*(S2 - Y1) (magnitude 6)
	v.Mul2(&a.X, &i4)                        // V = X1*I
	x3.SquareVal(&rr)                        // r^2
	t.NegateVal(&j, 1)                       // -J
	x3.Add(&t)                               // r^2 - J
	t.Set(&v).MulInt(2).Negate(2)            // -2V
	x3.Add(&t).Normalize()                   // X3 = r^2 - J - 2V
	t.NegateVal(&x3, 1).Add(&v)              // V - X3
	y3.Mul2(&t, &rr)                         // r*(V - X3)
	t.Mul2(&a.Y, &j).MulInt(2).Negate(2)     // -2*Y1*J
	y3.Add(&t).Normalize()                   // Y3
	ratio.Set(&h).MulInt(2).Normalize()      // Z3/Z1 = 2H
	r.Z.Mul2(&a.Z, ratio).Normalize()
	r.X.Set(&x3)
	r.Y.Set(&y3)
	return true
}

// splitScalar sets k1, k2 with k = k1 + k2*lambda (mod n), each of them
// or its negation below about 2^128: c1 = round(k*b2/n), c2 =
// round(-k*b1/n) (by multiplying with g1, g2 and shifting), k2 = c1*-b1
// + c2*-b2, k1 = k - k2*lambda.
func splitScalar(k, k1, k2 *btcec.ModNScalar) {
	kb := k.Bytes()
	var kl [4]uint64
	for i := range kl {
		kl[i] = binary.BigEndian.Uint64(kb[24-8*i:])
	}
	var c1, c2 btcec.ModNScalar
	mulShift384(&kl, &endoG1, &c1)
	mulShift384(&kl, &endoG2, &c2)
	c1.Mul(endoMinusB1)
	c2.Mul(endoMinusB2)
	k2.Add2(&c1, &c2)
	k1.Mul2(k2, endoLambdaNeg).Add(k)
}

// mulShift384 sets out = round(a*b / 2^384) for 256-bit a and b (the
// result has at most 129 bits).
func mulShift384(a, b *[4]uint64, out *btcec.ModNScalar) {
	var prod [8]uint64
	for i := range 4 {
		var carry uint64
		for j := range 4 {
			hi, lo := bits.Mul64(a[i], b[j])
			var c uint64
			lo, c = bits.Add64(lo, prod[i+j], 0)
			hi += c
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			prod[i+j] = lo
			carry = hi
		}
		prod[i+4] = carry
	}
	// Bits 384..511 plus the rounding bit 383.
	round := prod[5] >> 63
	lo, c := bits.Add64(prod[6], round, 0)
	hi, c2 := bits.Add64(prod[7], 0, c)
	var buf [32]byte
	buf[15] = byte(c2)
	binary.BigEndian.PutUint64(buf[16:], hi)
	binary.BigEndian.PutUint64(buf[24:], lo)
	out.SetBytes(&buf)
}

// wnaf writes the width-5 NAF of k (below 2^130) to naf, least
// significant digit first, and returns its length.
func wnaf(k *btcec.ModNScalar, naf *[wnafMaxLen]int16) int {
	kb := k.Bytes()
	// Three limbs suffice: k < 2^130 after the split.
	var v [3]uint64
	for i := range v {
		v[i] = binary.BigEndian.Uint64(kb[24-8*i:])
	}
	return wnafLimbs(v, wnafWidth, naf)
}

// wnafLimbs writes the width-w NAF of v (little-endian limbs, below
// 2^190) to naf, least significant digit first, and returns its length:
// digits are odd and below 2^(w-1) in magnitude, each followed by at
// least w-1 zeros.
func wnafLimbs(v [3]uint64, w uint, naf *[wnafMaxLen]int16) int {
	n := 0
	for (v[0]|v[1]|v[2]) != 0 && n < wnafMaxLen {
		var d int64
		if v[0]&1 != 0 {
			d = int64(v[0] & (1<<w - 1))
			if d >= 1<<(w-1) {
				d -= 1 << w
			}
			// v -= d (adding |d| when d is negative).
			if d > 0 {
				var b uint64
				v[0], b = bits.Sub64(v[0], uint64(d), 0)
				v[1], b = bits.Sub64(v[1], 0, b)
				v[2], _ = bits.Sub64(v[2], 0, b)
			} else {
				var c uint64
				v[0], c = bits.Add64(v[0], uint64(-d), 0)
				v[1], c = bits.Add64(v[1], 0, c)
				v[2], _ = bits.Add64(v[2], 0, c)
			}
		}
		naf[n] = int16(d)
		n++
		v[0] = v[0]>>1 | v[1]<<63
		v[1] = v[1]>>1 | v[2]<<63
		v[2] >>= 1
	}
	return n
}

func hexBytes32(s string) [32]byte {
	var b [32]byte
	for i := range b {
		b[i] = unhex(s[2*i])<<4 | unhex(s[2*i+1])
	}
	return b
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	panic("txscript: bad hex constant")
}

func scalarFromHex(s string) *btcec.ModNScalar {
	b := hexBytes32(s)
	var v btcec.ModNScalar
	if v.SetBytes(&b) != 0 {
		panic("txscript: scalar constant not below n")
	}
	return &v
}

func fieldFromHex(s string) *btcec.FieldVal {
	b := hexBytes32(s)
	var v btcec.FieldVal
	if v.SetBytes(&b) != 0 {
		panic("txscript: field constant not below p")
	}
	return &v
}

func limbsFromHex(s string) [4]uint64 {
	b := hexBytes32(s)
	var l [4]uint64
	for i := range l {
		l[i] = binary.BigEndian.Uint64(b[24-8*i:])
	}
	return l
}
