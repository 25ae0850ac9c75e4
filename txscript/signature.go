package txscript

import (
	"crypto/sha256"

	"github.com/btcsuite/btcd/btcec/v2"
)

// SigHashType is the signature hash type byte appended to signatures.
type SigHashType uint32

// Signature hash types.
const (
	SigHashDefault      SigHashType = 0x00 // taproot only: ALL without the byte
	SigHashAll          SigHashType = 0x01
	SigHashNone         SigHashType = 0x02
	SigHashSingle       SigHashType = 0x03
	SigHashAnyOneCanPay SigHashType = 0x80
)

// isValidSignatureEncoding is Core's strict BIP66 DER check on a signature
// that still carries its trailing hash type byte.
func isValidSignatureEncoding(sig []byte) bool {
	n := len(sig)
	if n < 9 || n > 73 || sig[0] != 0x30 || int(sig[1]) != n-3 {
		return false
	}
	lenR := int(sig[3])
	if 5+lenR >= n {
		return false
	}
	lenS := int(sig[5+lenR])
	if lenR+lenS+7 != n {
		return false
	}
	if sig[2] != 0x02 || lenR == 0 || sig[4]&0x80 != 0 {
		return false
	}
	if lenR > 1 && sig[4] == 0 && sig[5]&0x80 == 0 {
		return false
	}
	if sig[lenR+4] != 0x02 || lenS == 0 || sig[lenR+6]&0x80 != 0 {
		return false
	}
	if lenS > 1 && sig[lenR+6] == 0 && sig[lenR+7]&0x80 == 0 {
		return false
	}
	return true
}

// parseDERLax mirrors libsecp256k1's ecdsa_signature_parse_der_lax, which
// Core uses for every ECDSA check: it accepts BER-ish encodings, ignores
// trailing bytes and turns out-of-range values into the (always failing)
// zero signature. ok is false only when the structure cannot be read.
func parseDERLax(in []byte) (r, s btcec.ModNScalar, ok bool) {
	pos, n := 0, len(in)
	if pos == n || in[pos] != 0x30 {
		return r, s, false
	}
	pos++
	if pos == n {
		return r, s, false
	}
	lb := int(in[pos])
	pos++
	if lb&0x80 != 0 {
		lb -= 0x80
		if lb > n-pos {
			return r, s, false
		}
		pos += lb
	}
	readInt := func() (start, length int, ok bool) {
		if pos == n || in[pos] != 0x02 {
			return 0, 0, false
		}
		pos++
		if pos == n {
			return 0, 0, false
		}
		lb := int(in[pos])
		pos++
		var l uint64
		if lb&0x80 != 0 {
			lb -= 0x80
			if lb > n-pos {
				return 0, 0, false
			}
			for lb > 0 && in[pos] == 0 {
				pos++
				lb--
			}
			if lb >= 8 {
				return 0, 0, false
			}
			for lb > 0 {
				l = l<<8 | uint64(in[pos])
				pos++
				lb--
			}
		} else {
			l = uint64(lb)
		}
		if l > uint64(n-pos) {
			return 0, 0, false
		}
		start = pos
		pos += int(l)
		return start, int(l), true
	}
	rpos, rlen, ok1 := readInt()
	if !ok1 {
		return r, s, false
	}
	spos, slen, ok2 := readInt()
	if !ok2 {
		return r, s, false
	}
	for rlen > 0 && in[rpos] == 0 {
		rlen--
		rpos++
	}
	for slen > 0 && in[spos] == 0 {
		slen--
		spos++
	}
	var buf [32]byte
	overflow := rlen > 32 || slen > 32
	if !overflow {
		copy(buf[32-rlen:], in[rpos:rpos+rlen])
		overflow = r.SetBytes(&buf) != 0
	}
	if !overflow {
		buf = [32]byte{}
		copy(buf[32-slen:], in[spos:spos+slen])
		overflow = s.SetBytes(&buf) != 0
	}
	if overflow {
		r.Zero()
		s.Zero()
	}
	return r, s, true
}

// isLowS reports whether a DER signature without its hash type byte has an
// S no greater than half the group order (Core's CPubKey::CheckLowS).
func isLowS(sig []byte) bool {
	_, s, ok := parseDERLax(sig)
	if !ok {
		return false
	}
	return !s.IsOverHalfOrder()
}

