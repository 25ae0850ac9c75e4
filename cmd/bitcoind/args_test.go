package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parse(t *testing.T, argv ...string) *args {
	t.Helper()
	a := newArgs()
	if err := a.parseCommandLine(argv); err != nil {
		t.Fatalf("parse %v: %v", argv, err)
	}
	return a
}

func TestCommandLineSyntax(t *testing.T) {
	a := parse(t, "-txindex", "-noblocksonly", "--prune=550", "-addnode=a", "-addnode=b", "-listen=0", "-dbcache=100", "-dbcache=200")
	if !a.getBool("txindex", false) {
		t.Error("bare -txindex is not true")
	}
	if a.getBool("blocksonly", true) || !a.isNegated("blocksonly") {
		t.Error("-noblocksonly is not false")
	}
	if got := a.getInt("prune", 0); got != 550 {
		t.Errorf("--prune=550 read as %d", got)
	}
	if got := a.getList("addnode"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("repeated -addnode: %v", got)
	}
	if a.getBool("listen", true) {
		t.Error("-listen=0 is not false")
	}
	if got := a.getInt("dbcache", 0); got != 200 {
		t.Errorf("last -dbcache on the command line should win, got %d", got)
	}
	if a.isSet("rest") || !a.getBool("rest", true) {
		t.Error("unset option does not take its default")
	}
}

func TestCommandLineErrors(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"-fakearg"}, "Invalid parameter -fakearg"},
		{[]string{"-dash_cli=1"}, "Invalid parameter -dash_cli=1"},
		{[]string{"-nonexistentarg"}, "Invalid parameter -nonexistentarg"},
		{[]string{"regtest"}, "Command line contains unexpected token 'regtest', see bitcoind -h for a list of options."},
		{[]string{"-includeconf=x.conf"}, `-includeconf cannot be used from commandline; -includeconf="x.conf"`},
		{[]string{"-noincludeconf=0"}, "-includeconf cannot be used from commandline; -includeconf=true"},
		{[]string{"-nodatadir"}, "Negating of -datadir is meaningless and therefore forbidden"},
		{[]string{"-proxy"}, "Can not set -proxy with no value. Please specify value with -proxy=value."},
	} {
		err := newArgs().parseCommandLine(c.argv)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: error %v, want %q", c.argv, err, c.want)
		}
	}
}

func TestDoubleNegative(t *testing.T) {
	a := parse(t, "-nolisten=0")
	if !a.getBool("listen", false) {
		t.Error("-nolisten=0 is not true")
	}
	if len(a.warnings) != 1 || a.warnings[0] != "Warning: parsed potentially confusing double-negative -listen=0" {
		t.Errorf("warnings %q", a.warnings)
	}
}

func TestNegationDiscardsEarlierValues(t *testing.T) {
	a := parse(t, "-connect=a", "-noconnect", "-connect=b")
	if got := a.getList("connect"); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("values after a negation: %v", got)
	}
	a = parse(t, "-connect=a", "-noconnect")
	if got := a.getList("connect"); len(got) != 0 || !a.isNegated("connect") {
		t.Errorf("negated list: %v", got)
	}
}

func readConf(t *testing.T, a *args, text string) error {
	t.Helper()
	return a.readConfigText(text, "bitcoin.conf")
}

func TestConfigSectionsAndPrecedence(t *testing.T) {
	a := parse(t, "-dbcache=300")
	conf := `# comment
regtest=1
dbcache=100
maxmempool=50
maxmempool=60
port=1111
[regtest]
port=2222   # trailing comment
rpcport=3333
maxmempool=70
[test]
port=4444
`
	if err := readConf(t, a, conf); err != nil {
		t.Fatal(err)
	}
	chain, err := a.selectChain()
	if err != nil || chain != "regtest" {
		t.Fatalf("chain %q, %v", chain, err)
	}
	a.chain = chain
	if got := a.getInt("dbcache", 0); got != 300 {
		t.Errorf("command line should beat the file: %d", got)
	}
	if got := a.getInt("maxmempool", 0); got != 70 {
		t.Errorf("the network section should beat the top: %d", got)
	}
	if got := a.getString("port", ""); got != "2222" {
		t.Errorf("port %q, want the [regtest] one", got)
	}
	// Network-only options at the top apply to mainnet only.
	a.conf[chain]["port"] = nil
	if got := a.getString("port", "none"); got != "none" {
		t.Errorf("top-level port applied on regtest: %q", got)
	}
	if got := a.unsuitableSectionOnly(); !reflect.DeepEqual(got, []string{"-port"}) {
		t.Errorf("unsuitable %v", got)
	}

	// In a file the first assignment wins (bitcoind's backwards rule).
	b := newArgs()
	if err := readConf(t, b, "maxmempool=50\nmaxmempool=60\n"); err != nil {
		t.Fatal(err)
	}
	b.chain = "main"
	if got := b.getInt("maxmempool", 0); got != 50 {
		t.Errorf("first value should win in a config file, got %d", got)
	}
}

func TestConfigParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"garbage", "parse error on line 1: garbage"},
		{"-dash=1", "parse error on line 1: -dash=1, options in configuration file must be specified without leading -"},
		{"nono", "parse error on line 1: nono, if you intended to specify a negated option, use nono=1 instead"},
		{"server=1\nrpcuser=u\nrpcpassword=a#b", "parse error on line 3, using # in rpcpassword can be ambiguous and should be avoided"},
	} {
		err := readConf(t, newArgs(), c.text)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	a := newArgs()
	if err := readConf(t, a, "dash_conf=1\n"); err != nil {
		t.Fatal(err)
	}
	if len(a.warnings) != 1 || a.warnings[0] != "Ignoring unknown configuration value dash_conf" {
		t.Errorf("unknown key: %q", a.warnings)
	}
}

func TestChainSelection(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
		err  string
	}{
		{nil, "main", ""},
		{[]string{"-regtest"}, "regtest", ""},
		{[]string{"-chain=regtest"}, "regtest", ""},
		{[]string{"-testnet"}, "test", ""},
		{[]string{"-chain=testnet4"}, "testnet4", ""},
		{[]string{"-signet"}, "signet", ""},
		{[]string{"-regtest", "-testnet"}, "", "Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one."},
		{[]string{"-regtest", "-chain=regtest"}, "", "Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one."},
		{[]string{"-chain=nope"}, "", "Unknown chain nope. Valid values are: main, test, testnet4, signet, regtest"},
	} {
		got, err := parse(t, c.argv...).selectChain()
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%v: error %v, want %q", c.argv, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v: %q, %v; want %q", c.argv, got, err, c.want)
		}
	}
}

func TestIncludeConf(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("bitcoin.conf", "regtest=1\nincludeconf=a.conf\n[regtest]\nincludeconf=b.conf\n")
	write("a.conf", "uacomment=a\nincludeconf=c.conf\n")
	write("b.conf", "uacomment=b\n")
	write("c.conf", "uacomment=c\n")
	a := newArgs()
	if _, err := a.readConfigFiles(dir); err != nil {
		t.Fatal(err)
	}
	if got := a.getList("uacomment"); !reflect.DeepEqual(got, []string{"a"}) && !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("uacomment %v", got)
	}
	found := false
	for _, w := range a.stderrLines {
		if w == "warning: -includeconf cannot be used from included files; ignoring -includeconf=c.conf" {
			found = true
		}
	}
	if !found {
		t.Errorf("nested include not refused: %q", a.stderrLines)
	}

	write("bad.conf", "includeconf=missing.conf\n")
	b := parse(t, "-conf=bad.conf")
	if _, err := b.readConfigFiles(dir); err == nil || err.Error() != "Failed to include configuration file missing.conf" {
		t.Errorf("missing include: %v", err)
	}
	c := parse(t, "-conf=nope.conf")
	if _, err := c.readConfigFiles(dir); err == nil || !strings.Contains(err.Error(), "could not be opened") {
		t.Errorf("missing -conf: %v", err)
	}
	d := parse(t, "-conf="+dir)
	if _, err := d.readConfigFiles(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("-conf directory: %v", err)
	}
}

func TestAtoi64(t *testing.T) {
	for s, want := range map[string]int64{"": 0, "12": 12, " 7x": 7, "-3": -3, "+4": 4, "abc": 0, "99999999999999999999": 1<<63 - 1, "1.5": 1} {
		if got := atoi64(s); got != want {
			t.Errorf("atoi64(%q) = %d, want %d", s, got, want)
		}
	}
}
