package node

import (
	"encoding/hex"
	"errors"
	"math"
	"math/big"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/btcnode/btcd/metrics"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
	"github.com/btcnode/btcd/zmq"
)

// validateP2P checks the peer-to-peer options and applies btcd's implied
// settings (--connect and --proxy turn off listening unless --listen is
// given; --connect turns off DNS seeding).
func (cfg *Config) validateP2P() error {
	if cfg.DisableListen && len(cfg.Listeners) > 0 {
		return conflictf("--listen: can not be used together with --nolisten")
	}
	if len(cfg.AddPeers) > 0 && len(cfg.ConnectPeers) > 0 {
		return conflictf("--addpeer: can not be mixed with --connect")
	}
	if cfg.MaxPeers < 0 {
		return invalidf("--maxpeers: must not be negative, got %d", cfg.MaxPeers)
	}
	if cfg.BanDuration < time.Second {
		return invalidf("--banduration: must be at least 1s, got %v", cfg.BanDuration)
	}
	if cfg.PeerTimeout <= 0 {
		return invalidf("--peertimeout: peertimeout must be a positive integer.")
	}
	if cfg.MaxOrphanTx < 0 || cfg.MaxOrphanTx > maxOrphanTx {
		return invalidf("--maxorphantx: must be from 0 to %d, got %d", maxOrphanTx, cfg.MaxOrphanTx)
	}
	if cfg.BlockReconstructionExtraTxn < 0 || cfg.BlockReconstructionExtraTxn > maxExtraTxns {
		return invalidf("--blockreconstructionextratxn: must be from 0 to %d, got %d", maxExtraTxns, cfg.BlockReconstructionExtraTxn)
	}
	if cfg.ConnectTimeout < 0 {
		return invalidf("--connecttimeout: must not be negative, got %v", cfg.ConnectTimeout)
	}
	if cfg.MaxSendBuffer < 0 || cfg.MaxSendBuffer > maxSendBufferKB {
		return invalidf("--maxsendbuffer: must be from 0 to %d (thousands of bytes), got %d", maxSendBufferKB, cfg.MaxSendBuffer)
	}
	if cfg.MaxUploadTarget != "" {
		n, err := parseByteUnits(cfg.MaxUploadTarget)
		if err != nil {
			return invalidf("--maxuploadtarget: Unable to parse -maxuploadtarget: '%s'", cfg.MaxUploadTarget)
		}
		cfg.maxUploadBytes = n
	}
	if err := checkUAComments(cfg.UAComments); err != nil {
		return err
	}

	port := cfg.params.DefaultPort
	listenPort := port
	if cfg.Bitcoind.P2PPort != "" {
		listenPort = cfg.Bitcoind.P2PPort
	}
	var err error
	if cfg.Listeners, err = normalizeAddresses("--listen", cfg.Listeners, listenPort, true); err != nil {
		return err
	}
	if cfg.ConnectPeers, err = normalizeAddresses("--connect", cfg.ConnectPeers, port, false); err != nil {
		return err
	}
	if cfg.AddPeers, err = normalizeAddresses("--addpeer", cfg.AddPeers, port, false); err != nil {
		return err
	}
	if cfg.ExternalIPs, err = normalizeAddresses("--externalip", cfg.ExternalIPs, port, false); err != nil {
		return err
	}
	if err := cfg.resolveProxies(); err != nil { // proxies.go
		return err
	}

	cfg.whitelist = cfg.whitelist[:0]
	for _, w := range cfg.Whitelists {
		e, err := peer.ParseWhitelist(w)
		if err != nil {
			return invalidf("--whitelist: %v", err)
		}
		cfg.whitelist = append(cfg.whitelist, e)
	}
	cfg.whiteBinds = cfg.whiteBinds[:0]
	for _, w := range cfg.WhiteBinds {
		b, err := peer.ParseWhiteBind(w)
		if err != nil {
			return invalidf("--whitebind: %v", err)
		}
		cfg.whiteBinds = append(cfg.whiteBinds, b)
	}
	if cfg.DisableListen && len(cfg.WhiteBinds) > 0 {
		return conflictf("--whitebind: Cannot set -bind or -whitebind together with -listen=0")
	}

	if (cfg.proxies.any() || len(cfg.ConnectPeers) > 0) && len(cfg.Listeners) == 0 {
		cfg.DisableListen = true
	}
	if len(cfg.ConnectPeers) > 0 && !cfg.Bitcoind.KeepDNSSeed {
		cfg.DisableDNSSeed = true
	}
	if err := cfg.validateOnlyNet(); err != nil { // onlynet.go
		return err
	}
	if cfg.ForceDNSSeed && cfg.DisableDNSSeed {
		return conflictf("--forcednsseed: Cannot set -forcednsseed to true when setting -dnsseed to false.")
	}
	if cfg.DisableListen {
		cfg.Listeners = nil
	} else if len(cfg.Listeners) == 0 && len(cfg.WhiteBinds) == 0 {
		cfg.Listeners = []string{net.JoinHostPort("", listenPort)}
	}
	return cfg.resolveListenServices() // proxies.go
}

