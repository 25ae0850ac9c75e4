//go:build !(libsecp256k1 && cgo)

// Package libsecp is the libsecp256k1 oracle for internal/secp256k1's
// tests; this build (without the libsecp256k1 tag, or without cgo) does
// not have it.
package libsecp

// Available reports whether the oracle is linked in.
const Available = false

// ECDSA would verify with libsecp256k1; it must not be called when
// Available is false.
func ECDSA(pub []byte, rs *[64]byte, msg *[32]byte) bool {
	panic("libsecp256k1 oracle not built")
}

// Schnorr would verify a BIP340 signature with libsecp256k1; it must not
// be called when Available is false.
func Schnorr(pub *[32]byte, sig *[64]byte, msg *[32]byte) bool {
	panic("libsecp256k1 oracle not built")
}
