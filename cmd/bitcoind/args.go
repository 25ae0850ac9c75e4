package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/btcnode/btcd/internal/bitcoinconf"
)

// A value is one setting as bitcoind stores it: a string, or a bare
// negation (-nofoo is false; the double negative -nofoo=0 is true).
type value = bitcoinconf.Value

// span is the values one source gave an option, in order.
type span = bitcoinconf.Span

// interpretBool and atoi64 are bitcoind's InterpretBool and
// LocaleIndependentAtoi.
var (
	interpretBool = bitcoinconf.InterpretBool
	atoi64        = bitcoinconf.Atoi64
)

// source says where a setting came from, in bitcoind's order of
// precedence.
type source int

const (
	fromCommandLine source = iota
	fromSettingsFile
	fromNetworkSection
	fromDefaultSection
)

// sectionInfo records a [section] (or section.key) seen in a config file.
type sectionInfo struct {
	name, file string
	line       int
}

// args holds every setting bitcoind's command line and config files gave,
// and answers queries with bitcoind's precedence rules (ArgsManager).
type args struct {
	cmdline map[string]span
	// rw holds settings.json's values (read-write settings), read from
	// settings (nil with -nosettings).
	rw       map[string]span
	settings *settingsFile
	// conf maps section ("" for the top) to its settings.
	conf     map[string]sectionSettings
	sections []sectionInfo
	// chain is the selected network's section name once known.
	chain string
	// warnings are logged once the node's logging is up.
	warnings []string
	// initWarnings are bitcoind's InitWarning messages: printed to
	// stderr as one "Warning: ..." block at start-up, and logged.
	initWarnings []string
	// stderrLines are printed to stderr as they are (and logged).
	stderrLines []string
}

func newArgs() *args {
	return &args{cmdline: map[string]span{}, rw: map[string]span{}, conf: map[string]sectionSettings{}}
}

// interpretValue turns a key and its optional value into a setting, with
// bitcoind's rules for negation and for options that need a value.
func (a *args) interpretValue(k bitcoinconf.Key, val *string, o *option) (value, error) {
	if !k.Negated && val == nil && o.flags&disallowElision != 0 {
		return value{}, fmt.Errorf("Can not set -%s with no value. Please specify value with -%s=value.", k.Name, k.Name)
	}
	v, double, err := bitcoinconf.Interpret(k, val, o.flags&disallowNegation != 0)
	if double {
		a.warnings = append(a.warnings, fmt.Sprintf("Warning: parsed potentially confusing double-negative -%s=%s", k.Name, *val))
	}
	return v, err
}

// parseCommandLine reads argv (without the program name). Every argument
// must be an option: bitcoind takes no positional arguments.
func (a *args) parseCommandLine(argv []string) error {
	for _, arg := range argv {
		if !strings.HasPrefix(arg, "-") {
			return fmt.Errorf("Command line contains unexpected token '%s', see bitcoind -h for a list of options.", arg)
		}
		key, val := bitcoinconf.SplitArg(arg)
		k := bitcoinconf.ParseKey(key)
		o := lookupOption(k.Name)
		if o == nil {
			return fmt.Errorf("Invalid parameter %s", arg)
		}
		v, err := a.interpretValue(k, val, o)
		if err != nil {
			return err
		}
		if o.name == "includeconf" {
			return fmt.Errorf("-includeconf cannot be used from commandline; -includeconf=%s", v.JSON())
		}
		// Section prefixes on the command line are accepted but
		// ignored, as bitcoind does.
		if k.Section != "" {
			continue
		}
		a.cmdline[k.Name] = append(a.cmdline[k.Name], v)
	}
	return nil
}

// readConfigText adds a config file's settings. Keys bitcoind does not
// know are logged and skipped, as bitcoind does.
func (a *args) readConfigText(text, file string) error {
	lines, secs, err := bitcoinconf.Parse(text)
	if err != nil {
		return err
	}
	for _, s := range secs {
		a.sections = append(a.sections, sectionInfo{name: s.Name, file: file, line: s.Line})
	}
	for _, l := range lines {
		k := bitcoinconf.ParseKey(l.Key)
		switch {
		case k.Name == "conf" && !k.Negated:
			return bitcoinconf.ErrConfInFile
		case k.Name == "reindex":
			// Accepted, but it reindexes at every start.
			a.warnings = append(a.warnings, "Warning: reindex=1 is set in the configuration file, which will significantly slow down startup. "+
				"Consider removing or commenting out this option for better performance, unless there is currently a condition which makes rebuilding the indexes necessary")
		}
		o := lookupOption(k.Name)
		if o == nil {
			a.warnings = append(a.warnings, "Ignoring unknown configuration value "+l.Key)
			continue
		}
		val := l.Value
		v, err := a.interpretValue(k, &val, o)
		if err != nil {
			return err
		}
		m := a.conf[k.Section]
		if m == nil {
			m = sectionSettings{}
			a.conf[k.Section] = m
		}
		m[k.Name] = append(m[k.Name], v)
	}
	return nil
}