// validateRPC checks the RPC options and fills the default listener.
// tlsFile is a --rpccert or --rpckey path: as given, or name in appData.
func tlsFile(given, appData, name string) string {
	if given == "" {
		return filepath.Join(appData, name)
	}
	return cleanAndExpandPath(given)
}

func (cfg *Config) validateRPC() error {
	cfg.rpcAllowIPs = nil
	for _, a := range cfg.RPCAllowIPs {
		p, err := parseAllowIP(a)
		// With CJDNS reachable, fc00::/8 is CJDNS, not a local RFC4193
		// network (whose fd00::/8 half stays allowed), as in Core.
		if err == nil && cfg.CJDNSReachable && cjdnsPrefix.Overlaps(p) && p.Bits() >= cjdnsPrefix.Bits() {
			err = errors.New("CJDNS subnet")
		}
		if err != nil {
			return invalidf("--rpcallowip: Invalid -rpcallowip subnet specification: %s. Valid values are a single IP (e.g. 1.2.3.4), a network/netmask (e.g. 1.2.3.4/255.255.255.0), a network/CIDR (e.g. 1.2.3.4/24), all ipv4 (0.0.0.0/0), or all ipv6 (::/0). RFC4193 is allowed only if -cjdnsreachable=0.", a)
		}
		cfg.rpcAllowIPs = append(cfg.rpcAllowIPs, p)
	}
	if cfg.RPCServerTimeout < 0 {
		return invalidf("--rpcservertimeout: must not be negative, got %d", cfg.RPCServerTimeout)
	}
	if cfg.RPCMaxClients < 0 {
		return invalidf("--rpcmaxclients: must not be negative, got %d", cfg.RPCMaxClients)
	}
	cfg.rpcWhitelistDefault = nil
	if v := cfg.RPCWhitelistDefault; v != "" {
		var on bool
		switch strings.ToLower(v) {
		case "1", "true", "yes":
			on = true
		case "0", "false", "no":
		default:
			return invalidf("--rpcwhitelistdefault: must be 0 or 1, got %q", v)
		}
		cfg.rpcWhitelistDefault = &on
	}
	cfg.rpcCookiePerms = 0
	if v := cfg.RPCCookiePerms; v != "" {
		perms := map[string]os.FileMode{"owner": 0o600, "group": 0o640, "all": 0o644}
		m, ok := perms[v]
		if !ok {
			return invalidf("--rpccookieperms: Invalid -rpccookieperms=%s; must be one of 'owner', 'group', or 'all'.", v)
		}
		cfg.rpcCookiePerms = m
	}
	if cfg.RPCTLS && cfg.DisableTLS {
		return conflictf("--rpctls: cannot be used with --notls")
	}
	if cfg.RPCTLS {
		// btcd keeps its certificate beside its config, where btcctl
		// looks for it.
		cfg.RPCCert, cfg.RPCKey = tlsFile(cfg.RPCCert, cfg.AppData, "rpc.cert"), tlsFile(cfg.RPCKey, cfg.AppData, "rpc.key")
	}
	if cfg.RPCCookieFile != "" {
		cfg.RPCCookieFile = cleanAndExpandPath(cfg.RPCCookieFile)
		if !filepath.IsAbs(cfg.RPCCookieFile) {
			cfg.RPCCookieFile = filepath.Join(cfg.DataDir, cfg.RPCCookieFile)
		}
	}
	// bitcoind ignores -rpcuser without -rpcpassword (the cookie serves)
	// and takes -rpcpassword alone with an empty user name.
	if cfg.Bitcoind.Layout && cfg.RPCPass == "" {
		cfg.RPCUser = ""
	}
	if (cfg.RPCUser == "") != (cfg.RPCPass == "") && !cfg.Bitcoind.Layout {
		if cfg.RPCUser == "" {
			return conflictf("--rpcpass: requires --rpcuser")
		}
		return conflictf("--rpcuser: requires --rpcpass")
	}
	cfg.rpcPort = cfg.params.RPCPort
	if cfg.Bitcoind.RPCPort != "" {
		cfg.rpcPort = cfg.Bitcoind.RPCPort
	}
	var err error
	cfg.RPCListeners, err = normalizeAddresses("--rpclisten", cfg.RPCListeners, cfg.rpcPort, true)
	if err != nil {
		return err
	}
	switch {
	case cfg.DisableRPC && len(cfg.RPCListeners) > 0:
		return conflictf("--rpclisten: can not be used together with --norpc")
	case cfg.DisableRPC:
		cfg.RPCListeners = nil
	case len(cfg.RPCListeners) == 0 && cfg.Bitcoind.Layout:
		// The RPC server's default: 127.0.0.1 and [::1].
	case len(cfg.RPCListeners) == 0:
		cfg.RPCListeners = []string{net.JoinHostPort("127.0.0.1", cfg.rpcPort)}
	}
	return nil
}

