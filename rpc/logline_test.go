package rpc

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btclog"
)

// lockedBuffer collects log output written from the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// captureLog sends the package's log to the returned buffer at debug
// level until the test ends.
func captureLog(t *testing.T) *lockedBuffer {
	t.Helper()
	b := &lockedBuffer{}
	l := btclog.NewBackend(b).Logger("RPCS")
	l.SetLevel(btclog.LevelDebug)
	UseLogger(l)
	t.Cleanup(func() { UseLogger(btclog.Disabled) })
	return b
}

// Core's functional tests (mining_getblocktemplate_longpoll.py) look for
// bitcoind's dispatch line, which names the method and the user.
func TestDispatchLogLine(t *testing.T) {
	out := captureLog(t)
	_, url := startServer(t, nil)
	mustResult(t, url, "uptime", nil)
	want := "ThreadRPCServer method=uptime user=" + testUser + "\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("log lacks %q:\n%s", want, out)
	}
	// Unknown methods are logged too, and a name cannot smuggle a line
	// break into the log.
	rpcCall(t, url, "no\nsuch", nil)
	if !strings.Contains(out.String(), "ThreadRPCServer method=nosuch user=") {
		t.Fatalf("unknown method not logged sanitized:\n%s", out)
	}
}

func TestAuthUser(t *testing.T) {
	for hdr, want := range map[string]string{
		"Basic X19jb29raWVfXzpzZWNyZXQ=": "__cookie__", // __cookie__:secret
		"Basic dXNlcjpwYTpzcw==":         "user",       // user:pa:ss
		"Basic !!!":                      "",
		"Basic":                          "",
	} {
		if got := authUser(hdr); got != want {
			t.Errorf("authUser(%q) = %q, want %q", hdr, got, want)
		}
	}
}
