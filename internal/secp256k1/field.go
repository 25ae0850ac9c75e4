// Package secp256k1 verifies ECDSA and BIP340 Schnorr signatures on the
// secp256k1 curve with the arithmetic that signature verification needs
// and nothing else: a 4x64-bit field, scalars mod the group order,
// Jacobian group operations, the GLV endomorphism with wNAF for the key
// and large precomputed tables for the generator, combined in one
// Strauss-Shamir chain. Everything is variable time: verification only
// handles public values. No function allocates.
package secp256k1

import (
	"encoding/binary"
	"math/bits"
)

// fe is an element of GF(p), p = 2^256 - 2^32 - 977, as four 64-bit limbs,
// least significant first. Arithmetic keeps values below 2^256 but not
// necessarily below p (every operation accepts any such input); normalize
// gives the canonical representative, which comparisons, parity and
// serialization need.
type fe [4]uint64

// feC is 2^256 mod p: the multiplier that folds bits above 2^256 back in.
const feC = 0x1000003D1

var feP = fe{0xFFFFFFFEFFFFFC2F, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF}

// setBytes sets r to the big-endian b and reports whether b >= p (r then
// holds b unreduced, which callers reject).
func (r *fe) setBytes(b *[32]byte) (overflow bool) {
	r[3] = binary.BigEndian.Uint64(b[0:])
	r[2] = binary.BigEndian.Uint64(b[8:])
	r[1] = binary.BigEndian.Uint64(b[16:])
	r[0] = binary.BigEndian.Uint64(b[24:])
	return !lessThan((*[4]uint64)(r), (*[4]uint64)(&feP))
}

// bytes writes the canonical big-endian encoding of r.
func (r *fe) bytes(b *[32]byte) {
	t := *r
	t.normalize()
	binary.BigEndian.PutUint64(b[0:], t[3])
	binary.BigEndian.PutUint64(b[8:], t[2])
	binary.BigEndian.PutUint64(b[16:], t[1])
	binary.BigEndian.PutUint64(b[24:], t[0])
}

// lessThan reports a < b for 256-bit little-endian limbs.
func lessThan(a, b *[4]uint64) bool {
	_, br := bits.Sub64(a[0], b[0], 0)
	_, br = bits.Sub64(a[1], b[1], br)
	_, br = bits.Sub64(a[2], b[2], br)
	_, br = bits.Sub64(a[3], b[3], br)
	return br != 0
}

func (r *fe) setInt(v uint64) { *r = fe{v} }

// normalize reduces r below p. One conditional subtraction suffices since
// r < 2^256 < 2p; r >= p exactly when r + feC carries out of 2^256.
func (r *fe) normalize() {
	t0, c := bits.Add64(r[0], feC, 0)
	t1, c := bits.Add64(r[1], 0, c)
	t2, c := bits.Add64(r[2], 0, c)
	t3, c := bits.Add64(r[3], 0, c)
	m := -c // all ones when r >= p
	r[0] = r[0]&^m | t0&m
	r[1] = r[1]&^m | t1&m
	r[2] = r[2]&^m | t2&m
	r[3] = r[3]&^m | t3&m
}

// isZero reports whether r is 0 mod p (r is 0 or p).
func (r *fe) isZero() bool {
	if r[0]|r[1]|r[2]|r[3] == 0 {
		return true
	}
	return *r == feP
}

// equal reports whether a and b are the same field element.
func (a *fe) equal(b *fe) bool {
	x, y := *a, *b
	x.normalize()
	y.normalize()
	return x == y
}

// isOdd reports the parity of the canonical representative.
func (r *fe) isOdd() bool {
	t := *r
	t.normalize()
	return t[0]&1 == 1
}

// add sets r = a + b.
func (r *fe) add(a, b *fe) {
	r0, c := bits.Add64(a[0], b[0], 0)
	r1, c := bits.Add64(a[1], b[1], c)
	r2, c := bits.Add64(a[2], b[2], c)
	r3, c := bits.Add64(a[3], b[3], c)
	// A carry is 2^256 = feC (mod p). Adding it can carry once more, and
	// then the value is below feC, so the second fold cannot.
	r0, c = bits.Add64(r0, feC&-c, 0)
	r1, c = bits.Add64(r1, 0, c)
	r2, c = bits.Add64(r2, 0, c)
	r3, c = bits.Add64(r3, 0, c)
	r[0] = r0 + feC&-c
	r[1], r[2], r[3] = r1, r2, r3
}