// validateChain checks the chain, cache and index options.
func (cfg *Config) validateChain() error {
	switch cfg.AssumeValid {
	case "":
		cfg.assumeValidMode = assumeValidDefault
	case "0":
		cfg.assumeValidMode = assumeValidOff
	default:
		h, err := parseDisplayHash(cfg.AssumeValid)
		if err != nil {
			return invalidf("--assumevalid: %q is not 0 or a 64-digit block hash", cfg.AssumeValid)
		}
		cfg.assumeValid = h
		cfg.assumeValidMode = assumeValidHash
	}

	cfg.minChainWork = nil
	if cfg.MinimumChainWork != "" {
		h := strings.TrimPrefix(strings.TrimPrefix(cfg.MinimumChainWork, "0x"), "0X")
		w, ok := new(big.Int).SetString(h, 16)
		if !ok || h == "" || len(h) > 64 || w.Sign() < 0 {
			return invalidf("--minimumchainwork: Invalid minimum work specified (%s), must be up to 64 hex digits", cfg.MinimumChainWork)
		}
		cfg.minChainWork = w
	}

	ncpu := runtime.NumCPU()
	switch {
	case cfg.Par > maxScriptThreads:
		return invalidf("--par: at most %d threads, got %d", maxScriptThreads, cfg.Par)
	case cfg.Par > 0:
		cfg.scriptThreads = cfg.Par
	case cfg.Par == 0:
		cfg.scriptThreads = ncpu
	default:
		cfg.scriptThreads = max(1, ncpu+cfg.Par)
	}

	if cfg.Prune != 0 {
		if cfg.Prune != PruneManual && cfg.Prune < minPruneMiB {
			return invalidf("--prune: minimum is %d MiB (0 disables, 1 prunes by RPC only), got %d", minPruneMiB, cfg.Prune)
		}
		if cfg.TxIndex {
			return conflictf("--prune: can not be used together with --txindex")
		}
	}

	if cfg.FastPrune && !cfg.RegressionTest {
		return conflictf("--fastprune: only allowed with --regtest")
	}
	if cfg.AcceptStaleFeeEstimates && !cfg.RegressionTest && !cfg.Bitcoind.Layout {
		// The bitcoind front end refuses it once the log is open, as
		// bitcoind does (Run).
		return conflictf("--acceptstalefeeestimates: only allowed with --regtest")
	}
	if cfg.MaxTipAge <= 0 {
		return invalidf("--maxtipage: must be positive, got %d", cfg.MaxTipAge)
	}
	for _, o := range cfg.TestOptions {
		if o != "addrman" {
			return invalidf("--test: Unrecognised option \"%s\" provided in -test=<option>.", o)
		}
		if !cfg.RegressionTest {
			return conflictf("--test: -test=<option> can only be used with regtest")
		}
		cfg.deterministicAddrMan = true
	}
	if cfg.CheckAddrMan < 0 {
		return invalidf("--checkaddrman: must not be negative, got %d", cfg.CheckAddrMan)
	}
	// As bitcoind, an out-of-range level is clamped rather than refused.
	cfg.CheckLevel = min(max(cfg.CheckLevel, 0), 4)
	if cfg.StopAtHeight < 0 {
		return invalidf("--stopatheight: must not be negative, got %d", cfg.StopAtHeight)
	}
	if cfg.PidFile != "" {
		cfg.PidFile = cleanAndExpandPath(cfg.PidFile)
		if !filepath.IsAbs(cfg.PidFile) {
			cfg.PidFile = filepath.Join(cfg.DataDir, cfg.PidFile)
		}
	}
	for i, f := range cfg.LoadBlocks {
		f = cleanAndExpandPath(f)
		st, err := os.Stat(f)
		if err != nil {
			return invalidf("--loadblock: %v", err)
		}
		if st.IsDir() {
			return invalidf("--loadblock: %s is a directory", f)
		}
		cfg.LoadBlocks[i] = f
	}
	return nil
}

