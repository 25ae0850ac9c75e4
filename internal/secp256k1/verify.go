package secp256k1

import (
	"crypto/sha256"
	"math/bits"
)

// PublicKey is a parsed public key: a point of the curve other than the
// point at infinity.
type PublicKey struct{ p affine }

// ParsePubKey parses a serialized public key as libsecp256k1's
// eckey_pubkey_parse does: compressed (02/03 and 32 bytes of x),
// uncompressed (04, x, y) or hybrid (06/07, x, y, where the tag's low bit
// must match y's parity). Coordinates must be below p and the point on
// the curve.
func ParsePubKey(b []byte, pk *PublicKey) bool {
	var x, y fe
	switch len(b) {
	case 33:
		if b[0] != 0x02 && b[0] != 0x03 {
			return false
		}
		if x.setBytes((*[32]byte)(b[1:33])) {
			return false
		}
		return pk.p.liftX(&x, b[0] == 0x03)
	case 65:
		if b[0] != 0x04 && b[0] != 0x06 && b[0] != 0x07 {
			return false
		}
		if x.setBytes((*[32]byte)(b[1:33])) || y.setBytes((*[32]byte)(b[33:65])) {
			return false
		}
		if b[0] != 0x04 && y.isOdd() != (b[0] == 0x07) {
			return false
		}
		p := affine{x, y}
		if !p.onCurve() {
			return false
		}
		pk.p = p
		return true
	}
	return false
}

// ParseXOnly parses a BIP340 x-only public key: x below p with x^3 + 7 a
// square, lifted to the point with even y.
func ParseXOnly(b *[32]byte, pk *PublicKey) bool {
	var x fe
	if x.setBytes(b) {
		return false
	}
	return pk.p.liftX(&x, false)
}

// pMinusN is p - n: an ECDSA r below it has a second candidate x, r + n,
// that is still a field element.
var pMinusN = func() [4]uint64 {
	var d [4]uint64
	var b uint64
	for i := range d {
		d[i], b = bits.Sub64(feP[i], scN[i], b)
	}
	return d
}()

// VerifyECDSA reports whether (r, s) is a valid ECDSA signature of the
// 32-byte hash msg by pk. Both high and low s are accepted (low s is a
// policy rule checked on the encoding); zero r or s fails. The hash is
// reduced mod n, and the x-coordinate of u1*G + u2*Q is compared with r
// mod n, so when r + n < p both r and r + n are candidates.
func VerifyECDSA(r, s *Scalar, pk *PublicKey, msg *[32]byte) bool {
	if r.IsZero() || s.IsZero() {
		return false
	}
	var e, w, u1, u2 Scalar
	e.SetBytes(msg)
	w.inv(s)
	u1.mul(&e, &w)
	u2.mul(r, &w)
	var X jacobian
	if !ecmult(&X, &pk.p, &u1, &u2) || X.inf {
		return false
	}
	// X.x/z^2 == r' iff r'*z^2 == X.x: no inversion needed.
	var z2, rf, t fe
	feSqr(&z2, &X.z)
	rf = fe(r.v)
	feMul(&t, &rf, &z2)
	if t.equal(&X.x) {
		return true
	}
	if !lessThan(&r.v, &pMinusN) {
		return false
	}
	rn := Scalar{r.v}
	var c uint64
	for i := range rn.v {
		rn.v[i], c = bits.Add64(rn.v[i], scN[i], c)
	}
	rf = fe(rn.v)
	feMul(&t, &rf, &z2)
	return t.equal(&X.x)
}

// challengeTag is SHA256("BIP0340/challenge"), which the BIP340 tagged
// hash puts in front of the message twice.
var challengeTag = sha256.Sum256([]byte("BIP0340/challenge"))

// VerifySchnorr reports whether sig is a valid BIP340 signature of the
// 32-byte message msg by the x-only key pub: the key is lifted to even
// y; r >= p, s >= n and a key that is not a valid x fail, as does an R =
// s*G - e*P at infinity, with odd y or with x != r.
func VerifySchnorr(sig *[64]byte, pub *[32]byte, msg *[32]byte) bool {
	var pk PublicKey
	if !ParseXOnly(pub, &pk) {
		return false
	}
	var rx fe
	if rx.setBytes((*[32]byte)(sig[:32])) {
		return false
	}
	var s Scalar
	if s.SetBytes((*[32]byte)(sig[32:])) {
		return false
	}
	var buf [64 + 32 + 32 + 32]byte
	copy(buf[:32], challengeTag[:])
	copy(buf[32:64], challengeTag[:])
	copy(buf[64:96], sig[:32])
	copy(buf[96:128], pub[:])
	copy(buf[128:], msg[:])
	eh := sha256.Sum256(buf[:])
	var e Scalar
	e.SetBytes(&eh)
	e.neg(&e)
	var R jacobian
	if !ecmult(&R, &pk.p, &s, &e) || R.inf {
		return false
	}
	// Check x in Jacobian form first: a mismatch needs no inversion.
	var z2, t fe
	feSqr(&z2, &R.z)
	feMul(&t, &rx, &z2)
	if !t.equal(&R.x) {
		return false
	}
	a := R.toAffine()
	return !a.y.isOdd()
}
