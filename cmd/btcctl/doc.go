// Command btcctl is the command-line RPC client for the node, in the style
// of bitcoin-cli:
//
//	btcctl [options] <method> [params...]
//
// Options (single or double dash, "-name=value" or "-name value" for
// values): -rpcconnect=host (127.0.0.1), -rpcport=port (network default),
// -rpcuser, -rpcpassword, -datadir, -conf, -rpccookiefile, -regtest,
// -testnet, -testnet4, -signet, -chain=name, -named, -stdin, -tls,
// -rpccert=file, -skipverify, -rpcclienttimeout=seconds.
//
// As with bitcoin-cli's conversion table, a parameter the method declares
// as a string (rpc.LookupMethod) is sent as a string, other declared types
// must be valid JSON, and parameters of unknown methods or untyped
// arguments are sent as JSON when they parse and as strings otherwise. With -named, parameters are name=value pairs sent as a JSON
// object. With -stdin, further parameters are read from standard input, one
// per line. Credentials come from -rpcuser/-rpcpassword, the config file
// (btcctl.conf, else the daemon's btcd.conf: rpcuser=, rpcpassword= or
// rpcpass=), or the cookie file the server writes in the daemon's
// per-network data directory (<datadir>/<mainnet|testnet3|testnet4|signet|
// regtest>/.cookie, datadir defaulting to ~/.btcd/data).
//
// A string result is printed as is, other results as indented JSON, and an
// RPC error as "error code: N\nerror message:\n..." on stderr with exit
// status 1.
package main
