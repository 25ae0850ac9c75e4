package node

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btclog"

	"github.com/btcnode/btcd/chaincfg"
)

// testArgs isolates a loadConfig call from the real home directory: the
// app data dir (and so the default config file) is a fresh temp dir.
func testArgs(t *testing.T, args ...string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	return dir, append([]string{"--appdata=" + dir}, args...)
}

func mustLoad(t *testing.T, args ...string) *Config {
	t.Helper()
	_, a := testArgs(t, args...)
	cfg, err := loadConfig(a)
	if err != nil {
		t.Fatalf("loadConfig(%q): %v", args, err)
	}
	return cfg
}

func writeConf(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.conf")
	body := "[Application Options]\n" + strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaults(t *testing.T) {
	dir, args := testArgs(t)
	cfg, err := loadConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("netName", cfg.netName, "mainnet")
	check("params.DefaultPort", cfg.params.DefaultPort, "8333")
	check("DataDir", cfg.DataDir, filepath.Join(dir, "data", "mainnet"))
	check("LogDir", cfg.LogDir, filepath.Join(dir, "logs", "mainnet"))
	check("ConfigFile", cfg.ConfigFile, filepath.Join(dir, "btcd.conf"))
	check("Listeners", cfg.Listeners, []string{":8333"})
	check("RPCListeners", cfg.RPCListeners, []string{"127.0.0.1:8332"})
	check("MaxPeers", cfg.MaxPeers, 125)
	check("BanDuration", cfg.BanDuration, 24*time.Hour)
	check("BanThreshold", cfg.BanThreshold, uint32(100))
	check("UtxoCacheMaxSizeMiB", cfg.UtxoCacheMaxSizeMiB, uint64(450))
	check("SigCacheMaxSize", cfg.SigCacheMaxSize, uint(100000))
	check("minRelayTxFeeSat", cfg.minRelayTxFeeSat, int64(1000))
	check("MaxMempool", cfg.MaxMempool, uint64(300))
	check("MempoolExpiry", cfg.MempoolExpiry, uint64(336))
	check("DataCarrierSize", cfg.DataCarrierSize, uint32(100000))
	check("scriptThreads", cfg.scriptThreads, runtime.NumCPU())
	check("assumeValidMode", cfg.assumeValidMode, assumeValidDefault)
	check("global level", cfg.debugLevels.global, btclog.LevelInfo)
	check("DisableListen", cfg.DisableListen, false)
	check("profileAddr", cfg.profileAddr, "")
}

func TestDefaultAppDataDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("layout checked on linux only")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	if got, want := appDataDir("btcd"), filepath.Join(home, ".btcd"); got != want {
		t.Fatalf("appDataDir = %s, want %s", got, want)
	}
	if defaultDataDir != filepath.Join(home, ".btcd", "data") || defaultLogDir != filepath.Join(home, ".btcd", "logs") {
		t.Fatalf("defaults %s %s", defaultDataDir, defaultLogDir)
	}
}

func TestNetworks(t *testing.T) {
	tests := []struct {
		flag, name, port, rpc string
	}{
		{"", "mainnet", "8333", "8332"},
		{"--testnet", "testnet3", "18333", "18332"},
		{"--testnet4", "testnet4", "48333", "48332"},
		{"--signet", "signet", "38333", "38332"},
		{"--regtest", "regtest", "18444", "18443"},
	}
	for _, tc := range tests {
		var args []string
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		cfg := mustLoad(t, append(args, "--datadir=/x")...)
		if cfg.netName != tc.name || cfg.params.DefaultPort != tc.port || cfg.params.RPCPort != tc.rpc {
			t.Errorf("%q: got %s %s %s", tc.flag, cfg.netName, cfg.params.DefaultPort, cfg.params.RPCPort)
		}
		if cfg.DataDir != filepath.Join("/x", tc.name) {
			t.Errorf("%q: DataDir %s", tc.flag, cfg.DataDir)
		}
	}
}