// sub sets r = a - b.
func (r *fe) sub(a, b *fe) {
	r0, br := bits.Sub64(a[0], b[0], 0)
	r1, br := bits.Sub64(a[1], b[1], br)
	r2, br := bits.Sub64(a[2], b[2], br)
	r3, br := bits.Sub64(a[3], b[3], br)
	// A borrow wrapped by 2^256; subtracting feC turns that into adding
	// p. If that borrows again the value was below feC and one more
	// subtraction (adding p twice in all) cannot borrow.
	r0, br = bits.Sub64(r0, feC&-br, 0)
	r1, br = bits.Sub64(r1, 0, br)
	r2, br = bits.Sub64(r2, 0, br)
	r3, br = bits.Sub64(r3, 0, br)
	r[0] = r0 - feC&-br
	r[1], r[2], r[3] = r1, r2, r3
}

// neg sets r = -a.
func (r *fe) neg(a *fe) {
	var z fe
	r.sub(&z, a)
}

// mulInt sets r = a*k for a small k (below 2^32).
func (r *fe) mulInt(a *fe, k uint64) {
	h0, l0 := bits.Mul64(a[0], k)
	h1, l1 := bits.Mul64(a[1], k)
	h2, l2 := bits.Mul64(a[2], k)
	h3, l3 := bits.Mul64(a[3], k)
	r1, c := bits.Add64(l1, h0, 0)
	r2, c := bits.Add64(l2, h1, c)
	r3, c := bits.Add64(l3, h2, c)
	top := h3 + c // below 2^32
	hi, lo := bits.Mul64(top, feC)
	r0, c := bits.Add64(l0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2, c = bits.Add64(r2, 0, c)
	r3, c = bits.Add64(r3, 0, c)
	// After a wrap the value is below 2^66: adding feC may carry into
	// the second limb but no further.
	r0, c = bits.Add64(r0, feC&-c, 0)
	r[0], r[1], r[2], r[3] = r0, r1+c, r2, r3
}

// reduce512 sets r to the 512-bit t mod p, below 2^256: the high half
// times feC is folded into the low half, then the few bits left over.
func (r *fe) reduce512(t0, t1, t2, t3, t4, t5, t6, t7 uint64) {
	h0, l0 := bits.Mul64(t4, feC)
	h1, l1 := bits.Mul64(t5, feC)
	h2, l2 := bits.Mul64(t6, feC)
	h3, l3 := bits.Mul64(t7, feC)
	r0, c := bits.Add64(t0, l0, 0)
	r1, c := bits.Add64(t1, l1, c)
	r2, c := bits.Add64(t2, l2, c)
	r3, c := bits.Add64(t3, l3, c)
	top := h3 + c
	r1, c = bits.Add64(r1, h0, 0)
	r2, c = bits.Add64(r2, h1, c)
	r3, c = bits.Add64(r3, h2, c)
	top += c // below 2^34
	hi, lo := bits.Mul64(top, feC)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2, c = bits.Add64(r2, 0, c)
	r3, c = bits.Add64(r3, 0, c)
	// After a wrap the value is below 2^68, so adding feC cannot carry
	// past the second limb.
	r0, c = bits.Add64(r0, feC&-c, 0)
	r[0], r[1], r[2], r[3] = r0, r1+c, r2, r3
}

// mulGeneric sets r = a*b (product scanning over the 4x4 limb products).
func mulGeneric(r, a, b *fe) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
	var c0, c1, c2 uint64

	h, t0 := bits.Mul64(a0, b0)
	c0 = h

	c0, c1, c2 = macc(a0, b1, c0, 0, 0)
	c0, c1, c2 = macc(a1, b0, c0, c1, c2)
	t1 := c0

	c0, c1, c2 = macc(a0, b2, c1, c2, 0)
	c0, c1, c2 = macc(a1, b1, c0, c1, c2)
	c0, c1, c2 = macc(a2, b0, c0, c1, c2)
	t2 := c0

	c0, c1, c2 = macc(a0, b3, c1, c2, 0)
	c0, c1, c2 = macc(a1, b2, c0, c1, c2)
	c0, c1, c2 = macc(a2, b1, c0, c1, c2)
	c0, c1, c2 = macc(a3, b0, c0, c1, c2)
	t3 := c0

	c0, c1, c2 = macc(a1, b3, c1, c2, 0)
	c0, c1, c2 = macc(a2, b2, c0, c1, c2)
	c0, c1, c2 = macc(a3, b1, c0, c1, c2)
	t4 := c0

	c0, c1, c2 = macc(a2, b3, c1, c2, 0)
	c0, c1, c2 = macc(a3, b2, c0, c1, c2)
	t5 := c0

	c0, c1, _ = macc(a3, b3, c1, c2, 0)
	r.reduce512(t0, t1, t2, t3, t4, t5, c0, c1)
}

// macc adds a*b to the 192-bit accumulator c2:c1:c0.
func macc(a, b, c0, c1, c2 uint64) (uint64, uint64, uint64) {
	hi, lo := bits.Mul64(a, b)
	var c uint64
	c0, c = bits.Add64(c0, lo, 0)
	c1, c = bits.Add64(c1, hi, c)
	return c0, c1, c2 + c
}