// spans returns the option's values from each source in precedence order
// (command line, the chain's section, the top of the config files).
func (a *args) spans(name string) []struct {
	src source
	sp  span
} {
	out := []struct {
		src source
		sp  span
	}{{fromCommandLine, a.cmdline[name]}, {fromSettingsFile, a.rw[name]}}
	if a.chain != "" {
		out = append(out, struct {
			src source
			sp  span
		}{fromNetworkSection, a.conf[a.chain][name]})
	}
	out = append(out, struct {
		src source
		sp  span
	}{fromDefaultSection, a.conf[""][name]})
	return out
}

// ignoreDefaultSection reports whether an option's values at the top of
// a config file are ignored: network-only options there apply to mainnet
// alone.
func (a *args) ignoreDefaultSection(o *option) bool {
	return o.flags&networkOnly != 0 && a.chain != "" && a.chain != "main"
}

// get returns the effective single value of an option and whether any
// source set it: the command line's last value, else the first value of
// the chain's section, else the first of the top of the config files.
func (a *args) get(name string) (value, bool) {
	o := lookupOption(name)
	for _, s := range a.spans(name) {
		if s.src == fromDefaultSection && o != nil && a.ignoreDefaultSection(o) && !s.sp.LastNegated() {
			continue
		}
		if len(s.sp) == 0 {
			continue
		}
		if s.src == fromCommandLine || s.src == fromSettingsFile {
			return s.sp[len(s.sp)-1], true
		}
		// In config files the first assignment wins, unless the source
		// ends in a negation.
		if s.sp.LastNegated() {
			return s.sp[len(s.sp)-1], true
		}
		return s.sp[0], true
	}
	return value{}, false
}

// isSet reports whether any source set the option (a negation counts).
func (a *args) isSet(name string) bool {
	_, ok := a.get(name)
	return ok
}

// isNegated reports whether the option's effective value is a negation.
func (a *args) isNegated(name string) bool {
	v, ok := a.get(name)
	return ok && v.IsFalse()
}

// getString returns the option's value, or def when unset.
func (a *args) getString(name, def string) string {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	return v.String()
}

// getBool returns the option as a boolean, or def when unset.
func (a *args) getBool(name string, def bool) bool {
	if v, ok := a.get(name); ok {
		return v.Bool()
	}
	return def
}

// getInt returns the option as an integer, or def when unset.
func (a *args) getInt(name string, def int64) int64 {
	if v, ok := a.get(name); ok {
		return v.Int()
	}
	return def
}

// getList returns every value of a repeatable option, command line first.
// A negation discards the values before it and those of lower sources.
func (a *args) getList(name string) []string {
	o := lookupOption(name)
	var out []string
	for _, s := range a.spans(name) {
		if s.src == fromDefaultSection && o != nil && a.ignoreDefaultSection(o) && !s.sp.LastNegated() {
			continue
		}
		for _, v := range s.sp.AfterNegation() {
			if v.Negated {
				continue // a double negative adds no value
			}
			out = append(out, v.Str)
		}
		for _, v := range s.sp {
			if v.IsFalse() {
				return out
			}
		}
	}
	return out
}

// unsuitableSectionOnly lists the network-only options set only at the top
// of a config file while another network is selected: bitcoind refuses
// to start rather than ignore them silently.
func (a *args) unsuitableSectionOnly() []string {
	if a.chain == "" || a.chain == "main" {
		return nil
	}
	var out []string
	for name, sp := range a.conf[""] {
		o := lookupOption(name)
		if o == nil || o.flags&networkOnly == 0 || len(sp) == 0 {
			continue
		}
		if len(a.cmdline[name]) > 0 || len(a.conf[a.chain][name]) > 0 {
			continue
		}
		// A negation at the top is not "unsuitable": it disables.
		if sp.LastNegated() {
			continue
		}
		out = append(out, "-"+name)
	}
	sortStrings(out)
	return out
}

// chainNames are the section names of the networks.
var chainNames = map[string]bool{"main": true, "test": true, "testnet4": true, "signet": true, "regtest": true}