// minBlockReservedWeight is the least weight the block assembler may keep
// for the header and coinbase (Core's MINIMUM_BLOCK_RESERVED_WEIGHT).
const minBlockReservedWeight = 2000

// validateMempool checks the mempool, relay policy and block assembly
// options.
func (cfg *Config) validateMempool() error {
	fee := cfg.MinRelayTxFee
	if math.IsNaN(fee) || math.IsInf(fee, 0) || fee < 0 || fee > 21e6 {
		return invalidf("--minrelaytxfee: %v is not a fee rate in BTC/kvB", fee)
	}
	cfg.minRelayTxFeeSat = int64(math.Round(fee * 1e8))
	for _, f := range []struct {
		opt string
		btc float64
		sat *int64
	}{
		{"--incrementalrelayfee", cfg.IncrementalRelayFee, &cfg.incrementalRelayFeeSat},
		{"--dustrelayfee", cfg.DustRelayFee, &cfg.dustRelayFeeSat},
		{"--blockmintxfee", cfg.BlockMinTxFee, &cfg.blockMinTxFeeSat},
	} {
		if math.IsNaN(f.btc) || math.IsInf(f.btc, 0) || f.btc < 0 || f.btc > 21e6 {
			return invalidf("%s: %v is not a fee rate in BTC/kvB", f.opt, f.btc)
		}
		*f.sat = int64(math.Round(f.btc * 1e8))
	}
	// Core's init checks of the block assembler's limits.
	if cfg.BlockMaxWeight > wire.MaxBlockWeight || cfg.BlockMaxWeight < 0 {
		return invalidf("--blockmaxweight: Specified -blockmaxweight (%d) exceeds consensus maximum block weight (%d)", cfg.BlockMaxWeight, wire.MaxBlockWeight)
	}
	if cfg.BlockReservedWeight > wire.MaxBlockWeight {
		return invalidf("--blockreservedweight: Specified -blockreservedweight (%d) exceeds consensus maximum block weight (%d)", cfg.BlockReservedWeight, wire.MaxBlockWeight)
	}
	if cfg.BlockReservedWeight < minBlockReservedWeight {
		return invalidf("--blockreservedweight: Specified -blockreservedweight (%d) is lower than minimum safety value of (%d)", cfg.BlockReservedWeight, minBlockReservedWeight)
	}
	if cfg.BytesPerSigOp < 0 {
		return invalidf("--bytespersigop: must not be negative, got %d", cfg.BytesPerSigOp)
	}
	for _, l := range []struct {
		opt string
		v   int
	}{
		{"--limitancestorcount", cfg.LimitAncestorCount},
		{"--limitancestorsize", cfg.LimitAncestorSizeKvB},
		{"--limitdescendantcount", cfg.LimitDescendantCount},
		{"--limitdescendantsize", cfg.LimitDescendantSizeKvB},
	} {
		if l.v < 0 {
			return invalidf("%s: must not be negative, got %d", l.opt, l.v)
		}
	}
	if cfg.RelayNonStd && cfg.netName == "mainnet" {
		return conflictf("--relaynonstd: acceptnonstdtxn is not currently supported for main chain")
	}
	if cfg.MaxMempool < minMaxMempoolMB {
		return invalidf("--maxmempool: must be at least %d MB, got %d", minMaxMempoolMB, cfg.MaxMempool)
	}
	if cfg.MempoolExpiry < 1 {
		return invalidf("--mempoolexpiry: must be at least 1 hour, got %d", cfg.MempoolExpiry)
	}
	if cfg.MempoolExpiry > math.MaxInt64/uint64(time.Hour) {
		return invalidf("--mempoolexpiry: %d hours is too large", cfg.MempoolExpiry)
	}
	return nil
}

