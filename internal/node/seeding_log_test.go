package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btclog"
)

// captureLog sends the node's log lines to a temporary file and returns
// a function reading what was logged so far.
func captureLog(t *testing.T) func() string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "debug.log")
	if err := initLogFile(path, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeLogRotator)
	// TestMain turns logging off; these subsystems log to the file only.
	logToConsole.Store(false)
	t.Cleanup(func() { logToConsole.Store(true) })
	for _, l := range []btclog.Logger{amgrLog, cmgrLog, srvrLog} {
		l.SetLevel(btclog.LevelInfo)
		t.Cleanup(func() { l.SetLevel(btclog.LevelOff) })
	}
	return func() string {
		if r := logRotator.Load(); r != nil {
			r.Sync()
		}
		b, _ := os.ReadFile(path)
		return string(b)
	}
}

// The seeding and network-activity lines bitcoind's tests wait for.
func TestSeedingAndNetworkActiveLogs(t *testing.T) {
	logged := captureLog(t)
	n := newTestNode(t, "--nodnsseed")
	for _, want := range []string{
		"addcon thread start",
		"DNS seeding disabled",
		"opencon thread start",
		"Adding fixed seeds as -dnsseed=0 (or IPv4/IPv6 connections are disabled via -onlynet) and neither -addnode nor -seednode are provided",
	} {
		waitFor(t, 10*time.Second, want, func() bool { return strings.Contains(logged(), want) })
	}
	// Logged on every call, a change or not.
	n.must(t, "setnetworkactive", true)
	n.must(t, "setnetworkactive", false)
	n.must(t, "setnetworkactive", false)
	if got := strings.Count(logged(), "SetNetworkActive: false"); got != 2 {
		t.Fatalf("%d \"SetNetworkActive: false\" lines, want 2", got)
	}
	if !strings.Contains(logged(), "SetNetworkActive: true") {
		t.Fatal("no \"SetNetworkActive: true\" line")
	}
}
