package secp256k1

import (
	"encoding/binary"
	"math/bits"
)

// Scalar is an integer mod the group order n, always fully reduced.
type Scalar struct{ v [4]uint64 }

// scN is the group order n; scNC is 2^256 - n (129 bits), the multiplier
// that folds bits above 2^256 back in.
var (
	scN     = [4]uint64{0xBFD25E8CD0364141, 0xBAAEDCE6AF48A03B, 0xFFFFFFFFFFFFFFFE, 0xFFFFFFFFFFFFFFFF}
	scNC    = [3]uint64{0x402DA1732FC9BEBF, 0x4551231950B75FC4, 1}
	scHalfN = [4]uint64{0xDFE92F46681B20A0, 0x5D576E7357A4501D, 0xFFFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF}
	scMod   = newModInfo(scN)
)

// SetBytes sets s to the big-endian b mod n and reports whether b >= n.
func (s *Scalar) SetBytes(b *[32]byte) (overflow bool) {
	s.v = [4]uint64{
		binary.BigEndian.Uint64(b[24:]), binary.BigEndian.Uint64(b[16:]),
		binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint64(b[0:]),
	}
	overflow = !lessThan(&s.v, &scN)
	if overflow {
		subN(&s.v)
	}
	return overflow
}

// Bytes writes s big-endian.
func (s *Scalar) Bytes(b *[32]byte) {
	binary.BigEndian.PutUint64(b[0:], s.v[3])
	binary.BigEndian.PutUint64(b[8:], s.v[2])
	binary.BigEndian.PutUint64(b[16:], s.v[1])
	binary.BigEndian.PutUint64(b[24:], s.v[0])
}

// IsZero reports whether s is 0.
func (s *Scalar) IsZero() bool { return s.v == [4]uint64{} }

// IsHigh reports whether s > n/2 (a "high S" value).
func (s *Scalar) IsHigh() bool { return lessThan(&scHalfN, &s.v) }

func subN(v *[4]uint64) {
	var b uint64
	v[0], b = bits.Sub64(v[0], scN[0], 0)
	v[1], b = bits.Sub64(v[1], scN[1], b)
	v[2], b = bits.Sub64(v[2], scN[2], b)
	v[3], _ = bits.Sub64(v[3], scN[3], b)
}

// add sets s = a + b.
func (s *Scalar) add(a, b *Scalar) {
	var c uint64
	s.v[0], c = bits.Add64(a.v[0], b.v[0], 0)
	s.v[1], c = bits.Add64(a.v[1], b.v[1], c)
	s.v[2], c = bits.Add64(a.v[2], b.v[2], c)
	s.v[3], c = bits.Add64(a.v[3], b.v[3], c)
	if c != 0 || !lessThan(&s.v, &scN) {
		subN(&s.v) // mod 2^256 this also drops the carry
	}
}

// neg sets s = -a.
func (s *Scalar) neg(a *Scalar) {
	if a.IsZero() {
		*s = *a
		return
	}
	var b uint64
	s.v[0], b = bits.Sub64(scN[0], a.v[0], 0)
	s.v[1], b = bits.Sub64(scN[1], a.v[1], b)
	s.v[2], b = bits.Sub64(scN[2], a.v[2], b)
	s.v[3], _ = bits.Sub64(scN[3], a.v[3], b)
}

// mulAddLimbs adds a*b to acc (which has room for the product; carries
// beyond it are dropped, and callers size acc so that none arise).
func mulAddLimbs(acc, a, b []uint64) {
	for i, ai := range a {
		var carry uint64
		for j, bj := range b {
			hi, lo := bits.Mul64(ai, bj)
			var c uint64
			acc[i+j], c = bits.Add64(acc[i+j], lo, 0)
			hi += c
			acc[i+j], c = bits.Add64(acc[i+j], carry, 0)
			carry = hi + c
		}
		for k := i + len(b); carry != 0 && k < len(acc); k++ {
			acc[k], carry = bits.Add64(acc[k], carry, 0)
		}
	}
}

// mul sets s = a*b.
func (s *Scalar) mul(a, b *Scalar) {
	var t [8]uint64
	mulAddLimbs(t[:], a.v[:], b.v[:])
	s.reduce512(&t)
}

