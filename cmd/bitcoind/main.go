// Command bitcoind runs the node with bitcoind's command line: single-dash
// options (-name=value, -noname, bare -name for booleans), bitcoin.conf
// with network sections and includeconf, and bitcoind's data layout (the
// chain, .cookie and debug.log in the data directory for mainnet and in
// DIR/regtest, DIR/testnet3, DIR/testnet4 or DIR/signet for the others).
// It is the same node as btcd, started in-process through internal/node,
// so tools written for Bitcoin Core (test harnesses, Lightning nodes,
// indexers) can launch it unchanged.
//
// bitcoind -help lists the options it implements. Options that only shape
// log output, and the wallet's options (this node has no wallet, like a
// bitcoind built without one), are accepted; any other bitcoind option
// this node does not implement stops start-up with "Invalid parameter"
// unless it is given its off value.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/btcnode/btcd/internal/node"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run returns the exit code; start-up errors are printed as bitcoind
// prints them, "Error: <message>" on stderr.
func run(argv []string, stdout, stderr io.Writer) int {
	a, datadir, confPath, err := loadSettings(argv)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", err)
		return 1
	}
	if wantsHelp(a) {
		fmt.Fprint(stdout, helpText(a.isSet("help-debug")))
		return 0
	}
	if a.isSet("version") {
		fmt.Fprintln(stdout, node.VersionText("bitcoind"))
		return 0
	}
	cfg, err := buildConfig(a, datadir, confPath)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", err)
		return 1
	}
	// bitcoind prints these on stderr as well as in debug.log.
	for _, l := range a.stderrLines {
		fmt.Fprintln(stderr, l)
	}
	if len(a.initWarnings) > 0 {
		fmt.Fprintf(stderr, "Warning: %s\n", strings.Join(a.initWarnings, "\n"))
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", node.ErrorText(err))
		return 1
	}
	if err := makeNetDir(cfg.DataDir); err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", err)
		return 1
	}
	if err := writeSettings(a); err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", err)
		return 1
	}
	child, wait := daemonChild()
	if !child && (a.getBool("daemon", false) || a.getBool("daemonwait", false)) {
		return daemonize(a.getBool("daemonwait", false), stdout, stderr)
	}
	if wait {
		cfg.Bitcoind.OnStarted = reportStarted
	}
	if err := node.Run(cfg); err != nil {
		fmt.Fprintln(stderr, node.ErrorLine(err))
		return 1
	}
	return 0
}

// makeNetDir creates the network's data directory; a new one gets an empty
// wallets folder, as bitcoind creates on first run.
func makeNetDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Mkdir(filepath.Join(dir, "wallets"), 0o700)
}

// helpText renders -help (or -help-debug, which adds the debugging
// options).
func helpText(debug bool) string {
	var sb strings.Builder
	sb.WriteString(node.VersionText("bitcoind") + "\n\n")
	sb.WriteString("The Go full node, started with bitcoind's command line and bitcoin.conf.\n\n")
	sb.WriteString("Usage:  bitcoind [options]                     Start the node\n\n")
	groups := []string{gOptions, gConnection, gZMQ, gDebug, gChain, gRelay, gBlock, gRPC}
	for _, g := range groups {
		var lines []string
		for i := range options {
			o := &options[i]
			if o.group != g || o.disp == unsupported || o.disp == walletOnly {
				continue
			}
			if o.flags&debugOnly != 0 && !debug {
				continue
			}
			lines = append(lines, fmt.Sprintf("  -%s%s\n       %s\n", o.name, argSuffix(o.arg), o.help))
		}
		if len(lines) == 0 {
			continue
		}
		sb.WriteString(g + ":\n\n")
		for _, l := range lines {
			sb.WriteString(l + "\n")
		}
	}
	sb.WriteString("Accepted without effect: the wallet's options (this node has no wallet).\n")
	sb.WriteString("Not supported (only their off value is accepted):")
	for i := range options {
		if options[i].disp == unsupported {
			sb.WriteString(" -" + options[i].name)
		}
	}
	sb.WriteString("\n")
	return sb.String()
}

func argSuffix(arg string) string {
	if arg == "" {
		return ""
	}
	return "=" + arg
}
