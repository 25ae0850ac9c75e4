package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigSyntaxErrors(t *testing.T) {
	for text, want := range map[string]string{
		"-rpcuser=x\n":           "parse error on line 1: -rpcuser=x, options in configuration file must be specified without leading -",
		"\nnoregtest\n":          "parse error on line 2: noregtest, if you intended to specify a negated option, use noregtest=1 instead",
		"rpcpassword=a#b\n":      "parse error on line 1, using # in rpcpassword can be ambiguous and should be avoided",
		"conf=other.conf\n":      "conf cannot be set in the configuration file; use includeconf= if you want to include additional config files",
		"[regtest]\nnodatadir=1": "Negating of -datadir is meaningless and therefore forbidden",
	} {
		if err := newSettings().addConfigText(text); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

func TestLoadConfigFiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	load := func(argv ...string) (*config, error) {
		s, rest := parseSettings(t, argv...)
		var warn strings.Builder
		c, err := loadConfig(s, rest, &warn)
		if warn.Len() > 0 {
			t.Logf("warnings: %s", warn.String())
		}
		return c, err
	}
	// bitcoin.conf in -datadir, with an included file.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bitcoin.conf"), "regtest=1\nincludeconf=extra.conf\n[regtest]\nrpcport=1234\n")
	writeFile(t, filepath.Join(dir, "extra.conf"), "rpcuser=inc\nincludeconf=nested.conf\n")
	c, err := load("-datadir="+dir, "getblockcount")
	if err != nil {
		t.Fatal(err)
	}
	if c.chain != "regtest" || c.s.getString("rpcport", "") != "1234" || c.s.getString("rpcuser", "") != "inc" {
		t.Errorf("chain %q port %q user %q", c.chain, c.s.getString("rpcport", ""), c.s.getString("rpcuser", ""))
	}
	if c.netDir() != filepath.Join(dir, "regtest") || c.confPath != filepath.Join(dir, "bitcoin.conf") || c.btcdLayout {
		t.Errorf("netDir %q conf %q btcd %v", c.netDir(), c.confPath, c.btcdLayout)
	}
	// -conf relative to the data directory; mainnet at the top of it.
	writeFile(t, filepath.Join(dir, "other.conf"), "rpcuser=other\n")
	if c, err = load("-datadir="+dir, "-conf=other.conf"); err != nil || c.s.getString("rpcuser", "") != "other" || c.chain != "main" || c.netDir() != dir {
		t.Errorf("-conf: %v %q %q %q", err, c.s.getString("rpcuser", ""), c.chain, c.netDir())
	}
	// Errors.
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"-datadir=" + filepath.Join(dir, "nope")}, `Error: Specified data directory "` + filepath.Join(dir, "nope") + `" does not exist.`},
		{[]string{"-datadir=" + dir, "-conf=missing.conf"}, `Error reading configuration file: specified config file "` + filepath.Join(dir, "missing.conf") + `" could not be opened.`},
		{[]string{"-datadir=" + dir, "-conf=" + home}, `Error reading configuration file: Config file "` + home + `" is a directory.`},
		{[]string{"-datadir=" + dir, "-testnet"}, "Error: Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one."},
	} {
		if _, err := load(tc.argv...); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.argv, err, tc.want)
		}
	}
	bad := t.TempDir()
	writeFile(t, filepath.Join(bad, "bitcoin.conf"), "includeconf=absent.conf\n")
	if _, err := load("-datadir=" + bad); err == nil || err.Error() != "Error reading configuration file: Failed to include configuration file absent.conf" {
		t.Errorf("missing include: %v", err)
	}
	// -noconf reads nothing.
	if c, err = load("-datadir="+dir, "-noconf"); err != nil || c.chain != "main" {
		t.Errorf("-noconf: %v %q", err, c.chain)
	}

	// Without -datadir: bitcoind's ~/.bitcoin when ~/.btcd is absent...
	writeFile(t, filepath.Join(home, ".bitcoin", "bitcoin.conf"), "testnet4=1\n")
	if c, err = load(); err != nil || c.chain != "testnet4" || c.netDir() != filepath.Join(home, ".bitcoin", "testnet4") {
		t.Errorf("~/.bitcoin: %v %q %q", err, c.chain, c.netDir())
	}
	// ...btcd's ~/.btcd (btcctl.conf, else btcd.conf) when it exists.
	writeFile(t, filepath.Join(home, ".btcd", "btcd.conf"), "[Application Options]\nrpcuser=d\nrpcpass=dp\n")
	if c, err = load(); err != nil || c.s.getString("rpcpassword", "") != "dp" || c.chain != "main" || !c.btcdLayout {
		t.Errorf("btcd.conf: %v %q %q", err, c.s.getString("rpcpassword", ""), c.chain)
	}
	if c.netDir() != filepath.Join(home, ".btcd", "data", "mainnet") {
		t.Errorf("btcd mainnet dir %q", c.netDir())
	}
	writeFile(t, filepath.Join(home, ".btcd", "btcctl.conf"), "rpcuser=c\nrpcpassword=cp\nrpcport=7777\n")
	if c, err = load("-regtest"); err != nil || c.s.getString("rpcpassword", "") != "cp" || c.s.getString("rpcport", "") != "7777" {
		t.Errorf("btcctl.conf: %v %q", err, c.s.getString("rpcpassword", ""))
	}
	if c.netDir() != filepath.Join(home, ".btcd", "data", "regtest") {
		t.Errorf("btcd regtest dir %q", c.netDir())
	}
	// -datadir without bitcoin.conf keeps btcd's config files; mainnet's
	// cookie is where either daemon writes it.
	plain := t.TempDir()
	if c, err = load("-datadir=" + plain); err != nil || c.s.getString("rpcuser", "") != "c" || c.netDir() != filepath.Join(plain, "mainnet") {
		t.Errorf("plain datadir: %v %q %q", err, c.s.getString("rpcuser", ""), c.netDir())
	}
	writeFile(t, filepath.Join(plain, ".cookie"), "x:y")
	if c.netDir() != plain {
		t.Errorf("bitcoind layout cookie: netDir %q", c.netDir())
	}
	// A datadir named in the config file moves the cookie.
	moved := t.TempDir()
	conf := filepath.Join(t.TempDir(), "moved.conf")
	writeFile(t, conf, "datadir="+moved+"\nregtest=1\n")
	if c, err = load("-conf=" + conf); err != nil || c.netDir() != filepath.Join(moved, "regtest") {
		t.Errorf("datadir from config: %v %q", err, c.netDir())
	}
	os.RemoveAll(moved)
	if _, err = load("-conf=" + conf); err == nil || !strings.Contains(err.Error(), "specified data directory") {
		t.Errorf("missing config datadir: %v", err)
	}
}
