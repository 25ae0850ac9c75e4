// Command chaingen writes a deterministic synthetic regtest chain as
// Bitcoin Core block files, for a reproducible initial-block-download
// benchmark, and measures the chain's signature verification lower bound.
//
// The chain starts at the regtest genesis block: 100 coinbase-only blocks
// whose coinbases are split into many outputs, then blocks of about 2,000
// signed transactions (P2WPKH mostly, also P2PKH, P2SH-P2WPKH, 2-of-3
// P2WSH multisig, P2TR key path and P2TR script path spends) with
// same-block and cross-block spend chains. See package
// internal/chaingen for the exact mix. The same flags always produce
// byte-identical files, whatever the number of cores.
//
// Files are written as blk00000.dat, blk00001.dat, ... into -out, each a
// sequence of records: the regtest magic (bytes fa bf b5 da), the block
// length as a little-endian uint32, and the block with witnesses; a file
// is closed before it would exceed -maxfilesize (128 MiB). The directory
// must not already hold blk00000.dat.
//
// Usage:
//
//	chaingen [flags]
//
// Flags:
//
//	-out DIR          directory for the block files (required unless -sigbench)
//	-size NAME        small (20,000 transactions), medium (200,000), large (1,000,000)
//	                  or mainnet-scale (5,000,000 unsigned, 3,500 per block); default small
//	-txs N            number of non-coinbase transactions (overrides -size)
//	-txperblock N     transactions per full block (default 2000; 3500 for mainnet-scale)
//	-seed N           seed for keys and every random choice (default 1)
//	-workers N        signing goroutines (default GOMAXPROCS)
//	-keys N           size of the key pool (default 1024)
//	-maxfilesize N    block file size limit in bytes (default 134217728)
//	-cpuprofile FILE  write a CPU profile of the run
//	-sigbench         also collect the chain in memory and measure
//	                  signature verification (see below)
//
// The mainnet-scale size is a different chain: nothing is signed (every
// output is an anyone-can-spend OP_TRUE script in P2WSH, taproot or
// P2SH), transactions have more outputs than inputs and spend coins by
// age, so the UTXO set reaches about 13.7 million coins; it is meant for
// syncs with scripts skipped (--assumevalid), and -sigbench refuses it.
// See package internal/chaingen, "Mainnet scale". -txs keeps the size's
// kind of chain (e.g. -size mainnet-scale -txs 100000).
//
// When done it prints one JSON line: blocks, height, transactions
// (without coinbases), inputs, outputs (with coinbase outputs),
// signatures, same-block spends, fees, bytes (blocks without framing),
// total and maximum block weight, the tip hash, per-type input and output
// counts, the files written, and the wall and CPU seconds taken.
//
// With -sigbench a second JSON line follows, the lower bound the IBD
// benchmark compares against: every signature of the chain verified with
// plain btcec (ECDSA for legacy and segwit v0, Schnorr for taproot; the
// key and signature are parsed, as a node must), first with the
// signature hashes precomputed (verify_1core, verify_ncore), then the
// signature hashes alone (sighash_only_1core), then per transaction
// midstates, sighashes and verification together (sighash_verify_1core,
// sighash_verify_ncore). Each phase reports wall seconds, process CPU
// seconds and signatures per second of each; on a loaded machine the CPU
// figures of the one-core phases are the steadier ones.
//
// Examples:
//
//	# The small chain (20k transactions, 110 blocks, ~14 MB):
//	go run ./cmd/chaingen -out /tmp/ibd-small -size small
//
//	# The medium chain with another seed, fewer transactions per block:
//	go run ./cmd/chaingen -out /tmp/ibd-medium -size medium -seed 42 -txperblock 1500
//
//	# An exact size:
//	go run ./cmd/chaingen -out /tmp/ibd-50k -txs 50000
//
//	# The UTXO set at mainnet's scale (5M unsigned transactions, 1.4 GB):
//	go run ./cmd/chaingen -out /tmp/cg-mainnet-scale -size mainnet-scale
//
//	# The signature lower bound of the medium chain (no files written):
//	go run ./cmd/chaingen -sigbench -size medium
//
//	# Import into the node (repeat --loadblock for each file, in order):
//	btcd --regtest --datadir=/tmp/ibd-node --nolisten --norpc \
//		--loadblock=/tmp/ibd-small/blk00000.dat
//
//	# The same files for Bitcoin Core (regtest, -loadblock likewise).
//
// Exit status is 2 for bad flags and 1 for any other failure.
package main
