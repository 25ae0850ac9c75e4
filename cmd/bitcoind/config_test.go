package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/node"
)

// build runs the front end's loading and mapping on argv with a data
// directory holding conf as bitcoin.conf.
func build(t *testing.T, conf string, argv ...string) (*node.Config, error) {
	t.Helper()
	dir := t.TempDir()
	if conf != "" {
		if err := os.WriteFile(filepath.Join(dir, "bitcoin.conf"), []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, datadir, confPath, err := loadSettings(append([]string{"-datadir=" + dir}, argv...))
	if err != nil {
		return nil, err
	}
	return buildConfig(a, datadir, confPath)
}

func mustBuild(t *testing.T, conf string, argv ...string) *node.Config {
	t.Helper()
	cfg, err := build(t, conf, argv...)
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("%v: Validate: %v", argv, err)
	}
	return cfg
}

// frameworkConf is what Core's test framework writes for node 0.
const frameworkConf = `regtest=1
[regtest]
port=12000
rpcport=12001
rpcservertimeout=99000
rpcdoccheck=1
fallbackfee=0.0002
server=1
keypool=1
discover=0
dnsseed=0
fixedseeds=0
listenonion=0
peertimeout=999999999
printtoconsole=0
natpmp=0
shrinkdebugfile=0
unsafesqlitesync=1
connect=0
maxconnections=94
`

// frameworkArgs is the command line Core's test framework passes.
var frameworkArgs = []string{"-logtimemicros", "-debug", "-debugexclude=libevent", "-debugexclude=leveldb",
	"-debugexclude=rand", "-uacomment=testnode0", "-disablewallet", "-logthreadnames", "-logsourcelocations",
	"-loglevel=trace", "-v2transport=0", "-bind=0.0.0.0:12000", "-bind=127.0.0.1:12002=onion"}

func TestFrameworkCommandLine(t *testing.T) {
	cfg := mustBuild(t, frameworkConf, frameworkArgs...)
	if !cfg.RegressionTest || !cfg.Bitcoind.Layout {
		t.Fatal("not regtest with bitcoind's layout")
	}
	if filepath.Base(cfg.DataDir) != "regtest" {
		t.Errorf("data dir %s, want DIR/regtest", cfg.DataDir)
	}
	if !cfg.NoConnect || len(cfg.ConnectPeers) != 0 {
		t.Errorf("connect=0: NoConnect %v peers %v", cfg.NoConnect, cfg.ConnectPeers)
	}
	if cfg.DisableListen || !reflect.DeepEqual(cfg.Listeners, []string{"0.0.0.0:12000", "127.0.0.1:12002"}) {
		t.Errorf("listeners %v (disabled %v)", cfg.Listeners, cfg.DisableListen)
	}
	if cfg.MaxPeers != 94 || cfg.PeerTimeout != 999999999 || !cfg.DisableDNSSeed || !cfg.NoFixedSeeds || !cfg.NoDiscover {
		t.Errorf("connection options: %+v", cfg.P2POptions)
	}
	if cfg.Bitcoind.RPCPort != "12001" || cfg.Bitcoind.P2PPort != "12000" {
		t.Errorf("ports %q %q", cfg.Bitcoind.RPCPort, cfg.Bitcoind.P2PPort)
	}
	if !cfg.Bitcoind.NoConsole {
		t.Error("printtoconsole=0 ignored")
	}
	if !reflect.DeepEqual(cfg.UAComments, []string{"testnode0"}) {
		t.Errorf("uacomment %v", cfg.UAComments)
	}
	if !strings.Contains(cfg.DebugLevel, "PEER=trace") || strings.Contains(cfg.DebugLevel, "DB=") {
		t.Errorf("debug level %q: want trace for -debug, DB excluded with leveldb", cfg.DebugLevel)
	}
	if !cfg.PersistMempool {
		t.Error("persistmempool defaults to on under bitcoind")
	}
}

// -proxyrandomize is on by default.
func TestProxyRandomize(t *testing.T) {
	if cfg := mustBuild(t, "", "-regtest"); cfg.NoProxyRandomize {
		t.Error("proxy credentials not randomized by default")
	}
	if cfg := mustBuild(t, "", "-regtest", "-proxyrandomize=0"); !cfg.NoProxyRandomize {
		t.Error("-proxyrandomize=0 ignored")
	}
}

// -proxy values apply in order: ADDR=NET for one network, a plain one
// for all (dropping the per-network ones before it); -noonion and
// -onion=0 forbid onion; -listenonion defaults on as in bitcoind.
func TestProxyOptions(t *testing.T) {
	cfg := mustBuild(t, "", "-regtest", "-proxy=127.1.1.1:1111", "-proxy=127.2.2.2:2222=tor", "-proxy=0=cjdns")
	if cfg.Proxy != "127.1.1.1:1111" || !slices.Equal(cfg.NetProxies, []string{"127.2.2.2:2222=tor", "0=cjdns"}) {
		t.Errorf("proxy %q, per network %q", cfg.Proxy, cfg.NetProxies)
	}
	if !cfg.DisableListen || !cfg.NoDiscover {
		t.Error("-proxy did not turn off listening and discovery")
	}
	cfg = mustBuild(t, "", "-regtest", "-proxy=127.4.4.4:4444=ipv4", "-proxy=127.1.1.1:1111")
	if cfg.Proxy != "127.1.1.1:1111" || len(cfg.NetProxies) != 0 {
		t.Errorf("a plain -proxy after ADDR=NET: proxy %q, per network %q", cfg.Proxy, cfg.NetProxies)
	}
	if cfg := mustBuild(t, "", "-regtest", "-proxy=127.6.6.6:6666=ipv6"); cfg.Proxy != "" || len(cfg.NetProxies) != 1 || !cfg.DisableListen {
		t.Errorf("-proxy=ADDR=ipv6: proxy %q, per network %q, listen %v", cfg.Proxy, cfg.NetProxies, !cfg.DisableListen)
	}
	for _, arg := range []string{"-noonion", "-onion=0"} {
		if cfg := mustBuild(t, "", "-regtest", "-proxy=127.0.0.1", arg); !cfg.NoOnion || cfg.OnionProxy != "" {
			t.Errorf("%s: noonion %v, onion %q", arg, cfg.NoOnion, cfg.OnionProxy)
		}
	}
}

// -listenonion is on by default for a listening node, and its service
// forwards to the onion bind: 127.0.0.1 at -port + 1 by default, or the
// first -bind=...=onion. Not listening turns it off, as in bitcoind.
func TestListenOnionOptions(t *testing.T) {
	cfg := mustBuild(t, "", "-regtest", "-port=12000")
	if !cfg.ListenOnion || cfg.OnionBind != "127.0.0.1:12001" || cfg.TorControl != "127.0.0.1:9051" {
		t.Errorf("defaults: listenonion %v, onion bind %q, torcontrol %q", cfg.ListenOnion, cfg.OnionBind, cfg.TorControl)
	}
	cfg = mustBuild(t, "", "-regtest", "-bind=127.0.0.1:12005=onion", "-bind=0.0.0.0:12000", "-torcontrol=127.0.0.1:9999", "-torpassword=pw")
	if cfg.OnionBind != "127.0.0.1:12005" || cfg.TorControl != "127.0.0.1:9999" || cfg.TorPassword != "pw" {
		t.Errorf("onion bind %q, torcontrol %q, torpassword %q", cfg.OnionBind, cfg.TorControl, cfg.TorPassword)
	}
	cfg = mustBuild(t, "", "-regtest", "-listen=0")
	if cfg.ListenOnion || !slices.Contains(cfg.Bitcoind.StartupLog, "parameter interaction: -listen=0 -> setting -listenonion=0") {
		t.Errorf("-listen=0: listenonion %v, log %q", cfg.ListenOnion, cfg.Bitcoind.StartupLog)
	}
	if cfg := mustBuild(t, "", "-regtest", "-listenonion=0"); cfg.ListenOnion {
		t.Error("-listenonion=0 ignored")
	}
}

// -maxsendbuffer (thousands of bytes), -timeout (milliseconds) and
// -blockreconstructionextratxn reach the node; a -timeout below 1 ms
// keeps the default.
func TestConnectionLimitOptions(t *testing.T) {
	cfg := mustBuild(t, "", "-regtest", "-maxsendbuffer=2000", "-timeout=1500")
	if cfg.MaxSendBuffer != 2000 || cfg.ConnectTimeout != 1500*time.Millisecond {
		t.Errorf("maxsendbuffer %d, connect timeout %v", cfg.MaxSendBuffer, cfg.ConnectTimeout)
	}
	cfg = mustBuild(t, "", "-regtest", "-maxsendbuffer=0", "-timeout=0")
	if cfg.MaxSendBuffer != 1 || cfg.ConnectTimeout != 0 {
		t.Errorf("zeros: maxsendbuffer %d, connect timeout %v", cfg.MaxSendBuffer, cfg.ConnectTimeout)
	}
	if cfg := mustBuild(t, "", "-regtest", "-maxorphantx=7"); cfg.MaxOrphanTx != 7 {
		t.Errorf("-maxorphantx: %d", cfg.MaxOrphanTx)
	}
	if cfg := mustBuild(t, "", "-regtest", "-maxorphantx=-5"); cfg.MaxOrphanTx != 0 {
		t.Errorf("-maxorphantx=-5: %d, want 0 as bitcoind", cfg.MaxOrphanTx)
	}
	if cfg := mustBuild(t, "", "-regtest", "-blockreconstructionextratxn=7"); cfg.BlockReconstructionExtraTxn != 7 {
		t.Errorf("-blockreconstructionextratxn: %d", cfg.BlockReconstructionExtraTxn)
	}
	if cfg := mustBuild(t, "", "-regtest"); cfg.MaxSendBuffer != 0 || cfg.ConnectTimeout != 0 || cfg.BlockReconstructionExtraTxn != 100 {
		t.Errorf("defaults: maxsendbuffer %d, connect timeout %v", cfg.MaxSendBuffer, cfg.ConnectTimeout)
	}
}

// -dns=0 reaches the node as --nodns.
func TestDNSOption(t *testing.T) {
	if cfg := mustBuild(t, "", "-regtest", "-dns=0"); !cfg.NoDNS {
		t.Error("-dns=0 ignored")
	}
	if cfg := mustBuild(t, "", "-regtest"); cfg.NoDNS {
		t.Error("lookups off by default")
	}
}

// bitcoind 29 dropped UPnP: -upnp stands in for an unset -natpmp, with
// a warning in the log; -listenonion=1 with -listen=0 is refused.
func TestUPnPAndListenOnion(t *testing.T) {
	cfg := mustBuild(t, "", "-regtest", "-upnp=1")
	if !cfg.NatPMP || !slices.Contains(cfg.Bitcoind.StartupLog, "Warning: Option '-upnp=1' is given but UPnP support was dropped in version 29.0. Substituting '-natpmp=1'.") {
		t.Errorf("-upnp=1: natpmp %v, log %q", cfg.NatPMP, cfg.Bitcoind.StartupLog)
	}
	cfg = mustBuild(t, "", "-regtest", "-upnp=1", "-natpmp=0")
	if cfg.NatPMP || !slices.Contains(cfg.Bitcoind.StartupLog, "Warning: Option '-upnp=1' is given but UPnP support was dropped in version 29.0.") {
		t.Errorf("-upnp=1 -natpmp=0: natpmp %v, log %q", cfg.NatPMP, cfg.Bitcoind.StartupLog)
	}
	if _, err := build(t, "", "-regtest", "-listen=0", "-listenonion=1"); err == nil || err.Error() != "Cannot set -listen=0 together with -listenonion=1" {
		t.Errorf("-listen=0 -listenonion=1: %v", err)
	}
}

// -natpmp reaches the node; it is off by default.
func TestNatPMPOption(t *testing.T) {
	if cfg := mustBuild(t, "", "-regtest", "-natpmp"); !cfg.NatPMP {
		t.Error("-natpmp ignored")
	}
	if cfg := mustBuild(t, "", "-regtest"); cfg.NatPMP {
		t.Error("-natpmp on by default")
	}
}

// -signetseednode reaches the node on signet only.
func TestSignetSeedNodeOption(t *testing.T) {
	if cfg := mustBuild(t, "", "-signet", "-signetseednode=a.example", "-signetseednode=b.example:1"); !slices.Equal(cfg.SignetSeedNodes, []string{"a.example", "b.example:1"}) {
		t.Errorf("signet seeds %q", cfg.SignetSeedNodes)
	}
	if cfg := mustBuild(t, "", "-regtest", "-signetseednode=a.example"); len(cfg.SignetSeedNodes) != 0 {
		t.Errorf("regtest kept signet seeds %q", cfg.SignetSeedNodes)
	}
}

// TestPersistMempoolV1: -persistmempoolv1 selects Core's version 1
// mempool.dat, on the command line and in bitcoin.conf; it is off by
// default.
func TestPersistMempoolV1(t *testing.T) {
	if cfg := mustBuild(t, "", "-regtest"); cfg.PersistMempoolV1 {
		t.Error("persistmempoolv1 on by default")
	}
	if cfg := mustBuild(t, "", "-regtest", "-persistmempoolv1"); !cfg.PersistMempoolV1 {
		t.Error("-persistmempoolv1 ignored")
	}
	if cfg := mustBuild(t, "regtest=1\n[regtest]\npersistmempoolv1=1\n"); !cfg.PersistMempoolV1 {
		t.Error("persistmempoolv1=1 in bitcoin.conf ignored")
	}
	if cfg := mustBuild(t, "", "-regtest", "-persistmempoolv1=0"); cfg.PersistMempoolV1 {
		t.Error("-persistmempoolv1=0 turned it on")
	}
}

func TestUnsupportedOptions(t *testing.T) {
	for _, argv := range [][]string{
		{"-regtest", "-natpmp=0"},
		{"-regtest", "-nolistenonion"},
		{"-regtest", "-blocksxor=0"},
		{"-regtest", "-i2psam=127.0.0.1:7656", "-i2pacceptincoming=0"},
		{"-regtest", "-wallet=w1", "-fallbackfee=0.1"}, // wallet options, as a build without one
	} {
		if _, err := build(t, "", argv...); err != nil {
			t.Errorf("%v refused: %v", argv, err)
		}
	}
	for argv, want := range map[string]string{
		"-ipcbind=unix": "Invalid parameter -ipcbind=unix: not supported by this node",
	} {
		_, err := build(t, "", "-regtest", argv)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", argv, err, want)
		}
	}
	// In the config file too.
	if _, err := build(t, "regtest=1\n[regtest]\nipcbind=unix\n"); err == nil || !strings.Contains(err.Error(), "-ipcbind") {
		t.Errorf("ipcbind=unix in bitcoin.conf: %v", err)
	}
}

