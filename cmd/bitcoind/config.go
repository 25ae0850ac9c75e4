package main

import (
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/btcnode/btcd/internal/node"
)

// chainDir is the name of each network's folder in the data directory,
// keyed by bitcoind's chain name; mainnet uses the data directory itself.
var chainDir = map[string]string{"main": "", "test": "testnet3", "testnet4": "testnet4", "signet": "signet", "regtest": "regtest"}

// defaultP2PPort is each network's P2P port.
var defaultP2PPort = map[string]string{"main": "8333", "test": "18333", "testnet4": "48333", "signet": "38333", "regtest": "18444"}

// hasPort reports whether a bind address names a port.
func hasPort(addr string) bool {
	_, _, err := net.SplitHostPort(addr)
	return err == nil
}

// defaultDataDir is bitcoind's: ~/.bitcoin on Unix.
func defaultDataDir() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = "."
	}
	return filepath.Join(home, ".bitcoin")
}

// loadSettings reads the command line and the config files and returns the
// settings with the data directory and chain resolved. Errors carry
// bitcoind's text without the leading "Error: ".
func loadSettings(argv []string) (*args, string, string, error) {
	a := newArgs()
	if err := a.parseCommandLine(argv); err != nil {
		return nil, "", "", fmt.Errorf("Error parsing command line arguments: %w", err)
	}
	if wantsHelp(a) || a.isSet("version") {
		return a, "", "", nil
	}
	datadir := defaultDataDir()
	if a.isSet("datadir") {
		datadir = absPath(a.getString("datadir", ""))
		if st, err := os.Stat(datadir); err != nil || !st.IsDir() {
			return nil, "", "", fmt.Errorf("Specified data directory \"%s\" does not exist.", a.getString("datadir", ""))
		}
	}
	chain, err := a.selectChain()
	if err != nil {
		return nil, "", "", err
	}
	a.chain = chain
	origDatadir := datadir
	confPath, err := a.readConfigFiles(datadir)
	if err != nil {
		return nil, "", "", fmt.Errorf("Error reading configuration file: %w", err)
	}
	if a.isSet("datadir") {
		d := absPath(a.getString("datadir", ""))
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, "", "", fmt.Errorf("Error reading configuration file: specified data directory \"%s\" does not exist.", a.getString("datadir", ""))
		}
		datadir = d
	}
	if err := checkIgnoredConf(a, datadir, origDatadir, confPath); err != nil {
		return nil, "", "", err
	}
	if unsuitable := a.unsuitableSectionOnly(); len(unsuitable) > 0 {
		var msgs []string
		for _, name := range unsuitable {
			msgs = append(msgs, fmt.Sprintf("Config setting for %s only applied on %s network when in [%s] section.", name, a.chain, a.chain))
		}
		return nil, "", "", errors.New(strings.Join(msgs, "\n"))
	}
	if err := loadSettingsFile(a, datadir); err != nil {
		return nil, "", "", err
	}
	for _, s := range a.unrecognizedSections() {
		a.initWarnings = append(a.initWarnings, fmt.Sprintf("%s:%d Section [%s] is not recognized.", s.file, s.line, s.name))
	}
	return a, datadir, confPath, nil
}

// wantsHelp reports -?, -h, -help or -help-debug.
func wantsHelp(a *args) bool {
	return a.isSet("?") || a.isSet("h") || a.isSet("help") || a.isSet("help-debug")
}

