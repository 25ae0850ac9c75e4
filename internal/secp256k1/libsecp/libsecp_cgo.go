//go:build libsecp256k1 && cgo

// Package libsecp is the libsecp256k1 oracle for internal/secp256k1's
// tests: Bitcoin Core's own verifier, linked from the system library
// (go test -tags libsecp256k1) for the differential test and the
// side-by-side benchmark. Without the tag it only reports that it is not
// available. It is a package of its own because a package with cgo cannot
// also hold Go assembly.
package libsecp

/*
#cgo LDFLAGS: -lsecp256k1
#include <stddef.h>
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

static secp256k1_context *oracle_ctx;

static void oracle_init(void) {
	oracle_ctx = secp256k1_context_create(SECP256K1_CONTEXT_VERIFY);
}

// ECDSA with libsecp256k1's parsers; high S is normalized first because
// secp256k1_ecdsa_verify rejects it.
static int oracle_ecdsa(const unsigned char *pub, size_t publen,
		const unsigned char *rs, const unsigned char *msg) {
	secp256k1_pubkey pk;
	secp256k1_ecdsa_signature sig;
	if (!secp256k1_ec_pubkey_parse(oracle_ctx, &pk, pub, publen)) return 0;
	if (!secp256k1_ecdsa_signature_parse_compact(oracle_ctx, &sig, rs)) return 0;
	secp256k1_ecdsa_signature_normalize(oracle_ctx, &sig, &sig);
	return secp256k1_ecdsa_verify(oracle_ctx, &sig, msg, &pk);
}

static int oracle_schnorr(const unsigned char *xonly,
		const unsigned char *sig, const unsigned char *msg) {
	secp256k1_xonly_pubkey pk;
	if (!secp256k1_xonly_pubkey_parse(oracle_ctx, &pk, xonly)) return 0;
	return secp256k1_schnorrsig_verify(oracle_ctx, sig, msg, 32, &pk);
}
*/
import "C"

import "unsafe"

// Available reports whether the oracle is linked in.
const Available = true

func init() { C.oracle_init() }

// ECDSA verifies with libsecp256k1: pub is a serialized key, rs
// the 64-byte r || s, msg the hash.
func ECDSA(pub []byte, rs *[64]byte, msg *[32]byte) bool {
	if len(pub) == 0 {
		return false
	}
	return C.oracle_ecdsa((*C.uchar)(unsafe.Pointer(&pub[0])), C.size_t(len(pub)),
		(*C.uchar)(unsafe.Pointer(&rs[0])), (*C.uchar)(unsafe.Pointer(&msg[0]))) == 1
}

// Schnorr verifies a BIP340 signature with libsecp256k1.
func Schnorr(pub *[32]byte, sig *[64]byte, msg *[32]byte) bool {
	return C.oracle_schnorr((*C.uchar)(unsafe.Pointer(&pub[0])),
		(*C.uchar)(unsafe.Pointer(&sig[0])), (*C.uchar)(unsafe.Pointer(&msg[0]))) == 1
}
