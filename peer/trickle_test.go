package peer

import (
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// Transaction announcements are due by the node clock: while mock time
// stands still they wait, and moving it on releases them (Core's
// mempool_reorg.py relies on both).
func TestTrickleFollowsMockClock(t *testing.T) {
	mockClock(t, 1_700_000_000)
	outCfg, inCfg := baseConfig(), baseConfig()
	invs := make(chan *wire.MsgInv, 4)
	inCfg.Listeners.OnInv = func(_ *Peer, m *wire.MsgInv) { invs <- m }
	out, in := pipePair(t, outCfg, inCfg)
	if !out.WaitForHandshake() || !in.WaitForHandshake() {
		t.Fatal("handshake")
	}
	var h wire.Hash
	h[0] = 7
	out.QueueTxInventory(h, h, 0)
	select {
	case m := <-invs:
		t.Fatalf("announced while the clock stood still: %v", m.InvList)
	case <-time.After(500 * time.Millisecond):
	}
	clock.SetMock(1_700_000_000 + 300)
	select {
	case m := <-invs:
		if len(m.InvList) != 1 || m.InvList[0].Hash != h {
			t.Fatalf("inv %v", m.InvList)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not announced after the clock moved on")
	}
}

// A clock moved far back does not hold announcements for as long.
func TestTrickleClockMovedBack(t *testing.T) {
	mockClock(t, 1_700_000_000)
	outCfg, inCfg := baseConfig(), baseConfig()
	invs := make(chan *wire.MsgInv, 4)
	inCfg.Listeners.OnInv = func(_ *Peer, m *wire.MsgInv) { invs <- m }
	out, in := pipePair(t, outCfg, inCfg)
	if !out.WaitForHandshake() || !in.WaitForHandshake() {
		t.Fatal("handshake")
	}
	clock.SetMock(1_700_000_000 - 3600)
	out.maybeTrickle(clock.Now())
	// Queued before the clock moves on: a trickle run by the writer in
	// between would otherwise schedule the next one past a clock that
	// then stands still.
	var h wire.Hash
	h[0] = 8
	out.QueueTxInventory(h, h, 0)
	clock.SetMock(1_700_000_000 - 3600 + 1)
	select {
	case <-invs:
	case <-time.After(5 * time.Second):
		t.Fatal("not announced after the clock went back")
	}
}

// A noban peer is told of transactions at once, as by Core, even while
// the mock clock stands still.
func TestTrickleNoBanImmediate(t *testing.T) {
	mockClock(t, 1_700_000_000)
	outCfg, inCfg := baseConfig(), baseConfig()
	outCfg.TrickleInterval = time.Hour
	invs := make(chan *wire.MsgInv, 4)
	inCfg.Listeners.OnInv = func(_ *Peer, m *wire.MsgInv) { invs <- m }
	c1, c2 := net.Pipe()
	out := NewOutbound(outCfg, withAddr(c1, "198.51.100.2:18444"), "198.51.100.2:18444")
	out.SetPermissions(PermNoBan)
	in := NewInbound(inCfg, withAddr(c2, "198.51.100.1:50000"))
	out.Start()
	in.Start()
	defer func() { out.Disconnect(); in.Disconnect(); <-out.Done(); <-in.Done() }()
	if !out.WaitForHandshake() || !in.WaitForHandshake() {
		t.Fatal("handshake")
	}
	var h wire.Hash
	h[0] = 9
	out.QueueTxInventory(h, h, 0)
	select {
	case m := <-invs:
		if m.InvList[0].Hash != h {
			t.Fatal(m.InvList)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("noban peer not told at once")
	}
}
