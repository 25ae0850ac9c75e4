package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btcnode/btcd/internal/bitcoinconf"
)

// Option flags, after bitcoin-cli's ArgsManager flags.
const (
	// optBool marks an option that takes no value. bitcoin-cli itself
	// only accepts "-name=value"; btcctl also accepts "-name value" for
	// the other options, as it always has, so it must know which options
	// never take a value.
	optBool = 1 << iota
	// optNetworkOnly options in the top section of a config file apply
	// to mainnet only; other networks read them from their own section.
	optNetworkOnly
	// optNoNegation options refuse the -noname form.
	optNoNegation
	// optCommand marks the options that replace the RPC method (-getinfo
	// and friends): at most one may be given.
	optCommand
	// optDebug options are listed only by -help-debug.
	optDebug
	// optHidden options are accepted but never listed.
	optHidden
)

// Help sections, in the order bitcoin-cli lists them.
const (
	catOptions = iota
	catChain
	catCommands
	catIPC
	catBtcd
)

var categoryTitles = []string{"Options:", "Chain selection options:", "CLI Commands:", "IPC interprocess connection options:", "btcd options:"}

// An option is one command-line or config-file setting btcctl knows.
type option struct {
	name  string // without the dash
	arg   string // "=<n>" and the like, for the help text
	flags int
	cat   int
	help  string
}