// validateNotify checks the index, ZMQ and metrics options. ZMQ addresses
// are not checked here: as in bitcoind, a bad one is logged at start-up
// and its publisher left out.
func (cfg *Config) validateNotify() error {
	if cfg.PeerBlockFilters && !cfg.BlockFilterIndex {
		return conflictf("--peerblockfilters: requires --blockfilterindex")
	}
	zc := cfg.zmqConfig()
	for _, o := range []struct {
		name string
		hwm  int
	}{
		{"zmqpubhashblock", zc.PubHashBlockHWM},
		{"zmqpubhashtx", zc.PubHashTxHWM},
		{"zmqpubrawblock", zc.PubRawBlockHWM},
		{"zmqpubrawtx", zc.PubRawTxHWM},
		{"zmqpubsequence", zc.PubSequenceHWM},
	} {
		if o.hwm < 0 {
			return invalidf("--%shwm: must not be negative, got %d", o.name, o.hwm)
		}
	}
	if cfg.Metrics != "" {
		addr, err := metrics.NormalizeAddr(cfg.Metrics)
		if err != nil {
			return invalidf("--metrics: %v", err)
		}
		cfg.metricsAddr = addr
	}
	return nil
}

// zmqConfig returns the ZMQ publisher options in the zmq package's shape.
func (cfg *Config) zmqConfig() zmq.Config {
	return zmq.Config{
		PubHashBlock:    cfg.ZMQPubHashBlock,
		PubHashTx:       cfg.ZMQPubHashTx,
		PubRawBlock:     cfg.ZMQPubRawBlock,
		PubRawTx:        cfg.ZMQPubRawTx,
		PubSequence:     cfg.ZMQPubSequence,
		PubHashBlockHWM: cfg.ZMQPubHashBlockHWM,
		PubHashTxHWM:    cfg.ZMQPubHashTxHWM,
		PubRawBlockHWM:  cfg.ZMQPubRawBlockHWM,
		PubRawTxHWM:     cfg.ZMQPubRawTxHWM,
		PubSequenceHWM:  cfg.ZMQPubSequenceHWM,
	}
}

// normalizeAddresses adds defaultPort to addresses without one, checks the
// port and drops duplicates. An empty host (":8333", meaning all
// interfaces) is only allowed when listening.
func normalizeAddresses(opt string, addrs []string, defaultPort string, listen bool) ([]string, error) {
	if len(addrs) == 0 {
		return addrs, nil
	}
	seen := make(map[string]struct{}, len(addrs))
	out := addrs[:0:0]
	for _, a := range addrs {
		n, err := normalizeAddress(opt, a, defaultPort, listen)
		if err != nil {
			return nil, err
		}
		if _, dup := seen[n]; dup {
			continue
		}
		seen[n] = struct{}{}
		out = append(out, n)
	}
	return out, nil
}

func normalizeAddress(opt, addr, defaultPort string, listen bool) (string, error) {
	a := strings.TrimSpace(addr)
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		// No port: a bare host name, IPv4, IPv6 or [IPv6].
		host, port = a, defaultPort
		if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") {
			host = a[1 : len(a)-1]
		}
		if strings.ContainsAny(host, "[]") || (strings.Contains(host, ":") && net.ParseIP(host) == nil) {
			return "", invalidf("%s: %q is not a valid address", opt, addr)
		}
	}
	if host == "" && !listen {
		return "", invalidf("%s: %q has no host", opt, addr)
	}
	if strings.ContainsAny(host, " /\\") {
		return "", invalidf("%s: %q is not a valid address", opt, addr)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || (p == 0 && !listen) {
		return "", invalidf("%s: %q has an invalid port", opt, addr)
	}
	return net.JoinHostPort(host, strconv.FormatUint(p, 10)), nil
}

