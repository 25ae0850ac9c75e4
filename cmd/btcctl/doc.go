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
// Each parameter is sent as JSON when it parses as JSON and as a string
// otherwise. With -named, parameters are name=value pairs sent as a JSON
// object. With -stdin, further parameters are read from standard input, one
// per line. Credentials come from -rpcuser/-rpcpassword, the config file
// (rpcuser=, rpcpassword= or rpcpass=), or the cookie file the server
// writes (<datadir>/<network dir>/.cookie).
//
// A string result is printed as is, other results as indented JSON, and an
// RPC error as "error code: N\nerror message:\n..." on stderr with exit
// status 1.
package main
