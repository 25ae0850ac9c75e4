package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/btcnode/btcd/internal/bitcoinconf"
)

// addConfigText adds a bitcoin.conf's settings. Keys btcctl does not know
// (the daemon's own settings) are skipped, as bitcoin-cli does.
func (s *settings) addConfigText(text string) error {
	lines, _, err := bitcoinconf.Parse(text)
	if err != nil {
		return err
	}
	for _, l := range lines {
		k := bitcoinconf.ParseKey(l.Key)
		name := k.Name
		if name == "conf" && !k.Negated {
			return bitcoinconf.ErrConfInFile
		}
		o := lookupOption(name)
		if o == nil {
			continue
		}
		val := l.Value
		v, err := interpretValue(k, &val, o)
		if err != nil {
			return err
		}
		if name == "rpcpass" {
			name = "rpcpassword"
		}
		m := s.conf[k.Section]
		if m == nil {
			m = map[string]span{}
			s.conf[k.Section] = m
		}
		m[name] = append(m[name], v)
	}
	return nil
}

// legacyKeys are the settings btcctl has always read from btcctl.conf and
// btcd.conf (go-flags ini files, whose [Application Options] header and
// other settings are ignored).
var legacyKeys = map[string]string{
	"rpcuser": "rpcuser", "rpcpassword": "rpcpassword", "rpcpass": "rpcpassword",
	"rpcconnect": "rpcconnect", "rpcport": "rpcport", "rpccookiefile": "rpccookiefile", "datadir": "datadir",
}

// addLegacyConfigText adds the settings of a btcctl.conf or btcd.conf.
func (s *settings) addLegacyConfigText(text string) {
	s.legacyConf = true
	m := s.conf[""]
	if m == nil {
		m = map[string]span{}
		s.conf[""] = m
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if name, known := legacyKeys[strings.TrimSpace(k)]; known {
			m[name] = append(m[name], setting{Str: strings.TrimSpace(v)})
		}
	}
}

// includes lists a config section's includeconf files.
func (s *settings) includes(section string) []string {
	return s.conf[section]["includeconf"].Strings()
}

// homeDir is the user's home directory, "." when unknown.
func homeDir() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "."
	}
	return home
}

// btcdAppDir is btcd's application directory: ~/.btcd on Unix,
// ~/Library/Application Support/Btcd on macOS, %LOCALAPPDATA%\Btcd on
// Windows.
func btcdAppDir() string {
	switch runtime.GOOS {
	case "windows":
		if dir := os.Getenv("LOCALAPPDATA"); dir != "" {
			return filepath.Join(dir, "Btcd")
		}
		return filepath.Join(homeDir(), "Btcd")
	case "darwin", "ios":
		return filepath.Join(homeDir(), "Library", "Application Support", "Btcd")
	}
	return filepath.Join(homeDir(), ".btcd")
}

// coreDataDir is bitcoind's default data directory: ~/.bitcoin on Unix,
// ~/Library/Application Support/Bitcoin on macOS, %LOCALAPPDATA%\Bitcoin
// (or an existing %APPDATA%\Bitcoin) on Windows.
func coreDataDir() string {
	switch runtime.GOOS {
	case "windows":
		if dir := os.Getenv("APPDATA"); dir != "" && isDir(filepath.Join(dir, "Bitcoin")) {
			return filepath.Join(dir, "Bitcoin")
		}
		if dir := os.Getenv("LOCALAPPDATA"); dir != "" {
			return filepath.Join(dir, "Bitcoin")
		}
		return filepath.Join(homeDir(), "Bitcoin")
	case "darwin", "ios":
		return filepath.Join(homeDir(), "Library", "Application Support", "Bitcoin")
	}
	return filepath.Join(homeDir(), ".bitcoin")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// expandHome expands a leading "~/".
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return homeDir() + p[1:]
	}
	return p
}

