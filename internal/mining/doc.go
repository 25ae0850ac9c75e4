// Package mining assembles blocks: it chooses mempool transactions by
// ancestor fee rate (select.go), builds the coinbase, witness commitment
// and version of a block on the tip (template.go), solves and submits
// blocks for the generate methods (generate.go), checks block proposals,
// and waits for getblocktemplate long polls on tip and mempool changes
// (longpoll.go).
//
// It reads the chain through the Chain interface (which
// *blockchain.BlockChain satisfies) and the mempool through TxSource
// (which *mempool.Pool satisfies); blocks are submitted through a
// function the daemon supplies, so the package never reaches the peer or
// RPC layers. Its errors are typed (ValidityError, UnsupportedRuleError,
// ErrUnsolved) for the daemon to word as bitcoind does.
package mining