// options are every setting btcctl accepts: bitcoin-cli's, plus btcctl's
// TLS settings. Config files may hold anything (they are shared with the
// daemon); unknown keys there are ignored, as bitcoin-cli does.
var options = []option{
	{name: "?", flags: optBool, help: "Print this help message and exit"},
	{name: "h", flags: optBool | optHidden},
	{name: "help", flags: optBool | optHidden},
	{name: "help-debug", flags: optBool | optHidden},
	{name: "version", flags: optBool, help: "Print version and exit"},
	{name: "conf", arg: "=<file>", help: "Specify configuration file. Relative paths will be prefixed by datadir location. (default: bitcoin.conf; without -datadir, btcd's btcctl.conf or btcd.conf when ~/.btcd exists)"},
	{name: "datadir", arg: "=<dir>", flags: optNoNegation, help: "Specify data directory (default: ~/.btcd/data when ~/.btcd exists, else ~/.bitcoin)"},
	{name: "color", arg: "=<when>", flags: optNoNegation, help: "Color setting for CLI output (default: auto). Valid values: always, auto (add color codes when standard output is connected to a terminal and OS is not WIN32), never. Only applies to the output of -getinfo."},
	{name: "named", flags: optBool, help: "Pass named instead of positional arguments (default: false)"},
	{name: "rpcclienttimeout", arg: "=<n>", help: "Timeout in seconds during HTTP requests, or 0 for no timeout. (default: 900)"},
	{name: "rpcconnect", arg: "=<ip>", help: "Send commands to node running on <ip> (default: 127.0.0.1)"},
	{name: "rpccookiefile", arg: "=<loc>", help: "Location of the auth cookie. Relative paths will be prefixed by a net-specific datadir location. (default: data dir)"},
	{name: "rpcpassword", arg: "=<pw>", help: "Password for JSON-RPC connections"},
	{name: "rpcpass", flags: optHidden}, // btcd's spelling, in btcd.conf
	{name: "rpcport", arg: "=<port>", flags: optNetworkOnly, help: "Connect to JSON-RPC on <port> (default: 8332, testnet: 18332, testnet4: 48332, signet: 38332, regtest: 18443)"},
	{name: "rpcuser", arg: "=<user>", help: "Username for JSON-RPC connections"},
	{name: "rpcwait", flags: optBool, help: "Wait for RPC server to start"},
	{name: "rpcwaittimeout", arg: "=<n>", flags: optNoNegation, help: "Timeout in seconds to wait for the RPC server to start, or 0 for no timeout. (default: 0)"},
	{name: "rpcwallet", arg: "=<walletname>", help: "Send RPC for non-default wallet on RPC server (needs to exactly match corresponding -wallet option passed to bitcoind). This changes the RPC endpoint used, e.g. http://127.0.0.1:8332/wallet/<walletname>"},
	{name: "stdin", flags: optBool, help: "Read extra arguments from standard input, one per line until EOF/Ctrl-D (recommended for sensitive information such as passphrases). When combined with -stdinrpcpass, the first line from standard input is used for the RPC password."},
	{name: "stdinrpcpass", flags: optBool, help: "Read RPC password from standard input as a single line. When combined with -stdin, the first line from standard input is used for the RPC password. When combined with -stdinwalletpassphrase, -stdinrpcpass consumes the first line, and -stdinwalletpassphrase consumes the second."},
	{name: "stdinwalletpassphrase", flags: optBool, help: "Read wallet passphrase from standard input as a single line. When combined with -stdin, the first line from standard input is used for the wallet passphrase."},
	{name: "includeconf", flags: optHidden},

	{name: "chain", arg: "=<chain>", cat: catChain, help: "Use the chain <chain> (default: main). Allowed values: main, test, testnet4, signet, regtest"},
	{name: "regtest", flags: optBool, cat: catChain, help: "Enter regression test mode, which uses a special chain in which blocks can be solved instantly. This is intended for regression testing tools and app development. Equivalent to -chain=regtest."},
	{name: "signet", flags: optBool, cat: catChain, help: "Use the signet chain. Equivalent to -chain=signet. Note that the network is defined by the -signetchallenge parameter"},
	{name: "signetchallenge", arg: "", cat: catChain, help: "Blocks must satisfy the given script to be considered valid (only for signet networks; defaults to the global default signet test network challenge)"},
	{name: "signetseednode", arg: "", cat: catChain, help: "Specify a seed node for the signet network, in the hostname[:port] format, e.g. sig.net:1234 (may be used multiple times to specify multiple seed nodes; defaults to the global default signet test network seed node(s))"},
	{name: "testactivationheight", arg: "=name@height.", flags: optDebug, cat: catChain, help: "Set the activation height of 'name' (segwit, bip34, dersig, cltv, csv). (regtest-only)"},
	{name: "testnet", flags: optBool, cat: catChain, help: "Use the testnet3 chain. Equivalent to -chain=test. Support for testnet3 is deprecated and will be removed in an upcoming release. Consider moving to testnet4 now by using -testnet4."},
	{name: "testnet4", flags: optBool, cat: catChain, help: "Use the testnet4 chain. Equivalent to -chain=testnet4."},
	{name: "vbparams", arg: "=deployment:start:end[:min_activation_height]", flags: optDebug, cat: catChain, help: "Use given start/end times and min_activation_height for specified version bits deployment (regtest-only)"},

	{name: "addrinfo", flags: optBool | optCommand, cat: catCommands, help: "Get the number of addresses known to the node, per network and total, after filtering for quality and recency. The total number of addresses known to the node may be higher."},
	{name: "generate", flags: optBool | optCommand, cat: catCommands, help: "Generate blocks, equivalent to RPC getnewaddress followed by RPC generatetoaddress. Optional positional integer arguments are number of blocks to generate (default: 1) and maximum iterations to try (default: 1000000), equivalent to RPC generatetoaddress nblocks and maxtries arguments. Example: bitcoin-cli -generate 4 1000"},
	{name: "getinfo", flags: optBool | optCommand, cat: catCommands, help: "Get general information from the remote server. Note that unlike server-side RPC calls, the output of -getinfo is the result of multiple non-atomic requests. Some entries in the output may represent results from different states (e.g. wallet balance may be as of a different block from the chain state reported)"},
	{name: "netinfo", flags: optBool | optCommand, cat: catCommands, help: "Get network peer connection information from the remote server. An optional argument from 0 to 4 can be passed for different peers listings (default: 0). If a non-zero value is passed, an additional \"outonly\" (or \"o\") argument can be passed to see outbound peers only. Pass \"help\" (or \"h\") for detailed help documentation."},

	{name: "ipcconnect", arg: "=<address>", cat: catIPC, help: "Connect to bitcoin-node through IPC socket instead of TCP socket to execute requests. btcctl has no IPC support: 'auto' (the default) and -noipcconnect use HTTP, any other value is an error."},

	{name: "tls", flags: optBool, cat: catBtcd, help: "Connect to the RPC server with TLS (btcd's --rpccert/--rpckey server)"},
	{name: "rpccert", arg: "=<file>", cat: catBtcd, help: "With -tls, trust the server certificate in <file>"},
	{name: "skipverify", flags: optBool, cat: catBtcd, help: "With -tls, do not verify the server certificate"},
}