// normalizeProfileAddr turns a --profile value into a listen address: a bare
// port or ":port" is served on 127.0.0.1 so profiling data is never exposed
// by accident; host:port is used as given.
func normalizeProfileAddr(s string) (string, error) {
	host, port := "127.0.0.1", s
	if strings.Contains(s, ":") {
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return "", invalidf("--profile: %q is not a port or host:port", s)
		}
		port = p
		if h != "" {
			host = h
		}
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return "", invalidf("--profile: %q has an invalid port (want 1-65535)", s)
	}
	return net.JoinHostPort(host, strconv.FormatUint(p, 10)), nil
}

// parseDisplayHash parses a block hash in the reversed hex form Bitcoin
// displays. Unlike wire.NewHashFromStr it insists on all 64 digits: a
// shortened hash on the command line is a typo, not a small number.
func parseDisplayHash(s string) (wire.Hash, error) {
	if len(s) != 2*wire.HashSize {
		return wire.Hash{}, hex.ErrLength
	}
	return wire.NewHashFromStr(s)
}

// maxSubversionLength is the longest user agent peers accept (Core's
// MAX_SUBVERSION_LENGTH).
const maxSubversionLength = 256

// safeUAChars are the characters a user agent comment may hold (BIP14;
// Core's SAFE_CHARS_UA_COMMENT).
const safeUAChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,;-_?@"

// checkUAComments refuses comments that would be mangled in the user agent
// and a user agent longer than peers accept, with Core's messages.
func checkUAComments(comments []string) error {
	for _, c := range comments {
		for _, r := range c {
			if !strings.ContainsRune(safeUAChars, r) {
				return invalidf("--uacomment: User Agent comment (%s) contains unsafe characters.", c)
			}
		}
	}
	if n := len(userAgent(comments)); n > maxSubversionLength {
		return invalidf("--uacomment: Total length of network version string (%d) exceeds maximum length (%d). Reduce the number or size of uacomments.", n, maxSubversionLength)
	}
	return nil
}

// parseByteUnits parses a size as bitcoind's -maxuploadtarget: a number
// with an optional unit, k/m/g/t in powers of 1000 and K/M/G/T in powers
// of 1024; a bare number is in MiB.
func parseByteUnits(s string) (uint64, error) {
	if s == "" {
		return 0, errors.New("empty size")
	}
	mult := uint64(1 << 20)
	if last := s[len(s)-1]; last < '0' || last > '9' {
		switch last {
		case 'k':
			mult = 1e3
		case 'm':
			mult = 1e6
		case 'g':
			mult = 1e9
		case 't':
			mult = 1e12
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		default:
			return 0, errors.New("unknown unit")
		}
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > math.MaxUint64/mult {
		return 0, errors.New("size overflows")
	}
	return n * mult, nil
}

// parseAllowIP parses an --rpcallowip subnet: an IP, IP/prefix length or
// IP/netmask.
func parseAllowIP(s string) (netip.Prefix, error) {
	addr, mask, hasMask := strings.Cut(s, "/")
	// As bitcoind's host lookup, an IPv6 address may come in brackets.
	if len(addr) > 2 && addr[0] == '[' && addr[len(addr)-1] == ']' {
		addr = addr[1 : len(addr)-1]
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return netip.Prefix{}, err
	}
	ip = ip.Unmap()
	if !hasMask {
		return netip.PrefixFrom(ip, ip.BitLen()), nil
	}
	if bits, err := strconv.Atoi(mask); err == nil {
		p, err := ip.Prefix(bits)
		if err != nil {
			return netip.Prefix{}, err
		}
		return p, nil
	}
	m, err := netip.ParseAddr(mask)
	if err != nil || m.Unmap().BitLen() != ip.BitLen() {
		return netip.Prefix{}, errors.New("bad netmask")
	}
	b := m.Unmap().AsSlice()
	ones, zero := 0, false
	for _, x := range b {
		for i := 7; i >= 0; i-- {
			if x&(1<<i) != 0 {
				if zero {
					return netip.Prefix{}, errors.New("netmask is not contiguous")
				}
				ones++
			} else {
				zero = true
			}
		}
	}
	return ip.Prefix(ones)
}