// sqrGeneric sets r = a^2: the six cross products once, doubled, plus the
// four squares.
func sqrGeneric(r, a *fe) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	var c uint64
	// Cross products a_i*a_j (i < j) into t1..t6.
	t2, t1 := bits.Mul64(a0, a1)
	h, l := bits.Mul64(a0, a2)
	t2, c = bits.Add64(t2, l, 0)
	t3 := h + c
	h, l = bits.Mul64(a0, a3)
	t3, c = bits.Add64(t3, l, 0)
	t4 := h + c
	h, l = bits.Mul64(a1, a2)
	t3, c = bits.Add64(t3, l, 0)
	t4, c = bits.Add64(t4, h, c)
	t5 := c
	h, l = bits.Mul64(a1, a3)
	t4, c = bits.Add64(t4, l, 0)
	t5, c = bits.Add64(t5, h, c)
	t6 := c
	h, l = bits.Mul64(a2, a3)
	t5, c = bits.Add64(t5, l, 0)
	t6, _ = bits.Add64(t6, h, c)
	// Double.
	t7 := t6 >> 63
	t6 = t6<<1 | t5>>63
	t5 = t5<<1 | t4>>63
	t4 = t4<<1 | t3>>63
	t3 = t3<<1 | t2>>63
	t2 = t2<<1 | t1>>63
	t1 <<= 1
	// Squares.
	h, t0 := bits.Mul64(a0, a0)
	t1, c = bits.Add64(t1, h, 0)
	h, l = bits.Mul64(a1, a1)
	t2, c = bits.Add64(t2, l, c)
	t3, c = bits.Add64(t3, h, c)
	h, l = bits.Mul64(a2, a2)
	t4, c = bits.Add64(t4, l, c)
	t5, c = bits.Add64(t5, h, c)
	h, l = bits.Mul64(a3, a3)
	t6, c = bits.Add64(t6, l, c)
	t7, _ = bits.Add64(t7, h, c)
	r.reduce512(t0, t1, t2, t3, t4, t5, t6, t7)
}

// sqrN sets r = a^(2^n).
func (r *fe) sqrN(a *fe, n int) {
	feSqr(r, a)
	for i := 1; i < n; i++ {
		feSqr(r, r)
	}
}

// powChain sets x223 = a^(2^223 - 1) and x22 = a^(2^22 - 1) and x2 =
// a^3, the shared prefix of the exponents (p+1)/4 and p-2, whose binary
// forms start with 223 ones.
func powChain(a *fe, x223, x22, x2 *fe) {
	var x3, x6, x9, x11, x44, x88, x176, t fe
	feSqr(&t, a)
	feMul(x2, &t, a) // 2 ones
	feSqr(&t, x2)
	feMul(&x3, &t, a)
	t.sqrN(&x3, 3)
	feMul(&x6, &t, &x3)
	t.sqrN(&x6, 3)
	feMul(&x9, &t, &x3)
	t.sqrN(&x9, 2)
	feMul(&x11, &t, x2)
	t.sqrN(&x11, 11)
	feMul(x22, &t, &x11)
	t.sqrN(x22, 22)
	feMul(&x44, &t, x22)
	t.sqrN(&x44, 44)
	feMul(&x88, &t, &x44)
	t.sqrN(&x88, 88)
	feMul(&x176, &t, &x88)
	t.sqrN(&x176, 44)
	feMul(&t, &t, &x44) // 220 ones
	t.sqrN(&t, 3)
	feMul(x223, &t, &x3)
}

// sqrt sets r to a square root of a and reports whether a is a square.
// Since p = 3 mod 4 the candidate is a^((p+1)/4); (p+1)/4 is 223 ones, a
// zero, 22 ones, four zeros, two ones and two zeros.
func (r *fe) sqrt(a *fe) bool {
	var x223, x22, x2, t fe
	powChain(a, &x223, &x22, &x2)
	t.sqrN(&x223, 23)
	feMul(&t, &t, &x22)
	t.sqrN(&t, 6)
	feMul(&t, &t, &x2)
	t.sqrN(&t, 2)
	var chk fe
	feSqr(&chk, &t)
	ok := chk.equal(a)
	*r = t
	r.normalize()
	return ok
}

// invFermat sets r = a^(p-2) = 1/a (0 for 0): p-2 is 223 ones, a zero,
// 22 ones and 0000101101. It is the simple reference that tests hold the
// faster inv against.
func (r *fe) invFermat(a *fe) {
	var x223, x22, x2, t fe
	powChain(a, &x223, &x22, &x2)
	t.sqrN(&x223, 23)
	feMul(&t, &t, &x22)
	t.sqrN(&t, 5)
	feMul(&t, &t, a)
	t.sqrN(&t, 3)
	feMul(&t, &t, &x2)
	t.sqrN(&t, 2)
	feMul(r, &t, a)
}
