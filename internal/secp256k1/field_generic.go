//go:build !amd64 || purego

package secp256k1

// feMul sets r = a*b.
func feMul(r, a, b *fe) { mulGeneric(r, a, b) }

// feSqr sets r = a^2.
func feSqr(r, a *fe) { sqrGeneric(r, a) }