func TestConfigFileAndFlagPrecedence(t *testing.T) {
	conf := writeConf(t,
		"regtest=1",
		"maxpeers=10",
		"debuglevel=debug",
		"connect=10.0.0.1",
		"connect=10.0.0.2:9999",
		"txindex=1",
		"banduration=1h",
	)
	_, args := testArgs(t, "--configfile="+conf, "--maxpeers=20", "--connect=10.0.0.3")
	cfg, err := loadConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.netName != "regtest" {
		t.Errorf("network from file not applied: %s", cfg.netName)
	}
	if cfg.MaxPeers != 20 {
		t.Errorf("MaxPeers = %d, command line should win", cfg.MaxPeers)
	}
	if cfg.DebugLevel != "debug" || cfg.debugLevels.global != btclog.LevelDebug {
		t.Errorf("DebugLevel = %q", cfg.DebugLevel)
	}
	if !slices.Equal(cfg.ConnectPeers, []string{"10.0.0.3:18444"}) {
		t.Errorf("ConnectPeers = %v, command line should replace the file's list", cfg.ConnectPeers)
	}
	if !cfg.TxIndex || cfg.BanDuration != time.Hour {
		t.Errorf("TxIndex %v BanDuration %v", cfg.TxIndex, cfg.BanDuration)
	}
	// --connect without --listen turns listening and DNS seeding off.
	if !cfg.DisableListen || len(cfg.Listeners) != 0 || !cfg.DisableDNSSeed {
		t.Errorf("connect side effects: nolisten=%v listeners=%v nodnsseed=%v",
			cfg.DisableListen, cfg.Listeners, cfg.DisableDNSSeed)
	}

	// Without command-line --connect the file's list stays.
	_, args = testArgs(t, "--configfile="+conf)
	cfg, err = loadConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.ConnectPeers, []string{"10.0.0.1:18444", "10.0.0.2:9999"}) {
		t.Errorf("ConnectPeers = %v", cfg.ConnectPeers)
	}
}

func TestDefaultConfigFileInAppData(t *testing.T) {
	dir, args := testArgs(t, "--maxpeers=7")
	if err := os.WriteFile(filepath.Join(dir, "btcd.conf"), []byte("maxpeers=3\nsignet=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.netName != "signet" || cfg.MaxPeers != 7 {
		t.Fatalf("net %s maxpeers %d", cfg.netName, cfg.MaxPeers)
	}
}

func TestConfigFileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.conf")
	_, err := loadConfig([]string{"--configfile=" + missing})
	if err == nil || !strings.HasPrefix(err.Error(), "--configfile:") {
		t.Errorf("explicit missing config file: %v", err)
	}

	bad := writeConf(t, "maxpeers=1", "nosuchoption=1")
	_, err = loadConfig([]string{"--configfile=" + bad})
	if err == nil || !errors.Is(err, errUnknownOption) || !strings.Contains(err.Error(), "nosuchoption") ||
		!strings.Contains(err.Error(), ":3:") {
		t.Errorf("unknown option in file: %v", err)
	}

	// Command-line-only options are rejected in the file.
	bad = writeConf(t, "configfile=/etc/other.conf")
	if _, err = loadConfig([]string{"--configfile=" + bad}); err == nil {
		t.Errorf("configfile inside a config file was accepted")
	}

	bad = writeConf(t, "maxpeers=lots")
	_, err = loadConfig([]string{"--configfile=" + bad})
	if err == nil || !strings.Contains(err.Error(), "maxpeers") {
		t.Errorf("bad value in file: %v", err)
	}
}

