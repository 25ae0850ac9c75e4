package main

import "sort"

// optFlags are bitcoind's per-option parsing rules.
type optFlags uint8

const (
	// networkOnly options at the top of a config file apply to mainnet
	// only; another network needs them in its section.
	networkOnly optFlags = 1 << iota
	// disallowNegation: -nofoo is an error.
	disallowNegation
	// disallowElision: a bare -foo without a value is an error.
	disallowElision
	// debugOnly options are listed by -help-debug only.
	debugOnly
)

// disposition says what the front end does with an option bitcoind knows.
type disposition uint8

const (
	// mapped options change the node's configuration (config.go).
	mapped disposition = iota //lint:ignore U1000 the zero value, which option entries leave implicit
	// output options only shape log output or the front end's own
	// behaviour; they are accepted and have no further effect.
	output
	// walletOnly options belong to bitcoind's wallet. As in a bitcoind
	// built without a wallet, they are accepted and ignored.
	walletOnly
	// unsupported options are features this node does not have. Their
	// off (or default) value is accepted; any other value stops start-up
	// with "Invalid parameter".
	unsupported
)

// option is one bitcoind option.
type option struct {
	name  string
	arg   string // value placeholder for -help, e.g. "<n>"
	help  string
	group string
	flags optFlags
	disp  disposition
	// off is the value an unsupported option may take (besides a
	// negation): the text form of bitcoind's default, "" when any set
	// value changes behaviour.
	off string
}

// Help groups, in bitcoind's order.
const (
	gOptions    = "Options"
	gConnection = "Connection options"
	gZMQ        = "ZeroMQ notification options"
	gDebug      = "Debugging/Testing options"
	gChain      = "Chain selection options"
	gRelay      = "Node relay options"
	gBlock      = "Block creation options"
	gRPC        = "RPC server options"
	gHidden     = ""
)

