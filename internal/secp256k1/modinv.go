package secp256k1

import "math/bits"

// Modular inversion by the Bernstein-Yang "safegcd" divstep algorithm,
// in its variable-time form: batches of 62 divsteps act on the low 64
// bits of f and g only and are recorded as a 2x2 matrix with entries
// below 2^62, which is then applied to the full-size f, g (exact division
// by 2^62) and to the Bezout coefficients d, e (made divisible by adding
// a multiple of the modulus). When g reaches 0, f is +-1 and d*f is the
// inverse. About ten batches invert a 256-bit value, several times faster
// than a Fermat power.

// s62 is a signed integer v[0] + v[1]*2^62 + ... + v[4]*2^248: limbs 0-3
// lie in [0, 2^62), the top limb carries the sign.
type s62 [5]int64

const m62 = 1<<62 - 1

// modInfo describes an odd modulus for inverse.
type modInfo struct {
	m   s62 // the modulus
	m4  [4]uint64
	inv uint64 // m^-1 mod 2^62
}

func newModInfo(m [4]uint64) *modInfo {
	mi := &modInfo{m: toS62(&m), m4: m}
	// Newton's iteration doubles the correct low bits of an inverse:
	// m*m = 1 mod 8 for odd m, so six steps give 64 bits.
	x := m[0]
	for range 5 {
		x *= 2 - m[0]*x
	}
	mi.inv = x & m62
	return mi
}

func toS62(a *[4]uint64) s62 {
	return s62{
		int64(a[0] & m62),
		int64((a[0]>>62 | a[1]<<2) & m62),
		int64((a[1]>>60 | a[2]<<4) & m62),
		int64((a[2]>>58 | a[3]<<6) & m62),
		int64(a[3] >> 56),
	}
}

// divsteps62 runs 62 divsteps on the low bits f0 (odd) and g0 and returns
// the new eta (= -delta) and the transition matrix [u v; q r], scaled so
// that after the batch 2^62*f' = u*f + v*g and 2^62*g' = q*f + r*g.
func divsteps62(eta int64, f0, g0 uint64) (int64, int64, int64, int64, int64) {
	u, v, q, r := uint64(1), uint64(0), uint64(0), uint64(1)
	f, g := f0, g0
	i := 62
	for {
		// Halve g as often as it is even (at most i more times), doubling
		// f's row to keep both rows on the same scale.
		z := bits.TrailingZeros64(g | ^uint64(0)<<uint(i))
		g >>= uint(z)
		u <<= uint(z)
		v <<= uint(z)
		eta -= int64(z)
		i -= z
		if i == 0 {
			break
		}
		// g is odd. With delta > 0 the divstep swaps f and g (negating the
		// new g); then a multiple of f is added to g to clear as many low
		// bits as the next steps may consume.
		if eta < 0 {
			eta = -eta
			f, g = g, -f
			u, q = q, -u
			v, r = r, -v
		}
		limit := min(int(eta)+1, i, 6)
		mask := uint64(1)<<uint(limit) - 1
		// -1/f mod 64 by one Newton step from f (f*f = 1 mod 8).
		w := (g * f * (f*f - 2)) & mask
		g += f * w
		q += u * w
		r += v * w
	}
	return eta, int64(u), int64(v), int64(q), int64(r)
}

// i128 is a signed 128-bit accumulator.
type i128 struct{ hi, lo uint64 }

// mulAdd adds a*b (signed) to x.
func (x *i128) mulAdd(a, b int64) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	hi -= uint64(a>>63)&uint64(b) + uint64(b>>63)&uint64(a)
	var c uint64
	x.lo, c = bits.Add64(x.lo, lo, 0)
	x.hi += hi + c
}

// shr62 shifts x right by 62 bits (arithmetically).
func (x *i128) shr62() {
	x.lo = x.lo>>62 | x.hi<<2
	x.hi = uint64(int64(x.hi) >> 62)
}

func mulI128(a, b int64) i128 {
	var x i128
	x.mulAdd(a, b)
	return x
}

// updateFG sets f, g = (u*f + v*g)/2^62, (q*f + r*g)/2^62 (exact).
func updateFG(f, g *s62, u, v, q, r int64) {
	cf, cg := mulI128(u, f[0]), mulI128(q, f[0])
	cf.mulAdd(v, g[0])
	cg.mulAdd(r, g[0])
	cf.shr62()
	cg.shr62()
	for i := 1; i < 5; i++ {
		cf.mulAdd(u, f[i])
		cf.mulAdd(v, g[i])
		cg.mulAdd(q, f[i])
		cg.mulAdd(r, g[i])
		f[i-1] = int64(cf.lo & m62)
		g[i-1] = int64(cg.lo & m62)
		cf.shr62()
		cg.shr62()
	}
	f[4] = int64(cf.lo)
	g[4] = int64(cg.lo)
}

