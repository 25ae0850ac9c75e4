package peer

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// pings starts reading the remote's side and returns the pings the peer
// sends; everything else is discarded.
func (r *remote) pings() <-chan *wire.MsgPing {
	ch := make(chan *wire.MsgPing, 16)
	go func() {
		r.conn.SetReadDeadline(time.Time{})
		for {
			_, msg, err := wire.ReadMessage(r.conn, r.pver, testNet, wire.WitnessEncoding)
			var uc *wire.UnknownCommandError
			if errors.As(err, &uc) {
				continue
			}
			if err != nil {
				return
			}
			if m, ok := msg.(*wire.MsgPing); ok {
				ch <- m
			}
		}
	}()
	return ch
}

func nextPing(t *testing.T, ch <-chan *wire.MsgPing) *wire.MsgPing {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no ping")
	}
	return nil
}

func noPing(t *testing.T, ch <-chan *wire.MsgPing) {
	t.Helper()
	select {
	case <-ch:
		t.Fatal("unexpected ping")
	case <-time.After(300 * time.Millisecond):
	}
}

// Core's p2p_ping.py: pings every two minutes and the 20-minute timeout
// follow the node clock; odd pongs are logged with Core's texts and never
// disconnect; getpeerinfo's ping fields.
func TestPingPongOnNodeClock(t *testing.T) {
	const start = 1_700_000_000
	now := int64(start)
	forward := func(d int64) { now += d; clock.SetMock(now) }
	mockClock(t, start)
	cfg := baseConfig()
	logs := captureLog(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.30:1")
	id := p.ID()
	line := func(s string) string { return fmt.Sprintf("pong peer=%d: %s", id, s) }
	r.handshake()
	pings := r.pings()
	nextPing(t, pings) // at once after the handshake
	forward(3)
	waitCond(t, "pingwait 3s", 5*time.Second, func() bool { return p.Stats().PingWait == 3*time.Second })

	r.sendRaw(okFrame(wire.CmdPong, nil))
	logs.waitFor(t, line("Short payload"))
	if st := p.Stats(); st.PingWait != 0 || st.LastPingRTT != 0 {
		t.Fatalf("after short pong: wait %v rtt %v", st.PingWait, st.LastPingRTT)
	}
	r.send(&wire.MsgPong{})
	logs.waitFor(t, line("Unsolicited pong without ping, 0 expected, 0 received, 8 bytes"))

	noPing(t, pings) // the interval has not passed on the node clock
	forward(121)
	ping := nextPing(t, pings)
	forward(9)
	r.send(&wire.MsgPong{Nonce: ping.Nonce - 1})
	logs.waitFor(t, line("Nonce mismatch"))
	if w := p.Stats().PingWait; w != 9*time.Second {
		t.Fatalf("a wrong nonce ended the wait: %v", w)
	}
	r.send(&wire.MsgPong{})
	logs.waitFor(t, line("Nonce zero"))
	if w := p.Stats().PingWait; w != 0 {
		t.Fatalf("a zero nonce left the wait: %v", w)
	}

	forward(121)
	ping = nextPing(t, pings)
	forward(29)
	r.send(&wire.MsgPong{Nonce: ping.Nonce})
	waitCond(t, "ping time", 5*time.Second, func() bool { return p.Stats().LastPingRTT == 29*time.Second })
	forward(121)
	ping = nextPing(t, pings)
	forward(9)
	r.send(&wire.MsgPong{Nonce: ping.Nonce})
	waitCond(t, "min ping", 5*time.Second, func() bool {
		st := p.Stats()
		return st.LastPingRTT == 9*time.Second && st.MinPingRTT == 9*time.Second
	})
	if !p.Connected() {
		t.Fatalf("disconnected: %v", p.Err())
	}

	p.PingNow()
	nextPing(t, pings)
	forward(600)
	// Talking does not stop the ping timing out.
	pongs := p.Stats().BytesSentPerMsg[wire.CmdPong]
	r.send(&wire.MsgPing{Nonce: 1})
	waitCond(t, "pong", 5*time.Second, func() bool { return p.Stats().BytesSentPerMsg[wire.CmdPong] > pongs })
	time.Sleep(200 * time.Millisecond)
	if !p.Connected() {
		t.Fatalf("disconnected at 600s: %v", p.Err())
	}
	forward(601)
	waitDone(t, p, 2*time.Second)
	if !errors.Is(p.Err(), ErrPingTimeout) {
		t.Fatalf("err %v", p.Err())
	}
	logs.waitFor(t, fmt.Sprintf("ping timeout: 1201.000000s, disconnecting peer=%d", id))
}

// Core's p2p_timeouts.py: after -peertimeout, on the node clock, a peer
// that never finished the handshake, one we never sent to and one that
// never sent anything are dropped, each with Core's log line.
func TestInactivityOnNodeClock(t *testing.T) {
	const start = 1_700_000_000
	mockClock(t, start)
	cfg := baseConfig()
	cfg.HandshakeTimeout = 3 * time.Second
	logs := captureLog(cfg)
	noVerack, r0 := newInboundWithRemote(t, cfg, "203.0.113.31:1")
	noVersion, r1 := newInboundWithRemote(t, cfg, "203.0.113.32:1")
	silent, r2 := newInboundWithRemote(t, cfg, "203.0.113.33:1")
	for _, r := range []*remote{r0, r1, r2} {
		r.drain()
	}
	r0.send(r0.version(1))
	r1.send(&wire.MsgPing{Nonce: 1})
	waitCond(t, "messages read", 5*time.Second, func() bool {
		return noVerack.Stats().BytesSent > 0 && noVersion.Stats().BytesRecv > 0
	})
	clock.SetMock(start + 2)
	time.Sleep(200 * time.Millisecond)
	for _, p := range []*Peer{noVerack, noVersion, silent} {
		if !p.Connected() {
			t.Fatalf("%v dropped inside the grace period: %v", p, p.Err())
		}
	}
	clock.SetMock(start + 4)
	for _, p := range []*Peer{noVerack, noVersion, silent} {
		waitDone(t, p, 2*time.Second)
		if !errors.Is(p.Err(), ErrHandshakeTimeout) {
			t.Fatalf("%v: err %v", p, p.Err())
		}
	}
	logs.waitFor(t, fmt.Sprintf("version handshake timeout, disconnecting peer=%d", noVerack.ID()))
	logs.waitFor(t, fmt.Sprintf("socket no message in first 3 seconds, never sent to peer, disconnecting peer=%d", noVersion.ID()))
	logs.waitFor(t, fmt.Sprintf("socket no message in first 3 seconds, never received from peer, never sent to peer, disconnecting peer=%d", silent.ID()))
}

// A connection idle for 20 minutes of node time is dropped.
func TestIdleOnNodeClock(t *testing.T) {
	const start = 1_700_000_000
	mockClock(t, start)
	cfg := baseConfig()
	logs := captureLog(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.34:1")
	r.handshake()
	r.drain()
	p.WaitForHandshake()
	waitCond(t, "first ping written", 5*time.Second, func() bool { return p.Stats().BytesSentPerMsg[wire.CmdPing] > 0 })
	clock.SetMock(start + 20*60)
	time.Sleep(200 * time.Millisecond)
	if !p.Connected() {
		t.Fatalf("dropped at exactly 20 minutes: %v", p.Err())
	}
	clock.SetMock(start + 21*60)
	waitDone(t, p, 2*time.Second)
	if !errors.Is(p.Err(), ErrIdleTimeout) {
		t.Fatalf("err %v", p.Err())
	}
	logs.waitFor(t, fmt.Sprintf("socket sending timeout: 1260s, disconnecting peer=%d", p.ID()))
}