// isDefinedHashType is Core's IsDefinedHashtypeSignature.
func isDefinedHashType(sig []byte) bool {
	if len(sig) == 0 {
		return false
	}
	t := sig[len(sig)-1] &^ byte(SigHashAnyOneCanPay)
	return t >= byte(SigHashAll) && t <= byte(SigHashSingle)
}

// checkSignatureEncoding applies the flag-dependent encoding rules Core
// checks before an ECDSA verification.
func checkSignatureEncoding(sig []byte, flags ScriptFlags) error {
	if len(sig) == 0 {
		return nil
	}
	if flags&(ScriptVerifyDERSig|ScriptVerifyLowS|ScriptVerifyStrictEnc) != 0 &&
		!isValidSignatureEncoding(sig) {
		return ErrSigDER
	}
	if flags&ScriptVerifyLowS != 0 && !isLowS(sig[:len(sig)-1]) {
		return ErrSigHighS
	}
	if flags&ScriptVerifyStrictEnc != 0 && !isDefinedHashType(sig) {
		return ErrSigHashType
	}
	return nil
}

func isCompressedOrUncompressedPubKey(pk []byte) bool {
	switch {
	case len(pk) < 33:
		return false
	case pk[0] == 0x04:
		return len(pk) == 65
	case pk[0] == 0x02 || pk[0] == 0x03:
		return len(pk) == 33
	}
	return false
}

func isCompressedPubKey(pk []byte) bool {
	return len(pk) == 33 && (pk[0] == 0x02 || pk[0] == 0x03)
}

// checkPubKeyEncoding applies Core's STRICTENC and WITNESS_PUBKEYTYPE rules.
func checkPubKeyEncoding(pk []byte, flags ScriptFlags, sv sigVersion) error {
	if flags&ScriptVerifyStrictEnc != 0 && !isCompressedOrUncompressedPubKey(pk) {
		return ErrPubKeyType
	}
	if flags&ScriptVerifyWitnessPubKeyType != 0 && sv == sigVersionWitnessV0 &&
		!isCompressedPubKey(pk) {
		return ErrWitnessPubKeyType
	}
	return nil
}

// pubKeySizeValid is CPubKey::IsValid: the length must match the header.
func pubKeySizeValid(pk []byte) bool {
	if len(pk) == 0 {
		return false
	}
	switch pk[0] {
	case 2, 3:
		return len(pk) == 33
	case 4, 6, 7:
		return len(pk) == 65
	}
	return false
}

// verifyECDSA checks a DER signature (hash type byte already removed)
// against a serialized public key the way Core does: lax parsing, S
// normalisation (ECDSA verification is symmetric in S), then verification.
// It works on secp256k1's value types directly, so nothing escapes to the
// heap: btcec's ParsePubKey and Signature.Verify allocated 13 objects per
// check, which made ECDSA the largest source of garbage during IBD.
// VerifyECDSA reports whether sig (DER, without the sighash type byte;
// parsed as leniently as Core's consensus rules allow) is pubKey's
// signature of hash, using the engine's own allocation-free verifier. It
// is exported for benchmarks that compare raw verification speed.
func VerifyECDSA(sig, pubKey []byte, hash *[32]byte) bool { return verifyECDSA(sig, pubKey, hash) }

// VerifySchnorr reports whether sig (64 bytes) is a BIP340 signature of
// hash by the x-only key pubKey, using the engine's own verifier.
func VerifySchnorr(sig, pubKey []byte, hash *[32]byte) bool { return verifySchnorr(sig, pubKey, hash) }

func verifyECDSA(sig, pubKey []byte, hash *[32]byte) bool {
	if !pubKeySizeValid(pubKey) {
		return false
	}
	r, s, ok := parseDERLax(sig)
	if !ok || r.IsZero() || s.IsZero() {
		return false
	}
	var Q btcec.JacobianPoint
	if !parsePubKeyPoint(pubKey, &Q) {
		return false
	}
	// u1 = e/s, u2 = r/s; the hash is reduced mod n as libsecp256k1 does.
	var e, u1, u2 btcec.ModNScalar
	e.SetBytes(hash)
	w := s
	inverseModN(&w)
	u1.Mul2(&e, &w)
	u2.Mul2(&r, &w)
	var X btcec.JacobianPoint
	doubleMult(&u1, &u2, &Q, &X)
	if (X.X.IsZero() && X.Y.IsZero()) || X.Z.IsZero() {
		return false // point at infinity
	}
	// Compare in Jacobian coordinates to skip the field inversion of
	// ToAffine: X.x/z^2 mod n == r holds iff r*z^2 == X.x, or r+n < p and
	// (r+n)*z^2 == X.x (the affine x lies in [0, p) and p < 2n).
	var rb [32]byte
	r.PutBytes(&rb)
	var rf, z2, t btcec.FieldVal
	rf.SetBytes(&rb)
	z2.SquareVal(&X.Z)
	X.X.Normalize()
	if t.Mul2(&rf, &z2).Normalize().Equals(&X.X) {
		return true
	}
	if rf.IsGtOrEqPrimeMinusOrder() {
		return false
	}
	rf.Add(&orderAsField)
	return t.Mul2(&rf, &z2).Normalize().Equals(&X.X)
}