func TestStartupErrors(t *testing.T) {
	for _, c := range []struct {
		conf string
		argv []string
		want string
	}{
		{"", []string{"-regtest", "-fakearg"}, "Error parsing command line arguments: Invalid parameter -fakearg"},
		{"regtest=1\nport=5\n", nil, "Config setting for -port only applied on regtest network when in [regtest] section."},
		{"garbage\n", nil, "Error reading configuration file: parse error on line 1: garbage"},
		{"", []string{"-acceptnonstdtxn"}, "acceptnonstdtxn is not currently supported for main chain"},
		{"", []string{"-regtest", "-prune=100"}, "Prune configured below the minimum of 550 MiB.  Please use a higher number."},
		{"", []string{"-regtest", "-prune=550", "-txindex"}, "Prune mode is incompatible with -txindex."},
		{"", []string{"-regtest", "-debug=nosuch"}, "Unsupported logging category -debug=nosuch."},
		{"", []string{"-regtest", "-blocksdir=/nonexistent/dir"}, "Specified blocks directory \"/nonexistent/dir\" does not exist."},
	} {
		_, err := build(t, c.conf, c.argv...)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q %v: %v, want %q", c.conf, c.argv, err, c.want)
		}
	}
	if _, _, _, err := loadSettings([]string{"-datadir=/nonexistent/dir"}); err == nil ||
		err.Error() != `Specified data directory "/nonexistent/dir" does not exist.` {
		t.Errorf("missing datadir: %v", err)
	}
}

