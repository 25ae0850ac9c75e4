package main

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
)

// clientVersion is btcctl's version, the node's (internal/node).
const clientVersion = "0.1.0-alpha"

// clientName names btcctl in -netinfo's header.
const clientName = "btcctl"

// compatName is the product bitcoin-cli's version line names. Scripts and
// test harnesses (Core's functional tests among them) recognise
// bitcoin-cli by "<name> RPC client version", so -version keeps it, as the
// bitcoind front end keeps bitcoind's wording.
const compatName = "Bitcoin Core"

// progName is the name btcctl was started as, for messages that tell the
// user what to run ("bitcoin-cli" when installed under that name).
var progName = "btcctl"

// versionText is what -version prints.
func versionText() string {
	return fmt.Sprintf("%s RPC client version v%s\n", compatName, clientVersion) +
		formatParagraph(fmt.Sprintf("%s is btcd's RPC client (github.com/btcnode/btcd), with bitcoin-cli's command line. Built with Go %s for %s/%s.", progName, runtime.Version(), runtime.GOOS, runtime.GOARCH), 79, 0) + "\n"
}

// formatParagraph wraps text at width columns, indenting continuation
// lines by indent, as bitcoin-cli's help does (FormatParagraph: the
// indentation counts against the width of continuation lines only).
func formatParagraph(in string, width, indent int) string {
	var out strings.Builder
	ptr, indented := 0, 0
	for ptr < len(in) {
		lineEnd := strings.IndexByte(in[ptr:], '\n')
		if lineEnd < 0 {
			lineEnd = len(in)
		} else {
			lineEnd += ptr
		}
		remaining := width - indented
		if lineEnd-ptr <= remaining {
			end := min(lineEnd+1, len(in))
			out.WriteString(in[ptr:end])
			ptr, indented = lineEnd+1, 0
			continue
		}
		limit := min(ptr+remaining, len(in)-1)
		space := strings.LastIndexAny(in[:limit+1], " \n")
		if space < ptr {
			// No place to break: the whole word goes on the line.
			next := strings.IndexAny(in[ptr:], " \n")
			if next < 0 {
				out.WriteString(in[ptr:])
				break
			}
			space = ptr + next
		}
		out.WriteString(in[ptr:space])
		out.WriteByte('\n')
		if in[space] == '\n' {
			indented = 0
		} else if indent > 0 {
			out.WriteString(strings.Repeat(" ", indent))
			indented = indent
		}
		ptr = space + 1
	}
	return out.String()
}

// helpText is what -help prints; debug adds the debugging options
// (-help-debug).
func helpText(debug bool) string {
	p := progName
	var b strings.Builder
	fmt.Fprintf(&b, "%s RPC client version v%s\n\n", compatName, clientVersion)
	fmt.Fprintf(&b, "The %s utility provides a command line interface to interact with a btcd or Bitcoin Core RPC server.\n\n", p)
	b.WriteString("It can be used to query network information, create or broadcast transactions, and control the server.\n\n")
	b.WriteString("Use the \"help\" command to list all commands. Use \"help <command>\" to show help for that command.\n")
	b.WriteString("The -named option allows you to specify parameters using the key=value format, eliminating the need to pass unused positional parameters.\n\n")
	fmt.Fprintf(&b, "Usage: %s [options] <command> [params]\n", p)
	fmt.Fprintf(&b, "or:    %s [options] -named <command> [name=value]...\n", p)
	fmt.Fprintf(&b, "or:    %s [options] help\n", p)
	fmt.Fprintf(&b, "or:    %s [options] help <command>\n\n", p)
	b.WriteString("Options may start with one or two dashes and are given as -name=value (btcctl also\n" +
		"takes -name value); -noname negates one. Without -datadir or -conf, btcctl reads\n" +
		"btcd's ~/.btcd/btcctl.conf (else btcd.conf) and the cookie under ~/.btcd/data when\n" +
		"~/.btcd exists, and bitcoind's ~/.bitcoin/bitcoin.conf and cookie otherwise.\n\n")
	for cat, title := range categoryTitles {
		var opts []option
		for _, o := range options {
			if o.cat == cat && o.flags&optHidden == 0 && (debug || o.flags&optDebug == 0) {
				opts = append(opts, o)
			}
		}
		if len(opts) == 0 {
			continue
		}
		sort.Slice(opts, func(i, j int) bool { return opts[i].name < opts[j].name })
		b.WriteString(title + "\n\n")
		for _, o := range opts {
			fmt.Fprintf(&b, "  -%s%s\n       %s\n\n", o.name, o.arg, formatParagraph(strings.ReplaceAll(o.help, "bitcoin-cli ", p+" "), 72, 7))
		}
	}
	return b.String()
}
