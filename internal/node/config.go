package node

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	flags "github.com/jessevdk/go-flags"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/internal/mining"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/netsync"
	"github.com/btcnode/btcd/wire"
	"github.com/btcnode/btcd/zmq"
)

const (
	appName = "btcd"

	defaultConfigFilename = "btcd.conf"
	defaultDataDirname    = "data"
	defaultLogDirname     = "logs"
	defaultLogFilename    = "btcd.log"

	defaultLogLevel        = "info"
	defaultMaxPeers        = 125
	defaultBanDuration     = 24 * time.Hour
	defaultBanThreshold    = 100
	defaultUtxoCacheMiB    = 450
	defaultSigCacheMaxSize = 100000
	// defaultMinRelayTxFee and defaultIncrementalRelayFee are in BTC/kvB:
	// 1000 sat/kvB, the defaults of the Bitcoin Core release Core's
	// functional test suite targets (Core 30 lowered both to 100).
	defaultMinRelayTxFee       = 0.00001
	defaultIncrementalRelayFee = 0.00001
	defaultMaxMempoolMB        = 300
	defaultMempoolExpiryHrs    = 336
	defaultDataCarrierSize     = 100000 // Bitcoin Core 30: total OP_RETURN bytes per transaction

	// minPruneMiB follows Bitcoin Core (MIN_DISK_SPACE_FOR_BLOCK_FILES):
	// enough to keep the last 288 blocks for reorganizations.
	minPruneMiB = 550
	// PruneManual as --prune allows pruning by the pruneblockchain RPC
	// only, as bitcoind's -prune=1.
	PruneManual = 1
	// defaultPeerTimeoutSecs is how long a new connection may stay silent
	// (Core's DEFAULT_PEER_CONNECT_TIMEOUT).
	defaultPeerTimeoutSecs = 60
	// defaultMaxTipAgeSecs is Core's DEFAULT_MAX_TIP_AGE: a tip older than
	// a day means the node is still catching up.
	defaultMaxTipAgeSecs = 24 * 60 * 60
	// minMaxMempoolMB follows Bitcoin Core: a smaller pool could not hold
	// even one maximal package of unconfirmed descendants.
	minMaxMempoolMB = 5
	// maxScriptThreads caps --par so a typo cannot spawn millions of
	// goroutines.
	maxScriptThreads = 256
)

var (
	defaultAppDataDir = appDataDir(appName)
	defaultConfigFile = filepath.Join(defaultAppDataDir, defaultConfigFilename)
	defaultDataDir    = filepath.Join(defaultAppDataDir, defaultDataDirname)
	defaultLogDir     = filepath.Join(defaultAppDataDir, defaultLogDirname)
)

// Error kinds returned (wrapped) by loadConfig, so callers and tests can tell
// a typo from a contradiction with errors.Is.
var (
	errUnknownOption = errors.New("unknown option")
	errInvalidValue  = errors.New("invalid option value")
	errConflict      = errors.New("conflicting options")
	errHelp          = errors.New("help requested")
)

// optionError is a one-line configuration error that starts with the name of
// the offending option.
type optionError struct {
	kind error
	msg  string
}

func (e *optionError) Error() string { return e.msg }
func (e *optionError) Unwrap() error { return e.kind }

func invalidf(format string, args ...any) error {
	return &optionError{kind: errInvalidValue, msg: fmt.Sprintf(format, args...)}
}

func conflictf(format string, args ...any) error {
	return &optionError{kind: errConflict, msg: fmt.Sprintf(format, args...)}
}

// helpError carries the rendered --help text; it is not a failure.
type helpError struct{ text string }

func (e *helpError) Error() string { return e.text }
func (e *helpError) Unwrap() error { return errHelp }

// The option groups below are embedded in config so their fields read as
// cfg.MaxPeers while --help still shows them in sections. Option names and
// defaults follow btcd where btcd has the option and Bitcoin Core otherwise.

type GeneralOptions struct {
	ShowVersion          bool     `short:"V" long:"version" no-ini:"true" description:"Display version information and exit"`
	AppData              string   `short:"A" long:"appdata" no-ini:"true" description:"Path to application home directory"`
	ConfigFile           string   `short:"C" long:"configfile" no-ini:"true" description:"Path to configuration file"`
	DataDir              string   `short:"b" long:"datadir" description:"Directory to store data (a per-network subdirectory is used)"`
	LogDir               string   `long:"logdir" description:"Directory to log output (a per-network subdirectory is used)"`
	DebugLevel           string   `short:"d" long:"debuglevel" description:"Logging level for all subsystems {trace, debug, info, warn, error, critical, off} -- You may also specify <subsystem>=<level>,<subsystem2>=<level>,... to set the log level for individual subsystems -- Use show to list available subsystems"`
	CPUProfile           string   `long:"cpuprofile" description:"Write CPU profile to the specified file"`
	MemProfile           string   `long:"memprofile" description:"Write a heap profile to the specified file at shutdown"`
	Profile              string   `long:"profile" description:"Serve net/http/pprof profiling data on this address; a bare port (or :port) means 127.0.0.1:port"`
	GoGC                 int      `long:"gogc" description:"Go garbage collector target percentage (like GOGC); 0 keeps the Go default"`
	MemLimit             uint64   `long:"memlimit" description:"Soft memory limit for the Go runtime in MiB (like GOMEMLIMIT); 0 (default) derives it from the UTXO cache: --utxocachemaxsize + 250 MiB + mempool usage - the cache's memory outside the Go heap, unless GOMEMLIMIT is set (GOMEMLIMIT=off: none)"`
	UAComments           []string `long:"uacomment" description:"Comment to add to the user agent (BIP14); may be repeated"`
	MockTime             int64    `long:"mocktime" description:"Freeze the node's clock at this Unix time (for tests; 0 = real time)"`
	StopAtHeight         int32    `long:"stopatheight" description:"Shut down once the active chain reaches this height (0 = never)"`
	StopAfterBlockImport bool     `long:"stopafterblockimport" description:"Shut down once the blocks of --loadblock and --reindex are imported"`
	PidFile              string   `long:"pidfile" description:"Write the process id to this file while running (relative to the network's data directory)"`
	StartupNotify        string   `long:"startupnotify" description:"Run this shell command once the node has started"`
	ShutdownNotify       string   `long:"shutdownnotify" description:"Run this shell command when shutdown begins"`
	BlockNotify          string   `long:"blocknotify" description:"Run this shell command when the best block changes (%s is replaced by the block hash)"`
	AlertNotify          string   `long:"alertnotify" description:"Run this shell command when a warning is raised (%s is replaced by the message)"`
}

