package node

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/btcnode/btcd/peer"
)

// Semantic version parts of the daemon. appBuild may be set at link time
// (go build -ldflags "-X github.com/btcnode/btcd/internal/node.appBuild=abc123") to record a commit id.
const (
	appMajor      = 0
	appMinor      = 1
	appPatch      = 0
	appPreRelease = "alpha"
)

var appBuild string

// The bitcoind release whose RPC dialect and behaviour the node follows
// (its RPC results, error codes and policy are Bitcoin Core 30's).
// Clients written for bitcoind choose their calls by the version they
// find: lnd compares getnetworkinfo's "version" with bitcoind's numbers
// (240000 before it asks gettxspendingprevout, 170000 in its health
// check) and btcd's rpcclient reads the release after "/Satoshi:" in
// "subversion". So getnetworkinfo's version is this release in bitcoind's
// numbering, and the user agent leads with it as "/Satoshi:30.0.0/", the
// way derived implementations of bitcoind name the release they follow,
// followed by the node's own name and version, which stay what
// --version and peers see.
const (
	dialectMajor = 30
	dialectMinor = 0
	dialectPatch = 0
)

// dialectNumber is the dialect release in bitcoind's numbering
// (10000*major + 100*minor + patch), getnetworkinfo's "version".
func dialectNumber() int { return dialectMajor*10000 + dialectMinor*100 + dialectPatch }

// version returns the daemon version in semantic-versioning form.
func version() string {
	v := fmt.Sprintf("%d.%d.%d", appMajor, appMinor, appPatch)
	if appPreRelease != "" {
		v += "-" + appPreRelease
	}
	if appBuild != "" {
		v += "+" + appBuild
	}
	return v
}

// versionLine is what --version prints: enough to identify a binary in a bug
// report without starting it.
func versionLine() string {
	return fmt.Sprintf("%s version %s (Go version %s %s/%s)", appName, version(),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// userAgent is the node's P2P user agent (getnetworkinfo's
// "subversion"): the bitcoind dialect it follows, then its own name and
// version with the --uacomment comments, as bitcoind puts them last.
func userAgent(comments []string) string {
	return fmt.Sprintf("/Satoshi:%d.%d.%d", dialectMajor, dialectMinor, dialectPatch) +
		peer.UserAgent(appName, version(), comments...)
}

// VersionText is what a front end's version option prints, under the
// program name it was started as.
func VersionText(program string) string {
	return fmt.Sprintf("%s version %s (Go version %s %s/%s)", program, version(),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// ErrorText returns a start-up error's message without the leading
// "--option: " that btcd's command line shows, for front ends whose
// options are spelled differently.
func ErrorText(err error) string {
	var cm coreMessage
	if errors.As(err, &cm) {
		return string(cm)
	}
	var rm rebuildMessage
	if errors.As(err, &rm) {
		return rm.Error()
	}
	msg := oneLine(err.Error())
	if strings.HasPrefix(msg, "--") {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			return rest
		}
	}
	return msg
}

// ErrorLine is the line bitcoind prints on stderr when start-up fails:
// "Error: " and ErrorText, except for a failure bitcoind offers to repair
// by rebuilding its databases, which it prints with an empty caption
// (": <message>").
func ErrorLine(err error) string {
	var rm rebuildMessage
	if errors.As(err, &rm) {
		return ": " + rm.Error()
	}
	return "Error: " + ErrorText(err)
}
