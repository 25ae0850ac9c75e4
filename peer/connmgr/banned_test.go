package connmgr

import (
	"bytes"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btclog"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rpc_setban.py waits for bitcoind's line when a banned node connects.
func TestBannedInboundLogged(t *testing.T) {
	out := &syncBuffer{}
	lg := btclog.NewBackend(out).Logger("CMGR")
	lg.SetLevel(btclog.LevelDebug)
	UseLogger(lg)
	defer UseLogger(btclog.Disabled)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{
		Listeners: []net.Listener{l},
		MaxPeers:  4,
		IsBanned:  func(a netip.Addr) bool { return a.IsLoopback() },
		OnAccept: func(c net.Conn) {
			t.Error("banned connection accepted")
			c.Close()
		},
	})
	m.Start()
	defer m.Stop()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := "connection from " + c.LocalAddr().String() + " dropped (banned)\n"
	waitFor(t, "ban log line", 5*time.Second, func() bool { return strings.Contains(out.String(), want) })
}