// absPath makes a command-line path absolute (bitcoind resolves it from
// the working directory).
func absPath(p string) string {
	p = expandHome(p)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// buildConfig maps the settings onto the node's configuration. It refuses
// unsupported options that are set to anything but their off value.
func buildConfig(a *args, datadir, confPath string) (*node.Config, error) {
	if err := checkUnsupported(a); err != nil {
		return nil, err
	}
	cfg := node.DefaultConfig()
	b := &cfg.Bitcoind
	b.Layout = true
	cfg.DataDir = datadir
	// bitcoind's defaults where they differ from btcd's.
	cfg.PersistMempool = true
	cfg.BanDuration = 24 * time.Hour

	switch a.chain {
	case "test":
		cfg.TestNet3 = true
	case "testnet4":
		cfg.TestNet4 = true
	case "signet":
		cfg.SigNet = true
		cfg.SignetChallenge = a.getList("signetchallenge")
		cfg.SignetSeedNodes = a.getList("signetseednode")
	case "regtest":
		cfg.RegressionTest = true
	}
	if confPath == "" {
		b.StartupLog = append(b.StartupLog, "Config file: <disabled>")
	} else if _, err := os.Stat(confPath); err == nil {
		b.StartupLog = append(b.StartupLog, "Config file: "+confPath)
	} else {
		b.StartupLog = append(b.StartupLog, "Config file: "+confPath+" (not found, skipping)")
	}
	b.StartupLog = append(b.StartupLog, logArgs(a)...)
	b.StartupLog = append(b.StartupLog, a.warnings...)
	b.StartupLog = append(b.StartupLog, a.stderrLines...)
	for _, w := range a.initWarnings {
		b.StartupLog = append(b.StartupLog, "Warning: "+w)
	}

	// Logging.
	if a.isNegated("debuglogfile") {
		b.NoDebugLogFile = true
	} else {
		b.DebugLogFile = a.getString("debuglogfile", "")
	}
	b.NoConsole = !a.getBool("printtoconsole", !a.getBool("daemon", false))
	level, err := debugLevel(a)
	if err != nil {
		return nil, err
	}
	cfg.DebugLevel = level

	// Chain and storage.
	cfg.TestActivationHeights = a.getList("testactivationheight")
	cfg.VersionBitsParams = a.getList("vbparams")
	if a.isSet("assumevalid") {
		cfg.AssumeValid = a.getString("assumevalid", "")
		if a.isNegated("assumevalid") {
			cfg.AssumeValid = "0"
		}
	}
	if a.isSet("minimumchainwork") {
		cfg.MinimumChainWork = a.getString("minimumchainwork", "")
	}
	if v := a.getString("blocksdir", ""); v != "" && !a.isNegated("blocksdir") {
		d := absPath(v)
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("Specified blocks directory \"%s\" does not exist.", v)
		}
		cfg.BlocksDir = d
	}
	cfg.FastPrune = a.getBool("fastprune", false)
	if a.isSet("dbcache") {
		n := a.getInt("dbcache", 450)
		cfg.UtxoCacheMaxSizeMiB = uint64(max(n, 4))
	}
	if a.isSet("maxsigcachesize") {
		// About 100 bytes an entry (hash, key and signature).
		mib := max(a.getInt("maxsigcachesize", 32), 0)
		cfg.SigCacheMaxSize = uint(min(mib, 1<<20) << 20 / 100)
	}
	cfg.Par = int(a.getInt("par", 0))
	cfg.TxIndex = a.getBool("txindex", false)
	if a.isSet("prune") {
		n := a.getInt("prune", 0)
		switch {
		case n < 0:
			return nil, errors.New("Prune cannot be configured with a negative value.")
		case n == 0:
		case n == 1:
			cfg.Prune = node.PruneManual
		case n < 550:
			return nil, errors.New("Prune configured below the minimum of 550 MiB.  Please use a higher number.")
		default:
			cfg.Prune = uint64(n)
		}
		if cfg.Prune != 0 && cfg.TxIndex {
			return nil, errors.New("Prune mode is incompatible with -txindex.")
		}
	}
	cfg.LoadBlocks = absPaths(a.getList("loadblock"))
	cfg.Reindex = a.getBool("reindex", false) || a.getBool("reindex-chainstate", false)
	cfg.StopAfterBlockImport = a.getBool("stopafterblockimport", false)
	cfg.StopAtHeight = int32(a.getInt("stopatheight", 0))
	cfg.BlocksXor = a.getBool("blocksxor", true)
	// -asmap alone (or empty) names the default file; -noasmap none.
	if a.isSet("asmap") && !a.isNegated("asmap") {
		cfg.ASMap = a.getString("asmap", "")
		if cfg.ASMap == "" || cfg.ASMap == "1" {
			cfg.ASMap = "ip_asn.map"
		}
	}
	cfg.CheckAddrMan = int(a.getInt("checkaddrman", 0))
	cfg.TestOptions = a.getList("test")
	if a.isSet("checkblocks") {
		cfg.CheckBlocks = int32(a.getInt("checkblocks", 6))
	}
	if a.isSet("checklevel") {
		cfg.CheckLevel = int32(a.getInt("checklevel", 3))
	}
	if a.isSet("maxtipage") {
		cfg.MaxTipAge = a.getInt("maxtipage", 0)
	}
	if a.isSet("mocktime") {
		cfg.MockTime = a.getInt("mocktime", 0)
	}
	switch v := a.getString("blockfilterindex", "0"); {
	case a.isNegated("blockfilterindex"), v == "0":
	case v == "" || v == "1" || v == "basic":
		cfg.BlockFilterIndex = true
	default:
		for _, name := range a.getList("blockfilterindex") {
			if name != "basic" {
				return nil, fmt.Errorf("Unknown -blockfilterindex value %s.", name)
			}
		}
		cfg.BlockFilterIndex = true
	}
	cfg.CoinStatsIndex = a.getBool("coinstatsindex", false)
	cfg.PeerBlockFilters = a.getBool("peerblockfilters", false)
	if cfg.PeerBlockFilters && !cfg.BlockFilterIndex {
		return nil, errors.New("Cannot set -peerblockfilters without -blockfilterindex.")
	}
	if p := a.getString("pid", "bitcoind.pid"); !a.isNegated("pid") {
		cfg.PidFile = p
	}
	cfg.StartupNotify = a.getString("startupnotify", "")
	cfg.ShutdownNotify = a.getString("shutdownnotify", "")
	cfg.BlockNotify = a.getString("blocknotify", "")
	cfg.AlertNotify = a.getString("alertnotify", "")

	// Mempool and relay.
	if a.isSet("maxmempool") {
		cfg.MaxMempool = uint64(max(a.getInt("maxmempool", 300), 0))
		if cfg.MaxMempool < 5 {
			return nil, fmt.Errorf("-maxmempool must be at least %d MB", 5)
		}
	}
	if a.isSet("mempoolexpiry") {
		cfg.MempoolExpiry = uint64(max(a.getInt("mempoolexpiry", 336), 0))
	}
	cfg.PersistMempool = a.getBool("persistmempool", true)
	cfg.PersistMempoolV1 = a.getBool("persistmempoolv1", false)
	// Refused off regtest once the log is open (node.Run), as bitcoind.
	cfg.AcceptStaleFeeEstimates = a.getBool("acceptstalefeeestimates", false)
	for _, f := range []struct {
		name string
		dst  *float64
	}{
		{"minrelaytxfee", &cfg.MinRelayTxFee},
		{"incrementalrelayfee", &cfg.IncrementalRelayFee},
		{"dustrelayfee", &cfg.DustRelayFee},
		{"blockmintxfee", &cfg.BlockMinTxFee},
	} {
		if !a.isSet(f.name) {
			continue
		}
		v, err := parseAmount(a.getString(f.name, ""))
		if err != nil {
			return nil, fmt.Errorf("Invalid amount for -%s=<amount>: '%s'", f.name, a.getString(f.name, ""))
		}
		*f.dst = v
	}
	if a.isSet("datacarriersize") {
		cfg.DataCarrierSize = uint32(max(min(a.getInt("datacarriersize", 100000), math.MaxUint32), 0))
	}
	cfg.NoDataCarrier = !a.getBool("datacarrier", true)
	if a.isSet("datacarrier") || a.isSet("datacarriersize") {
		a.initWarnings = append(a.initWarnings, "Options '-datacarrier' or '-datacarriersize' are set but are marked as deprecated. They will be removed in a future version.")
	}
	cfg.RejectBareMultisig = !a.getBool("permitbaremultisig", true)
	if a.isSet("bytespersigop") {
		cfg.BytesPerSigOp = a.getInt("bytespersigop", 20)
	}
	if a.getBool("acceptnonstdtxn", false) {
		if a.chain == "main" {
			return nil, errors.New("acceptnonstdtxn is not currently supported for main chain")
		}
		cfg.RelayNonStd = true
	}
	if a.isSet("blockmaxweight") {
		cfg.BlockMaxWeight = a.getInt("blockmaxweight", cfg.BlockMaxWeight)
	}
	if a.isSet("blockreservedweight") {
		cfg.BlockReservedWeight = a.getInt("blockreservedweight", cfg.BlockReservedWeight)
	}
	for _, l := range []struct {
		name string
		dst  *int
	}{
		{"limitancestorcount", &cfg.LimitAncestorCount},
		{"limitancestorsize", &cfg.LimitAncestorSizeKvB},
		{"limitdescendantcount", &cfg.LimitDescendantCount},
		{"limitdescendantsize", &cfg.LimitDescendantSizeKvB},
	} {
		if a.isSet(l.name) {
			*l.dst = int(max(a.getInt(l.name, 0), 0))
		}
	}

	// Connections.
	if err := applyConnection(a, &cfg); err != nil {
		return nil, err
	}

	// RPC.
	if err := applyRPC(a, &cfg); err != nil {
		return nil, err
	}

	// ZMQ.
	cfg.ZMQPubHashBlock = a.getList("zmqpubhashblock")
	cfg.ZMQPubHashTx = a.getList("zmqpubhashtx")
	cfg.ZMQPubRawBlock = a.getList("zmqpubrawblock")
	cfg.ZMQPubRawTx = a.getList("zmqpubrawtx")
	cfg.ZMQPubSequence = a.getList("zmqpubsequence")
	for _, h := range []struct {
		name string
		dst  *int
	}{
		{"zmqpubhashblockhwm", &cfg.ZMQPubHashBlockHWM},
		{"zmqpubhashtxhwm", &cfg.ZMQPubHashTxHWM},
		{"zmqpubrawblockhwm", &cfg.ZMQPubRawBlockHWM},
		{"zmqpubrawtxhwm", &cfg.ZMQPubRawTxHWM},
		{"zmqpubsequencehwm", &cfg.ZMQPubSequenceHWM},
	} {
		if a.isSet(h.name) {
			*h.dst = int(a.getInt(h.name, 1000))
		}
	}
	cfg.UAComments = a.getList("uacomment")
	return &cfg, nil
}

