// Package muhash owns MuHash3072, the rolling multiset hash Bitcoin Core
// uses for gettxoutsetinfo's "muhash" and the coinstats index, and the
// ChaCha20 block function it needs.
//
// # The construction
//
// An element (any byte string) maps to a number modulo the prime
// p = 2^3072 - 1103717: its SHA256 digest is a ChaCha20 key (RFC 8439,
// zero nonce, block counters 0 to 5) whose first 384 keystream bytes,
// read as a little-endian integer, are the number. A set is the product
// of its elements' numbers modulo p; removing an element multiplies a
// separate denominator, so insertions and removals commute and only the
// final digest pays for a modular inverse. The digest is
// SHA256(LE384(numerator / denominator mod p)); Core displays it
// byte-reversed like other uint256 values.
//
// Because multiplication commutes, the digest does not depend on the order
// of insertions, which is what lets Core maintain it per block in the
// coinstats index. This node computes it by scanning the chainstate
// (database.ChainState.HashUtxoSet).
//
// # Cost
//
// Multiplication uses math/big, whose word loops are assembly, with a
// reduction specialised to the pseudo-Mersenne modulus: x = hi*2^3072 + lo
// is congruent to lo + 1103717*hi, so two folds and at most one
// subtraction replace a long division. All scratch lives in the MuHash value, so Insert and
// Remove do not allocate once warmed up. On the 2-core build machine
// (BenchmarkInsert, BenchmarkChaChaBlock, BenchmarkFinalize) an Insert
// takes about 2.5 us: six ChaCha20 blocks of ~150 ns, the rest mostly the
// 3072-bit product; Finalize (one modular inverse) about 45 us.
package muhash
