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
// hash, disabled opcodes failing in unexecuted branches). Failures are
// ErrorKind values whose Name matches the strings of Core's test vectors
// and whose Message is Core's reject text.
//
// Verifying inputs:
//
//	hashes := txscript.NewTxSigHashes(tx, prevOuts) // once per transaction
//	for i := range tx.TxIn {
//		err := txscript.VerifyInput(tx, i, &prevOuts[i], flags, cache, hashes)
//	}
//
// VerifyInput takes pooled engine state; a worker goroutine may instead keep
// its own Engine (NewEngine) and call Engine.Verify. Either way, verifying
// an input allocates nothing outside the signature check itself.
// TxSigHashes computes its midstates lazily and is safe to share between
// goroutines; taproot spends need prevOuts for every input.
package txscript