type NetworkOptions struct {
	TestNet3              bool     `long:"testnet" description:"Use the test network (testnet3)"`
	TestNet4              bool     `long:"testnet4" description:"Use the test network (testnet4)"`
	SigNet                bool     `long:"signet" description:"Use the default signet test network"`
	SignetChallenge       []string `long:"signetchallenge" description:"With --signet: the BIP325 challenge script (hex) blocks must satisfy, for a custom signet with its own network magic"`
	SignetSeedNodes       []string `long:"signetseednode" description:"With --signet: a DNS seed of the signet, in place of the default signet's (a host name; a :port after it is ignored, as seeds answer with addresses at the network's port); may be repeated"`
	RegressionTest        bool     `long:"regtest" description:"Use the regression test network"`
	TestActivationHeights []string `long:"testactivationheight" description:"Set the activation height of a consensus rule as NAME@HEIGHT (segwit, bip34, dersig, cltv, csv); regtest only; may be repeated"`
	VersionBitsParams     []string `long:"vbparams" description:"Set a version bits deployment's schedule as DEPLOYMENT:START:END[:MIN_ACTIVATION_HEIGHT] (testdummy, taproot; START/END are median times, -1 = always active, -2 = never); regtest only; may be repeated"`
}

type P2POptions struct {
	AddPeers          []string      `short:"a" long:"addpeer" description:"Add a peer to connect with at startup; may be repeated"`
	ConnectPeers      []string      `long:"connect" description:"Connect only to the specified peers at startup; may be repeated"`
	DisableListen     bool          `long:"nolisten" description:"Disable listening for incoming connections -- NOTE: Listening is automatically disabled if the --connect or --proxy options are used without also specifying listen interfaces via --listen"`
	Listeners         []string      `long:"listen" description:"Add an interface/port to listen for connections (default all interfaces port: 8333, testnet3: 18333, testnet4: 48333, signet: 38333, regtest: 18444); may be repeated"`
	MaxPeers          int           `long:"maxpeers" description:"Max number of inbound and outbound peers"`
	BanDuration       time.Duration `long:"banduration" description:"How long to ban misbehaving peers. Valid time units are {s, m, h}. Minimum 1 second"`
	BanThreshold      uint32        `long:"banthreshold" description:"Maximum allowed ban score before disconnecting and banning misbehaving peers"`
	Whitelists        []string      `long:"whitelist" description:"Add an IP network or IP that will not be banned (eg. 192.168.1.0/24 or ::1); may be repeated"`
	DisableDNSSeed    bool          `long:"nodnsseed" description:"Disable DNS seeding for peers"`
	ForceDNSSeed      bool          `long:"forcednsseed" description:"Query the DNS seeds at start-up even when the address manager already knows addresses"`
	CJDNSReachable    bool          `long:"cjdnsreachable" description:"This host is on the CJDNS network: addresses in fc00::/8 are CJDNS addresses, reached directly (or through --proxy)"`
	OnlyNets          []string      `long:"onlynet" description:"Make automatic outbound connections only to this network (ipv4, ipv6, onion, i2p, cjdns); may be repeated"`
	CaptureMessages   bool          `long:"capturemessages" description:"Write every P2P message to message_capture/<peer>/msgs_recv.dat and msgs_sent.dat in the data directory (debugging)"`
	SeedNodes         []string      `long:"seednode" description:"Connect to a node (host[:port]) only to fetch peer addresses, then disconnect; tried before the DNS seeds; may be repeated"`
	ASMap             string        `long:"asmap" description:"Group addresses by the autonomous system announcing them, read from this ASMap file (relative paths are in the data directory), instead of by /16 prefix"`
	CheckAddrMan      int           `long:"checkaddrman" description:"Check the address manager's tables on every n-th operation (0: never; for tests)"`
	TestOptions       []string      `long:"test" description:"Regtest testing options: addrman (a deterministic address manager); may be repeated"`
	ExternalIPs       []string      `long:"externalip" description:"Add an IP (optionally with port) to the list of local addresses we claim to listen on to peers; may be repeated"`
	Proxy             string        `long:"proxy" description:"Connect via SOCKS5 proxy (eg. 127.0.0.1:9050, or unix:/path)"`
	NetProxies        []string      `long:"netproxy" description:"Proxy for one network only, applied after --proxy: ADDR=NET with NET one of ipv4, ipv6, onion (or tor), cjdns; ADDR 0 removes that network's proxy (ipv4 and ipv6 also set the proxy for host names); may be repeated"`
	OnionProxy        string        `long:"onion" description:"Connect to tor hidden services via SOCKS5 proxy (eg. 127.0.0.1:9050)"`
	NoOnion           bool          `long:"noonion" description:"Disable connecting to tor hidden services, whatever --proxy says"`
	NoDNS             bool          `long:"nodns" description:"Resolve no host names for --connect, --addpeer, --seednode and the addnode RPC (they are reached only through a --proxy, which resolves them); proxies must be given as addresses"`
	NatPMP            bool          `long:"natpmp" description:"Ask the default gateway to forward the listening port (PCP, else NAT-PMP) and advertise the public address it gives"`
	ListenOnion       bool          `long:"listenonion" description:"Publish this node as a Tor onion service through Tor's control port (--torcontrol), and reach onion peers through Tor's SOCKS port unless --onion is set"`
	TorControl        string        `long:"torcontrol" description:"Tor control port for --listenonion (host:port; default: 127.0.0.1:9051)"`
	TorPassword       string        `long:"torpassword" default-mask:"-" description:"Tor control port password (HashedControlPassword); without it Tor's cookie file is used"`
	OnionBind         string        `long:"onionbind" description:"Listen address (ip:port) for peers coming through Tor, to which the --listenonion service forwards; its peers are onion peers (default: none, the service forwards to the first --listen address)"`
	NoProxyRandomize  bool          `long:"noproxyrandomize" description:"Send no credentials to the --proxy and --onion proxies (by default each connection gets fresh random ones, which makes Tor isolate its streams)"`
	I2PSAM            string        `long:"i2psam" description:"I2P SAM 3.1 bridge (host:port, port 7656 by default) through which .b32.i2p peers are reached; makes the i2p network reachable"`
	I2PAcceptIncoming string        `long:"i2pacceptincoming" optional:"yes" optional-value:"1" description:"With --i2psam: 1 keeps a persistent I2P address (key in i2p_private_key in the data directory) and accepts inbound I2P peers; 0 uses throwaway addresses for outbound connections only"`
	BlocksOnly        bool          `long:"blocksonly" description:"Do not accept transactions from remote peers"`
	// BlockReconstructionExtraTxn is bitcoind's -blockreconstructionextratxn.
	MaxOrphanTx                 int           `long:"maxorphantx" description:"Keep at most this many transactions whose inputs are missing, waiting for their parents (default 100)"`
	BlockReconstructionExtraTxn int           `long:"blockreconstructionextratxn" description:"Keep this many transactions that are not in the mempool (refused, orphaned, replaced) to rebuild compact blocks from (0: none; default 100)"`
	PeerBloomFilters            bool          `long:"peerbloomfilters" description:"Serve BIP37 bloom-filtered connections (filterload, filtered blocks, mempool requests) and advertise NODE_BLOOM"`
	TxReconciliation            bool          `long:"txreconciliation" description:"Take part in the BIP330 (Erlay) handshake: announce sendtxrcncl to peers that relay transactions and register theirs (reconciliation rounds are not run)"`
	V2Transport                 string        `long:"v2transport" optional:"yes" optional-value:"1" description:"BIP324 encrypted transport: 1 advertises NODE_P2P_V2, accepts v2 and v1 inbound and opens v2 to peers that advertise it (falling back to v1); 0 speaks v1 only"`
	NoConnect                   bool          `long:"noconnect" description:"Make no automatic outbound connections (only --addpeer, --connect and the addnode RPC)"`
	WhiteBinds                  []string      `long:"whitebind" description:"Listen on [permissions@]address and grant the permissions to peers connecting there (permissions as --whitelist; default noban,mempool,relay,download); may be repeated"`
	PeerTimeout                 int64         `long:"peertimeout" description:"Seconds a new connection may stay silent, or a peer may leave a ping unanswered, before it is dropped"`
	ConnectTimeout              time.Duration `long:"connecttimeout" description:"Give up an outbound connection attempt, a proxy's handshake included, after this long (default 30s)"`
	MaxSendBuffer               int           `long:"maxsendbuffer" description:"Per-peer send buffer in units of 1000 bytes: past it, answering the peer's requests waits until it reads (default 5000)"`
	MaxUploadTarget             string        `long:"maxuploadtarget" description:"Try to keep outbound traffic under this much per 24 hours: a number with an optional unit (k, m, g, t in powers of 1000; K, M, G, T in powers of 1024; default M); 0 = no limit; peers with the download permission and recent blocks are exempt"`
	NoDiscover                  bool          `long:"nodiscover" description:"Do not discover our own addresses from the network interfaces and peers"`
	NoFixedSeeds                bool          `long:"nofixedseeds" description:"Do not use the built-in seed addresses when the DNS seeds give none"`
	NoWhitelistRelay            bool          `long:"nowhitelistrelay" description:"Do not give whitelisted peers with default permissions the relay permission (accepting their transactions even under --blocksonly)"`
	WhitelistForceRelay         bool          `long:"whitelistforcerelay" description:"Give whitelisted peers with default permissions the forcerelay permission (relaying their transactions even when already known)"`
	NoNetworkActive             bool          `long:"nonetworkactive" description:"Start with P2P networking off (the setnetworkactive RPC turns it on)"`
}

