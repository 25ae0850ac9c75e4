package peer

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcsuite/btclog"
)

// logLines collects what a peer logs, so tests can check for Core's log
// texts, which Core's functional tests grep for.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *logLines) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Contains(l.buf.String(), s)
}

// waitFor fails the test unless s is logged within five seconds.
func (l *logLines) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !l.has(s) {
		if time.Now().After(deadline) {
			l.mu.Lock()
			t.Fatalf("%q not logged; log:\n%s", s, l.buf.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// captureLog makes cfg log at debug level into the returned lines.
func captureLog(cfg *Config) *logLines {
	l := &logLines{}
	lg := btclog.NewBackend(l).Logger("PEER")
	lg.SetLevel(btclog.LevelDebug)
	cfg.Log = lg
	return l
}

// mockClock freezes the node clock at start for the rest of the test.
func mockClock(t *testing.T, start int64) {
	t.Helper()
	clock.SetMock(start)
	t.Cleanup(func() { clock.SetMock(0) })
}
