package txscript

import (
	"encoding/binary"
	"math/bits"

	"github.com/btcsuite/btcd/btcec/v2"
)

// u256 is a 256-bit unsigned integer, least significant limb first.
type u256 [4]uint64

// curveOrder is secp256k1's group order n.
var curveOrder = u256{0xbfd25e8cd0364141, 0xbaaedce6af48a03b, 0xfffffffffffffffe, 0xffffffffffffffff}

func (a *u256) isEven() bool { return a[0]&1 == 0 }

func (a *u256) isOne() bool { return a[0] == 1 && a[1]|a[2]|a[3] == 0 }

// shr1 halves a, shifting carry in as the new top bit.
func (a *u256) shr1(carry uint64) {
	a[0] = a[0]>>1 | a[1]<<63
	a[1] = a[1]>>1 | a[2]<<63
	a[2] = a[2]>>1 | a[3]<<63
	a[3] = a[3]>>1 | carry<<63
}

// sub sets a = a - b and returns the borrow.
func (a *u256) sub(b *u256) uint64 {
	var br uint64
	a[0], br = bits.Sub64(a[0], b[0], 0)
	a[1], br = bits.Sub64(a[1], b[1], br)
	a[2], br = bits.Sub64(a[2], b[2], br)
	a[3], br = bits.Sub64(a[3], b[3], br)
	return br
}

// add sets a = a + b and returns the carry.
func (a *u256) add(b *u256) uint64 {
	var c uint64
	a[0], c = bits.Add64(a[0], b[0], 0)
	a[1], c = bits.Add64(a[1], b[1], c)
	a[2], c = bits.Add64(a[2], b[2], c)
	a[3], c = bits.Add64(a[3], b[3], c)
	return c
}

func (a *u256) less(b *u256) bool {
	for i := 3; i >= 0; i-- {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// halveModN sets a = a/2 mod n for a < n.
func (a *u256) halveModN() {
	if a.isEven() {
		a.shr1(0)
		return
	}
	c := a.add(&curveOrder)
	a.shr1(c)
}

// subModN sets a = a - b mod n for a, b < n.
func (a *u256) subModN(b *u256) {
	if a.sub(b) != 0 {
		a.add(&curveOrder)
	}
}

// inverseModN sets s to 1/s mod n for a non-zero s by the binary extended
// Euclidean algorithm (Guide to Elliptic Curve Cryptography, algorithm
// 2.22). secp256k1's ModNScalar.InverseValNonConst goes through math/big
// and allocates 11 objects; this stays on the stack and is as fast. It is
// not constant time, which verification does not need.
func inverseModN(s *btcec.ModNScalar) {
	var b [32]byte
	s.PutBytes(&b)
	u := u256{
		binary.BigEndian.Uint64(b[24:]), binary.BigEndian.Uint64(b[16:]),
		binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint64(b[:]),
	}
	v := curveOrder
	x1, x2 := u256{1}, u256{}
	// Invariants: x1*a = u and x2*a = v (mod n); gcd(u, v) = 1 since n is
	// prime and 0 < a < n.
	for !u.isOne() && !v.isOne() {
		for u.isEven() {
			u.shr1(0)
			x1.halveModN()
		}
		for v.isEven() {
			v.shr1(0)
			x2.halveModN()
		}
		if !u.less(&v) {
			u.sub(&v)
			x1.subModN(&x2)
		} else {
			v.sub(&u)
			x2.subModN(&x1)
		}
	}
	r := &x2
	if u.isOne() {
		r = &x1
	}
	binary.BigEndian.PutUint64(b[:], r[3])
	binary.BigEndian.PutUint64(b[8:], r[2])
	binary.BigEndian.PutUint64(b[16:], r[1])
	binary.BigEndian.PutUint64(b[24:], r[0])
	s.SetBytes(&b)
}
