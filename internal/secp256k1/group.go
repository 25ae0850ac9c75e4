package secp256k1

// affine is a point (x, y) other than the point at infinity.
type affine struct{ x, y fe }

// jacobian is the point (x/z^2, y/z^3), or the point at infinity when inf
// is set. The formulas below are those for a = 0 curves and never use the
// constant b, so they hold unchanged on the isomorphic curves y^2 = x^3 +
// 7*Z^6 that the scalar multiplication's tables live on.
type jacobian struct {
	x, y, z fe
	inf     bool
}

func (r *jacobian) setAffine(a *affine) {
	r.x, r.y = a.x, a.y
	r.z.setInt(1)
	r.inf = false
}

// double sets r = 2a ("dbl-2009-l": 2M + 5S). secp256k1 has no point of
// order 2, so y = 0 never occurs on a finite point.
func (r *jacobian) double(a *jacobian) {
	if a.inf {
		r.inf = true
		return
	}
	var xx, yy, yyyy, t, d, e, f, x3, y3, z3 fe
	feSqr(&xx, &a.x)
	feSqr(&yy, &a.y)
	feSqr(&yyyy, &yy)
	t.add(&a.x, &yy)
	feSqr(&t, &t)
	t.sub(&t, &xx)
	t.sub(&t, &yyyy)
	d.add(&t, &t) // D = 2*((X+YY)^2 - XX - YYYY) = 4*X*YY
	e.mulInt(&xx, 3)
	feSqr(&f, &e)
	t.add(&d, &d)
	x3.sub(&f, &t) // X3 = E^2 - 2D
	t.sub(&d, &x3)
	feMul(&y3, &e, &t)
	t.mulInt(&yyyy, 8)
	y3.sub(&y3, &t) // Y3 = E*(D - X3) - 8*YYYY
	feMul(&z3, &a.y, &a.z)
	z3.add(&z3, &z3) // Z3 = 2*Y*Z
	r.x, r.y, r.z = x3, y3, z3
	r.inf = false
}

// addAffine sets r = a + b (8M + 3S). If ratio is not nil and the result
// is finite with a finite, it receives r.z / a.z, which the table
// construction chains into a common Z.
func (r *jacobian) addAffine(a *jacobian, b *affine, ratio *fe) {
	if a.inf {
		r.setAffine(b)
		if ratio != nil {
			ratio.setInt(1)
		}
		return
	}
	var zz, zzz fe
	feSqr(&zz, &a.z)
	feMul(&zzz, &zz, &a.z)
	r.addAffineZ(a, b, &zz, &zzz, &a.z, ratio)
}

// addAffineScaled sets r = a + b where a lies on the isomorphic curve
// whose points are the real ones with Z multiplied by gz, and b is a
// point of the real curve (9M + 3S): b is brought onto a's curve through
// the Z^2 and Z^3 of a.z*gz instead of scaling b's coordinates.
func (r *jacobian) addAffineScaled(a *jacobian, b *affine, gz *fe) {
	if a.inf {
		// b on the isomorphic curve: (x*gz^2, y*gz^3).
		var zz, zzz fe
		feSqr(&zz, gz)
		feMul(&zzz, &zz, gz)
		feMul(&r.x, &b.x, &zz)
		feMul(&r.y, &b.y, &zzz)
		r.z.setInt(1)
		r.inf = false
		return
	}
	var az, zz, zzz fe
	feMul(&az, &a.z, gz)
	feSqr(&zz, &az)
	feMul(&zzz, &zz, &az)
	r.addAffineZ(a, b, &zz, &zzz, &a.z, nil)
}

// addAffineZ is the mixed addition given zz = Z^2 and zzz = Z^3 of the Z
// by which b is scaled onto a's coordinates, and z1 = a.z (the result's Z
// is z1*H).
func (r *jacobian) addAffineZ(a *jacobian, b *affine, zz, zzz, z1 *fe, ratio *fe) {
	var u2, s2, h, rr fe
	feMul(&u2, &b.x, zz)
	feMul(&s2, &b.y, zzz)
	h.sub(&u2, &a.x)
	rr.sub(&s2, &a.y)
	if h.isZero() {
		if rr.isZero() {
			// a == b: the addition formulas degenerate to a doubling.
			if ratio != nil {
				var t jacobian
				t.double(a)
				ratio.mulInt(&a.y, 2) // doubling's Z3 = 2*Y*Z
				*r = t
				return
			}
			r.double(a)
			return
		}
		r.inf = true // a == -b
		return
	}
	var hh, hhh, v, t, x3, y3, z3 fe
	feSqr(&hh, &h)
	feMul(&hhh, &hh, &h)
	feMul(&v, &a.x, &hh)
	feSqr(&x3, &rr)
	x3.sub(&x3, &hhh)
	t.add(&v, &v)
	x3.sub(&x3, &t) // X3 = R^2 - H^3 - 2*X1*H^2
	t.sub(&v, &x3)
	feMul(&y3, &rr, &t)
	feMul(&t, &a.y, &hhh)
	y3.sub(&y3, &t) // Y3 = R*(X1*H^2 - X3) - Y1*H^3
	feMul(&z3, z1, &h)
	if ratio != nil {
		*ratio = h
	}
	r.x, r.y, r.z = x3, y3, z3
	r.inf = false
}

// toAffine returns the affine form of a finite point.
func (a *jacobian) toAffine() affine {
	var zi, zi2, zi3 fe
	zi.inv(&a.z)
	feSqr(&zi2, &zi)
	feMul(&zi3, &zi2, &zi)
	var p affine
	feMul(&p.x, &a.x, &zi2)
	feMul(&p.y, &a.y, &zi3)
	p.x.normalize()
	p.y.normalize()
	return p
}

// onCurve reports whether y^2 = x^3 + 7.
func (p *affine) onCurve() bool {
	var y2, x3 fe
	feSqr(&y2, &p.y)
	feSqr(&x3, &p.x)
	feMul(&x3, &x3, &p.x)
	seven := fe{7}
	x3.add(&x3, &seven)
	return y2.equal(&x3)
}

// liftX sets p to the point with x-coordinate x (x < p) and the y of the
// given parity, reporting false when x^3 + 7 is not a square.
func (p *affine) liftX(x *fe, odd bool) bool {
	var c fe
	feSqr(&c, x)
	feMul(&c, &c, x)
	seven := fe{7}
	c.add(&c, &seven)
	if !p.y.sqrt(&c) {
		return false
	}
	p.x = *x
	p.x.normalize()
	if p.y.isOdd() != odd {
		p.y.neg(&p.y)
		p.y.normalize()
	}
	return true
}
