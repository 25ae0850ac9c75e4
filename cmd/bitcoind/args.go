package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A value is one setting as bitcoind stores it: a string, or a bare
// negation (-nofoo is false; the double negative -nofoo=0 is true).
type value struct {
	s       string
	negated bool // -nofoo: false
	boolean bool // set for -nofoo=0: true
}

// isFalse reports a negation.
func (v value) isFalse() bool { return v.negated && !v.boolean }

// str returns the value as bitcoind's GetArg does: false is "0", the
// double negative "1".
func (v value) str() string {
	switch {
	case v.negated && v.boolean:
		return "1"
	case v.negated:
		return "0"
	}
	return v.s
}

// json prints the value as bitcoind's settings do: a negation as false,
// a double negative as true, a string quoted.
func (v value) json() string {
	switch {
	case v.negated && v.boolean:
		return "true"
	case v.negated:
		return "false"
	}
	q, _ := json.Marshal(v.s)
	return string(q)
}

// interpretBool is bitcoind's InterpretBool: the empty string is true,
// otherwise the number's leading integer is compared with zero.
func interpretBool(s string) bool {
	if s == "" {
		return true
	}
	return atoi64(s) != 0
}

// atoi64 parses a leading decimal integer as C's atoll (and bitcoind's
// LocaleIndependentAtoi) do: optional spaces and sign, digits, rest
// ignored; no digits is 0, overflow saturates.
func atoi64(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		return 0
	}
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 {
		return 0
	}
	n, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		if neg {
			return -1 << 63
		}
		return 1<<63 - 1
	}
	if neg {
		return -n
	}
	return n
}

// source says where a setting came from, in bitcoind's order of
// precedence.
type source int

const (
	fromCommandLine source = iota
	fromSettingsFile
	fromNetworkSection
	fromDefaultSection
)

// span is the values one source gave an option, in order.
type span []value

// lastNegated reports whether the last value is a plain negation.
func (s span) lastNegated() bool { return len(s) > 0 && s[len(s)-1].isFalse() }

// afterNegation returns the values after the last negation: a negation
// discards what came before it in the same source.
func (s span) afterNegation() span {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].isFalse() {
			return s[i+1:]
		}
	}
	return s
}

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

// keyInfo is a parsed option key: [section.][no]name.
type keyInfo struct {
	section, name string
	negated       bool
}

func interpretKey(key string) keyInfo {
	var k keyInfo
	if i := strings.IndexByte(key, '.'); i >= 0 {
		k.section, key = key[:i], key[i+1:]
	}
	if strings.HasPrefix(key, "no") {
		key, k.negated = key[2:], true
	}
	k.name = key
	return k
}

// interpretValue turns a key and its optional value into a setting, with
// bitcoind's rules for negation and for options that need a value.
func (a *args) interpretValue(k keyInfo, val *string, o *option) (value, error) {
	if k.negated {
		if o.flags&disallowNegation != 0 {
			return value{}, fmt.Errorf("Negating of -%s is meaningless and therefore forbidden", k.name)
		}
		if val != nil && !interpretBool(*val) {
			a.warnings = append(a.warnings, fmt.Sprintf("Warning: parsed potentially confusing double-negative -%s=%s", k.name, *val))
			return value{negated: true, boolean: true}, nil
		}
		return value{negated: true}, nil
	}
	if val == nil {
		if o.flags&disallowElision != 0 {
			return value{}, fmt.Errorf("Can not set -%s with no value. Please specify value with -%s=value.", k.name, k.name)
		}
		return value{}, nil
	}
	return value{s: *val}, nil
}

// parseCommandLine reads argv (without the program name). Every argument
// must be an option: bitcoind takes no positional arguments.
func (a *args) parseCommandLine(argv []string) error {
	for _, arg := range argv {
		if !strings.HasPrefix(arg, "-") {
			return fmt.Errorf("Command line contains unexpected token '%s', see bitcoind -h for a list of options.", arg)
		}
		key := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
		var val *string
		if i := strings.IndexByte(key, '='); i >= 0 {
			v := key[i+1:]
			key, val = key[:i], &v
		}
		k := interpretKey(key)
		o := lookupOption(k.name)
		if o == nil {
			return fmt.Errorf("Invalid parameter %s", arg)
		}
		v, err := a.interpretValue(k, val, o)
		if err != nil {
			return err
		}
		if o.name == "includeconf" {
			return fmt.Errorf("-includeconf cannot be used from commandline; -includeconf=%s", v.json())
		}
		// Section prefixes on the command line are accepted but
		// ignored, as bitcoind does.
		if k.section != "" {
			continue
		}
		a.cmdline[k.name] = append(a.cmdline[k.name], v)
	}
	return nil
}


// confLine is one key=value of a config file, with its section.
type confLine struct {
	key, value string
	line       int
}

