// Package chaingen generates deterministic synthetic regtest chains for
// the initial-block-download benchmark, and measures the signature
// verification lower bound of such a chain.
//
// It owns: the chain generator (Generate, Generator), the blk?????.dat
// writer in Bitcoin Core's framing (FileWriter), and the signature
// benchmark (Collector, SigBench). The command cmd/chaingen drives it.
//
// # The chain
//
// Starting at the regtest genesis block, blocks 1 to 100 carry only a
// coinbase paying the subsidy to TxPerBlock (by default 2,000) outputs;
// from height 101 on each block's coinbase matures (100 confirmations) and
// blocks hold TxPerBlock transactions until Config.Txs are generated.
// Every coinbase is split the same way (while its value allows outputs of
// at least 20,000 sat), claims exactly subsidy (halving every 150 blocks
// on regtest) plus fees, starts its scriptSig with the BIP34 height and
// carries a BIP141 witness commitment. Blocks are version 0x20000000,
// 600 seconds apart from the genesis time (so median-time-past always
// advances), use bits 0x207fffff and a searched nonce, and stay well
// below the 4,000,000 weight limit (a block is closed early if the next
// transaction could exceed it).
//
// Transactions have 1-3 inputs (55/30/15%) and 2-3 outputs (65/35%), so
// the UTXO set grows. Outputs are P2WPKH (60%), P2TR key path (12%),
// P2PKH (10%), P2SH-P2WPKH (8%), 2-of-3 P2WSH multisig (6%) and P2TR with
// one `<xonly> OP_CHECKSIG` tapscript leaf spent by script path (4%).
// Inputs spend an output of the same block 12% of the time, of the last
// five blocks 33%, otherwise a uniformly chosen older coin. Fee rates are
// 1-5 sat/vB (70%) or 6-50 sat/vB, charged on a size measured with
// maximum-size signatures, so the real rate is never below 1 sat/vB.
//
// Keys come from a pool (Config.Keys, default 1,024) derived from the
// seed by SHA-256; every signature is real: ECDSA (RFC6979, low S) for
// legacy and segwit v0, BIP340 Schnorr for taproot, all SIGHASH_ALL or
// SIGHASH_DEFAULT. Building a block is sequential and driven by one PCG
// generator seeded from Config.Seed; signing runs on Config.Workers
// goroutines with each input's result in its own slot, so the same Config
// gives byte-identical blocks for any worker count. Because a P2PKH
// signature changes the txid, outputs of a transaction with a P2PKH input
// become spendable only from the next block.
//
// # Validation
//
// The tests check every block of the small chain without the node
// (header chain, proof of work, merkle and witness roots, BIP34, subsidy
// plus fees, weight, maturity, double spends, fee rate and every input's
// script with txscript's engine under standard flags), and feed a
// 2,000-transaction chain through blockchain.ProcessBlock.
package chaingen
