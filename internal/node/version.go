package node

import (
	"fmt"
	"runtime"
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
