// Package chaintest builds valid regtest blocks for tests: coinbases with
// the BIP34 height and a BIP141 witness commitment, solved headers, and
// transactions spending OP_TRUE, P2PKH, P2WPKH and P2TR (key path) outputs
// with real signatures from a deterministic btcec key. It tracks every
// output it creates so that spends are signed and fees computed without
// the caller's help, and it can branch from any block it built, which
// makes fork and reorganization tests short.
//
// It deliberately does not import package blockchain, so that blockchain's
// internal tests can use it too.
package chaintest