// applyConnection maps the P2P options, with bitcoind's parameter
// interactions (-connect and -proxy turn listening off unless -bind or
// -listen say otherwise; -connect turns DNS seeding off).
func applyConnection(a *args, cfg *node.Config) error {
	b := &cfg.Bitcoind
	if a.isSet("port") {
		p := a.getString("port", "")
		if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
			return fmt.Errorf("Invalid port specified in -port: '%s'", p)
		}
		b.P2PPort = p
	}
	connect := a.getList("connect")
	// "-connect=0" is bitcoind's way to write -noconnect.
	var peers []string
	noConnect := a.isNegated("connect")
	for _, c := range connect {
		if c == "0" {
			noConnect = true
			continue
		}
		peers = append(peers, c)
	}
	cfg.ConnectPeers = peers
	cfg.NoConnect = noConnect || len(peers) > 0
	cfg.AddPeers = a.getList("addnode")
	maxConn := a.getInt("maxconnections", 125)
	if maxConn < 0 {
		maxConn = 0
	}
	cfg.MaxPeers = int(maxConn)

	binds := a.getList("bind")
	whitebinds := a.getList("whitebind")
	listenDefault := true
	if len(peers) > 0 || noConnect || maxConn <= 0 {
		listenDefault = false
		if !a.isSet("dnsseed") {
			b.StartupLog = append(b.StartupLog, "parameter interaction: -connect or -maxconnections=0 set -> setting -dnsseed=0")
		}
		if !a.isSet("listen") {
			b.StartupLog = append(b.StartupLog, "parameter interaction: -connect or -maxconnections=0 set -> setting -listen=0")
		}
	}
	cfg.NoProxyRandomize = !a.getBool("proxyrandomize", true)
	// The -proxy values apply in order: one without a network sets every
	// network's proxy, dropping earlier per-network ones; ADDR=NET sets
	// one network's (the node checks both).
	proxySet := false
	for _, v := range a.getList("proxy") {
		if strings.Contains(v, "=") {
			cfg.NetProxies = append(cfg.NetProxies, v)
		} else {
			cfg.Proxy, cfg.NetProxies = v, nil
			if v == "0" {
				cfg.Proxy = ""
			}
		}
		proxySet = proxySet || (v != "0" && !strings.HasPrefix(v, "0="))
	}
	if proxySet {
		// Not listening, and below not discovering, so nothing ties
		// this node's address to the one it reaches peers from.
		listenDefault = false
	}
	if len(binds) > 0 || len(whitebinds) > 0 {
		listenDefault = true
	}
	listen := a.getBool("listen", listenDefault)
	if !listen && a.isSet("listen") && (len(binds) > 0 || len(whitebinds) > 0) {
		return fmt.Errorf("Cannot set -bind or -whitebind together with -listen=0")
	}
	cfg.DisableListen = !listen
	if listen {
		port := b.P2PPort
		if port == "" {
			port = defaultP2PPort[a.chain]
		}
		p, _ := strconv.Atoi(port)
		onionPort := strconv.Itoa(p + 1)
		for _, bnd := range binds {
			// An onion bind (incoming Tor connections) without a port
			// takes -port + 1; here it is an ordinary listener.
			addr, onion := strings.CutSuffix(bnd, "=onion")
			if onion && !hasPort(addr) {
				addr = net.JoinHostPort(strings.Trim(addr, "[]"), onionPort)
			}
			if onion && cfg.OnionBind == "" {
				// -listenonion's service forwards to the first one.
				cfg.OnionBind = addr
			}
			cfg.Listeners = append(cfg.Listeners, addr)
		}
		if len(binds) == 0 && len(whitebinds) == 0 {
			// bitcoind's default binds: every address at -port, and
			// 127.0.0.1 at -port + 1 for a Tor onion service.
			cfg.Listeners = []string{":" + port, "127.0.0.1:" + onionPort}
			cfg.OnionBind = "127.0.0.1:" + onionPort
		}
		cfg.WhiteBinds = whitebinds
	}
	dnsSeedDefault := len(peers) == 0 && !noConnect && maxConn > 0
	cfg.DisableDNSSeed = !a.getBool("dnsseed", dnsSeedDefault)
	b.KeepDNSSeed = a.isSet("dnsseed") && !cfg.DisableDNSSeed
	cfg.ForceDNSSeed = a.getBool("forcednsseed", false)
	cfg.SeedNodes = a.getList("seednode")
	cfg.OnlyNets = a.getList("onlynet")
	cfg.CaptureMessages = a.getBool("capturemessages", false)
	if len(peers) > 0 || noConnect {
		// -connect means no other outbound connections: bitcoind says so
		// of the options that would make some.
		if len(cfg.SeedNodes) > 0 && len(peers) > 0 {
			b.StartupLog = append(b.StartupLog, "-seednode is ignored when -connect is used")
			cfg.SeedNodes = nil
		}
		if b.KeepDNSSeed && proxySet {
			b.StartupLog = append(b.StartupLog, "-dnsseed is ignored when -connect is used and -proxy is specified")
		}
	}
	cfg.NoFixedSeeds = !a.getBool("fixedseeds", true)
	cfg.NoDiscover = !a.getBool("discover", listen && len(a.getList("externalip")) == 0 && !proxySet)
	cfg.ExternalIPs = a.getList("externalip")
	switch v := a.getString("onion", ""); {
	case a.isNegated("onion") || v == "0":
		cfg.NoOnion = true
	case v != "":
		cfg.OnionProxy = v
	}
	cfg.NatPMP = a.getBool("natpmp", false)
	if a.isSet("upnp") {
		// bitcoind 29 dropped UPnP; its -upnp stands in for -natpmp
		// when that is not set, with a warning.
		v := a.getString("upnp", "")
		msg := ""
		if !a.isSet("natpmp") {
			cfg.NatPMP = a.getBool("upnp", false)
			msg = fmt.Sprintf(" Substituting '-natpmp=%s'.", v)
		}
		b.StartupLog = append(b.StartupLog, fmt.Sprintf("Warning: Option '-upnp=%s' is given but UPnP support was dropped in version 29.0.%s", v, msg))
	}
	cfg.NoDNS = !a.getBool("dns", true)
	if !listen && a.isSet("listenonion") && a.getBool("listenonion", false) {
		return fmt.Errorf("Cannot set -listen=0 together with -listenonion=1")
	}
	cfg.ListenOnion = a.getBool("listenonion", listen)
	if !listen && !a.isSet("listenonion") {
		b.StartupLog = append(b.StartupLog, "parameter interaction: -listen=0 -> setting -listenonion=0")
	}
	if a.isSet("torcontrol") {
		cfg.TorControl = a.getString("torcontrol", "")
	}
	cfg.TorPassword = a.getString("torpassword", "")
	if v := a.getString("i2psam", ""); v != "" && !a.isNegated("i2psam") {
		cfg.I2PSAM = v
	}
	// Not listening means no inbound I2P either (bitcoind's parameter
	// interaction), unless asked for explicitly.
	cfg.I2PAcceptIncoming = "0"
	if a.getBool("i2pacceptincoming", listen) {
		cfg.I2PAcceptIncoming = "1"
	}
	if !listen && !a.isSet("i2pacceptincoming") {
		b.StartupLog = append(b.StartupLog, "parameter interaction: -listen=0 -> setting -i2pacceptincoming=0")
	}
	cfg.PeerBloomFilters = a.getBool("peerbloomfilters", false)
	cfg.TxReconciliation = a.getBool("txreconciliation", false)
	cfg.CJDNSReachable = a.getBool("cjdnsreachable", false)
	cfg.V2Transport = "0"
	if a.getBool("v2transport", true) {
		cfg.V2Transport = "1"
	}
	cfg.BlocksOnly = a.getBool("blocksonly", false)
	if cfg.BlocksOnly && !a.isSet("maxmempool") {
		cfg.MaxMempool = 5
	}
	cfg.Whitelists = a.getList("whitelist")
	cfg.WhitelistForceRelay = a.getBool("whitelistforcerelay", false)
	// -blocksonly turns -whitelistrelay off by default, -whitelistforcerelay on.
	cfg.NoWhitelistRelay = !a.getBool("whitelistrelay", !cfg.BlocksOnly || cfg.WhitelistForceRelay)
	if a.isSet("bantime") {
		cfg.BanDuration = time.Duration(max(a.getInt("bantime", 86400), 1)) * time.Second
	}
	if a.isSet("peertimeout") {
		n := a.getInt("peertimeout", 60)
		if n <= 0 {
			return errors.New("peertimeout must be a positive integer.")
		}
		cfg.PeerTimeout = n
	}
	if a.isSet("maxorphantx") {
		cfg.MaxOrphanTx = int(min(max(a.getInt("maxorphantx", 100), 0), 100_000))
	}
	if a.isSet("blockreconstructionextratxn") {
		cfg.BlockReconstructionExtraTxn = int(min(max(a.getInt("blockreconstructionextratxn", 0), 0), 10_000))
	}
	if a.isSet("maxsendbuffer") {
		// 0 makes bitcoind wait for each message to go out; one
		// thousand bytes here does the same.
		cfg.MaxSendBuffer = int(max(a.getInt("maxsendbuffer", 0), 1))
	}
	// As bitcoind, a -timeout below 1 ms means the default.
	if ms := a.getInt("timeout", 0); ms > 0 {
		cfg.ConnectTimeout = time.Duration(ms) * time.Millisecond
	}
	if a.isSet("maxuploadtarget") {
		cfg.MaxUploadTarget = a.getString("maxuploadtarget", "0")
	}
	cfg.NoNetworkActive = !a.getBool("networkactive", true)
	return nil
}

