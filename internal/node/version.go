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

// userAgent is the node's P2P user agent with the --uacomment comments.
func userAgent(comments []string) string {
	return peer.UserAgent(appName, version(), comments...)
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