// options lists every option bitcoind 30 accepts, with how this front end
// treats it. Help texts describe this node's behaviour.
var options = []option{
	// General.
	{name: "?", help: "Print this help message and exit", group: gOptions, disp: output},
	{name: "h", help: "Print this help message and exit", group: gHidden, disp: output},
	{name: "help", help: "Print this help message and exit", group: gHidden, disp: output},
	{name: "help-debug", help: "Print help message with debugging options and exit", group: gDebug, disp: output},
	{name: "version", help: "Print version and exit", group: gOptions, disp: output},
	{name: "alertnotify", arg: "<cmd>", help: "Execute command when an alert is raised (%s in cmd is replaced by message)", group: gOptions},
	{name: "assumevalid", arg: "<hex>", help: "If this block is in the chain assume that it and its ancestors are valid and skip their script verification (0 to verify all; default: the network's built-in block)", group: gOptions},
	{name: "blocksdir", arg: "<dir>", help: "Specify directory to hold blocks subdirectory for *.dat files (default: <datadir>)", group: gOptions},
	{name: "blocksxor", help: "Whether an XOR-key applies to blocksdir *.dat files. The created XOR-key will be zeros for an existing blocksdir or when `-blocksxor=0` is set, and random for a freshly initialized blocksdir. (default: 1)", group: gOptions},
	{name: "fastprune", help: "Use smaller block files and lower minimum prune height for testing purposes", group: gDebug, flags: debugOnly},
	{name: "blocknotify", arg: "<cmd>", help: "Execute command when the best block changes (%s in cmd is replaced by block hash)", group: gOptions},
	{name: "blockreconstructionextratxn", arg: "<n>", help: "Extra transactions to keep in memory for compact block reconstructions (default: 100)", group: gOptions},
	{name: "blocksonly", help: "Whether to reject transactions from network peers (default: 0)", group: gOptions},
	{name: "coinstatsindex", help: "Maintain coinstats index used by the gettxoutsetinfo RPC (default: 0)", group: gOptions},
	{name: "conf", arg: "<file>", help: "Specify path to read-only configuration file. Relative paths will be prefixed by datadir location (only useable from command line, not configuration file) (default: bitcoin.conf)", group: gOptions},
	{name: "datadir", arg: "<dir>", help: "Specify data directory", group: gOptions, flags: disallowNegation},
	{name: "dbbatchsize", help: "Maximum database write batch size in bytes (accepted; the node sizes its batches itself)", group: gDebug, flags: debugOnly, disp: output},
	{name: "dbcache", arg: "<n>", help: "Maximum database cache size <n> MiB (minimum 4, default: 450)", group: gOptions},
	{name: "includeconf", arg: "<file>", help: "Specify additional configuration file, relative to the -datadir path (only useable from configuration file, not command line)", group: gOptions},
	{name: "allowignoredconf", help: "For backwards compatibility, treat an unused bitcoin.conf file in the datadir as a warning, not an error.", group: gOptions, disp: output},
	{name: "loadblock", arg: "<file>", help: "Imports blocks from external file on startup", group: gOptions},
	{name: "maxmempool", arg: "<n>", help: "Keep the transaction memory pool below <n> megabytes (default: 300)", group: gOptions},
	{name: "maxorphantx", arg: "<n>", help: "Keep at most <n> unconnectable transactions in memory (default: 100)", group: gOptions},
	{name: "mempoolexpiry", arg: "<n>", help: "Do not keep transactions in the mempool longer than <n> hours (default: 336)", group: gOptions},
	{name: "minimumchainwork", arg: "<hex>", help: "Minimum work assumed to exist on a valid chain in hex (default: the network's built-in value)", group: gOptions, flags: debugOnly},
	{name: "par", arg: "<n>", help: "Set the number of script verification threads (0 = auto, up to 256, <0 = leave that many cores free, default: 0)", group: gOptions},
	{name: "persistmempool", help: "Whether to save the mempool on shutdown and load on restart (default: 1)", group: gOptions},
	{name: "persistmempoolv1", help: "Whether mempool.dat, written by -persistmempool and the savemempool RPC, uses the legacy format (version 1, without an obfuscation key, readable by releases before 28) instead of the current one (version 2) (default: 0)", group: gOptions},
	{name: "pid", arg: "<file>", help: "Specify pid file. Relative paths will be prefixed by a net-specific datadir location. (default: bitcoind.pid)", group: gOptions},
	{name: "prune", arg: "<n>", help: "Reduce storage requirements by enabling pruning (deleting) of old blocks. This mode is incompatible with -txindex. (default: 0 = disable pruning blocks, 1 = allow manual pruning via RPC, >=550 = automatically prune block files to stay under the specified target size in MiB)", group: gOptions},
	{name: "reindex", help: "If enabled, wipe chain state and block index, and rebuild them from blk*.dat files on disk.", group: gOptions},
	{name: "reindex-chainstate", help: "If enabled, wipe chain state, and rebuild it from blk*.dat files on disk (here the block index is rebuilt too, as -reindex).", group: gOptions},
	{name: "settings", arg: "<file>", help: "Specify path to dynamic settings data file. Can be disabled with -nosettings. File is written at runtime and not meant to be edited by users (use bitcoin.conf instead for custom settings). Relative paths will be prefixed by datadir location. (default: settings.json)", group: gOptions},
	{name: "startupnotify", arg: "<cmd>", help: "Execute command on startup.", group: gOptions},
	{name: "shutdownnotify", arg: "<cmd>", help: "Execute command immediately before beginning shutdown.", group: gOptions},
	{name: "txindex", help: "Maintain a full transaction index, used by the getrawtransaction rpc call (default: 0)", group: gOptions},
	{name: "blockfilterindex", arg: "<type>", help: "Maintain an index of compact filters by block (default: 0, values: basic). If <type> is not supplied or if <type> = 1, indexes for all known types are enabled.", group: gOptions},

	// Connections.
	{name: "addnode", arg: "<ip>", help: "Add a node to connect to and attempt to keep the connection open (see the addnode RPC help for more info). This option can be specified multiple times to add multiple nodes.", group: gConnection, flags: networkOnly},
	{name: "asmap", arg: "<file>", help: "Specify asn mapping used for bucketing of the peers (default: ip_asn.map). Relative paths will be prefixed by the net-specific datadir location.", group: gConnection},
	{name: "bantime", arg: "<n>", help: "Default duration (in seconds) of manually configured bans (default: 86400)", group: gConnection},
	{name: "bind", arg: "<addr>[:<port>][=onion]", help: "Bind to given address and always listen on it (default: 0.0.0.0). Use [host]:port notation for IPv6. A trailing =onion is accepted; such a listener is an ordinary one.", group: gConnection, flags: networkOnly},
	{name: "cjdnsreachable", help: "If set, then this host is configured for CJDNS (connecting to fc00::/8 addresses would lead us to the CJDNS network) (default: 0)", group: gConnection},
	{name: "connect", arg: "<ip>", help: "Connect only to the specified node; -noconnect disables automatic connections. This option can be specified multiple times to connect to multiple nodes.", group: gConnection, flags: networkOnly},
	{name: "discover", help: "Discover own IP addresses (default: 1 when listening and no -externalip or -proxy)", group: gConnection},
	{name: "dns", help: "Allow DNS lookups for -addnode, -seednode and -connect (default: 1)", group: gConnection},
	{name: "dnsseed", help: "Query for peer addresses via DNS lookup, if low on addresses (default: 1 unless -connect used or -maxconnections=0)", group: gConnection},
	{name: "externalip", arg: "<ip>", help: "Specify your own public address", group: gConnection},
	{name: "fixedseeds", help: "Allow fixed seeds if DNS seeds don't provide peers (default: 1)", group: gConnection},
	{name: "forcednsseed", help: "Always query for peer addresses via DNS lookup (default: 0)", group: gConnection},
	{name: "listen", help: "Accept connections from outside (default: 1 if no -proxy, -connect or -maxconnections=0)", group: gConnection},
	{name: "listenonion", help: "Automatically create Tor onion service (default: 1)", group: gConnection},
	{name: "maxconnections", arg: "<n>", help: "Maintain at most <n> connections to peers (default: 125)", group: gConnection},
	{name: "maxreceivebuffer", arg: "<n>", help: "Maximum per-connection receive buffer (not supported)", group: gHidden, disp: unsupported},
	{name: "maxsendbuffer", arg: "<n>", help: "Maximum per-connection memory usage for the send buffer, <n>*1000 bytes (default: 5000)", group: gConnection},
	{name: "maxuploadtarget", arg: "<n>", help: "Tries to keep outbound traffic under the given target per 24h. Limit does not apply to peers with 'download' permission or blocks created within past week. 0 = no limit (default: 0M). Optional suffix units [k|K|m|M|g|G|t|T] (default: M). Lowercase is 1000 base while uppercase is 1024 base", group: gConnection},
	{name: "onion", arg: "<ip:port>", help: "Use separate SOCKS5 proxy to reach peers via Tor onion services, set -noonion to disable (default: -proxy)", group: gConnection},
	{name: "i2psam", arg: "<ip:port>", help: "Address of an I2P router's SAM 3.1 bridge, through which .b32.i2p peers are dialed (and, with -i2pacceptincoming, taken in)", group: gConnection},
	{name: "i2pacceptincoming", help: "With -i2psam, keep a fixed I2P address (key in <datadir>/i2p_private_key) and take inbound I2P peers through the bridge; 0 uses throwaway addresses for outbound streams only (default: 1)", group: gConnection},
	{name: "onlynet", arg: "<net>", help: "Make automatic outbound connections only to network <net> (ipv4, ipv6, onion, i2p, cjdns). Inbound and manual connections are not affected by this option. It can be specified multiple times to allow multiple networks.", group: gConnection, flags: networkOnly},
	{name: "v2transport", help: "Support v2 transport (default: 1)", group: gConnection},
	{name: "peerbloomfilters", help: "Support filtering of blocks and transaction with bloom filters (default: 0)", group: gConnection},
	{name: "peerblockfilters", help: "Serve compact block filters to peers per BIP 157 (default: 0)", group: gConnection},
	{name: "txreconciliation", help: "Enable transaction reconciliations per BIP 330 (default: 0; only the sendtxrcncl handshake is done, transactions are still announced by inv)", group: gConnection, flags: debugOnly},
	{name: "port", arg: "<port>", help: "Listen for connections on <port> (default: 8333, testnet3: 18333, testnet4: 48333, signet: 38333, regtest: 18444)", group: gConnection, flags: networkOnly},
	{name: "proxy", arg: "<ip:port|path>[=<network>]", help: "Connect through SOCKS5 proxy, set -noproxy to disable (default: disabled). The proxy server may be specified using [host]:port notation for IPv6 or unix:path for a Unix domain socket. An optional =<network> (ipv4, ipv6, tor or cjdns) sets the proxy of that network only; it can be given several times", group: gConnection, flags: disallowElision},
	{name: "proxyrandomize", help: "Randomize credentials for every proxy connection. This enables Tor stream isolation (default: 1)", group: gConnection},
	{name: "seednode", arg: "<ip>", help: "Connect to a node to retrieve peer addresses, and disconnect. This option can be specified multiple times to connect to multiple nodes. During startup, seednodes will be tried before dnsseeds.", group: gConnection, flags: networkOnly},
	{name: "networkactive", help: "Enable all P2P network activity (default: 1). Can be changed by the setnetworkactive RPC command", group: gConnection},
	{name: "timeout", arg: "<n>", help: "Specify socket connection timeout in milliseconds. If an initial attempt to connect is unsuccessful after this amount of time, drop it (minimum: 1, default: 30000)", group: gConnection},
	{name: "peertimeout", arg: "<n>", help: "Specify a p2p connection timeout delay in seconds. After connecting to a peer, wait this amount of time before considering disconnection based on inactivity (minimum: 1, default: 60)", group: gDebug, flags: debugOnly},
	{name: "torcontrol", arg: "<ip>:<port>", help: "Tor control host and port to use if onion listening enabled (default: 127.0.0.1:9051)", group: gConnection},
	{name: "torpassword", arg: "<pass>", help: "Tor control port password (default: empty)", group: gConnection},
	{name: "upnp", help: "", group: gHidden},
	{name: "natpmp", help: "Use PCP or NAT-PMP to map the listening port (default: 0)", group: gConnection},
	{name: "whitebind", arg: "<[permissions@]addr>", help: "Bind to the given address and add permission flags to the peers connecting to it. Use [host]:port notation for IPv6. Allowed permissions: bloomfilter, noban, forcerelay, relay, mempool, download, addr. Specify multiple permissions separated by commas (default: download,noban,mempool,relay). Can be specified multiple times.", group: gConnection},
	{name: "whitelist", arg: "<[permissions@]IP address or network>", help: "Add permission flags to the peers using the given IP address (e.g. 1.2.3.4) or CIDR-notated network (e.g. 1.2.3.0/24). Uses the same permissions as -whitebind. Additional flags \"in\" and \"out\" control whether permissions apply to incoming connections and/or manual (default: incoming only). Can be specified multiple times.", group: gConnection},

	// Wallet options of a build without a wallet.
	{name: "addresstype", disp: walletOnly},
	{name: "avoidpartialspends", disp: walletOnly},
	{name: "changetype", disp: walletOnly},
	{name: "consolidatefeerate", disp: walletOnly},
	{name: "disablewallet", disp: walletOnly},
	{name: "discardfee", disp: walletOnly},
	{name: "fallbackfee", disp: walletOnly},
	{name: "keypool", disp: walletOnly},
	{name: "maxapsfee", disp: walletOnly},
	{name: "maxtxfee", disp: walletOnly},
	{name: "mintxfee", disp: walletOnly},
	{name: "paytxfee", disp: walletOnly},
	{name: "signer", disp: walletOnly},
	{name: "spendzeroconfchange", disp: walletOnly},
	{name: "txconfirmtarget", disp: walletOnly},
	{name: "wallet", disp: walletOnly, flags: networkOnly},
	{name: "walletbroadcast", disp: walletOnly},
	{name: "walletdir", disp: walletOnly},
	{name: "walletnotify", disp: walletOnly},
	{name: "walletrbf", disp: walletOnly},
	{name: "dblogsize", disp: walletOnly},
	{name: "flushwallet", disp: walletOnly},
	{name: "privdb", disp: walletOnly},
	{name: "walletrejectlongchains", disp: walletOnly},
	{name: "walletcrosschain", disp: walletOnly},
	{name: "unsafesqlitesync", disp: walletOnly},

	// ZeroMQ.
	{name: "zmqpubhashblock", arg: "<address>", help: "Enable publish hash block in <address>", group: gZMQ},
	{name: "zmqpubhashtx", arg: "<address>", help: "Enable publish hash transaction in <address>", group: gZMQ},
	{name: "zmqpubrawblock", arg: "<address>", help: "Enable publish raw block in <address>", group: gZMQ},
	{name: "zmqpubrawtx", arg: "<address>", help: "Enable publish raw transaction in <address>", group: gZMQ},
	{name: "zmqpubsequence", arg: "<address>", help: "Enable publish hash block and tx sequence in <address>", group: gZMQ},
	{name: "zmqpubhashblockhwm", arg: "<n>", help: "Set publish hash block outbound message high water mark (default: 1000)", group: gZMQ},
	{name: "zmqpubhashtxhwm", arg: "<n>", help: "Set publish hash transaction outbound message high water mark (default: 1000)", group: gZMQ},
	{name: "zmqpubrawblockhwm", arg: "<n>", help: "Set publish raw block outbound message high water mark (default: 1000)", group: gZMQ},
	{name: "zmqpubrawtxhwm", arg: "<n>", help: "Set publish raw transaction outbound message high water mark (default: 1000)", group: gZMQ},
	{name: "zmqpubsequencehwm", arg: "<n>", help: "Set publish hash sequence message high water mark (default: 1000)", group: gZMQ},

	// Debugging and testing.
	{name: "checkblocks", arg: "<n>", help: "How many blocks to check at startup (default: 6, 0 = all)", group: gDebug, flags: debugOnly},
	{name: "checklevel", arg: "<n>", help: "How thorough the block verification of -checkblocks is: level 0 reads the blocks from disk, 1 verifies block validity, 2 verifies undo data, 3 checks the coins against the blocks, 4 validates the blocks again (0-4, default: 3)", group: gDebug, flags: debugOnly},
	{name: "checkblockindex", help: "Do a consistency check for the block tree every <n> operations (accepted; no such checks are made)", group: gDebug, flags: debugOnly, disp: output},
	{name: "checkaddrman", arg: "<n>", help: "Run addrman consistency checks every <n> operations. Use 0 to disable. (default: 0)", group: gDebug, flags: debugOnly},
	{name: "checkmempool", arg: "<n>", help: "Run mempool consistency checks every <n> transactions (accepted; no such checks are made)", group: gDebug, flags: debugOnly, disp: output},
	{name: "checkpoints", group: gHidden, disp: output},
	{name: "deprecatedrpc", arg: "<method>", help: "Allows deprecated RPC method(s) to be used (not supported)", group: gHidden, flags: debugOnly, disp: unsupported},
	{name: "stopafterblockimport", help: "Stop running after importing blocks from disk (default: 0)", group: gDebug, flags: debugOnly},
	{name: "stopatheight", help: "Stop running after reaching the given height in the main chain (default: 0)", group: gDebug, flags: debugOnly},
	{name: "limitancestorcount", arg: "<n>", help: "Do not accept transactions if number of in-mempool ancestors is <n> or more (default: 25)", group: gDebug, flags: debugOnly},
	{name: "limitancestorsize", arg: "<n>", help: "Do not accept transactions whose size with all in-mempool ancestors exceeds <n> kilobytes (default: 101)", group: gDebug, flags: debugOnly},
	{name: "limitdescendantcount", arg: "<n>", help: "Do not accept transactions if any ancestor would have <n> or more in-mempool descendants (default: 25)", group: gDebug, flags: debugOnly},
	{name: "limitdescendantsize", arg: "<n>", help: "Do not accept transactions if any ancestor would have more than <n> kilobytes of in-mempool descendants (default: 101).", group: gDebug, flags: debugOnly},
	{name: "test", arg: "<option>", help: "Pass a test-only option. Options include : addrman (use deterministic addrman).", group: gDebug, flags: debugOnly},
	{name: "capturemessages", help: "Capture all P2P messages to disk", group: gDebug, flags: debugOnly},
	{name: "mocktime", arg: "<n>", help: "Replace actual time with UNIX epoch time (default: 0)", group: gDebug, flags: debugOnly},
	{name: "maxsigcachesize", arg: "<n>", help: "Limit the signature cache to <n> MiB (default: 32)", group: gDebug, flags: debugOnly},
	{name: "maxtipage", arg: "<n>", help: "Maximum tip age in seconds to consider node in initial block download (default: 86400)", group: gDebug, flags: debugOnly},
	{name: "printpriority", help: "Log transaction fee rate in BTC/kvB when mining blocks (accepted; no effect)", group: gDebug, flags: debugOnly, disp: output},
	{name: "uacomment", arg: "<cmt>", help: "Append comment to the user agent string", group: gDebug},
	{name: "dbcrashratio", group: gHidden, disp: unsupported, off: "0"},
	{name: "forcecompactdb", group: gHidden, disp: unsupported, off: "0"},
	{name: "choosedatadir", group: gHidden, disp: output},
	{name: "lang", group: gHidden, disp: output},
	{name: "min", group: gHidden, disp: output},
	{name: "resetguisettings", group: gHidden, disp: output},
	{name: "splash", group: gHidden, disp: output},
	{name: "uiplatform", group: gHidden, disp: output},

	// Logging.
	{name: "debuglogfile", arg: "<file>", help: "Specify location of debug log file (default: debug.log). Relative paths will be prefixed by a net-specific datadir location. Pass -nodebuglogfile to disable writing the log to a file.", group: gOptions},
	{name: "debug", arg: "<category>", help: "Output debug and trace logging (default: -nodebug, supplying <category> is optional). If <category> is not supplied or if <category> is 1 or \"all\", output all debug logging. If <category> is 0 or \"none\", any other categories are ignored. This option can be specified multiple times to output multiple categories.", group: gDebug},
	{name: "debugexclude", arg: "<category>", help: "Exclude debug and trace logging for a category.", group: gDebug},
	{name: "logips", help: "Include IP addresses in debug output (accepted; addresses are always logged)", group: gDebug, disp: output},
	{name: "loglevel", arg: "<level>|<category>:<level>", help: "Set the global or per-category severity level for logging categories enabled with the -debug configuration option or the logging RPC (trace, debug, info, warning, error).", group: gDebug, flags: disallowNegation | disallowElision | debugOnly},
	{name: "logtimestamps", help: "Prepend debug output with timestamp (accepted; lines always have one)", group: gDebug, disp: output},
	{name: "logthreadnames", help: "Prepend debug output with name of the originating thread (accepted; no effect)", group: gDebug, disp: output},
	{name: "logsourcelocations", help: "Prepend debug output with name of the originating source location (accepted; no effect)", group: gDebug, disp: output},
	{name: "logtimemicros", help: "Add microsecond precision to debug timestamps (accepted; lines have milliseconds)", group: gDebug, flags: debugOnly, disp: output},
	{name: "loglevelalways", help: "Always prepend a category and level (accepted; lines always have both)", group: gDebug, disp: output},
	{name: "printtoconsole", help: "Send trace/debug info to console (default: 1 when no -daemon. To disable logging to file, set -nodebuglogfile)", group: gDebug},
	{name: "shrinkdebugfile", help: "Shrink debug.log file on client startup (accepted; the file is never shrunk)", group: gDebug, disp: output},

	// Chain selection.
	{name: "chain", arg: "<chain>", help: "Use the chain <chain> (default: main). Allowed values: main, test, testnet4, signet, regtest", group: gChain},
	{name: "regtest", help: "Enter regression test mode, which uses a special chain in which blocks can be solved instantly.", group: gChain, flags: debugOnly},
	{name: "testactivationheight", arg: "name@height", help: "Set the activation height of 'name' (segwit, bip34, dersig, cltv, csv). (regtest-only)", group: gChain, flags: debugOnly},
	{name: "testnet", help: "Use the testnet3 chain. Equivalent to -chain=test.", group: gChain},
	{name: "testnet4", help: "Use the testnet4 chain. Equivalent to -chain=testnet4.", group: gChain},
	{name: "vbparams", arg: "deployment:start:end[:min_activation_height]", help: "Use given start/end times and min_activation_height for specified version bits deployment (regtest-only)", group: gChain, flags: debugOnly},
	{name: "signet", help: "Use the signet chain. Equivalent to -chain=signet.", group: gChain},
	{name: "signetchallenge", help: "Blocks must satisfy the given script to be considered valid (only for signet networks; defaults to the global default signet test network challenge)", group: gChain},
	{name: "signetseednode", help: "Specify a seed node for the signet network, in the hostname[:port] format, e.g. sig.net:1234 (may be used multiple times to specify multiple seed nodes; defaults to the global default signet test network seed node(s))", group: gChain},

	// Relay.
	{name: "acceptnonstdtxn", help: "Relay and mine \"non-standard\" transactions (test networks only; default: 0)", group: gRelay, flags: debugOnly},
	{name: "incrementalrelayfee", arg: "<amt>", help: "Fee rate (in BTC/kvB) used to define cost of relay, used for mempool limiting and replacement policy. (default: 0.00001)", group: gRelay, flags: debugOnly},
	{name: "dustrelayfee", arg: "<amt>", help: "Fee rate (in BTC/kvB) used to define dust. (default: 0.00003)", group: gRelay, flags: debugOnly},
	{name: "acceptstalefeeestimates", help: "Read fee estimates even if they are stale (regtest only) (default: 0)", group: gDebug, flags: debugOnly},
	{name: "bytespersigop", help: "Equivalent bytes per sigop in transactions for relay and mining (default: 20)", group: gRelay},
	{name: "datacarrier", help: "Relay and mine data carrier transactions (default: 1)", group: gRelay},
	{name: "datacarriersize", help: "Relay and mine transactions whose data-carrying raw scriptPubKeys in aggregate are of this size or less (default: 100000)", group: gRelay},
	{name: "permitbaremultisig", help: "Relay transactions creating non-P2SH multisig outputs (default: 1)", group: gRelay},
	{name: "minrelaytxfee", arg: "<amt>", help: "Fees (in BTC/kvB) smaller than this are considered zero fee for relaying, mining and transaction creation (default: 0.00001)", group: gRelay},
	{name: "whitelistforcerelay", help: "Add 'forcerelay' permission to whitelisted peers with default permissions. (default: 0)", group: gRelay},
	{name: "whitelistrelay", help: "Add 'relay' permission to whitelisted peers with default permissions. (default: 1)", group: gRelay},

	// Block creation.
	{name: "blockmaxweight", arg: "<n>", help: "Set maximum BIP141 block weight (default: 4000000)", group: gBlock},
	{name: "blockreservedweight", arg: "<n>", help: "Reserve space for the fixed-size block header plus the largest coinbase transaction the mining software may add to the block. (default: 8000).", group: gBlock},
	{name: "blockmintxfee", arg: "<amt>", help: "Set lowest fee rate (in BTC/kvB) for transactions to be included in block creation. (default: 0.00000001)", group: gBlock},
	{name: "blockversion", arg: "<n>", help: "Override block version to test forking scenarios (not supported)", group: gHidden, flags: debugOnly, disp: unsupported},

	// RPC.
	{name: "rest", help: "Accept public REST requests (default: 0)", group: gRPC},
	{name: "rpcallowip", arg: "<ip>", help: "Allow JSON-RPC connections from specified source. Valid values for <ip> are a single IP (e.g. 1.2.3.4), a network/netmask (e.g. 1.2.3.4/255.255.255.0), a network/CIDR (e.g. 1.2.3.4/24), all ipv4 (0.0.0.0/0), or all ipv6 (::/0). This option can be specified multiple times", group: gRPC},
	{name: "rpcauth", arg: "<userpw>", help: "Username and HMAC-SHA-256 hashed password for JSON-RPC connections. The field <userpw> comes in the format: <USERNAME>:<SALT>$<HASH>. This option can be specified multiple times", group: gRPC},
	{name: "rpcbind", arg: "<addr>[:port]", help: "Bind to given address to listen for JSON-RPC connections. Do not expose the RPC server to untrusted networks such as the public internet! This option is ignored unless -rpcallowip is also passed. Port is optional and overrides -rpcport. Use [host]:port notation for IPv6. This option can be specified multiple times (default: 127.0.0.1 and ::1 i.e., localhost)", group: gRPC, flags: networkOnly},
	{name: "rpcdoccheck", help: "Throw a non-fatal error at runtime if the documentation for an RPC is incorrect (accepted; no effect)", group: gRPC, flags: debugOnly, disp: output},
	{name: "rpccookiefile", arg: "<loc>", help: "Location of the auth cookie. Relative paths will be prefixed by a net-specific datadir location. (default: data dir)", group: gRPC},
	{name: "rpccookieperms", arg: "<readable-by>", help: "Set permissions on the RPC auth cookie file so that it is readable by [owner|group|all] (default: owner)", group: gRPC},
	{name: "rpcpassword", arg: "<pw>", help: "Password for JSON-RPC connections", group: gRPC},
	{name: "rpcport", arg: "<port>", help: "Listen for JSON-RPC connections on <port> (default: 8332, testnet3: 18332, testnet4: 48332, signet: 38332, regtest: 18443)", group: gRPC, flags: networkOnly},
	{name: "rpcservertimeout", arg: "<n>", help: "Timeout during HTTP requests (default: 30)", group: gRPC, flags: debugOnly},
	{name: "rpcthreads", arg: "<n>", help: "Set the number of threads to service RPC calls (default: 16)", group: gRPC},
	{name: "rpcuser", arg: "<user>", help: "Username for JSON-RPC connections", group: gRPC},
	{name: "rpcwhitelist", arg: "<whitelist>", help: "Set a whitelist to filter incoming RPC calls for a specific user. The field <whitelist> comes in the format: <USERNAME>:<rpc 1>,<rpc 2>,...,<rpc n>. If multiple whitelists are set for a given user, they are set-intersected. See -rpcwhitelistdefault documentation for information on default whitelist behavior.", group: gRPC},
	{name: "rpcwhitelistdefault", help: "Sets default behavior for rpc whitelisting. Unless rpcwhitelistdefault is set to 0, if any -rpcwhitelist is set, the rpc server acts as if all rpc users are subject to empty-unless-otherwise-specified whitelists. If rpcwhitelistdefault is set to 1 and no -rpcwhitelist is set, rpc server acts as if all rpc users are subject to empty whitelists.", group: gRPC},
	{name: "rpcworkqueue", arg: "<n>", help: "Set the maximum depth of the work queue to service RPC calls (default: 64)", group: gRPC, flags: debugOnly},
	{name: "server", help: "Accept command line and JSON-RPC commands", group: gRPC},
	{name: "ipcbind", arg: "<address>", help: "Bind to Unix socket address (not supported)", group: gHidden, disp: unsupported},
	{name: "daemon", help: "Run in the background as a daemon and accept commands (default: 0)", group: gOptions},
	{name: "daemonwait", help: "Wait for initialization to be finished before exiting. This implies -daemon (default: 0)", group: gOptions},
}

var optionIndex = func() map[string]*option {
	m := make(map[string]*option, len(options))
	for i := range options {
		m[options[i].name] = &options[i]
	}
	return m
}()

// lookupOption returns bitcoind's option by name (without the dash), or
// nil when bitcoind has no such option.
func lookupOption(name string) *option { return optionIndex[name] }

func sortStrings(s []string) { sort.Strings(s) }
