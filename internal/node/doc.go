// Package node is the Bitcoin full node daemon: one configuration (Config),
// per-subsystem logging to stdout and a log file, signal handling and
// clean shutdown, profiling hooks, and the server that ties the node's
// packages together. Consensus, storage, networking and RPC live in their
// own packages; this package only wires them up.
//
// Two front ends start it. The btcd command (the repository root) parses
// btcd's go-flags command line and btcd.conf (see sample.conf) with
// BtcdMain; cmd/bitcoind parses bitcoind's command line and bitcoin.conf,
// fills a Config (with Config.Bitcoind for bitcoind's data layout and log
// destinations), calls Validate and then Run. Both run the same node.
//
// btcd's usage:
//
//	btcd [OPTIONS]
//
// Run btcd --help for the options. Common ones:
//
//	--regtest, --testnet, --testnet4, --signet   pick a network (default mainnet)
//	--datadir, --logdir                          where data and logs go
//	--debuglevel=info,PEER=debug                 log levels; --debuglevel=show lists subsystems
//	--connect, --addpeer, --listen               peer connections
//	--rpclisten, --rpcuser, --rpcpass            JSON-RPC server
//
// SIGINT or SIGTERM starts a clean shutdown; a second signal exits at once
// with status 1.
//
// # Server wiring (server.go)
//
// newServer opens, in the per-network data directory, the block store, the
// chainstate with its UTXO cache (--utxocachemaxsize), the chain
// (--assumevalid, --par, --sigcachemaxsize, --txindex, --prune), the
// mempool (its ChainView and script seam are adapters over the chain and
// txscript with the shared signature cache; mempool.dat, in Core's
// format, with --persistmempool and --persistmempoolv1; chain notifications drive BlockConnected and
// BlockDisconnected), the ban and address managers, the connection
// manager, the sync manager (peer/netsync) and the RPC server, whose
// backend functions are adapters in rpcadapter.go; mining.go wires the
// block assembler (internal/mining: getblocktemplate, generate*) to the
// chain, the mempool and block submission. --loadblock and
// --reindex import blk files through the database's block file reader
// (blockimport.go). Stop shuts down RPC, peers and sync, then flushes the
// chain, saves the mempool, the peers and the bans and closes the
// databases.
//
// # Optional indexes, notifications and metrics
//
// filterindex.go runs the BIP158 filter index (--blockfilterindex) from one
// worker goroutine that catches up on every tip change, serves it to peers
// (--peerblockfilters, through netsync.Config.Filters) and to
// getblockfilter. zmq.go publishes bitcoind's ZMQ topics (--zmqpub*)
// from chain notifications and the mempool's OnAccept/OnRemove hooks and
// adds getzmqnotifications. metrics.go serves Prometheus metrics
// (--metrics) and installs the recording hooks; each subsystem is nil when
// its options are unset, and the hooks are then no-ops. See
// docs/architecture.md for where they attach to the block path.
package node