type RPCOptions struct {
	RPCListeners     []string `long:"rpclisten" description:"Add an interface/port to listen for RPC connections (default 127.0.0.1, port: 8332, testnet3: 18332, testnet4: 48332, signet: 38332, regtest: 18443); may be repeated"`
	DisableRPC       bool     `long:"norpc" description:"Disable the built-in RPC server"`
	RPCUser          string   `short:"u" long:"rpcuser" description:"Username for RPC connections"`
	RPCPass          string   `short:"P" long:"rpcpass" default-mask:"-" description:"Password for RPC connections"`
	DisableTLS       bool     `long:"notls" description:"Serve RPC over plain HTTP (the default; accepted for btcd compatibility, where TLS is on by default)"`
	RPCTLS           bool     `long:"rpctls" description:"Serve RPC (and REST and /ws) over TLS; when neither --rpccert nor --rpckey exists, a self-signed certificate is generated there on first start"`
	RPCCert          string   `long:"rpccert" description:"With --rpctls, the certificate file (default rpc.cert in --appdata)"`
	RPCKey           string   `long:"rpckey" description:"With --rpctls, the certificate's key file (default rpc.key in --appdata)"`
	REST             bool     `long:"rest" description:"Accept public REST requests (bitcoind's unauthenticated /rest/ interface, served on the RPC listeners)"`
	RPCAuth          []string `long:"rpcauth" description:"Add an RPC user as bitcoind's USER:SALT$HASH (HASH is hex HMAC-SHA256 of the password keyed by SALT, as share/rpcauth/rpcauth.py makes); may be repeated"`
	RPCCookieFile    string   `long:"rpccookiefile" description:"Where to write the RPC cookie (relative to the network's data directory; default .cookie)"`
	RPCNoCookie      bool     `long:"norpccookie" description:"Do not write an RPC cookie (then --rpcuser/--rpcpass or --rpcauth is the only way in)"`
	RPCMaxClients    int      `long:"rpcmaxclients" description:"Max number of RPC requests served at once; more wait for HTTP 503"`
	RPCMaxWebsockets int      `long:"rpcmaxwebsockets" description:"Max number of btcd websocket (/ws) clients at once (default 25)"`
	RPCServerTimeout int64    `long:"rpcservertimeout" description:"Seconds an idle RPC keep-alive connection stays open"`
	RPCAllowIPs      []string `long:"rpcallowip" description:"Serve RPC clients from this IP or network (1.2.3.4, 1.2.3.0/24, 1.2.3.0/255.255.255.0, 0.0.0.0/0, ::/0) besides loopback; once given, clients from elsewhere are refused (bitcoind's -rpcallowip); may be repeated"`
	// RPCWhitelist, RPCWhitelistDefault and RPCCookiePerms are bitcoind's
	// -rpcwhitelist, -rpcwhitelistdefault and -rpccookieperms.
	RPCWhitelist        []string `long:"rpcwhitelist" description:"Limit an RPC user to some methods, as USER:METHOD,METHOD,... (commas or spaces separate methods); several entries for one user keep only the methods all of them list; may be repeated"`
	RPCWhitelistDefault string   `long:"rpcwhitelistdefault" description:"1: refuse every RPC call of a user without an --rpcwhitelist entry; 0: let such users call any method (default 1 when --rpcwhitelist is given, else 0)"`
	RPCCookiePerms      string   `long:"rpccookieperms" description:"Who may read the RPC cookie file: owner, group or all (default owner)"`
}

