// Command btcctl is the node's command-line RPC client. It takes Bitcoin
// Core's bitcoin-cli command line (Core 29/30 behaviour), so scripts and
// test harnesses that run bitcoin-cli can run it instead:
//
//	btcctl [options] <method> [params...]
//	btcctl [options] -named <method> [name=value]...
//	btcctl [options] -getinfo | -netinfo [level [outonly]] | -addrinfo | -generate [nblocks [maxtries]]
//
// # Options
//
// Options come before the method, with one or two dashes, as -name=value;
// -noname negates one (-nonamed, -norpccookiefile, -norpcwallet). As
// before, btcctl also accepts "-name value" for options that take a value.
// The options are bitcoin-cli's: -conf, -datadir, -chain, -regtest,
// -testnet, -testnet4, -signet, -rpcconnect (host or host:port, [::1]:port
// for IPv6), -rpcport, -rpcuser, -rpcpassword, -rpccookiefile,
// -rpcclienttimeout (seconds, 0 for none), -rpcwait and -rpcwaittimeout,
// -rpcwallet, -named, -stdin, -stdinrpcpass, -stdinwalletpassphrase,
// -color, -ipcconnect (HTTP only: "auto" and -noipcconnect work), -version
// and -help (-help-debug). btcctl adds -tls, -rpccert=file and -skipverify
// for btcd's TLS RPC server.
//
// # Configuration and credentials
//
// With -datadir (or -conf), btcctl reads bitcoin.conf from the data
// directory (-conf relative paths too) with bitcoin-cli's rules: [main],
// [test], [testnet4], [signet] and [regtest] sections (or section.name
// keys), includeconf, the first value in a file winning, the command line
// overriding the file, and rpcport read only from the network's section on
// networks other than mainnet. Keys btcctl does not know (the daemon's)
// are ignored. The cookie is <datadir>/.cookie on mainnet and
// <datadir>/<testnet3|testnet4|signet|regtest>/.cookie otherwise, or
// -rpccookiefile (relative to that folder); -rpcpassword (with -rpcuser)
// replaces it.
//
// Without -datadir and -conf, btcd users keep btcctl's old behaviour: when
// ~/.btcd exists, the config is ~/.btcd/btcctl.conf, else ~/.btcd/btcd.conf
// (rpcuser, rpcpassword or rpcpass, rpcconnect, rpcport, rpccookiefile,
// datadir; rpcport applies to every network there) and the cookie is
// ~/.btcd/data/<mainnet|testnet3|...>/.cookie. Otherwise bitcoind's
// ~/.bitcoin is used. The same btcd files are read when -datadir names a
// directory without a bitcoin.conf.
//
// # Parameters
//
// As with bitcoin-cli's table of non-string parameters, the server's method
// table (rpc.LookupMethod) decides which parameters are JSON: a parameter
// the method declares as a string is sent as a string, other declared
// types must be valid JSON ("error: Error parsing JSON: x" otherwise),
// multi-type parameters and those of methods the table does not know are
// sent as JSON when they parse and as strings otherwise; echo's are always
// strings. With -named, name=value pairs form a params object (a later
// value for a name replaces an earlier one) and arguments without '=' are
// sent in its "args" array. -stdin appends one parameter per line of
// standard input; -stdinrpcpass first reads the password from it.
//
// # Output and exit status
//
// A string result is printed as is, other results as JSON indented like
// bitcoin-cli's (UniValue) output, and a null result not at all; the exit
// status is 0. An RPC error prints "error code: N\nerror message:\n..." on
// stderr and exits with |N| (truncated to 8 bits by the system). Any other
// failure prints "error: ..." and exits 1, among them "Could not connect to
// the server host:port" (after "timeout on transient error: "), "Invalid
// port provided in -rpcport: ...", "Authorization failed: Incorrect rpcuser
// or rpcpassword" and "Could not locate RPC credentials". Problems with the
// command line or config file print "Error...: ..." and exit 1.
//
// -getinfo prints bitcoin-cli's summary (chain, blocks, headers,
// verification progress, difficulty, connections, version, time offset,
// proxies, relay fee, wallet and balances when the server has a wallet,
// warnings), coloured with -color=always (or auto on a terminal). -netinfo
// prints the peer dashboard at level 0-4 ("-netinfo help" explains it),
// -addrinfo the address manager's counts (getaddrmaninfo), and -generate
// mines to a new wallet address (getnewaddress, then generatetoaddress).
package main
