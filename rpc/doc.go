// Package rpc owns the node's bitcoind-compatible JSON-RPC server: the HTTP
// listener (basic auth with user/password, rpcauth entries or a cookie file,
// optional TLS), JSON-RPC 1.0/2.0 and batch request handling with size,
// concurrency and time limits, the method registry with bitcoind-style help
// text, parameter parsing (positional and named), and the methods that need
// no chain state (help, uptime, stop, getrpcinfo, getmemoryinfo, logging,
// decoderawtransaction, createrawtransaction, combinerawtransaction,
// decodescript, validateaddress, getdescriptorinfo, verifymessage).
//
// Methods that need chain, mempool, mining or peer state are registered with
// their help text and bitcoind result shapes (results.go), and are served
// through Backend (backend.go): a plain struct of per-area structs of
// function fields that the daemon fills in. A method whose area, or whose
// function within the area, is nil answers -32601 "Method not found", so a
// daemon can wire areas one at a time.
//
// The daemon wires it roughly so:
//
//	srv, err := rpc.New(rpc.Config{
//		Listeners:   cfg.RPCListeners,          // empty: 127.0.0.1 and ::1
//		DefaultPort: params.RPCPort,            // 8332, 18332, 48332, 38332, 18443
//		User:        cfg.RPCUser, Pass: cfg.RPCPass, // empty Pass: cookie auth
//		DataDir:     cfg.DataDir,               // per-network; .cookie goes here
//		Net:         rpc.NetParamsOf(params),
//		Backend:  rpc.Backend{Chain: &rpc.ChainBackend{BestBlock: chain.Best, ...}},
//		Shutdown: requestShutdown,
//		Logging:  &rpc.LoggingControl{Levels: ..., SetLevel: ...},
//		LogPath:  logFile,
//	})
//	// errors.Is(err, rpc.ErrUnsafeListen): non-loopback without rpcuser/rpcpass.
//	err = srv.Start()
//	defer srv.Stop() // removes the cookie
//
// merkleproof.go encodes and decodes gettxoutproof's BIP37 merkle-block
// proofs (Core's CPartialMerkleTree layout) for the daemon's backend;
// extra.go holds the waitfor* family, gettxspendingprevout, getindexinfo,
// savemempool and echo; deployment.go getdeploymentinfo.
//
// Disassembly, script classification and hash160 come from package txscript
// through the thin wrappers in script.go. Addresses are decoded by txscript
// too (txscript.DecodeBech32 reports the failure kind and error locations);
// address.go only maps failures to bitcoind's exact validateaddress
// messages. Descriptor parsing, inference and checksums are in
// descriptor.go.
package rpc