type ChainOptions struct {
	UtxoCacheMaxSizeMiB uint64   `long:"utxocachemaxsize" description:"The maximum size in MiB of the UTXO cache"`
	SigCacheMaxSize     uint     `long:"sigcachemaxsize" description:"The maximum number of entries in the signature verification cache"`
	AssumeValid         string   `long:"assumevalid" description:"Hash of a block assumed to have valid scripts, skipping script checks for it and its ancestors; 0 disables (default: the network's built-in value)"`
	MinimumChainWork    string   `long:"minimumchainwork" description:"Minimum work, in hex, a chain must have before the node stores its headers without presync, syncs its blocks or leaves initial block download (default: the network's built-in value)"`
	Par                 int      `long:"par" description:"Number of script verification threads (0 = all cores, <0 = leave that many cores free)"`
	TxIndex             bool     `long:"txindex" description:"Maintain a full hash-based transaction index which makes all transactions available via the getrawtransaction RPC"`
	Prune               uint64   `long:"prune" description:"Prune already validated blocks, keeping the block files under this many MiB (minimum 550; 1 prunes only on the pruneblockchain RPC; 0 disables pruning)"`
	LoadBlocks          []string `long:"loadblock" description:"Import blocks from an external blk000??.dat-style file at startup; may be repeated"`
	Reindex             bool     `long:"reindex" description:"Rebuild the chain state and indexes from the blocks on disk"`
	BlocksDir           string   `long:"blocksdir" description:"Directory holding the blocks folder (a per-network subdirectory is used; default: the data directory)"`
	FastPrune           bool     `long:"fastprune" description:"Small block files and a low pruning floor, for tests (regtest only)"`
	MaxTipAge           int64    `long:"maxtipage" description:"Seconds a tip may be old before the node considers itself in initial block download"`
	BlocksXor           bool     `long:"blocksxor" description:"Obfuscate new block and undo files with a random key kept in blocks/xor.dat, as bitcoind 28 and later (an existing key is used either way)"`
	CheckBlocks         int32    `long:"checkblocks" description:"How many blocks below the tip to verify at startup (0: all)"`
	CheckLevel          int32    `long:"checklevel" description:"How thorough the startup verification of --checkblocks is (0-4, as verifychain)"`
}

type MempoolOptions struct {
	MinRelayTxFee           float64 `long:"minrelaytxfee" description:"The minimum transaction fee in BTC/kvB to be considered a non-zero fee"`
	MaxMempool              uint64  `long:"maxmempool" description:"Keep the transaction memory pool below this many MB (minimum 5)"`
	MempoolExpiry           uint64  `long:"mempoolexpiry" description:"Do not keep transactions in the mempool longer than this many hours"`
	PersistMempool          bool    `long:"persistmempool" description:"Save the mempool on shutdown and load it on restart"`
	PersistMempoolV1        bool    `long:"persistmempoolv1" description:"Write mempool.dat (--persistmempool, savemempool) in the version 1 format without an obfuscation key, for Bitcoin Core releases before 28"`
	AcceptStaleFeeEstimates bool    `long:"acceptstalefeeestimates" description:"Use fee_estimates.dat even when it was last written more than 60 hours ago (regtest only)"`
	DataCarrierSize         uint32  `long:"datacarriersize" description:"Maximum size in bytes of data in data carrier (OP_RETURN) outputs we relay and mine"`
	NoDataCarrier           bool    `long:"nodatacarrier" description:"Do not relay or mine transactions with data carrier (OP_RETURN) outputs"`
	RejectBareMultisig      bool    `long:"nopermitbaremultisig" description:"Do not relay transactions creating bare (non-P2SH) multisig outputs"`
	RelayNonStd             bool    `long:"relaynonstd" description:"Relay and mine non-standard transactions (test networks only)"`
	IncrementalRelayFee     float64 `long:"incrementalrelayfee" description:"Fee rate in BTC/kvB a replacement must add and the step of the mempool's rolling minimum fee"`
	DustRelayFee            float64 `long:"dustrelayfee" description:"Fee rate in BTC/kvB that defines dust: an output worth less than spending it costs at this rate"`
	BytesPerSigOp           int64   `long:"bytespersigop" description:"Virtual bytes charged per signature operation when that exceeds the weight-based size"`
	LimitAncestorCount      int     `long:"limitancestorcount" description:"Refuse a transaction with this many or more in-mempool ancestors"`
	LimitAncestorSizeKvB    int     `long:"limitancestorsize" description:"Refuse a transaction whose size with its in-mempool ancestors exceeds this many kvB"`
	LimitDescendantCount    int     `long:"limitdescendantcount" description:"Refuse a transaction that gives an in-mempool ancestor this many or more descendants"`
	LimitDescendantSizeKvB  int     `long:"limitdescendantsize" description:"Refuse a transaction that gives an in-mempool ancestor more than this many kvB of descendants"`
	BlockMaxWeight          int64   `long:"blockmaxweight" description:"Maximum BIP141 weight of blocks this node assembles (getblocktemplate, generate*)"`
	BlockReservedWeight     int64   `long:"blockreservedweight" description:"Weight kept free in assembled blocks for the header and coinbase (at least 2000)"`
	BlockMinTxFee           float64 `long:"blockmintxfee" description:"Lowest fee rate in BTC/kvB of transactions included in assembled blocks"`
}