func TestDefaultAndOnionBinds(t *testing.T) {
	cfg := mustBuild(t, "", "-regtest", "-port=12000")
	if !reflect.DeepEqual(cfg.Listeners, []string{":12000", "127.0.0.1:12001"}) {
		t.Errorf("default binds %v, want every address at -port and 127.0.0.1 at -port+1", cfg.Listeners)
	}
	cfg = mustBuild(t, "", "-regtest", "-port=12000", "-bind=127.0.0.1=onion", "-bind=0.0.0.0")
	if !reflect.DeepEqual(cfg.Listeners, []string{"127.0.0.1:12001", "0.0.0.0:12000"}) {
		t.Errorf("binds without ports %v", cfg.Listeners)
	}
}

func TestParameterInteractions(t *testing.T) {
	cfg := mustBuild(t, "", "-regtest", "-connect=127.0.0.1:1")
	if !cfg.DisableListen || !cfg.DisableDNSSeed {
		t.Errorf("-connect should turn listening and DNS seeding off: listen off %v, dnsseed off %v", cfg.DisableListen, cfg.DisableDNSSeed)
	}
	cfg = mustBuild(t, "", "-regtest", "-connect=127.0.0.1:1", "-bind=127.0.0.1:0")
	if cfg.DisableListen {
		t.Error("-bind should keep listening on with -connect")
	}
	cfg = mustBuild(t, "", "-regtest", "-blocksonly")
	if cfg.MaxMempool != 5 || !cfg.NoWhitelistRelay {
		t.Errorf("-blocksonly: maxmempool %d, whitelistrelay off %v", cfg.MaxMempool, cfg.NoWhitelistRelay)
	}
	cfg = mustBuild(t, "", "-regtest", "-prune=1")
	if cfg.Prune != node.PruneManual {
		t.Errorf("-prune=1: %d", cfg.Prune)
	}
	cfg = mustBuild(t, "", "-regtest", "-blockfilterindex=basic", "-peerblockfilters")
	if !cfg.BlockFilterIndex || !cfg.PeerBlockFilters {
		t.Error("block filter options not applied")
	}
}

