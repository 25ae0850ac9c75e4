// Command btcd is a Bitcoin full node daemon.
//
// The root package owns the process: option parsing (command line plus
// btcd.conf, see sample.conf), per-subsystem logging to stdout and a
// rotating file, signal handling and clean shutdown, profiling hooks, and
// the server that ties the node's packages together. Consensus, storage,
// networking and RPC live in their own packages; this package only wires
// them up.
//
// Usage:
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
package main