// lookupOption returns the option called name, or nil.
func lookupOption(name string) *option {
	for i := range options {
		if options[i].name == name {
			return &options[i]
		}
	}
	return nil
}

// A setting is one value an option was given: a string, or a negation
// (-noname, false) or double negation (-noname=0, true).
type setting = bitcoinconf.Value

// span is the values one source gave an option, in order.
type span = bitcoinconf.Span

// interpretBool and atoi64 are bitcoin-cli's InterpretBool and atoll.
var (
	interpretBool = bitcoinconf.InterpretBool
	atoi64        = bitcoinconf.Atoi64
)

// settings hold what the command line and config files said, and answer
// with bitcoin-cli's precedence: forced values (-stdinrpcpass), then the
// command line (last value wins), then the chain's config section, then the
// top of the config file (first value wins in config files).
type settings struct {
	forced  map[string]setting
	cmdline map[string]span
	conf    map[string]map[string]span // section ("" = top) → option
	// legacyConf is set when the config file is btcd's btcctl.conf or
	// btcd.conf: those have no network sections, so their rpcport
	// applies whatever the network.
	legacyConf bool
	chain      string // once selected
}

func newSettings() *settings {
	return &settings{forced: map[string]setting{}, cmdline: map[string]span{}, conf: map[string]map[string]span{}}
}

// interpretValue makes a setting of a key's value (nil when none was
// given), with bitcoin-cli's negation rules.
func interpretValue(k bitcoinconf.Key, val *string, o *option) (setting, error) {
	v, _, err := bitcoinconf.Interpret(k, val, o.flags&optNoNegation != 0)
	return v, err
}

// parseCommandLine reads the options in front of the method and returns
// the rest (the method and its parameters). Options start with one or two
// dashes; the first word that does not ends them.
func (s *settings) parseCommandLine(argv []string) ([]string, error) {
	i := 0
	for ; i < len(argv); i++ {
		arg := argv[i]
		if !strings.HasPrefix(arg, "-") {
			break
		}
		key, val := bitcoinconf.SplitArg(arg)
		k := bitcoinconf.ParseKey(key)
		name, negated := k.Name, k.Negated
		o := lookupOption(name)
		if o == nil || k.Section != "" {
			return nil, fmt.Errorf("Invalid parameter %s", arg)
		}
		// btcctl's older "-name value" form, for options that need a
		// value; bitcoin-cli's "-name=value" is unaffected.
		if val == nil && !negated && o.flags&optBool == 0 && i+1 < len(argv) {
			i++
			v := argv[i]
			val = &v
		}
		v, err := interpretValue(k, val, o)
		if err != nil {
			return nil, err
		}
		if name == "includeconf" && !v.IsFalse() {
			return nil, fmt.Errorf("-includeconf cannot be used from commandline; -includeconf=%s", v.String())
		}
		if name == "rpcpass" {
			name = "rpcpassword"
		}
		s.cmdline[name] = append(s.cmdline[name], v)
	}
	return argv[i:], nil
}

// onCommandLine reports whether the command line names the option at all
// (negated or not), which is what the one-command check looks at.
func (s *settings) onCommandLine(name string) bool { return len(s.cmdline[name]) > 0 }

