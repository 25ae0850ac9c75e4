package secp256k1

import (
	"math/bits"
	"sync"
)

// This file computes a*G + b*P, the sum every signature check needs
// (ECDSA: u1*G + u2*Q; BIP340: s*G - e*P), in one doubling chain (the
// Strauss-Shamir trick):
//
//   - b is split with the endomorphism (b = b1 + b2*lambda, both halves
//     about 128 bits, lambda*P = (beta*x, y)) and both halves are written
//     in width-5 NAF over the odd multiples P, 3P, ..., 15P. That table is
//     "effective affine": built with mixed additions that report their Z
//     ratios, brought to one common Z and then treated as the affine
//     points of an isomorphic curve, so every addition in the chain is a
//     mixed one. The result goes back to the real curve by multiplying its
//     Z by the common Z.
//   - a is cut into its low and high 128 bits, each written in width-15
//     NAF over fixed tables of the odd multiples of G and of 2^128*G.
//
// About 129 doublings, 43 additions for P and 16 for G.

const (
	// wnafWidthP is the NAF window for the key: digits are odd and below
	// 2^(w-1) in magnitude, so its table holds 2^(w-2) = 8 odd multiples.
	wnafWidthP = 5
	tableP     = 1 << (wnafWidthP - 2)
	// wnafWidthG is the window for the generator's halves: 8,192 odd
	// multiples per table, two tables of 512 KiB built on first use.
	wnafWidthG = 15
	tableG     = 1 << (wnafWidthG - 2)
	// wnafMax bounds the digits of a value below 2^130 (one more digit
	// than bits for the final carry).
	wnafMax = 131
)

// wnaf writes the width-w NAF of v (little-endian limbs, below 2^130) to
// naf, least significant digit first, and returns its length: digits are
// odd and below 2^(w-1) in magnitude, each followed by at least w-1 zeros.
func wnaf(v [3]uint64, w uint, naf *[wnafMax]int16) int {
	n := 0
	for v[0]|v[1]|v[2] != 0 {
		if v[0]&1 == 0 {
			// Skip a run of zeros at once.
			z := bits.TrailingZeros64(v[0])
			if v[0] == 0 {
				z = 64
			}
			for range z {
				naf[n] = 0
				n++
			}
			v[0] = v[0]>>uint(z) | v[1]<<(64-uint(z))
			v[1] = v[1]>>uint(z) | v[2]<<(64-uint(z))
			v[2] >>= uint(z) // Go shifts by 64 give 0, as the limb move needs
			continue
		}
		d := int64(v[0] & (1<<w - 1))
		if d >= 1<<(w-1) {
			d -= 1 << w
		}
		// v -= d, which clears the low w bits.
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
		naf[n] = int16(d)
		n++
		v[0] = v[0]>>1 | v[1]<<63
		v[1] = v[1]>>1 | v[2]<<63
		v[2] >>= 1
	}
	return n
}

var (
	genOnce sync.Once
	// genLo holds G, 3G, 5G, ...; genHi the same multiples of 2^128*G.
	genLo, genHi *[tableG]affine
)

// Generator G.
var genG = affine{
	x: feHex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"),
	y: feHex("483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"),
}

// genTables returns the generator tables, building them on first use.
func genTables() (lo, hi *[tableG]affine) {
	genOnce.Do(func() {
		genLo, genHi = new([tableG]affine), new([tableG]affine)
		oddMultiples(&genG, genLo)
		var b jacobian
		b.setAffine(&genG)
		for range 128 {
			b.double(&b)
		}
		base := b.toAffine()
		oddMultiples(&base, genHi)
	})
	return genLo, genHi
}

// oddMultiples fills out with base, 3*base, 5*base, ... in affine form,
// with one field inversion for the whole table (Montgomery's trick).
func oddMultiples(base *affine, out *[tableG]affine) {
	var d jacobian
	d.setAffine(base)
	d.double(&d)
	twice := d.toAffine()
	pts := make([]jacobian, tableG)
	pts[0].setAffine(base)
	for i := 1; i < tableG; i++ {
		pts[i].addAffine(&pts[i-1], &twice, nil)
	}
	prefix := make([]fe, tableG) // Z_0 * ... * Z_i
	acc := fe{1}
	for i := range pts {
		feMul(&acc, &acc, &pts[i].z)
		prefix[i] = acc
	}
	var inv fe // (Z_0 * ... * Z_i)^-1 walking down
	inv.inv(&acc)
	for i := tableG - 1; i >= 0; i-- {
		var zi fe
		if i > 0 {
			feMul(&zi, &inv, &prefix[i-1])
			feMul(&inv, &inv, &pts[i].z)
		} else {
			zi = inv
		}
		var zi2, zi3 fe
		feSqr(&zi2, &zi)
		feMul(&zi3, &zi2, &zi)
		feMul(&out[i].x, &pts[i].x, &zi2)
		feMul(&out[i].y, &pts[i].y, &zi3)
		out[i].x.normalize()
		out[i].y.normalize()
	}
}