// unrecognizedSections lists config sections that name no network.
func (a *args) unrecognizedSections() []sectionInfo {
	var out []sectionInfo
	for _, s := range a.sections {
		if !chainNames[s.name] {
			out = append(out, s)
		}
	}
	return out
}

// selectChain resolves -chain, -regtest, -testnet, -testnet4 and -signet.
// Negations of the network flags on the command line are ignored, as
// bitcoind does.
func (a *args) selectChain() (string, error) {
	flagVal := func(name string) bool {
		for _, s := range a.spans(name) {
			if s.src == fromCommandLine && s.sp.LastNegated() {
				continue
			}
			if len(s.sp) > 0 {
				return s.sp[len(s.sp)-1].Bool()
			}
		}
		return false
	}
	var chain string
	var n int
	for _, c := range []struct{ flag, name string }{
		{"regtest", "regtest"}, {"signet", "signet"}, {"testnet", "test"}, {"testnet4", "testnet4"},
	} {
		if flagVal(c.flag) {
			chain, n = c.name, n+1
		}
	}
	var chainArg string
	for _, s := range a.spans("chain") {
		if len(s.sp) > 0 {
			chainArg = s.sp[len(s.sp)-1].String()
			break
		}
	}
	if chainArg != "" {
		n++
		chain = chainArg
	}
	if n > 1 {
		return "", errors.New("Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.")
	}
	if chain == "" {
		chain = "main"
	}
	switch chain {
	case "main", "test", "testnet4", "signet", "regtest":
	case "testnet3":
		chain = "test"
	default:
		return "", fmt.Errorf("Unknown chain %s. Valid values are: main, test, testnet4, signet, regtest", chain)
	}
	return chain, nil
}

// readConfigFiles reads bitcoin.conf (or -conf) and its includeconf files.
// datadir is the -datadir from the command line (or the default).
func (a *args) readConfigFiles(datadir string) (confPath string, err error) {
	if a.isNegated("conf") {
		return "", nil
	}
	confArg := a.getString("conf", "bitcoin.conf")
	confPath = absFromDataDir(datadir, confArg)
	st, err := os.Stat(confPath)
	switch {
	case err == nil && st.IsDir():
		return confPath, fmt.Errorf("Config file \"%s\" is a directory.", confPath)
	case err != nil && a.isSet("conf"):
		return confPath, fmt.Errorf("specified config file \"%s\" could not be opened.", confPath)
	case err != nil:
		return confPath, nil
	}
	b, err := os.ReadFile(confPath)
	if err != nil {
		return confPath, fmt.Errorf("specified config file \"%s\" could not be opened.", confPath)
	}
	if err := a.readConfigText(string(b), confPath); err != nil {
		return confPath, err
	}
	// The network may be chosen in the file just read.
	chain, err := a.selectChain()
	if err != nil {
		return confPath, err
	}
	a.chain = chain
	// Includes named in the chain's section, then at the top.
	var includes []string
	if !a.isNegated("includeconf") {
		includes = append(includes, a.conf[chain].values("includeconf")...)
		includes = append(includes, a.conf[""].values("includeconf")...)
	}
	for _, inc := range includes {
		p := absFromDataDir(datadir, inc)
		st, err := os.Stat(p)
		if err == nil && st.IsDir() {
			return confPath, fmt.Errorf("Included config file \"%s\" is a directory.", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return confPath, fmt.Errorf("Failed to include configuration file %s", inc)
		}
		before := map[string]int{"": len(a.conf[""]["includeconf"]), chain: len(a.conf[chain]["includeconf"])}
		if err := a.readConfigText(string(b), p); err != nil {
			return confPath, err
		}
		// Included files may not include further.
		for sec, n := range before {
			if sp := a.conf[sec]["includeconf"]; len(sp) > n {
				for _, v := range sp[n:] {
					a.stderrLines = append(a.stderrLines, fmt.Sprintf("warning: -includeconf cannot be used from included files; ignoring -includeconf=%s", v.String()))
				}
				a.conf[sec]["includeconf"] = sp[:n]
			}
		}
	}
	// The network may also be chosen in an included file.
	if chain, err = a.selectChain(); err != nil {
		return confPath, err
	}
	a.chain = chain
	return confPath, nil
}

// sectionSettings are one config section's options and their values.
type sectionSettings map[string]span

// values lists a section's values of an option after negation.
func (m sectionSettings) values(name string) []string {
	return m[name].Strings()
}

// absFromDataDir makes a config path absolute as bitcoind does: relative
// paths are taken from the data directory.
func absFromDataDir(datadir, p string) string {
	p = expandHome(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(datadir, p)
}

// expandHome expands a leading ~/.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return home + p[1:]
		}
	}
	return p
}