// orderAsField is the group order n as a field element, for the r+n case
// of verifyECDSA.
var orderAsField = func() btcec.FieldVal {
	var f btcec.FieldVal
	f.SetByteSlice([]byte{
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b,
		0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
	})
	return f
}()

// parsePubKeyPoint is libsecp256k1's eckey_pubkey_parse into a Jacobian
// point with Z = 1: compressed (02/03), uncompressed (04) and hybrid
// (06/07, whose tag must match Y's parity) keys; coordinates must be below
// p and the point on the curve.
func parsePubKeyPoint(pk []byte, Q *btcec.JacobianPoint) bool {
	switch len(pk) {
	case 33:
		if pk[0] != 0x02 && pk[0] != 0x03 {
			return false
		}
		if Q.X.SetByteSlice(pk[1:33]) || !btcec.DecompressY(&Q.X, pk[0] == 0x03, &Q.Y) {
			return false
		}
	case 65:
		if pk[0] != 0x04 && pk[0] != 0x06 && pk[0] != 0x07 {
			return false
		}
		if Q.X.SetByteSlice(pk[1:33]) || Q.Y.SetByteSlice(pk[33:65]) {
			return false
		}
		if pk[0] != 0x04 && Q.Y.IsOdd() != (pk[0] == 0x07) {
			return false
		}
		// On the curve: y^2 == x^3 + 7.
		var y2, x3 btcec.FieldVal
		y2.SquareVal(&Q.Y).Normalize()
		x3.SquareVal(&Q.X).Mul(&Q.X).AddInt(7).Normalize()
		if !y2.Equals(&x3) {
			return false
		}
	default:
		return false
	}
	Q.X.Normalize()
	Q.Y.Normalize()
	Q.Z.SetInt(1)
	return true
}

var tagChallenge = makeTag("BIP0340/challenge")

// verifySchnorr checks a 64-byte BIP340 signature against a 32-byte x-only
// public key. It follows BIP340's verification directly on btcec's group
// primitives: btcec's own Verify takes a parsed key and re-parses it
// (a second square root), and builds its challenge hash with allocations.
func verifySchnorr(sig, pubKey []byte, hash *[32]byte) bool {
	if len(sig) != 64 || len(pubKey) != 32 {
		return false
	}
	var P btcec.JacobianPoint
	if P.X.SetByteSlice(pubKey) || !btcec.DecompressY(&P.X, false, &P.Y) {
		return false // x >= p, or not on the curve
	}
	P.Y.Normalize()
	P.Z.SetInt(1)
	var r btcec.FieldVal
	if r.SetByteSlice(sig[:32]) {
		return false // r >= p
	}
	var s btcec.ModNScalar
	if s.SetByteSlice(sig[32:]) {
		return false // s >= n
	}
	var buf [64 + 32 + 32 + 32]byte
	copy(buf[:64], tagChallenge[:])
	copy(buf[64:96], sig[:32])
	copy(buf[96:128], pubKey)
	copy(buf[128:], hash[:])
	eh := sha256.Sum256(buf[:])
	var e btcec.ModNScalar
	e.SetBytes(&eh)
	e.Negate()
	// R = s*G - e*P must have even Y and X equal to r.
	var R btcec.JacobianPoint
	doubleMult(&s, &e, &P, &R)
	if (R.X.IsZero() && R.Y.IsZero()) || R.Z.IsZero() {
		return false
	}
	R.ToAffine()
	if R.Y.IsOdd() {
		return false
	}
	return r.Equals(&R.X)
}