// keyTable builds the effective-affine table of p: the odd multiples as
// affine points of the isomorphic curve whose common Z on the real curve
// is gz. It reports false on a degenerate addition, which a point of
// prime order cannot produce.
func keyTable(p *affine, odd *[tableP]affine, gz *fe) bool {
	// d = 2P; on the curve scaled by d's Z, d is affine (d.x, d.y) and P
	// is (x*dZ^2, y*dZ^3).
	var d jacobian
	d.setAffine(p)
	d.double(&d)
	if d.inf || d.z.isZero() {
		return false
	}
	dAff := affine{d.x, d.y}
	var zz, zzz fe
	feSqr(&zz, &d.z)
	feMul(&zzz, &zz, &d.z)
	var acc [tableP]jacobian
	var ratio [tableP]fe
	feMul(&acc[0].x, &p.x, &zz)
	feMul(&acc[0].y, &p.y, &zzz)
	acc[0].z.setInt(1)
	for i := 1; i < tableP; i++ {
		acc[i].addAffine(&acc[i-1], &dAff, &ratio[i])
		if acc[i].inf {
			return false
		}
	}
	// Bring every entry to the last one's Z; the common Z on the real
	// curve is that Z times d's.
	feMul(gz, &acc[tableP-1].z, &d.z)
	odd[tableP-1] = affine{acc[tableP-1].x, acc[tableP-1].y}
	sc := ratio[tableP-1]
	for i := tableP - 2; i >= 0; i-- {
		var s2, s3 fe
		feSqr(&s2, &sc)
		feMul(&s3, &s2, &sc)
		feMul(&odd[i].x, &acc[i].x, &s2)
		feMul(&odd[i].y, &acc[i].y, &s3)
		if i > 0 {
			feMul(&sc, &sc, &ratio[i])
		}
	}
	return true
}

// halfLimbs returns the value of a scalar below 2^130 as three limbs.
func halfLimbs(s *Scalar) [3]uint64 { return [3]uint64{s.v[0], s.v[1], s.v[2]} }

// ecmult sets out = a*G + b*P (out.inf when that is the point at
// infinity) for a point p of the curve. It reports false only when p's
// table degenerates, which no curve point can cause.
func ecmult(out *jacobian, p *affine, a, b *Scalar) bool {
	var odd [tableP]affine
	var gz fe
	if !keyTable(p, &odd, &gz) {
		return false
	}
	var b1, b2 Scalar
	b.split(&b1, &b2)
	neg1, neg2 := b1.IsHigh(), b2.IsHigh()
	if neg1 {
		b1.neg(&b1)
	}
	if neg2 {
		b2.neg(&b2)
	}
	var naf1, naf2, nafLo, nafHi [wnafMax]int16
	len1 := wnaf(halfLimbs(&b1), wnafWidthP, &naf1)
	len2 := wnaf(halfLimbs(&b2), wnafWidthP, &naf2)
	lenLo := wnaf([3]uint64{a.v[0], a.v[1], 0}, wnafWidthG, &nafLo)
	lenHi := wnaf([3]uint64{a.v[2], a.v[3], 0}, wnafWidthG, &nafHi)
	tLo, tHi := genTables()

	// The tables with the halves' signs folded in: for a negative half
	// the multiples are negated; the endomorphism's table has x*beta.
	var t1, t2 [tableP]affine
	for i := range odd {
		t1[i] = odd[i]
		if neg1 {
			t1[i].y.neg(&t1[i].y)
		}
		feMul(&t2[i].x, &odd[i].x, &endoBeta)
		t2[i].y = odd[i].y
		if neg2 {
			t2[i].y.neg(&t2[i].y)
		}
	}

	top := max(len1, len2, lenLo, lenHi)
	var r jacobian
	r.inf = true
	var tmp affine
	for i := top - 1; i >= 0; i-- {
		r.double(&r)
		if d := naf1[i]; d != 0 && i < len1 {
			r.addAffine(&r, pick(&t1, d, &tmp), nil)
		}
		if d := naf2[i]; d != 0 && i < len2 {
			r.addAffine(&r, pick(&t2, d, &tmp), nil)
		}
		if d := nafLo[i]; d != 0 && i < lenLo {
			r.addAffineScaled(&r, pickG(tLo, d, &tmp), &gz)
		}
		if d := nafHi[i]; d != 0 && i < lenHi {
			r.addAffineScaled(&r, pickG(tHi, d, &tmp), &gz)
		}
	}
	*out = r
	if !r.inf {
		feMul(&out.z, &r.z, &gz)
	}
	return true
}

// pick returns the table entry of the odd digit d, negated (in tmp) for
// d < 0.
func pick(t *[tableP]affine, d int16, tmp *affine) *affine {
	if d > 0 {
		return &t[d>>1]
	}
	e := &t[(-d)>>1]
	tmp.x = e.x
	tmp.y.neg(&e.y)
	return tmp
}

func pickG(t *[tableG]affine, d int16, tmp *affine) *affine {
	if d > 0 {
		return &t[d>>1]
	}
	e := &t[(-d)>>1]
	tmp.x = e.x
	tmp.y.neg(&e.y)
	return tmp
}
