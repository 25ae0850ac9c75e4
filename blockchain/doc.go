// Package blockchain owns block validation and the chain state: Bitcoin's
// consensus rules as pure functions (proof of work, difficulty retargeting
// for every network, median time past, block and transaction checks,
// subsidy, witness commitments, lock times, sigop limits), the in-memory
// header tree with cumulative work and skip pointers, and the BlockChain
// type that accepts headers and blocks, keeps a bounded orphan pool,
// connects and disconnects blocks against the database's UTXO cache with
// undo data, reorganizes to the chain with the most work, verifies scripts
// in parallel and notifies subscribers.
//
// The pure functions (files pow.go, difficulty.go, mediantime.go,
// checkblock.go, checktx.go, locktime.go, subsidy.go, witness.go) take
// everything they need as arguments and touch no chain state, in the
// spirit of dcrd's blockchain/standalone; the mempool and the miner use
// them directly.
//
// Rule failures are *RuleError values whose Kind is an ErrorKind named
// after, and equal to, Bitcoin Core's reject reason, so that errors.Is
// selects a rule and submitblock can answer exactly as bitcoind does.
package blockchain