// parseConfig splits a config file into settings, with bitcoind's syntax:
// '#' starts a comment, [section] starts a network section, and every
// other non-empty line is key=value.
func parseConfig(text, file string) ([]confLine, []sectionInfo, error) {
	var out []confLine
	var secs []sectionInfo
	prefix := ""
	for n, raw := range strings.Split(text, "\n") {
		line := n + 1
		usedHash := false
		if i := strings.IndexByte(raw, '#'); i >= 0 {
			raw, usedHash = raw[:i], true
		}
		s := strings.Trim(raw, " \t\r\n")
		switch {
		case s == "":
		case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
			sec := s[1 : len(s)-1]
			secs = append(secs, sectionInfo{name: sec, file: file, line: line})
			prefix = sec + "."
		case strings.HasPrefix(s, "-"):
			return nil, nil, fmt.Errorf("parse error on line %d: %s, options in configuration file must be specified without leading -", line, s)
		case strings.Contains(s, "="):
			i := strings.IndexByte(s, '=')
			name := prefix + strings.Trim(s[:i], " \t\r\n")
			val := strings.Trim(s[i+1:], " \t\r\n")
			if usedHash && strings.Contains(name, "rpcpassword") {
				return nil, nil, fmt.Errorf("parse error on line %d, using # in rpcpassword can be ambiguous and should be avoided", line)
			}
			out = append(out, confLine{key: name, value: val, line: line})
			if j := strings.LastIndexByte(name, '.'); j >= 0 && len(prefix) <= j {
				secs = append(secs, sectionInfo{name: name[:j], file: file, line: line})
			}
		default:
			msg := fmt.Sprintf("parse error on line %d: %s", line, s)
			if strings.HasPrefix(s, "no") {
				msg += fmt.Sprintf(", if you intended to specify a negated option, use %s=1 instead", s)
			}
			return nil, nil, errors.New(msg)
		}
	}
	return out, secs, nil
}

// readConfigText adds a config file's settings. Keys bitcoind does not
// know are logged and skipped, as bitcoind does.
func (a *args) readConfigText(text, file string) error {
	lines, secs, err := parseConfig(text, file)
	if err != nil {
		return err
	}
	a.sections = append(a.sections, secs...)
	for _, l := range lines {
		k := interpretKey(l.key)
		o := lookupOption(k.name)
		if o == nil {
			a.warnings = append(a.warnings, "Ignoring unknown configuration value "+l.key)
			continue
		}
		val := l.value
		v, err := a.interpretValue(k, &val, o)
		if err != nil {
			return err
		}
		m := a.conf[k.section]
		if m == nil {
			m = sectionSettings{}
			a.conf[k.section] = m
		}
		m[k.name] = append(m[k.name], v)
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
		if s.src == fromDefaultSection && o != nil && a.ignoreDefaultSection(o) && !s.sp.lastNegated() {
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
		if s.sp.lastNegated() {
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
	return ok && v.isFalse()
}

// getString returns the option's value, or def when unset.
func (a *args) getString(name, def string) string {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	return v.str()
}

// getBool returns the option as a boolean, or def when unset.
func (a *args) getBool(name string, def bool) bool {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	if v.negated {
		return v.boolean
	}
	return interpretBool(v.s)
}

// getInt returns the option as an integer, or def when unset.
func (a *args) getInt(name string, def int64) int64 {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	if v.negated {
		if v.boolean {
			return 1
		}
		return 0
	}
	return atoi64(v.s)
}

// getList returns every value of a repeatable option, command line first.
// A negation discards the values before it and those of lower sources.
func (a *args) getList(name string) []string {
	o := lookupOption(name)
	var out []string
	for _, s := range a.spans(name) {
		if s.src == fromDefaultSection && o != nil && a.ignoreDefaultSection(o) && !s.sp.lastNegated() {
			continue
		}
		for _, v := range s.sp.afterNegation() {
			if v.negated {
				continue // a double negative adds no value
			}
			out = append(out, v.s)
		}
		for _, v := range s.sp {
			if v.isFalse() {
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
		if sp.lastNegated() {
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
			if s.src == fromCommandLine && s.sp.lastNegated() {
				continue
			}
			if len(s.sp) > 0 {
				v := s.sp[len(s.sp)-1]
				if v.negated {
					return v.boolean
				}
				return interpretBool(v.s)
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
			chainArg = s.sp[len(s.sp)-1].str()
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
					a.stderrLines = append(a.stderrLines, fmt.Sprintf("warning: -includeconf cannot be used from included files; ignoring -includeconf=%s", v.str()))
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
	var out []string
	for _, v := range m[name].afterNegation() {
		if !v.negated {
			out = append(out, v.s)
		}
	}
	return out
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
