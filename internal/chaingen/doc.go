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
// # Mainnet scale
//
// Config.Profile = ProfileMainnetScale (the "mainnet-scale" size:
// MainnetScaleTxs = 5,000,000 transactions, MainnetScaleTxPerBlock =
// 3,500 per block) builds a chain whose UTXO set does not fit a default
// cache: about 13.7 million unspent coins at the tip with seed 1,
// against the ~650,000 of the large chain. Nothing is signed: every
// output is anyone-can-spend, P2WSH of the witness script OP_TRUE (55%),
// taproot with a single OP_TRUE leaf spent by script path (30%) or P2SH
// of the redeem script OP_TRUE (15%), so generation costs a few
// microseconds per transaction (minutes for the whole chain) and the
// chain is meant to be synced with scripts skipped (--assumevalid). The
// spends are valid all the same, so a node checking scripts accepts the
// chain too, but then measures no signature work. Transactions have 1-3
// inputs (65/25/10%) and 2-5 outputs (25/25/20/30%), so each adds about
// 2.1 coins to the set; coinbases are split as above. Inputs choose coins by
// age, as mainnet's mostly spend young coins with a long tail of old
// ones: 10% an output of the same block, 30% one of the previous 1-6
// blocks (an hour), 45% one of a block 7 to 432 blocks old (up to three
// days), drawn log-uniformly in the age so that younger blocks are
// chosen more often, and 15% a coin chosen uniformly among all coins
// older than 432 blocks (most of the set once the chain is long); matured
// coinbase outputs are drawn at their real age too. When the drawn
// block has no coin left, a few older ones are tried before falling back
// to any coin. The whole set is kept in memory while generating (about
// 3.5 GB for the full size).
//
// # Validation
//
// The tests check every block of the small chain without the node
// (header chain, proof of work, merkle and witness roots, BIP34, subsidy
// plus fees, weight, maturity, double spends, fee rate and every input's
// script with txscript's engine under standard flags), and feed a
// 2,000-transaction chain through blockchain.ProcessBlock.
package chaingen
