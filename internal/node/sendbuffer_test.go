package node

import (
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// --maxsendbuffer sets a peer's soft send limit, with room above it for
// a maximal block; --connecttimeout bounds outbound attempts.
func TestSendBufferAndConnectTimeout(t *testing.T) {
	n := newTestNode(t, "--maxsendbuffer=50", "--connecttimeout=1500ms")
	if got := n.s.peerCfg.SendBufferSize; got != 50_000 {
		t.Fatalf("send buffer %d", got)
	}
	if got := n.s.peerCfg.MaxQueuedBytes; got < 50_000+wire.MaxBlockSerializedSize {
		t.Fatalf("hard limit %d leaves no room for a block above the soft limit", got)
	}
	if got := n.s.dialConfig().Timeout; got != 1500*time.Millisecond {
		t.Fatalf("connect timeout %v", got)
	}
	// The soft limit is the peer's: with a remote that reads nothing,
	// QueueMessageWait holds the caller once 50 kB are queued.
	c1, c2 := net.Pipe()
	t.Cleanup(func() { c2.Close() })
	cfg := n.s.peerCfg
	cfg.Listeners = peer.MessageListeners{}
	p := peer.NewOutbound(&cfg, c1, "127.0.0.1:4671")
	p.Start()
	t.Cleanup(func() { p.Disconnect(); <-p.Done() })
	msg := &wire.MsgInv{InvList: make([]wire.InvVect, 1000)} // 36 kB
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			if p.QueueMessageWait(msg, wire.WitnessEncoding) != nil {
				return
			}
		}
	}()
	select {
	case <-done:
		t.Fatal("108 kB queued to a peer that reads nothing, past a 50 kB buffer")
	case <-time.After(300 * time.Millisecond):
	}
	if q := p.QueuedBytes(); q > 50_000+40_000 {
		t.Fatalf("%d bytes queued", q)
	}
}

// --maxsendbuffer and --connecttimeout refuse values out of range.
func TestSendBufferBounds(t *testing.T) {
	for _, arg := range []string{"--maxsendbuffer=-1", "--maxsendbuffer=1000001", "--connecttimeout=-1s"} {
		_, a := testArgs(t, "--regtest", arg)
		if _, err := loadConfig(a); err == nil {
			t.Errorf("%s accepted", arg)
		}
	}
}