// updateDE sets d, e = (u*d + v*e)/2^62, (q*d + r*e)/2^62 mod m, keeping
// both in (-2m, m): negative inputs get m added through the matrix, and a
// multiple of m makes the low 62 bits vanish before the division.
func updateDE(d, e *s62, u, v, q, r int64, mi *modInfo) {
	sd, se := d[4]>>63, e[4]>>63
	md := u&sd + v&se
	me := q&sd + r&se
	cd, ce := mulI128(u, d[0]), mulI128(q, d[0])
	cd.mulAdd(v, e[0])
	ce.mulAdd(r, e[0])
	md -= int64((mi.inv*cd.lo + uint64(md)) & m62)
	me -= int64((mi.inv*ce.lo + uint64(me)) & m62)
	cd.mulAdd(mi.m[0], md)
	ce.mulAdd(mi.m[0], me)
	cd.shr62()
	ce.shr62()
	for i := 1; i < 5; i++ {
		cd.mulAdd(u, d[i])
		cd.mulAdd(v, e[i])
		cd.mulAdd(mi.m[i], md)
		ce.mulAdd(q, d[i])
		ce.mulAdd(r, e[i])
		ce.mulAdd(mi.m[i], me)
		d[i-1] = int64(cd.lo & m62)
		e[i-1] = int64(ce.lo & m62)
		cd.shr62()
		ce.shr62()
	}
	d[4] = int64(cd.lo)
	e[4] = int64(ce.lo)
}

// inverse returns x^-1 mod m for x < m (0 for 0).
func (mi *modInfo) inverse(x *[4]uint64) [4]uint64 {
	var d, e s62
	e[0] = 1
	f, g := mi.m, toS62(x)
	eta := int64(-1)
	for {
		f0 := uint64(f[0]) | uint64(f[1])<<62
		g0 := uint64(g[0]) | uint64(g[1])<<62
		var u, v, q, r int64
		eta, u, v, q, r = divsteps62(eta, f0, g0)
		updateDE(&d, &e, u, v, q, r, mi)
		updateFG(&f, &g, u, v, q, r)
		if g[0]|g[1]|g[2]|g[3]|g[4] == 0 {
			break
		}
	}
	return mi.finish(&d, f[4] < 0)
}

// finish brings d from (-2m, m) into [0, m) and negates it when f = -1.
func (mi *modInfo) finish(d *s62, negate bool) [4]uint64 {
	w := [5]uint64{
		uint64(d[0]) | uint64(d[1])<<62,
		uint64(d[1])>>2 | uint64(d[2])<<60,
		uint64(d[2])>>4 | uint64(d[3])<<58,
		uint64(d[3])>>6 | uint64(d[4])<<56,
		uint64(d[4] >> 8),
	}
	for int64(w[4]) < 0 {
		var c uint64
		w[0], c = bits.Add64(w[0], mi.m4[0], 0)
		w[1], c = bits.Add64(w[1], mi.m4[1], c)
		w[2], c = bits.Add64(w[2], mi.m4[2], c)
		w[3], c = bits.Add64(w[3], mi.m4[3], c)
		w[4] += c
	}
	r := [4]uint64{w[0], w[1], w[2], w[3]}
	if w[4] != 0 || !lessThan(&r, &mi.m4) {
		var b uint64
		r[0], b = bits.Sub64(r[0], mi.m4[0], 0)
		r[1], b = bits.Sub64(r[1], mi.m4[1], b)
		r[2], b = bits.Sub64(r[2], mi.m4[2], b)
		r[3], _ = bits.Sub64(r[3], mi.m4[3], b)
	}
	if negate && r != [4]uint64{} {
		var b uint64
		m := mi.m4
		r[0], b = bits.Sub64(m[0], r[0], 0)
		r[1], b = bits.Sub64(m[1], r[1], b)
		r[2], b = bits.Sub64(m[2], r[2], b)
		r[3], _ = bits.Sub64(m[3], r[3], b)
	}
	return r
}

var feMod = newModInfo(feP)

// inv sets r = 1/a mod p (0 for 0).
func (r *fe) inv(a *fe) {
	t := *a
	t.normalize()
	*r = feMod.inverse((*[4]uint64)(&t))
}
