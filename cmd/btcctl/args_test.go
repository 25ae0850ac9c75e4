package main

import (
	"strings"
	"testing"
)

func parseSettings(t *testing.T, argv ...string) (*settings, []string) {
	t.Helper()
	s := newSettings()
	rest, err := s.parseCommandLine(argv)
	if err != nil {
		t.Fatalf("parse %q: %v", argv, err)
	}
	return s, rest
}

func TestCommandLineSyntax(t *testing.T) {
	s, rest := parseSettings(t, "--rpcuser=a", "-rpcport", "123", "-nonamed", "-regtest", "getblock", "-x", "y")
	if got := strings.Join(rest, " "); got != "getblock -x y" {
		t.Errorf("rest = %q", got)
	}
	if s.getString("rpcuser", "") != "a" || s.getString("rpcport", "") != "123" {
		t.Errorf("values: %q %q", s.getString("rpcuser", ""), s.getString("rpcport", ""))
	}
	if s.getBool("named", true) || !s.isSet("named") || !s.isNegated("named") {
		t.Error("-nonamed is not a negation")
	}
	if !s.getBool("regtest", false) {
		t.Error("-regtest not set")
	}
	// The last value on the command line wins; a negation resets.
	s, _ = parseSettings(t, "-rpcuser=a", "-rpcuser=b", "-norpcwallet", "-rpcwallet=w", "-rpccookiefile=x", "-norpccookiefile")
	if s.getString("rpcuser", "") != "b" || s.getString("rpcwallet", "") != "w" || !s.isNegated("rpccookiefile") {
		t.Errorf("precedence: %q %q %v", s.getString("rpcuser", ""), s.getString("rpcwallet", ""), s.isNegated("rpccookiefile"))
	}
	// Double negation is true; a negated value reads as "0".
	s, _ = parseSettings(t, "-nonamed=0", "-norpcpassword")
	if !s.getBool("named", false) || s.getString("rpcpassword", "") != "0" {
		t.Errorf("double negation %v, negated string %q", s.getBool("named", false), s.getString("rpcpassword", ""))
	}
	// Integer options use atoi's rules.
	s, _ = parseSettings(t, "-rpcclienttimeout=12abc", "-rpcwaittimeout=-3")
	if s.getInt("rpcclienttimeout", 0) != 12 || s.getInt("rpcwaittimeout", 0) != -3 {
		t.Errorf("ints %d %d", s.getInt("rpcclienttimeout", 0), s.getInt("rpcwaittimeout", 0))
	}
	for argv, want := range map[string]string{
		"-bogus":             "Invalid parameter -bogus",
		"-regtest.rpcport=1": "Invalid parameter -regtest.rpcport=1",
		"-nodatadir":         "Negating of -datadir is meaningless and therefore forbidden",
		"-includeconf=x":     "-includeconf cannot be used from commandline; -includeconf=x",
		"-":                  "Invalid parameter -",
	} {
		if _, err := newSettings().parseCommandLine([]string{argv}); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", argv, err, want)
		}
	}
}

func TestConfigPrecedence(t *testing.T) {
	s, _ := parseSettings(t, "-rpcuser=cmd")
	err := s.addConfigText("rpcuser=conf\nrpcpassword=first\nrpcpassword=second\nrpcport=1000\nmain.rpcport=4000\n" +
		"[regtest]\nrpcport=2000\nrpcconnect=10.0.0.1\n[test]\nrpcport=3000\nmain.rpcport=5000\n" +
		"noincludeconf=0\nunknownoption=1\n")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		chain, opt, want string
	}{
		{"main", "rpcuser", "cmd"},       // command line beats config
		{"main", "rpcpassword", "first"}, // first value in a config file wins
		{"main", "rpcport", "4000"},      // main. beats the top (in [test] it names no option)
		{"regtest", "rpcport", "2000"},   // the network's section
		{"regtest", "rpcconnect", "10.0.0.1"},
		{"test", "rpcport", "3000"},
		{"signet", "rpcport", ""}, // network-only: the top's value is mainnet's
		{"signet", "rpcpassword", "first"},
	}
	for _, c := range cases {
		s.chain = c.chain
		if got := s.getString(c.opt, ""); got != c.want {
			t.Errorf("%s %s = %q, want %q", c.chain, c.opt, got, c.want)
		}
	}
	// A negation at the top still applies to a network-only option.
	s2 := newSettings()
	s2.addConfigText("norpcport=1\n")
	s2.chain = "regtest"
	if !s2.isNegated("rpcport") {
		t.Error("negated rpcport at the top ignored")
	}
	// A legacy btcctl.conf has no sections: its rpcport applies to every
	// network.
	s3 := newSettings()
	s3.addLegacyConfigText("[Application Options]\nrpcuser=u\nrpcpass=p\nrpcport=5000\nnotls=1\n; comment\n")
	s3.chain = "regtest"
	if s3.getString("rpcport", "") != "5000" || s3.getString("rpcpassword", "") != "p" {
		t.Errorf("legacy config: %q %q", s3.getString("rpcport", ""), s3.getString("rpcpassword", ""))
	}
}

func TestSelectChain(t *testing.T) {
	for _, c := range []struct {
		argv []string
		conf string
		want string
		err  string
	}{
		{nil, "", "main", ""},
		{[]string{"-regtest"}, "", "regtest", ""},
		{[]string{"-testnet"}, "", "test", ""},
		{[]string{"-chain=testnet4"}, "", "testnet4", ""},
		{nil, "regtest=1\n", "regtest", ""},
		{nil, "signet=1\nnosignet=1\n", "main", ""},
		{[]string{"-noregtest"}, "regtest=1\n", "regtest", ""}, // negated network flags on the command line are ignored
		{nil, "[regtest]\nregtest=1\n", "main", ""},            // and sections do not choose the network
		{[]string{"-regtest", "-testnet"}, "", "", "Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one."},
		{[]string{"-chain=regtest"}, "testnet=1\n", "", "Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one."},
		{[]string{"-chain=foo"}, "", "", "Unknown chain foo. Valid values are: main, test, testnet4, signet, regtest"},
	} {
		s, _ := parseSettings(t, c.argv...)
		if err := s.addConfigText(c.conf); err != nil {
			t.Fatal(err)
		}
		got, err := s.selectChain()
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%v %q: %v, want %q", c.argv, c.conf, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v %q: %q %v, want %q", c.argv, c.conf, got, err, c.want)
		}
	}
}

func TestAtoi(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "12": 12, " -7x": -7, "+3": 3, "abc": 0, "99999999999999999999": 1<<63 - 1, "--1": 0} {
		if got := atoi64(in); got != want {
			t.Errorf("atoi64(%q) = %d, want %d", in, got, want)
		}
	}
	for in, want := range map[string]bool{"": true, "1": true, "0": false, "yes": false, "2": true} {
		if got := interpretBool(in); got != want {
			t.Errorf("interpretBool(%q) = %v", in, got)
		}
	}
}
