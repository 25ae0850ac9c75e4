package node

import (
	"io"
	"testing"

	"github.com/btcsuite/btclog"
)

// testLoggers returns fresh loggers for every subsystem the category
// table names, all at level, and forgets the recorded category set when
// the test ends.
func testLoggers(t *testing.T, level btclog.Level) map[string]btclog.Logger {
	t.Helper()
	b := btclog.NewBackend(io.Discard)
	out := map[string]btclog.Logger{}
	for _, subs := range DebugCategories {
		for _, s := range subs {
			if out[s] == nil {
				out[s] = b.Logger(s)
				out[s].SetLevel(level)
			}
		}
	}
	t.Cleanup(func() {
		st := &debugCategoryState
		st.mu.Lock()
		st.enabled, st.set = nil, false
		st.mu.Unlock()
	})
	return out
}

// feature_logging.py: with -debug=rpc -debug=net, "http" is reported off
// although it shares its subsystem with "rpc".
func TestLoggingRPCReportsCategories(t *testing.T) {
	loggers := testLoggers(t, btclog.LevelInfo)
	loggers["RPCS"].SetLevel(btclog.LevelDebug)
	SetDebugCategories([]string{"rpc", "net", "abc"})
	lc := loggingControl(loggers)
	got := lc.Categories()
	if len(got) != len(DebugCategories) {
		t.Fatalf("%d categories, want %d", len(got), len(DebugCategories))
	}
	if !got["rpc"] || !got["net"] || got["http"] || got["qt"] {
		t.Fatalf("categories %v", got)
	}
	if _, ok := got["abc"]; ok {
		t.Fatal("unknown category reported")
	}
}

func TestLoggingRPCSwitchesSubsystems(t *testing.T) {
	loggers := testLoggers(t, btclog.LevelInfo)
	SetDebugCategories(nil)
	lc := loggingControl(loggers)

	if err := lc.SetCategory("mempool", true); err != nil {
		t.Fatal(err)
	}
	if loggers["MEMP"].Level() != btclog.LevelDebug {
		t.Fatalf("MEMP at %v after include mempool", loggers["MEMP"].Level())
	}
	lc.SetCategory("mempoolrej", true)
	// MEMP still carries mempoolrej.
	lc.SetCategory("mempool", false)
	if loggers["MEMP"].Level() != btclog.LevelDebug {
		t.Fatalf("MEMP at %v while mempoolrej is on", loggers["MEMP"].Level())
	}
	lc.SetCategory("mempoolrej", false)
	if loggers["MEMP"].Level() != btclog.LevelInfo {
		t.Fatalf("MEMP at %v with no category on", loggers["MEMP"].Level())
	}
	// A category without subsystems is still switched and reported.
	lc.SetCategory("qt", true)
	if !lc.Categories()["qt"] {
		t.Fatal("qt not reported on")
	}
	if err := lc.SetCategory("nosuch", true); err == nil {
		t.Fatal("unknown category accepted")
	}
}

// Trace set by -loglevel stays trace when a category is included.
func TestLoggingRPCKeepsTrace(t *testing.T) {
	loggers := testLoggers(t, btclog.LevelTrace)
	lc := loggingControl(loggers)
	// Derived from the levels when the front end recorded nothing.
	if !lc.Categories()["validation"] || lc.Categories()["qt"] {
		t.Fatalf("derived categories %v", lc.Categories())
	}
	lc.SetCategory("validation", true)
	if loggers["CHAN"].Level() != btclog.LevelTrace {
		t.Fatalf("CHAN at %v", loggers["CHAN"].Level())
	}
}