func TestAppDataMovesDefaults(t *testing.T) {
	dir := t.TempDir()
	cfg, err := loadConfig([]string{"--appdata=" + dir, "--regtest", "--logdir=/var/log/btcd"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != filepath.Join(dir, "data", "regtest") {
		t.Errorf("DataDir = %s", cfg.DataDir)
	}
	if cfg.LogDir != filepath.Join("/var/log/btcd", "regtest") {
		t.Errorf("LogDir = %s", cfg.LogDir)
	}
}

func TestPathExpansion(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BTCD_TEST_DIR", dir)
	cfg := mustLoad(t, "--datadir=$BTCD_TEST_DIR/chain", "--memprofile=$BTCD_TEST_DIR/mem.prof")
	if cfg.DataDir != filepath.Join(dir, "chain", "mainnet") || cfg.MemProfile != filepath.Join(dir, "mem.prof") {
		t.Fatalf("DataDir %s MemProfile %s", cfg.DataDir, cfg.MemProfile)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	if got := cleanAndExpandPath("~/x"); got != filepath.Join(home, "x") {
		t.Fatalf("~/x -> %s", got)
	}
}

// TestContradictionsAndBadValues checks that every rejected configuration
// fails with an error of the right kind that names the option.
func TestContradictionsAndBadValues(t *testing.T) {
	loadblock := filepath.Join(t.TempDir(), "blocks.dat")
	tests := []struct {
		args   []string
		option string
		kind   error
	}{
		{[]string{"--testnet", "--regtest"}, "--testnet", errConflict},
		{[]string{"--testnet", "--regtest"}, "--regtest", errConflict},
		{[]string{"--signet", "--testnet4"}, "--signet", errConflict},
		{[]string{"--prune=2000", "--txindex"}, "--prune", errConflict},
		{[]string{"--prune=2000", "--txindex"}, "--txindex", errConflict},
		{[]string{"--prune=100"}, "--prune", errInvalidValue},
		{[]string{"--testactivationheight=segwit@10"}, "--testactivationheight", errConflict},
		{[]string{"--testnet", "--testactivationheight=csv@1"}, "--testactivationheight", errConflict},
		{[]string{"--regtest", "--testactivationheight=segwit"}, "--testactivationheight", errInvalidValue},
		{[]string{"--regtest", "--testactivationheight=nosuch@5"}, "--testactivationheight", errInvalidValue},
		{[]string{"--regtest", "--testactivationheight=csv@-1"}, "--testactivationheight", errInvalidValue},
		{[]string{"--debuglevel=loud"}, "--debuglevel", errInvalidValue},
		{[]string{"--debuglevel=NOPE=debug"}, "--debuglevel", errInvalidValue},
		{[]string{"--debuglevel=PEER=loud"}, "--debuglevel", errInvalidValue},
		{[]string{"--debuglevel="}, "--debuglevel", errInvalidValue},
		{[]string{"--profile=notaport"}, "--profile", errInvalidValue},
		{[]string{"--profile=70000"}, "--profile", errInvalidValue},
		{[]string{"--profile=0"}, "--profile", errInvalidValue},
		{[]string{"--profile=a:b:c"}, "--profile", errInvalidValue},
		{[]string{"--nolisten", "--listen=127.0.0.1:1"}, "--listen", errConflict},
		{[]string{"--addpeer=1.2.3.4", "--connect=5.6.7.8"}, "--addpeer", errConflict},
		{[]string{"--rpcuser=alice"}, "--rpcuser", errConflict},
		{[]string{"--norpc", "--rpclisten=127.0.0.1"}, "--rpclisten", errConflict},
		{[]string{"--rpcpass=secret"}, "--rpcpass", errConflict},
		{[]string{"--maxpeers=-1"}, "--maxpeers", errInvalidValue},
		{[]string{"--maxpeers=many"}, "--maxpeers", errInvalidValue},
		{[]string{"--banduration=10ms"}, "--banduration", errInvalidValue},
		{[]string{"--whitelist=10.0.0.0/40"}, "--whitelist", errInvalidValue},
		{[]string{"--whitelist=host.example"}, "--whitelist", errInvalidValue},
		{[]string{"--listen=127.0.0.1:99999"}, "--listen", errInvalidValue},
		{[]string{"--connect=:8333"}, "--connect", errInvalidValue},
		{[]string{"--connect=1.2.3.4:0"}, "--connect", errInvalidValue},
		{[]string{"--rpclisten=a:b:c"}, "--rpclisten", errInvalidValue},
		{[]string{"--externalip=1.2.3.4:x"}, "--externalip", errInvalidValue},
		{[]string{"--proxy=127.0.0.1:x"}, "--proxy", errInvalidValue},
		{[]string{"--netproxy=127.0.0.1=ipx"}, "--netproxy", errInvalidValue},
		{[]string{"--onion=:9050"}, "--onion", errInvalidValue},
		{[]string{"--assumevalid=1234"}, "--assumevalid", errInvalidValue},
		{[]string{"--assumevalid=" + strings.Repeat("g", 64)}, "--assumevalid", errInvalidValue},
		{[]string{"--par=100000"}, "--par", errInvalidValue},
		{[]string{"--loadblock=" + loadblock}, "--loadblock", errInvalidValue},
		{[]string{"--minrelaytxfee=-1"}, "--minrelaytxfee", errInvalidValue},
		{[]string{"--minrelaytxfee=NaN"}, "--minrelaytxfee", errInvalidValue},
		{[]string{"--maxmempool=1"}, "--maxmempool", errInvalidValue},
		{[]string{"--mempoolexpiry=0"}, "--mempoolexpiry", errInvalidValue},
		{[]string{"--gogc=-5"}, "--gogc", errInvalidValue},
		{[]string{"--memlimit=99999999999999"}, "--memlimit", errInvalidValue},
		{[]string{"--utxocachemaxsize=-1"}, "--utxocachemaxsize", errInvalidValue},
		{[]string{"--memprofile=/nonexistent-dir/x/mem.prof"}, "--memprofile", errInvalidValue},
		{[]string{"--cpuprofile=/nonexistent-dir/x/cpu.prof"}, "--cpuprofile", errInvalidValue},
		{[]string{"--nosuchflag"}, "--nosuchflag", errUnknownOption},
		{[]string{"-z"}, "-z", errUnknownOption},
		{[]string{"stray"}, "stray", errUnknownOption},
	}
	for _, tc := range tests {
		_, args := testArgs(t, tc.args...)
		_, err := loadConfig(args)
		if err == nil {
			t.Errorf("%q: accepted", tc.args)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.option) {
			t.Errorf("%q: error %q does not name %s", tc.args, msg, tc.option)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("%q: error spans lines: %q", tc.args, msg)
		}
		if !errors.Is(err, tc.kind) {
			t.Errorf("%q: error %q is not %v", tc.args, msg, tc.kind)
		}
	}
}

func TestAcceptedCombinations(t *testing.T) {
	cfg := mustLoad(t, "--connect=1.2.3.4", "--nolisten", "--regtest")
	if !cfg.DisableListen || cfg.ConnectPeers[0] != "1.2.3.4:18444" {
		t.Errorf("connect+nolisten: %v %v", cfg.DisableListen, cfg.ConnectPeers)
	}
	cfg = mustLoad(t, "--connect=1.2.3.4", "--listen=127.0.0.1")
	if cfg.DisableListen || !slices.Equal(cfg.Listeners, []string{"127.0.0.1:8333"}) {
		t.Errorf("connect+listen: %v %v", cfg.DisableListen, cfg.Listeners)
	}
	cfg = mustLoad(t, "--norpc")
	if len(cfg.RPCListeners) != 0 {
		t.Errorf("--norpc left RPC listeners %v", cfg.RPCListeners)
	}
	cfg = mustLoad(t, "--proxy=127.0.0.1:9050")
	if !cfg.DisableListen {
		t.Errorf("proxy without listen should disable listening")
	}
	cfg = mustLoad(t, "--prune=1536", "--rpcuser=u", "--rpcpass=p", "--assumevalid=0", "--par=-1000",
		"--whitelist=10.0.0.0/8", "--whitelist=::1", "--whitelist=192.168.1.7", "--minrelaytxfee=0.0002",
		"--gogc=50", "--memlimit=2048")
	if cfg.Prune != 1536 || cfg.assumeValidMode != assumeValidOff || cfg.scriptThreads != 1 ||
		len(cfg.whitelist) != 3 || cfg.minRelayTxFeeSat != 20000 || cfg.GoGC != 50 || cfg.MemLimit != 2048 {
		t.Errorf("unexpected %+v", cfg)
	}
	if got := cfg.whitelist[2].Subnet.String(); got != "192.168.1.7/32" {
		t.Errorf("whitelist ip -> %s", got)
	}
	if !cfg.whitelist[1].Subnet.Contains(netip.MustParseAddr("::1")) {
		t.Errorf("::1 whitelist does not contain ::1")
	}

	const genesis = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
	cfg = mustLoad(t, "--assumevalid="+genesis, "--par=3")
	if cfg.assumeValidMode != assumeValidHash || cfg.assumeValid.String() != genesis || cfg.scriptThreads != 3 {
		t.Errorf("assumevalid %v %s par %d", cfg.assumeValidMode, cfg.assumeValid, cfg.scriptThreads)
	}
	// The last byte of the display form is the first internal byte.
	if cfg.assumeValid[0] != 0x6f || cfg.assumeValid[31] != 0 {
		t.Errorf("assumevalid byte order: %x", cfg.assumeValid)
	}

	blocks := filepath.Join(t.TempDir(), "bootstrap.dat")
	if err := os.WriteFile(blocks, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = mustLoad(t, "--loadblock="+blocks, "--reindex", "--persistmempool", "--blocksonly", "--notls")
	if !slices.Equal(cfg.LoadBlocks, []string{blocks}) || !cfg.Reindex || !cfg.PersistMempool ||
		!cfg.BlocksOnly || !cfg.DisableTLS {
		t.Errorf("flags not stored: %+v", cfg)
	}
}

func TestTestActivationHeight(t *testing.T) {
	cfg := mustLoad(t, "--regtest", "--testactivationheight=segwit@7", "--testactivationheight=csv@432",
		"--testactivationheight=csv@500")
	if cfg.netName != "regtest" || cfg.params.SegwitHeight != 7 || cfg.params.CSVHeight != 500 {
		t.Fatalf("net %s segwit %d csv %d", cfg.netName, cfg.params.SegwitHeight, cfg.params.CSVHeight)
	}
	// The shared network parameters must stay untouched.
	if base := chaincfg.RegressionNetParams; base.CSVHeight == 500 || base.SegwitHeight == 7 {
		t.Fatalf("activation heights leaked into chaincfg.RegressionNetParams")
	}
	if again := mustLoad(t, "--regtest"); again.params.CSVHeight == 500 {
		t.Fatalf("activation heights leaked into a later config")
	}
}

func TestVersionBitsParams(t *testing.T) {
	cfg := mustLoad(t, "--regtest", "--vbparams=taproot:-1:-2:100")
	found := false
	for _, d := range cfg.params.Deployments {
		if d.Name == "taproot" {
			found = true
			if d.StartTime != -1 || d.Timeout != -2 || d.MinActivationHeight != 100 {
				t.Errorf("taproot deployment %+v", d)
			}
		}
	}
	if !found {
		t.Fatal("no taproot deployment")
	}
	for _, args := range [][]string{
		{"--vbparams=taproot:-1:-2"},
		{"--regtest", "--vbparams=nosuch:1:2"},
		{"--regtest", "--vbparams=taproot:x:2"},
	} {
		_, a := testArgs(t, args...)
		if _, err := loadConfig(a); err == nil || !strings.HasPrefix(err.Error(), "--vbparams:") {
			t.Errorf("%q: %v", args, err)
		}
	}
}

func TestParseDebugLevels(t *testing.T) {
	tests := []struct {
		in     string
		global btclog.Level
		subsys map[string]btclog.Level
		bad    bool
	}{
		{in: "info", global: btclog.LevelInfo},
		{in: "TRACE", global: btclog.LevelTrace},
		{in: "off", global: btclog.LevelOff},
		{in: "PEER=debug", global: btclog.LevelInfo, subsys: map[string]btclog.Level{"PEER": btclog.LevelDebug}},
		{in: "peer=trace, sync=warn", global: btclog.LevelInfo,
			subsys: map[string]btclog.Level{"PEER": btclog.LevelTrace, "SYNC": btclog.LevelWarn}},
		{in: "error,CHAN=debug", global: btclog.LevelError, subsys: map[string]btclog.Level{"CHAN": btclog.LevelDebug}},
		{in: "loud", bad: true},
		{in: "PEER=", bad: true},
		{in: "=debug", bad: true},
		{in: "XYZ=debug", bad: true},
		{in: "info,,", bad: true},
	}
	for _, tc := range tests {
		lv, err := parseDebugLevels(tc.in)
		if tc.bad {
			if err == nil || !strings.HasPrefix(err.Error(), "--debuglevel:") {
				t.Errorf("%q: err %v", tc.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if lv.global != tc.global || !reflect.DeepEqual(lv.subsys, tc.subsys) {
			t.Errorf("%q: got %v %v", tc.in, lv.global, lv.subsys)
		}
	}
}

func TestSetLogLevels(t *testing.T) {
	defer setLogLevels(debugLevels{global: btclog.LevelOff})
	lv, err := parseDebugLevels("warn,PEER=trace")
	if err != nil {
		t.Fatal(err)
	}
	setLogLevels(lv)
	if peerLog.Level() != btclog.LevelTrace || syncLog.Level() != btclog.LevelWarn || btcdLog.Level() != btclog.LevelWarn {
		t.Fatalf("levels: peer %v sync %v btcd %v", peerLog.Level(), syncLog.Level(), btcdLog.Level())
	}
	for _, tag := range []string{"BTCD", "CHAN", "PEER", "SYNC", "RPCS", "MEMP", "UTXO", "DB", "SCRP", "AMGR", "CMGR", "SRVR"} {
		if subsystemLoggers[tag] == nil {
			t.Errorf("missing subsystem %s", tag)
		}
	}
}

func TestDebugLevelShow(t *testing.T) {
	cfg := mustLoad(t, "--debuglevel=show")
	if cfg.DebugLevel != "show" {
		t.Fatal("show not passed through")
	}
}

func TestNormalizeProfileAddr(t *testing.T) {
	tests := map[string]string{
		"6060":           "127.0.0.1:6060",
		":6060":          "127.0.0.1:6060",
		"0.0.0.0:6061":   "0.0.0.0:6061",
		"localhost:7000": "localhost:7000",
		"[::1]:6060":     "[::1]:6060",
	}
	for in, want := range tests {
		got, err := normalizeProfileAddr(in)
		if err != nil || got != want {
			t.Errorf("%q -> %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "65536", "host:", "::1", "1.2.3.4:0"} {
		if got, err := normalizeProfileAddr(in); err == nil {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
	cfg := mustLoad(t, "--profile=6061")
	if cfg.profileAddr != "127.0.0.1:6061" {
		t.Errorf("profileAddr = %q", cfg.profileAddr)
	}
}

func TestNormalizeAddresses(t *testing.T) {
	got, err := normalizeAddresses("--listen", []string{
		"", "0.0.0.0", "127.0.0.1:1234", "::1", "[::1]", "[::1]:99", "example.com", "127.0.0.1:1234",
	}, "8333", true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{":8333", "0.0.0.0:8333", "127.0.0.1:1234", "[::1]:8333", "[::1]:99", "example.com:8333"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	for _, bad := range []string{"1:2:3:x", "[::1", "a b", "h:-1"} {
		if _, err := normalizeAddresses("--connect", []string{bad}, "8333", false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseAllowIP(t *testing.T) {
	for in, want := range map[string]string{
		"1.2.3.4": "1.2.3.4/32", "1.2.3.4/24": "1.2.3.0/24", "1.2.3.4/255.255.255.0": "1.2.3.0/24",
		"0.0.0.0/0": "0.0.0.0/0", "::/0": "::/0", "::1": "::1/128", "[::1]": "::1/128", "[fd00::]/8": "fd00::/8",
	} {
		p, err := parseAllowIP(in)
		if err != nil || p.String() != want {
			t.Errorf("%s: %v %v, want %s", in, p, err, want)
		}
	}
	for _, bad := range []string{"", "1.2.3", "1.2.3.4/33", "1.2.3.4/255.0.255.0", "1.2.3.4/ffff::", "host", "[1.2.3.4"} {
		if _, err := parseAllowIP(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := loadConfig([]string{"--regtest", "--appdata=" + t.TempDir(), "--rpcallowip=10.0.0.0/8"}); err != nil {
		t.Errorf("--rpcallowip: %v", err)
	}
}

// TestFastPruneFloor pins Core's regtest pruning floor of 100 blocks
// under --fastprune (1000 otherwise) without touching the shared
// parameters.
func TestFastPruneFloor(t *testing.T) {
	if cfg := mustLoad(t, "--regtest", "--fastprune"); cfg.params.PruneAfterHeight != 100 {
		t.Fatalf("fastprune floor %d", cfg.params.PruneAfterHeight)
	}
	if cfg := mustLoad(t, "--regtest"); cfg.params.PruneAfterHeight != 1000 {
		t.Fatalf("regtest floor %d", cfg.params.PruneAfterHeight)
	}
}