// absPath resolves a path from the working directory.
func absPath(p string) string {
	p = expandHome(p)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// coreNetDirs are bitcoind's per-network subdirectories of the data
// directory; mainnet uses the data directory itself.
var coreNetDirs = map[string]string{"main": "", "test": "testnet3", "testnet4": "testnet4", "signet": "signet", "regtest": "regtest"}

// defaultRPCPorts are each network's RPC port.
var defaultRPCPorts = map[string]uint16{"main": 8332, "test": 18332, "testnet4": 48332, "signet": 38332, "regtest": 18443}

// config is the outcome of reading the command line and config files.
type config struct {
	s        *settings
	rest     []string // the method and its parameters
	chain    string
	dataDir  string
	confPath string // for messages; "" with -noconf
	// btcdLayout is set when the data directory is btcd's (no
	// bitcoin.conf found), where mainnet has its own "mainnet" folder.
	btcdLayout bool
	warn       io.Writer // for config warnings
}

// errInit is a start-up error, printed as is (bitcoin-cli's "Error: ..."
// messages, which differ from the "error: ..." of a failed call).
type errInit struct{ msg string }

func (e *errInit) Error() string { return e.msg }

// loadConfig finds the data directory, reads the config file and selects
// the network, as bitcoin-cli does before making a call. Without -datadir
// and -conf, btcd's ~/.btcd (with btcctl.conf or btcd.conf) is used when it
// exists, bitcoind's data directory otherwise.
func loadConfig(s *settings, rest []string, warn io.Writer) (*config, error) {
	c := &config{s: s, rest: rest, warn: warn}
	// An empty -datadir means the default, as in bitcoin-cli.
	dataDirGiven := s.getString("datadir", "") != ""
	if dataDirGiven {
		c.dataDir = absPath(s.getString("datadir", ""))
		if !isDir(c.dataDir) {
			return nil, &errInit{fmt.Sprintf("Error: Specified data directory \"%s\" does not exist.", s.getString("datadir", ""))}
		}
	} else if isDir(btcdAppDir()) || !isDir(coreDataDir()) {
		c.dataDir = filepath.Join(btcdAppDir(), "data")
		c.btcdLayout = true
	} else {
		c.dataDir = coreDataDir()
	}
	chain, err := s.selectChain()
	if err != nil {
		return nil, &errInit{"Error: " + err.Error()}
	}
	s.chain = chain
	if err := c.readConfigFiles(dataDirGiven); err != nil {
		if ie, ok := err.(*errInit); ok {
			return nil, ie
		}
		return nil, &errInit{"Error reading configuration file: " + err.Error()}
	}
	if chain, err = s.selectChain(); err != nil {
		return nil, &errInit{"Error: " + err.Error()}
	}
	s.chain, c.chain = chain, chain
	// The config file may move the data directory.
	if d, ok := s.conf[""]["datadir"]; ok && !s.onCommandLine("datadir") && len(d.AfterNegation()) > 0 {
		c.dataDir = absPath(s.getString("datadir", ""))
		if !isDir(c.dataDir) {
			return nil, &errInit{fmt.Sprintf("Error reading configuration file: specified data directory \"%s\" does not exist.", s.getString("datadir", ""))}
		}
	}
	return c, nil
}

// readConfigFiles reads -conf, else bitcoin.conf in the data directory,
// else btcd's btcctl.conf or btcd.conf, and bitcoin.conf's includeconf
// files.
func (c *config) readConfigFiles(dataDirGiven bool) error {
	s := c.s
	if s.isNegated("conf") {
		return nil
	}
	legacyName := func(p string) bool {
		b := filepath.Base(p)
		return b == "btcctl.conf" || b == "btcd.conf"
	}
	var path string
	switch confArg, given := s.lookupString("conf"); {
	case given:
		if confArg == "" {
			confArg = "bitcoin.conf"
		}
		path = expandHome(confArg)
		if !filepath.IsAbs(path) {
			if dataDirGiven || !c.btcdLayout {
				path = filepath.Join(c.dataDir, path)
			} else {
				path = absPath(path) // btcctl has always taken it from the working directory
			}
		}
		if isDir(path) {
			c.confPath = path
			return fmt.Errorf("Config file \"%s\" is a directory.", path)
		}
		if !isFile(path) {
			c.confPath = path
			return fmt.Errorf("specified config file \"%s\" could not be opened.", path)
		}
	case !c.btcdLayout && isFile(filepath.Join(c.dataDir, "bitcoin.conf")):
		path = filepath.Join(c.dataDir, "bitcoin.conf")
	case !c.btcdLayout && !dataDirGiven:
		c.confPath = filepath.Join(c.dataDir, "bitcoin.conf")
		return nil
	default:
		// btcd's own files: btcctl.conf, else the daemon's btcd.conf
		// (which carries rpcuser and rpcpass).
		c.btcdLayout = true
		path = filepath.Join(btcdAppDir(), "btcctl.conf")
		if !isFile(path) {
			path = filepath.Join(btcdAppDir(), "btcd.conf")
		}
		c.confPath = path
		if !isFile(path) {
			if dataDirGiven {
				// Messages name the file bitcoin-cli would have read.
				c.confPath = filepath.Join(c.dataDir, "bitcoin.conf")
			}
			return nil
		}
	}
	c.confPath = path
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("specified config file \"%s\" could not be opened.", path)
	}
	if legacyName(path) {
		s.addLegacyConfigText(string(b))
		return nil
	}
	if err := s.addConfigText(string(b)); err != nil {
		return err
	}
	if len(s.cmdline["includeconf"]) > 0 { // only -noincludeconf gets this far
		return nil
	}
	chain, err := s.selectChain()
	if err != nil {
		return &errInit{"Error: " + err.Error()}
	}
	// Includes named in the chain's section, then at the top; the files
	// included may not include further.
	before := map[string]int{"": len(s.conf[""]["includeconf"]), chain: len(s.conf[chain]["includeconf"])}
	for _, inc := range append(s.includes(chain), s.includes("")...) {
		p := expandHome(inc)
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.dataDir, p)
		}
		if isDir(p) {
			return fmt.Errorf("Included config file \"%s\" is a directory.", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("Failed to include configuration file %s", inc)
		}
		if err := s.addConfigText(string(b)); err != nil {
			return err
		}
	}
	var ignored []string
	for sec, n := range before {
		if sp := s.conf[sec]["includeconf"]; len(sp) > n {
			for _, v := range sp[n:] {
				ignored = append(ignored, v.String())
			}
			s.conf[sec]["includeconf"] = sp[:n]
		}
	}
	sort.Strings(ignored)
	for _, inc := range ignored {
		fmt.Fprintf(c.warn, "warning: -includeconf cannot be used from included files; ignoring -includeconf=%s\n", inc)
	}
	return nil
}

// netDir is the network's folder in the data directory, where the daemon
// writes its cookie.
func (c *config) netDir() string {
	if c.chain == "main" && c.btcdLayout {
		// btcd keeps mainnet in its own folder; bitcoind's layout, which
		// cmd/bitcoind also uses, keeps it at the top.
		if isDir(filepath.Join(c.dataDir, "mainnet")) || !isFile(filepath.Join(c.dataDir, ".cookie")) {
			return filepath.Join(c.dataDir, "mainnet")
		}
	}
	return filepath.Join(c.dataDir, coreNetDirs[c.chain])
}
