// Package blockchain owns block validation and the chain state: Bitcoin's
// consensus rules as pure functions (proof of work, difficulty retargeting
// for every network, median time past, block and transaction checks,
// subsidy, witness commitments, lock times, sigop limits, BIP325 signet
// solutions), the in-memory header tree with cumulative work and skip
// pointers, and the BlockChain type that accepts headers and blocks, keeps
// a bounded orphan pool, connects and disconnects blocks against the
// database's UTXO cache with undo data, reorganizes to the chain with the
// most work, verifies scripts in parallel and notifies subscribers.
//
// # Pure rules
//
// The files pow.go, difficulty.go, checkblock.go, checktx.go, locktime.go,
// subsidy.go, coinbase.go, sigops.go and signet.go take everything they
// need as arguments and touch no chain state, in the spirit of dcrd's
// blockchain/standalone; the mempool and the miner can use them directly.
//
// # Errors
//
// Rule failures are *RuleError values whose Kind is an ErrorKind equal to
// Bitcoin Core's reject reason ("bad-txnmrklroot", "high-hash"), so that
// errors.Is selects a rule and submitblock (SubmitBlock) can answer exactly
// as bitcoind does. Failures Core classes as mutations (merkle root,
// duplicated transactions, witness commitment) and context-free failures
// never mark a block hash invalid, since the bytes received may not be the
// block the header commits to; "time-too-new" headers are not stored.
//
// # The block path
//
// ProcessBlock checks a block without context, finds its parent (or keeps
// it as an orphan), checks and stores its header and data, and runs the
// best-chain selection. Connecting a block fetches all the coins it spends
// in one pass from the UTXO cache, applies its changes while the script
// checks run on a pool of workers (GOMAXPROCS by default, Config.Par), and
// rolls them back if any rule fails; the undo record is written once all
// passed. Blocks below a configured assume-valid block skip script checks
// only. Block data and the block index are made durable before the
// chainstate at every flush, so the chainstate never names a block the
// index lacks.
//
// # Anti-DoS policy for headers and blocks
//
// A header enters the tree only if it connects to a header we have, has
// valid proof of work, the exact difficulty the retarget rules demand at
// its position and a timestamp within the rules; as in Core 30 there are
// no checkpoints, and the sync manager's per-peer headers presync keeps
// low-work header chains out of the tree. A peer can therefore make us store headers only by mining them at the chain's
// difficulty. The sync manager feeds peers' headers through
// ProcessHeaders in order and should only download blocks of a header
// chain for which HeaderChainTrusted (at least MinimumChainWork) holds.
// Blocks pushed without being requested go through ProcessBlockWithFlags
// with BFUnrequested, which (as Core) does not store blocks with less work
// than the tip, too far ahead, or below the minimum chain work. The orphan
// pool is bounded in count and bytes and only holds blocks whose proof of
// work holds.
//
// Headers whose chain has less than MinimumChainWork are not handed to
// ProcessHeaders at all: the sync manager first checks such a chain per
// peer with bounded memory and passes it on once its work reaches the
// minimum (Core's headers presync, peer/netsync/headerspresync.go).
//
// # Crash recovery
//
// Block data, undo data, the block index and the txindex are flushed
// before the chainstate. At start, New repairs two states a crash can
// leave: a chainstate flush interrupted between its batches (the
// database's head-blocks marker) is repaired by replayBlocks, which rolls
// the old head's branch back to the fork with undo data if needed and
// re-applies the blocks up to the new head from the block files; and a
// chainstate behind the block index's best stored chain is brought
// forward by connecting the missing blocks from the block files, as any
// candidate with more work is (TestReplayInterruptedFlush,
// TestIndexAheadOfChainState).
//
// # Transaction index and pruning
//
// Config.TxIndex maintains txid -> block location for TxByID, in the
// txindex's own database (indexes/txindex); an existing chain is indexed
// by a background goroutine (txindex.go). Config.
// PruneTarget deletes the oldest block and undo files after flushes, never
// within MinBlocksToKeep blocks of the tip; pruned blocks answer
// ErrBlockPruned (prune.go). The two cannot be combined.
package blockchain
