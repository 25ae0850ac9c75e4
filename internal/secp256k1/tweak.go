package secp256k1

// TaprootTweak computes BIP341's output key Q = P + t*G for the x-only
// internal key P and the 32-byte tweak t (the taproot commitment check).
// It reports false when P is not a valid x-only key, t >= n, or Q is the
// point at infinity; otherwise it returns Q's x and the parity of its y.
func TaprootTweak(internal, tweak *[32]byte) (x [32]byte, oddY bool, ok bool) {
	var pk PublicKey
	if !ParseXOnly(internal, &pk) {
		return x, false, false
	}
	var t Scalar
	if t.SetBytes(tweak) {
		return x, false, false
	}
	one := Scalar{v: [4]uint64{1}}
	var Q jacobian
	if !ecmult(&Q, &pk.p, &t, &one) || Q.inf {
		return x, false, false
	}
	a := Q.toAffine()
	a.x.bytes(&x)
	return x, a.y.isOdd(), true
}