// applyRPC maps the RPC server options.
func applyRPC(a *args, cfg *node.Config) error {
	b := &cfg.Bitcoind
	cfg.DisableRPC = !a.getBool("server", true)
	cfg.REST = a.getBool("rest", false)
	if a.isSet("rpcport") {
		p := a.getString("rpcport", "")
		if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
			return fmt.Errorf("Invalid port specified in -rpcport: '%s'", p)
		}
		b.RPCPort = p
	}
	// As bitcoind: -rpcbind and -rpcallowip apply only together; with
	// either missing the server stays on loopback (the node's default
	// listeners) and a warning names the ignored option.
	cfg.RPCAllowIPs = a.getList("rpcallowip")
	binds := a.getList("rpcbind")
	switch {
	case len(cfg.RPCAllowIPs) > 0 && len(binds) > 0:
		cfg.RPCListeners = binds
	case len(binds) > 0:
		b.StartupLog = append(b.StartupLog, "WARNING: option -rpcbind was ignored because -rpcallowip was not specified, refusing to allow everyone to connect")
	case len(cfg.RPCAllowIPs) > 0:
		b.StartupLog = append(b.StartupLog, "WARNING: option -rpcallowip was specified without -rpcbind; this doesn't usually make sense")
	}
	cfg.RPCUser = a.getString("rpcuser", "")
	cfg.RPCPass = a.getString("rpcpassword", "")
	cfg.RPCAuth = a.getList("rpcauth")
	cfg.RPCWhitelist = a.getList("rpcwhitelist")
	if a.isSet("rpcwhitelistdefault") {
		cfg.RPCWhitelistDefault = "0"
		if a.getBool("rpcwhitelistdefault", false) {
			cfg.RPCWhitelistDefault = "1"
		}
	}
	if a.isSet("rpccookieperms") && !a.isNegated("rpccookieperms") {
		cfg.RPCCookiePerms = a.getString("rpccookieperms", "")
	}
	if v := a.getString("rpccookiefile", ""); v != "" && !a.isNegated("rpccookiefile") {
		cfg.RPCCookieFile = v
	}
	cfg.RPCNoCookie = a.isNegated("rpccookiefile")
	if a.isSet("rpcservertimeout") {
		cfg.RPCServerTimeout = max(a.getInt("rpcservertimeout", 30), 1)
	}
	if a.isSet("rpcthreads") || a.isSet("rpcworkqueue") {
		n := max(a.getInt("rpcthreads", 16), 1) + max(a.getInt("rpcworkqueue", 64), 1)
		cfg.RPCMaxClients = int(min(n, 10000))
	}
	return nil
}

// checkUnsupported refuses unsupported options set to a value other than
// their off value.
func checkUnsupported(a *args) error {
	for i := range options {
		o := &options[i]
		if o.disp != unsupported {
			continue
		}
		v, ok := a.get(o.name)
		if !ok || v.IsFalse() {
			continue
		}
		s := v.String()
		if o.off != "" && (s == o.off || (isBoolOff(o.off) && boolText(s) == o.off)) {
			continue
		}
		if s == "" {
			return fmt.Errorf("Invalid parameter -%s: not supported by this node", o.name)
		}
		return fmt.Errorf("Invalid parameter -%s=%s: not supported by this node", o.name, s)
	}
	return nil
}

func isBoolOff(s string) bool { return s == "0" || s == "1" }

func boolText(s string) string {
	if interpretBool(s) {
		return "1"
	}
	return "0"
}

func absPaths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = absPath(p)
	}
	return out
}

// parseAmount parses a BTC amount as bitcoind's ParseMoney: a decimal
// number with at most 8 fractional digits.
func parseAmount(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "eE+") {
		return 0, errors.New("bad amount")
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > 8 {
		return 0, errors.New("too many decimals")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 21e6 {
		return 0, errors.New("bad amount")
	}
	return v, nil
}