func TestHelpListsSupportedOptions(t *testing.T) {
	h := helpText(false)
	for _, want := range []string{"Options:", "-datadir=<dir>", "-rpcport=<port>", "-zmqpubrawtx=<address>", "Not supported"} {
		if !strings.Contains(h, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if strings.Contains(h, "  -fastprune\n") {
		t.Error("-help lists a debug option; only -help-debug should")
	}
	if !strings.Contains(helpText(true), "  -fastprune\n") {
		t.Error("-help-debug lacks -fastprune")
	}
}

// TestRPCBindNeedsAllowIP pins bitcoind's pairing of -rpcbind and
// -rpcallowip: only both together move the RPC server off loopback;
// either alone keeps the loopback listeners and warns.
func TestRPCBindNeedsAllowIP(t *testing.T) {
	for _, c := range []struct {
		args  []string
		binds []string
		warn  string
	}{
		{[]string{"-regtest", "-rpcallowip=127.0.0.1"}, nil, "-rpcallowip was specified without -rpcbind"},
		{[]string{"-regtest", "-rpcbind=0.0.0.0"}, nil, "-rpcbind was ignored because -rpcallowip was not specified"},
		{[]string{"-regtest", "-rpcallowip=10.0.0.0/8", "-rpcbind=10.1.2.3:9000"}, []string{"10.1.2.3:9000"}, ""},
	} {
		cfg := mustBuild(t, "", c.args...)
		if !reflect.DeepEqual(cfg.RPCListeners, c.binds) {
			t.Errorf("%v: listeners %v, want %v", c.args, cfg.RPCListeners, c.binds)
		}
		log := strings.Join(cfg.Bitcoind.StartupLog, "\n")
		if c.warn != "" && !strings.Contains(log, c.warn) {
			t.Errorf("%v: no warning %q in %q", c.args, c.warn, log)
		}
	}
}

// -i2psam is accepted and handed to the node, which reports it as the
// i2p network's proxy.
func TestI2PSAMOption(t *testing.T) {
	cfg := mustBuild(t, frameworkConf, "-proxy=127.0.0.1:9050", "-i2psam=127.0.0.1:7656")
	if cfg.I2PSAM != "127.0.0.1:7656" || cfg.Proxy != "127.0.0.1:9050" {
		t.Errorf("i2psam %q proxy %q", cfg.I2PSAM, cfg.Proxy)
	}
	if cfg := mustBuild(t, frameworkConf, "-i2psam=127.0.0.1:7656", "-noi2psam"); cfg.I2PSAM != "" {
		t.Errorf("-noi2psam left %q", cfg.I2PSAM)
	}
}

// -i2pacceptincoming defaults to 1 and =0 reaches the node as "0".
func TestI2PAcceptIncomingOption(t *testing.T) {
	if cfg := mustBuild(t, "", "-regtest", "-i2psam=127.0.0.1:7656"); cfg.I2PAcceptIncoming != "1" {
		t.Errorf("default %q", cfg.I2PAcceptIncoming)
	}
	if cfg := mustBuild(t, frameworkConf, "-i2psam=127.0.0.1:7656", "-i2pacceptincoming=0"); cfg.I2PAcceptIncoming != "0" {
		t.Errorf("-i2pacceptincoming=0 gave %q", cfg.I2PAcceptIncoming)
	}
	if cfg := mustBuild(t, frameworkConf, "-noi2pacceptincoming"); cfg.I2PAcceptIncoming != "0" {
		t.Errorf("-noi2pacceptincoming gave %q", cfg.I2PAcceptIncoming)
	}
	// -listen=0 turns it off unless it is given.
	if cfg := mustBuild(t, "", "-regtest", "-listen=0", "-i2psam=127.0.0.1:7656"); cfg.I2PAcceptIncoming != "0" {
		t.Errorf("-listen=0 left -i2pacceptincoming %q", cfg.I2PAcceptIncoming)
	}
	if cfg := mustBuild(t, "", "-regtest", "-listen=0", "-i2psam=127.0.0.1:7656", "-i2pacceptincoming=1"); cfg.I2PAcceptIncoming != "1" {
		t.Errorf("-listen=0 overrode an explicit -i2pacceptincoming=1: %q", cfg.I2PAcceptIncoming)
	}
}

// -bind or -whitebind with an explicit -listen=0 is a contradiction
// bitcoind refuses; -connect's implied -listen=0 yields to them instead.
func TestBindWithListenOff(t *testing.T) {
	for _, argv := range [][]string{
		{"-regtest", "-bind=127.0.0.1", "-listen=0"},
		{"-regtest", "-whitebind=noban@127.0.0.1", "-listen=0"},
	} {
		if _, err := build(t, "", argv...); err == nil || err.Error() != "Cannot set -bind or -whitebind together with -listen=0" {
			t.Errorf("%v: %v", argv, err)
		}
	}
	if cfg := mustBuild(t, "", "-regtest", "-bind=127.0.0.1", "-connect=0"); cfg.DisableListen {
		t.Error("-bind with -connect=0 does not listen")
	}
}

// -txreconciliation is off by default, turned on from the command line or
// the network's section, and listed by -help-debug only, as in bitcoind.
func TestTxReconciliationOption(t *testing.T) {
	if mustBuild(t, "", "-regtest").TxReconciliation {
		t.Error("txreconciliation on by default")
	}
	if !mustBuild(t, "", "-regtest", "-txreconciliation").TxReconciliation {
		t.Error("-txreconciliation not applied")
	}
	if !mustBuild(t, "regtest=1\n[regtest]\ntxreconciliation=1\n").TxReconciliation {
		t.Error("txreconciliation=1 in bitcoin.conf not applied")
	}
	if mustBuild(t, "", "-regtest", "-txreconciliation", "-notxreconciliation").TxReconciliation {
		t.Error("-notxreconciliation left it on")
	}
	if strings.Contains(helpText(false), "-txreconciliation") || !strings.Contains(helpText(true), "  -txreconciliation\n") {
		t.Error("-txreconciliation should be listed by -help-debug only")
	}
}
