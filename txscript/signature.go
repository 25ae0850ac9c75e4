package txscript

import "github.com/btcnode/btcd/internal/secp256k1"

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
func parseDERLax(in []byte) (r, s secp256k1.Scalar, ok bool) {
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
		overflow = r.SetBytes(&buf)
	}
	if !overflow {
		buf = [32]byte{}
		copy(buf[32-slen:], in[spos:spos+slen])
		overflow = s.SetBytes(&buf)
	}
	if overflow {
		r, s = secp256k1.Scalar{}, secp256k1.Scalar{}
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
	return !s.IsHigh()
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

// VerifyECDSA reports whether sig (DER, without the sighash type byte;
// parsed as leniently as Core's consensus rules allow) is pubKey's
// signature of hash, using the engine's allocation-free verifier
// (internal/secp256k1). It is exported for benchmarks that compare raw
// verification speed.
func VerifyECDSA(sig, pubKey []byte, hash *[32]byte) bool { return verifyECDSA(sig, pubKey, hash) }

// VerifySchnorr reports whether sig (64 bytes) is a BIP340 signature of
// hash by the x-only key pubKey, using the engine's own verifier.
func VerifySchnorr(sig, pubKey []byte, hash *[32]byte) bool { return verifySchnorr(sig, pubKey, hash) }

// verifyECDSA checks a DER signature (hash type byte already removed)
// against a serialized public key the way Core does: the key's size must
// match its header, the signature is parsed laxly (out-of-range values
// become the always-failing zero signature), and S may be high: ECDSA
// verification is symmetric in S, and low S is a policy rule checked on
// the encoding.
func verifyECDSA(sig, pubKey []byte, hash *[32]byte) bool {
	if !pubKeySizeValid(pubKey) {
		return false
	}
	r, s, ok := parseDERLax(sig)
	if !ok {
		return false
	}
	var pk secp256k1.PublicKey
	if !secp256k1.ParsePubKey(pubKey, &pk) {
		return false
	}
	return secp256k1.VerifyECDSA(&r, &s, &pk, hash)
}

// verifySchnorr checks a 64-byte BIP340 signature against a 32-byte x-only
// public key.
func verifySchnorr(sig, pubKey []byte, hash *[32]byte) bool {
	if len(sig) != 64 || len(pubKey) != 32 {
		return false
	}
	return secp256k1.VerifySchnorr((*[64]byte)(sig), (*[32]byte)(pubKey), hash)
}
