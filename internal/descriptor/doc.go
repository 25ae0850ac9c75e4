// Package descriptor parses, canonicalises and expands Bitcoin output script
// descriptors the way Bitcoin Core 30 does: the language of BIP380 to BIP386
// (checksums, key expressions with BIP32 derivation, pk, pkh, wpkh, sh, wsh,
// multi, sortedmulti, combo, raw, addr, tr with script trees), Core's
// tapscript extensions multi_a, sortedmulti_a and rawtr, BIP389
// multipath key expressions, and BIP379 miniscript inside wsh() and in
// tr() leaves, with Core's sanity checks and its inference of miniscript
// from witness scripts and leaves.
//
// Descriptors reach this package from RPC callers, so it treats its input as
// hostile: inputs are bounded in length, derivation paths and script trees in
// depth, and key counts by the script limits, so that neither memory nor
// time grows beyond what the input's own size already costs; errors carry
// Core's messages (the RPC layer reports them verbatim) and nothing panics.
//
// The pieces, by file:
//
//   - checksum.go: the BIP380 checksum and its verification.
//   - network.go: what differs between networks (address encodings, WIF
//     prefix, extended key versions).
//   - bip32.go: extended keys (serialization and child derivation).
//   - keys.go: key expressions, key origins and WIF.
//   - parse.go: the parser and Core's context rules.
//   - descriptor.go: the Descriptor type and its string forms.
//   - expand.go: output scripts for a derivation index.
//   - infer.go: descriptors inferred back from scripts, as scantxoutset
//     reports them.
//   - miniscript.go: miniscript nodes, their type system, resource counts
//     and scripts; miniscript_parse.go reads the text form and applies
//     Core's sanity checks; miniscript_decode.go reads scripts back;
//     miniscript_satisfy.go builds witnesses that satisfy them.
package descriptor
