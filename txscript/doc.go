// Package txscript owns Bitcoin's consensus script engine: parsing and
// executing scripts (legacy, P2SH, segwit v0, taproot key and script paths),
// signature hashes (legacy, BIP143, BIP341/342) with per-transaction midstate
// caching, ECDSA and BIP340 signature checks, a salted bounded signature
// cache, sigop counting, standard script classification, a script builder,
// Core-style disassembly and address encoding (base58check, bech32,
// bech32m).
//
// The engine follows Bitcoin Core's interpreter rule by rule, including its
// quirks (FindAndDelete on exact push encodings, the SIGHASH_SINGLE "one"
// hash, disabled opcodes failing in unexecuted branches). Errors are
// ErrorKind values whose names match the strings used by Core's test vectors.
//
// The hot path, VerifyInput, reuses pooled engine state so that verifying an
// input allocates nothing outside the signature check itself.
package txscript
