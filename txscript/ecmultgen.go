package txscript

import (
	"encoding/binary"
	"sync"

	"github.com/btcsuite/btcd/btcec/v2"
)

// This file folds the generator's multiple into the key's scalar
// multiplication: verification computes a*G + b*P (ECDSA: u1*G + u2*Q;
// BIP340: s*G - e*P). Computed apart, a*G costs about 32 mixed additions
// over btcec's byte table plus a general addition at the end. Here a is
// cut into its low and high 128 bits and both halves are written in wide
// NAF over fixed tables of odd multiples of G and of 2^128*G, and their
// additions join the doubling chain that b*P already runs (length ~129
// after the endomorphism split): about 17 additions, and no doublings of
// their own (the Strauss-Shamir trick, as libsecp256k1's ecmult does).

// genWidth is the NAF window for the generator's halves: digits are odd
// and below 2^(genWidth-1) in magnitude, so each table holds 2^(genWidth-2)
// odd multiples (4,096; the two tables take 640 KiB, built on first use).
const (
	genWidth = 14
	genTable = 1 << (genWidth - 2)
)

// affinePoint is a point with Z = 1, normalized.
type affinePoint struct{ x, y btcec.FieldVal }

var (
	genOnce sync.Once
	// genLo holds G, 3G, 5G, ...; genHi the same multiples of 2^128*G.
	genLo, genHi *[genTable]affinePoint
)

// genTables returns the generator tables, building them on first use
// (about 8,000 additions and one inversion per table, a few milliseconds).
func genTables() (lo, hi *[genTable]affinePoint) {
	genOnce.Do(func() {
		var one, two128 btcec.ModNScalar
		one.SetInt(1)
		var b [32]byte
		b[15] = 1 // 2^128, big-endian
		two128.SetBytes(&b)
		genLo, genHi = new([genTable]affinePoint), new([genTable]affinePoint)
		for _, t := range []struct {
			k   *btcec.ModNScalar
			tab *[genTable]affinePoint
		}{{&one, genLo}, {&two128, genHi}} {
			var base, twice btcec.JacobianPoint
			btcec.ScalarBaseMultNonConst(t.k, &base)
			btcec.DoubleNonConst(&base, &twice)
			pts := make([]btcec.JacobianPoint, genTable)
			pts[0].Set(&base)
			for i := 1; i < genTable; i++ {
				btcec.AddNonConst(&pts[i-1], &twice, &pts[i])
			}
			toAffineBatch(pts, t.tab)
		}
	})
	return genLo, genHi
}

// toAffineBatch converts pts (none at infinity) to affine points with one
// field inversion (Montgomery's trick) instead of one per point.
func toAffineBatch(pts []btcec.JacobianPoint, out *[genTable]affinePoint) {
	prefix := make([]btcec.FieldVal, len(pts)) // Z_0 * ... * Z_i
	var acc btcec.FieldVal
	acc.SetInt(1)
	for i := range pts {
		acc.Mul(&pts[i].Z).Normalize()
		prefix[i].Set(&acc)
	}
	var inv btcec.FieldVal // (Z_0 * ... * Z_i)^-1, walking down
	inv.Set(&acc).Inverse().Normalize()
	for i := len(pts) - 1; i >= 0; i-- {
		var zi btcec.FieldVal // Z_i^-1
		if i > 0 {
			zi.Mul2(&inv, &prefix[i-1]).Normalize()
			inv.Mul(&pts[i].Z).Normalize()
		} else {
			zi.Set(&inv)
		}
		var zi2, zi3 btcec.FieldVal
		zi2.SquareVal(&zi).Normalize()
		zi3.Mul2(&zi2, &zi).Normalize()
		out[i].x.Mul2(&pts[i].X, &zi2).Normalize()
		out[i].y.Mul2(&pts[i].Y, &zi3).Normalize()
	}
}

// genNAF is the wide NAF of one 128-bit half of the generator's scalar.
type genNAF struct {
	d [wnafMaxLen]int16
	n int
}

// set writes the width-genWidth NAF of the 128-bit value hi:lo.
func (g *genNAF) set(lo, hi uint64) { g.n = wnafLimbs([3]uint64{lo, hi, 0}, genWidth, &g.d) }

// genTerms is the generator's part of a double multiplication: the NAFs
// of a's halves and the scale (zz = Z^2, zzz = Z^3) that puts an affine
// point on the isomorphic curve of the key's table (see scalarMultAffine).
type genTerms struct {
	lo, hi   genNAF
	tlo, thi *[genTable]affinePoint
	zz, zzz  btcec.FieldVal
	pointBuf btcec.JacobianPoint
}

// add adds the digit d's table point (negated for d < 0), scaled onto the
// isomorphic curve, to r.
func (g *genTerms) add(r *btcec.JacobianPoint, tab *[genTable]affinePoint, d int16) {
	neg := d < 0
	if neg {
		d = -d
	}
	e := &tab[d>>1]
	p := &g.pointBuf
	p.X.Mul2(&e.x, &g.zz).Normalize()
	p.Y.Mul2(&e.y, &g.zzz)
	if neg {
		p.Y.Negate(1)
	}
	p.Y.Normalize()
	p.Z.SetInt(1)
	btcec.AddNonConst(r, p, r)
}

// doubleMultAffine sets out = a*G + b*(x, y) for an affine point (x, y) of
// prime order (a public key), the sum every signature check needs. It
// reports false (out untouched) where scalarMultAffine would, and the
// caller then computes the two products apart.
func doubleMultAffine(a, b *btcec.ModNScalar, x, y *btcec.FieldVal, out *btcec.JacobianPoint) bool {
	var odd [wnafTable]btcec.JacobianPoint
	var gz btcec.FieldVal
	if !affineTable(x, y, &odd, &gz) {
		return false
	}
	var g genTerms
	g.tlo, g.thi = genTables()
	g.zz.SquareVal(&gz).Normalize()
	g.zzz.Mul2(&g.zz, &gz).Normalize()
	ab := a.Bytes()
	g.lo.set(binary.BigEndian.Uint64(ab[24:]), binary.BigEndian.Uint64(ab[16:]))
	g.hi.set(binary.BigEndian.Uint64(ab[8:]), binary.BigEndian.Uint64(ab[:]))
	var r btcec.JacobianPoint
	wnafMulGen(b, &odd, &g, &r)
	fromIsomorphic(&r, &gz, out)
	return true
}

// doubleMult sets out = a*G + b*P for a public key point P with Z = 1,
// through doubleMultAffine or, should that decline, apart.
func doubleMult(a, b *btcec.ModNScalar, P *btcec.JacobianPoint, out *btcec.JacobianPoint) {
	if doubleMultAffine(a, b, &P.X, &P.Y, out) {
		return
	}
	var aG, bP btcec.JacobianPoint
	btcec.ScalarBaseMultNonConst(a, &aG)
	scalarMult(b, P, &bP)
	btcec.AddNonConst(&aG, &bP, out)
}