// NotifyOptions are the optional indexes, notification publishers and
// the metrics endpoint, all off by default. The ZMQ options carry
// bitcoind's names so existing bitcoind configurations work unchanged.
type NotifyOptions struct {
	BlockFilterIndex   bool     `long:"blockfilterindex" description:"Maintain the BIP158 basic block filter index (bitcoind's -blockfilterindex=basic; here a boolean) for the getblockfilter RPC and --peerblockfilters"`
	CoinStatsIndex     bool     `long:"coinstatsindex" description:"Maintain the coin statistics index (DATADIR/indexes/coinstats), which lets gettxoutsetinfo answer for any block without scanning the UTXO set"`
	PeerBlockFilters   bool     `long:"peerblockfilters" description:"Serve BIP157 compact block filters to peers (getcfilters, getcfheaders, getcfcheckpt) and advertise NODE_COMPACT_FILTERS; requires --blockfilterindex"`
	ZMQPubHashBlock    []string `long:"zmqpubhashblock" description:"Publish block hashes on this ZeroMQ address (tcp://host:port or ipc:///path); may be repeated"`
	ZMQPubHashTx       []string `long:"zmqpubhashtx" description:"Publish transaction hashes on this ZeroMQ address; may be repeated"`
	ZMQPubRawBlock     []string `long:"zmqpubrawblock" description:"Publish serialized blocks on this ZeroMQ address; may be repeated"`
	ZMQPubRawTx        []string `long:"zmqpubrawtx" description:"Publish serialized transactions on this ZeroMQ address; may be repeated"`
	ZMQPubSequence     []string `long:"zmqpubsequence" description:"Publish block connect/disconnect and mempool accept/remove events on this ZeroMQ address; may be repeated"`
	ZMQPubHashBlockHWM int      `long:"zmqpubhashblockhwm" description:"Outbound message high-water mark of the hashblock publisher (0 = unlimited)"`
	ZMQPubHashTxHWM    int      `long:"zmqpubhashtxhwm" description:"Outbound message high-water mark of the hashtx publisher (0 = unlimited)"`
	ZMQPubRawBlockHWM  int      `long:"zmqpubrawblockhwm" description:"Outbound message high-water mark of the rawblock publisher (0 = unlimited)"`
	ZMQPubRawTxHWM     int      `long:"zmqpubrawtxhwm" description:"Outbound message high-water mark of the rawtx publisher (0 = unlimited)"`
	ZMQPubSequenceHWM  int      `long:"zmqpubsequencehwm" description:"Outbound message high-water mark of the sequence publisher (0 = unlimited)"`
	Metrics            string   `long:"metrics" description:"Serve Prometheus metrics at /metrics on this address; a bare port (or :port) means 127.0.0.1:port (off by default; no authentication)"`
}

// Config holds every daemon option. Tagged fields come from the command line
// and the config file; the unexported fields below them are derived by
// loadConfig so consumers never re-parse strings.
type Config struct {
	GeneralOptions `group:"General Options"`
	NetworkOptions `group:"Network Options"`
	P2POptions     `group:"P2P Options"`
	RPCOptions     `group:"RPC Options"`
	ChainOptions   `group:"Chain and Database Options"`
	MempoolOptions `group:"Mempool and Relay Options"`
	NotifyOptions  `group:"Index, Notification and Metrics Options"`

	// Bitcoind is filled by the bitcoind front end (cmd/bitcoind); btcd's
	// command line leaves it zero.
	Bitcoind BitcoindSettings `no-flag:"true"`

	params                 *chaincfg.Params
	netName                string                // mainnet, testnet3, testnet4, signet, regtest
	deterministicAddrMan   bool                  // --test=addrman
	whitelist              []peer.WhitelistEntry // --whitelist parsed
	whiteBinds             []peer.WhiteBind      // --whitebind parsed
	minRelayTxFeeSat       int64                 // MinRelayTxFee in satoshi per kvB
	blockMinTxFeeSat       int64                 // BlockMinTxFee in satoshi per kvB
	assumeValid            wire.Hash             // meaningful iff assumeValidMode == assumeValidHash
	assumeValidMode        assumeValidMode
	scriptThreads          int    // --par resolved against the CPU count
	profileAddr            string // --profile normalized to host:port
	debugLevels            debugLevels
	metricsAddr            string                  // --metrics normalized to host:port
	logFile                string                  // where log lines are written; "" for none
	blockFilesDir          string                  // --blocksdir resolved for the network; "" = DataDir/blocks
	validated              bool                    // validate succeeded; Run requires it
	rpcPort                string                  // RPC port for listen addresses without one
	incrementalRelayFeeSat int64                   // --incrementalrelayfee in sat/kvB
	dustRelayFeeSat        int64                   // --dustrelayfee in sat/kvB
	maxUploadBytes         uint64                  // --maxuploadtarget in bytes per 24 h; 0 = none
	minChainWork           *big.Int                // --minimumchainwork; nil = the network's
	rpcAllowIPs            []netip.Prefix          // --rpcallowip parsed
	rpcWhitelistDefault    *bool                   // --rpcwhitelistdefault; nil = not given
	rpcCookiePerms         os.FileMode             // --rpccookieperms; 0 = owner only
	onlyNets               map[wire.NetworkID]bool // --onlynet parsed; nil = every network
	proxies                netProxies              // each network's proxy (proxies.go)
	torTarget              string                  // where --listenonion's service forwards (proxies.go)
	portmapGateway         netip.AddrPort          // --natpmp's gateway when set (tests); else the default route's
}