// reduce512 sets s = t mod n by folding the part above 2^256 with
// 2^256 = scNC three times (512 -> 386 -> 260 -> 257 bits), then a final
// carry and subtraction.
func (s *Scalar) reduce512(t *[8]uint64) {
	var a [8]uint64
	copy(a[:4], t[:4])
	mulAddLimbs(a[:], t[4:8], scNC[:]) // below 2^386: limbs 0-6
	var b [8]uint64
	copy(b[:4], a[:4])
	mulAddLimbs(b[:], a[4:7], scNC[:]) // below 2^260: limbs 0-4
	var c [8]uint64
	copy(c[:4], b[:4])
	mulAddLimbs(c[:], b[4:5], scNC[:]) // below 2^257
	r := [4]uint64{c[0], c[1], c[2], c[3]}
	if c[4] != 0 {
		// r is below 2^134 here, so adding scNC cannot carry out.
		var k uint64
		r[0], k = bits.Add64(r[0], scNC[0], 0)
		r[1], k = bits.Add64(r[1], scNC[1], k)
		r[2], k = bits.Add64(r[2], scNC[2], k)
		r[3] += k
	}
	if !lessThan(&r, &scN) {
		subN(&r)
	}
	s.v = r
}

// inv sets s = 1/a (0 for 0).
func (s *Scalar) inv(a *Scalar) { s.v = scMod.inverse(&a.v) }

// Endomorphism and lattice constants of secp256k1 (GECC section 3.5; the
// tests re-derive them from the curve parameters).
var (
	endoLambda    = scalarHex("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72")
	endoLambdaNeg = scalarHex("ac9c52b33fa3cf1f5ad9e3fd77ed9ba4a880b9fc8ec739c2e0cfc810b51283cf")
	endoBeta      = feHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")
	endoMinusB1   = scalarHex("00000000000000000000000000000000e4437ed6010e88286f547fa90abfe4c3")
	endoMinusB2   = scalarHex("fffffffffffffffffffffffffffffffe8a280ac50774346dd765cda83db1562c")
	// g1 = round(2^384 * b2 / n), g2 = round(2^384 * -b1 / n).
	endoG1 = scalarHex("3086d221a7d46bcde86c90e49284eb153daa8a1471e8ca7fe893209a45dbb031")
	endoG2 = scalarHex("e4437ed6010e88286f547fa90abfe4c4221208ac9df506c61571b4ae8ac47f71")
)

// split sets k1, k2 with k = k1 + k2*lambda (mod n) and each of them or
// its negation below 2^128: c1 = round(k*b2/n), c2 = round(-k*b1/n),
// k2 = c1*(-b1) + c2*(-b2), k1 = k - k2*lambda.
func (k *Scalar) split(k1, k2 *Scalar) {
	var c1, c2 Scalar
	mulShift384(&k.v, &endoG1.v, &c1)
	mulShift384(&k.v, &endoG2.v, &c2)
	c1.mul(&c1, &endoMinusB1)
	c2.mul(&c2, &endoMinusB2)
	k2.add(&c1, &c2)
	var t Scalar
	t.mul(k2, &endoLambdaNeg)
	k1.add(&t, k)
}

// mulShift384 sets out = round(a*b / 2^384) (below 2^129).
func mulShift384(a, b *[4]uint64, out *Scalar) {
	var p [8]uint64
	mulAddLimbs(p[:], a[:], b[:])
	lo, c := bits.Add64(p[6], p[5]>>63, 0)
	out.v = [4]uint64{lo, p[7] + c, 0, 0}
	if p[7]+c < p[7] {
		out.v[2] = 1
	}
}

func hexNibble(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	panic("secp256k1: bad hex constant")
}

func hex32(s string) *[32]byte {
	var b [32]byte
	for i := range b {
		b[i] = hexNibble(s[2*i])<<4 | hexNibble(s[2*i+1])
	}
	return &b
}

func scalarHex(s string) Scalar {
	var v Scalar
	if v.SetBytes(hex32(s)) {
		panic("secp256k1: scalar constant not below n")
	}
	return v
}

func feHex(s string) fe {
	var v fe
	if v.setBytes(hex32(s)) {
		panic("secp256k1: field constant not below p")
	}
	return v
}