// get returns the option's effective value and whether any source set it.
func (s *settings) get(name string) (setting, bool) {
	if v, ok := s.forced[name]; ok {
		return v, true
	}
	o := lookupOption(name)
	networkOnly := o != nil && o.flags&optNetworkOnly != 0 && !s.legacyConf && s.chain != "" && s.chain != "main"
	sources := []struct {
		sp       span
		inConfig bool
		top      bool
	}{{s.cmdline[name], false, false}}
	if s.chain != "" {
		sources = append(sources, struct {
			sp       span
			inConfig bool
			top      bool
		}{s.conf[s.chain][name], true, false})
	}
	sources = append(sources, struct {
		sp       span
		inConfig bool
		top      bool
	}{s.conf[""][name], true, true})
	for _, src := range sources {
		// A network-only option at the top of a config file applies to
		// mainnet only, except that a negation there still counts.
		if src.top && networkOnly && !src.sp.LastNegated() {
			continue
		}
		if src.sp.LastNegated() {
			return src.sp[len(src.sp)-1], true
		}
		after := src.sp.AfterNegation()
		if len(after) == 0 {
			continue
		}
		if src.inConfig {
			return after[0], true
		}
		return after[len(after)-1], true
	}
	return setting{}, false
}

// isSet reports whether any source set the option (a negation counts).
func (s *settings) isSet(name string) bool {
	_, ok := s.get(name)
	return ok
}

// isNegated reports whether the effective value is a negation.
func (s *settings) isNegated(name string) bool {
	v, ok := s.get(name)
	return ok && v.IsFalse()
}

// getString returns the option as a string, or def when unset.
func (s *settings) getString(name, def string) string {
	if v, ok := s.get(name); ok {
		return v.String()
	}
	return def
}

// lookupString returns the option's string and whether it was set.
func (s *settings) lookupString(name string) (string, bool) {
	v, ok := s.get(name)
	return v.String(), ok
}

// getBool returns the option as a boolean, or def when unset.
func (s *settings) getBool(name string, def bool) bool {
	if v, ok := s.get(name); ok {
		return v.Bool()
	}
	return def
}

// getInt returns the option as an integer, or def when unset.
func (s *settings) getInt(name string, def int64) int64 {
	if v, ok := s.get(name); ok {
		return v.Int()
	}
	return def
}

// chainFlag reads -regtest and the like as bitcoin-cli does when choosing
// the network: network sections are not consulted (the network is not
// known yet), a negation on the command line is ignored, and in the config
// file the last value counts.
func (s *settings) chainFlag(name string) bool {
	if sp := s.cmdline[name]; len(sp) > 0 && !sp.LastNegated() {
		return sp[len(sp)-1].Bool()
	}
	if sp := s.conf[""][name]; len(sp) > 0 {
		return !sp.LastNegated() && sp[len(sp)-1].Bool()
	}
	return false
}

// chainNames are the networks, by their section names.
var chainNames = []string{"main", "test", "testnet4", "signet", "regtest"}

// selectChain resolves -chain, -regtest, -testnet, -testnet4 and -signet.
func (s *settings) selectChain() (string, error) {
	var chain string
	n := 0
	for _, c := range []struct{ flag, chain string }{{"regtest", "regtest"}, {"signet", "signet"}, {"testnet", "test"}, {"testnet4", "testnet4"}} {
		if s.chainFlag(c.flag) {
			if chain == "" {
				chain = c.chain
			}
			n++
		}
	}
	// -chain, from the command line (last value) or the top of the config
	// file (first value).
	chainArg, haveChainArg := "", false
	if sp := s.cmdline["chain"]; len(sp) > 0 {
		chainArg, haveChainArg = sp[len(sp)-1].String(), true
	} else if sp := s.conf[""]["chain"]; len(sp) > 0 {
		if after := sp.AfterNegation(); len(after) > 0 && !sp.LastNegated() {
			chainArg = after[0].String()
		} else {
			chainArg = sp[len(sp)-1].String()
		}
		haveChainArg = true
	}
	if haveChainArg {
		n++
	}
	if n > 1 {
		return "", errors.New("Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.")
	}
	if chain != "" {
		return chain, nil
	}
	if !haveChainArg {
		return "main", nil
	}
	for _, c := range chainNames {
		if c == chainArg {
			return c, nil
		}
	}
	return "", fmt.Errorf("Unknown chain %s. Valid values are: main, test, testnet4, signet, regtest", chainArg)
}