// BitcoindSettings are what only bitcoind's command line expresses: its
// data layout and where log lines go.
type BitcoindSettings struct {
	// Layout puts the chain data of mainnet directly in DataDir and that
	// of the other networks in DataDir/<net> (regtest, testnet3,
	// testnet4, signet), with the log file in the same folder, as
	// bitcoind does. LogDir is then unused.
	Layout bool
	// DebugLogFile is the log file (-debuglogfile); a relative path is
	// taken from the network's data directory. Empty means debug.log.
	DebugLogFile string
	// NoDebugLogFile writes no log file (-nodebuglogfile).
	NoDebugLogFile bool
	// NoConsole keeps log lines off stdout (-printtoconsole=0).
	NoConsole bool
	// P2PPort is the port to listen on where a listen address names none
	// (-port); empty means the network's default.
	P2PPort string
	// RPCPort is the RPC port (-rpcport); empty means the network's
	// default. Without --rpclisten the RPC server then listens on both
	// 127.0.0.1 and [::1], as bitcoind.
	RPCPort string
	// StartupLog is logged, line by line, once logging has started:
	// parameter interactions and warnings found while reading the
	// command line and bitcoin.conf.
	StartupLog []string
	// KeepDNSSeed means -dnsseed was given on, so -connect does not turn
	// DNS seeding off as it does by default.
	KeepDNSSeed bool
	// OnStarted, when set, is called once the node has started (after
	// "init message: Done loading"): -daemonwait's parent exits then.
	OnStarted func()
}

// defaultTorControl is Tor's control port as bitcoind assumes it.
const defaultTorControl = "127.0.0.1:9051"

// assumeValidMode says where the assume-valid block comes from.
type assumeValidMode int

const (
	assumeValidDefault assumeValidMode = iota // network's built-in block
	assumeValidOff                            // --assumevalid=0
	assumeValidHash                           // --assumevalid=<hash>
)

// DefaultConfig returns the configuration before any file or flag is read.
func DefaultConfig() Config {
	var cfg Config
	cfg.AppData = defaultAppDataDir
	cfg.ConfigFile = defaultConfigFile
	cfg.DataDir = defaultDataDir
	cfg.LogDir = defaultLogDir
	cfg.DebugLevel = defaultLogLevel
	cfg.MaxPeers = defaultMaxPeers
	cfg.BanDuration = defaultBanDuration
	cfg.BanThreshold = defaultBanThreshold
	cfg.UtxoCacheMaxSizeMiB = defaultUtxoCacheMiB
	cfg.SigCacheMaxSize = defaultSigCacheMaxSize
	cfg.MinRelayTxFee = defaultMinRelayTxFee
	cfg.MaxMempool = defaultMaxMempoolMB
	cfg.MempoolExpiry = defaultMempoolExpiryHrs
	cfg.DataCarrierSize = defaultDataCarrierSize
	cfg.IncrementalRelayFee = defaultIncrementalRelayFee
	cfg.BlockMaxWeight = mining.DefaultBlockMaxWeight
	cfg.BlockReservedWeight = mining.DefaultBlockReservedWeight
	cfg.BlockMinTxFee = float64(mining.DefaultBlockMinTxFee) / 1e8
	cfg.DustRelayFee = 0.00003
	cfg.BytesPerSigOp = 20
	cfg.LimitAncestorCount = 25
	cfg.LimitAncestorSizeKvB = 101
	cfg.LimitDescendantCount = 25
	cfg.LimitDescendantSizeKvB = 101
	cfg.PeerTimeout = defaultPeerTimeoutSecs
	cfg.V2Transport = "1"
	cfg.I2PAcceptIncoming = "1"
	cfg.TorControl = defaultTorControl
	cfg.BlockReconstructionExtraTxn = netsync.DefaultExtraTxns
	cfg.MaxOrphanTx = mempool.DefaultOrphanLimits().MaxCount
	cfg.MaxTipAge = defaultMaxTipAgeSecs
	cfg.CheckBlocks = 6
	cfg.CheckLevel = 3
	cfg.ZMQPubHashBlockHWM = zmq.DefaultHWM
	cfg.ZMQPubHashTxHWM = zmq.DefaultHWM
	cfg.ZMQPubRawBlockHWM = zmq.DefaultHWM
	cfg.ZMQPubRawTxHWM = zmq.DefaultHWM
	cfg.ZMQPubSequenceHWM = zmq.DefaultHWM
	return cfg
}

// newConfigParser builds the go-flags parser for cfg. Errors are not printed
// by go-flags: loadConfig turns them into one-line messages.
func newConfigParser(cfg *Config) *flags.Parser {
	p := flags.NewParser(cfg, flags.HelpFlag|flags.PassDoubleDash)
	p.Name = appName
	return p
}

// loadConfig reads the configuration from args and the config file, command
// line taking precedence, then validates it and fills the derived fields.
//
// The flow mirrors btcd: a first parse of the command line finds --help,
// --version, --appdata and --configfile; then the config file is applied;
// then the command line again so it overrides the file.
func loadConfig(args []string) (*Config, error) {
	preCfg := DefaultConfig()
	preParser := newConfigParser(&preCfg)
	if _, err := preParser.ParseArgs(args); err != nil {
		return nil, flagsError(preParser, err)
	}
	if preCfg.ShowVersion {
		return &preCfg, nil
	}

	cfg := DefaultConfig()
	parser := newConfigParser(&cfg)

	// A changed --appdata moves every path that was not given explicitly.
	appData := cleanAndExpandPath(preCfg.AppData)
	configFile := preCfg.ConfigFile
	explicitConfig := isSet(preParser, "configfile")
	if !explicitConfig && appData != defaultAppDataDir {
		configFile = filepath.Join(appData, defaultConfigFilename)
	}
	configFile = cleanAndExpandPath(configFile)

	err := flags.NewIniParser(parser).ParseFile(configFile)
	if err != nil {
		var pathErr *os.PathError
		switch {
		case errors.As(err, &pathErr) && errors.Is(err, os.ErrNotExist) && !explicitConfig:
			// No config file is the normal first-run state.
		case errors.As(err, &pathErr):
			return nil, invalidf("--configfile: %v", err)
		default:
			return nil, flagsError(parser, fmt.Errorf("config file %w", err))
		}
	}

	rest, err := parser.ParseArgs(args)
	if err != nil {
		return nil, flagsError(parser, err)
	}
	if len(rest) > 0 {
		return nil, &optionError{kind: errUnknownOption,
			msg: fmt.Sprintf("unexpected argument %q (options start with --)", rest[0])}
	}
	cfg.AppData = appData
	cfg.ConfigFile = configFile
	if appData != defaultAppDataDir {
		if !isSet(parser, "datadir") {
			cfg.DataDir = filepath.Join(appData, defaultDataDirname)
		}
		if !isSet(parser, "logdir") {
			cfg.LogDir = filepath.Join(appData, defaultLogDirname)
		}
	}

	// "show" is answered by main before anything else happens.
	if cfg.DebugLevel == "show" {
		return &cfg, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// isSet reports whether the long option was given on the command line or in
// the config file.
func isSet(p *flags.Parser, long string) bool {
	opt := p.FindOptionByLongName(long)
	return opt != nil && opt.IsSet()
}

// flagsError maps a go-flags error to a one-line optionError, or a helpError
// holding the usage text.
func flagsError(p *flags.Parser, err error) error {
	var ferr *flags.Error
	if errors.As(err, &ferr) {
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		switch ferr.Type {
		case flags.ErrHelp:
			var sb strings.Builder
			p.WriteHelp(&sb)
			return &helpError{text: sb.String()}
		case flags.ErrUnknownFlag:
			name := strings.TrimSuffix(strings.TrimPrefix(ferr.Message, "unknown flag `"), "'")
			if len(name) == 1 {
				name = "-" + name
			} else {
				name = "--" + name
			}
			return &optionError{kind: errUnknownOption, msg: name + ": unknown option (see --help)"}
		case flags.ErrUnknownGroup, flags.ErrUnknownCommand:
			return &optionError{kind: errUnknownOption, msg: msg}
		default:
			return &optionError{kind: errInvalidValue, msg: msg}
		}
	}
	var iniErr *flags.IniError
	if errors.As(err, &iniErr) {
		kind, msg := errInvalidValue, oneLine(iniErr.Message)
		if strings.HasPrefix(msg, "unknown option") {
			kind = errUnknownOption
		} else if key := iniKeyAt(iniErr.File, iniErr.LineNumber); key != "" {
			// go-flags does not say which option a bad value belongs to.
			msg = key + ": " + msg
		}
		return &optionError{kind: kind,
			msg: fmt.Sprintf("config file %s:%d: %s", iniErr.File, iniErr.LineNumber, msg)}
	}
	return &optionError{kind: errInvalidValue, msg: strings.ReplaceAll(err.Error(), "\n", " ")}
}

// iniKeyAt returns the option name on a line of a config file, or "".
func iniKeyAt(file string, line uint) string {
	b, err := os.ReadFile(file)
	if err != nil || line < 1 {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if line > uint(len(lines)) {
		return ""
	}
	key, _, ok := strings.Cut(lines[line-1], "=")
	if !ok {
		return ""
	}
	return strings.TrimSpace(key)
}

// validate checks every option, resolves the network and fills the derived
// fields. The first problem found is returned; its message starts with the
// option name.
func (cfg *Config) validate() error {
	if err := cfg.selectNetwork(); err != nil {
		return err
	}
	switch cfg.V2Transport {
	case "1", "0", "true", "false":
	default:
		return invalidf("--v2transport must be 1 or 0, not %q", cfg.V2Transport)
	}
	switch cfg.I2PAcceptIncoming {
	case "1", "0", "true", "false":
	default:
		return invalidf("--i2pacceptincoming must be 1 or 0, not %q", cfg.I2PAcceptIncoming)
	}

	// Paths: expand ~ and $VARS, then give each network its own folder so
	// switching networks never mixes chain data (bitcoind keeps mainnet's
	// data at the top of its data directory).
	netSub := cfg.netName
	if cfg.Bitcoind.Layout && cfg.netName == "mainnet" {
		netSub = ""
	}
	cfg.DataDir = filepath.Join(cleanAndExpandPath(cfg.DataDir), netSub)
	if cfg.Bitcoind.Layout {
		cfg.LogDir = cfg.DataDir
		switch {
		case cfg.Bitcoind.NoDebugLogFile:
			cfg.logFile = ""
		case cfg.Bitcoind.DebugLogFile == "":
			cfg.logFile = filepath.Join(cfg.DataDir, "debug.log")
		default:
			cfg.logFile = cleanAndExpandPath(cfg.Bitcoind.DebugLogFile)
			if !filepath.IsAbs(cfg.logFile) {
				cfg.logFile = filepath.Join(cfg.DataDir, cfg.logFile)
			}
		}
	} else {
		cfg.LogDir = filepath.Join(cleanAndExpandPath(cfg.LogDir), cfg.netName)
		cfg.logFile = filepath.Join(cfg.LogDir, defaultLogFilename)
	}
	cfg.blockFilesDir = ""
	if cfg.BlocksDir != "" {
		cfg.blockFilesDir = filepath.Join(cleanAndExpandPath(cfg.BlocksDir), netSub, "blocks")
	}
	for _, p := range []struct {
		opt  string
		path *string
	}{{"--cpuprofile", &cfg.CPUProfile}, {"--memprofile", &cfg.MemProfile}} {
		if *p.path == "" {
			continue
		}
		*p.path = cleanAndExpandPath(*p.path)
		// The heap profile is written at shutdown; a typo in its directory
		// should fail now, not after hours of running.
		if st, err := os.Stat(filepath.Dir(*p.path)); err != nil || !st.IsDir() {
			return invalidf("%s: directory of %s does not exist", p.opt, *p.path)
		}
	}

	lv, err := parseDebugLevels(cfg.DebugLevel)
	if err != nil {
		return err
	}
	cfg.debugLevels = lv

	if cfg.Profile != "" {
		addr, err := normalizeProfileAddr(cfg.Profile)
		if err != nil {
			return err
		}
		cfg.profileAddr = addr
	}
	if cfg.GoGC < 0 {
		return invalidf("--gogc: must not be negative, got %d", cfg.GoGC)
	}
	if cfg.MemLimit > 1<<43 { // 8 EiB would overflow int64 bytes
		return invalidf("--memlimit: %d MiB is too large", cfg.MemLimit)
	}

	if err := cfg.validateP2P(); err != nil {
		return err
	}
	if err := cfg.validateRPC(); err != nil {
		return err
	}
	if err := cfg.validateChain(); err != nil {
		return err
	}
	if err := cfg.validateMempool(); err != nil {
		return err
	}
	return cfg.validateNotify()
}

// selectNetwork applies the network flags, which are mutually exclusive.
func (cfg *Config) selectNetwork() error {
	type choice struct {
		set  bool
		flag string
		name string // chaincfg.ParamsForNetwork name
		dir  string
	}
	choices := []choice{
		{cfg.TestNet3, "--testnet", "test", "testnet3"},
		{cfg.TestNet4, "--testnet4", "testnet4", "testnet4"},
		{cfg.SigNet, "--signet", "signet", "signet"},
		{cfg.RegressionTest, "--regtest", "regtest", "regtest"},
	}
	selected := choice{flag: "", name: "main", dir: "mainnet"}
	var given []string
	for _, c := range choices {
		if c.set {
			given = append(given, c.flag)
			selected = c
		}
	}
	if len(given) > 1 {
		return conflictf("%s: the network options can not be used together (pick one)",
			strings.Join(given, ", "))
	}
	params, err := chaincfg.ParamsForNetwork(selected.name)
	if err != nil {
		return invalidf("network %q: %v", selected.name, err)
	}
	cfg.netName = selected.dir
	if cfg.SigNet && len(cfg.SignetChallenge) > 0 {
		if len(cfg.SignetChallenge) > 1 {
			return invalidf("--signetchallenge: -signetchallenge cannot be multiple values.")
		}
		challenge, err := hex.DecodeString(cfg.SignetChallenge[0])
		if err != nil {
			return invalidf("--signetchallenge: -signetchallenge must be hex, not '%s'.", cfg.SignetChallenge[0])
		}
		params = chaincfg.CustomSignetParams(challenge, nil)
	}
	if cfg.SigNet && len(cfg.SignetSeedNodes) > 0 {
		// As bitcoind, the seeds given replace the network's.
		params = params.Clone()
		params.DNSSeeds = nil
		for _, s := range cfg.SignetSeedNodes {
			host := s
			if h, _, err := net.SplitHostPort(s); err == nil {
				host = h
			}
			if !validHost(host) || net.ParseIP(host) != nil {
				return invalidf("--signetseednode: '%s' is not a host name", s)
			}
			params.DNSSeeds = append(params.DNSSeeds, chaincfg.DNSSeed{Host: host})
		}
	}

	fastPrune := cfg.FastPrune && cfg.RegressionTest
	if len(cfg.TestActivationHeights) > 0 || len(cfg.VersionBitsParams) > 0 || fastPrune {
		// Never modify the shared parameter set: clone it first.
		params = params.Clone()
	}
	if fastPrune {
		// Core's regtest floor with -fastprune, so tests can prune
		// short chains.
		params.PruneAfterHeight = 100
	}
	if len(cfg.TestActivationHeights) > 0 {
		if !cfg.RegressionTest {
			return conflictf("--testactivationheight: only allowed with --regtest")
		}
		for _, arg := range cfg.TestActivationHeights {
			if err := params.SetTestActivationHeight(arg); err != nil {
				return invalidf("--testactivationheight: %v", err)
			}
		}
	}
	if len(cfg.VersionBitsParams) > 0 {
		if !cfg.RegressionTest {
			return conflictf("--vbparams: only allowed with --regtest")
		}
		for _, arg := range cfg.VersionBitsParams {
			if err := params.SetVersionBitsParams(arg); err != nil {
				return invalidf("--vbparams: %v", err)
			}
		}
	}
	cfg.params = params
	return nil
}

// appDataDir returns the platform's usual per-user directory for app, as
// btcd does: ~/.btcd on Unix, ~/Library/Application Support/Btcd on macOS
// and %LOCALAPPDATA%\Btcd on Windows.
func appDataDir(app string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = "."
	}
	upper := strings.ToUpper(app[:1]) + app[1:]
	switch runtime.GOOS {
	case "windows":
		if dir := os.Getenv("LOCALAPPDATA"); dir != "" {
			return filepath.Join(dir, upper)
		}
		if dir := os.Getenv("APPDATA"); dir != "" {
			return filepath.Join(dir, upper)
		}
		return filepath.Join(home, upper)
	case "darwin", "ios":
		return filepath.Join(home, "Library", "Application Support", upper)
	case "plan9":
		return filepath.Join(home, app)
	default:
		return filepath.Join(home, "."+app)
	}
}

// cleanAndExpandPath expands a leading ~ and environment variables, then
// cleans the result.
func cleanAndExpandPath(path string) string {
	if path == "" {
		return ""
	}
	if path == "~" || strings.HasPrefix(path, "~/") || strings.HasPrefix(path, `~\`) {
		if home, err := os.UserHomeDir(); err == nil {
			path = home + path[1:]
		}
	}
	return filepath.Clean(os.ExpandEnv(path))
}
