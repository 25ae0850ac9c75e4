package peer

import (
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func v2Config(on bool) *Config {
	c := baseConfig()
	c.V2 = on
	return c
}

func waitHandshake(t *testing.T, ps ...*Peer) {
	t.Helper()
	for _, p := range ps {
		waitCond(t, "handshake of "+p.String(), 5*time.Second, p.handshakeComplete)
	}
}

func TestV2Session(t *testing.T) {
	out, in := pipePair(t, v2Config(true), v2Config(true))
	if got := in.Transport(); got != TransportDetecting && got != TransportV2 {
		t.Fatalf("inbound transport before handshake %q", got)
	}
	waitHandshake(t, out, in)
	for _, p := range []*Peer{out, in} {
		if p.Transport() != TransportV2 {
			t.Fatalf("%v: transport %q", p, p.Transport())
		}
		if len(p.SessionID()) != 64 {
			t.Fatalf("%v: session id %q", p, p.SessionID())
		}
		st := p.Stats()
		if st.BytesRecvPerMsg[wire.CmdVerAck] == 0 || st.BytesSentPerMsg[wire.CmdVersion] == 0 {
			t.Fatalf("%v: per-message counters %v %v", p, st.BytesRecvPerMsg, st.BytesSentPerMsg)
		}
	}
	if out.SessionID() != in.SessionID() {
		t.Fatal("session ids differ")
	}
	// Messages keep flowing after the handshake: a ping is answered.
	out.QueueMessage(&wire.MsgPing{Nonce: 42}, nil)
	waitCond(t, "pong", 5*time.Second, func() bool { return out.Stats().BytesRecvPerMsg[wire.CmdPong] > 0 })
	// Every byte is counted on both ends (handshake bytes included).
	waitCond(t, "byte counters to agree", 5*time.Second, func() bool {
		return out.Stats().BytesSent == in.Stats().BytesRecv && in.Stats().BytesSent == out.Stats().BytesRecv
	})
}

func TestV2InboundAcceptsV1(t *testing.T) {
	out, in := pipePair(t, v2Config(false), v2Config(true))
	waitHandshake(t, out, in)
	for _, p := range []*Peer{out, in} {
		if p.Transport() != TransportV1 || p.SessionID() != "" {
			t.Fatalf("%v: transport %q session %q", p, p.Transport(), p.SessionID())
		}
	}
	if out.Stats().BytesSent != in.Stats().BytesRecv {
		t.Fatalf("sent %d, received %d", out.Stats().BytesSent, in.Stats().BytesRecv)
	}
}

// TestV2ToV1Peer: a v1-only inbound peer drops our v2 handshake; the
// outbound peer reports it so the caller can retry in v1.
func TestV2ToV1Peer(t *testing.T) {
	out, in := pipePair(t, v2Config(true), v2Config(false))
	waitDone(t, out, 10*time.Second)
	waitDone(t, in, 10*time.Second)
	if !out.V2HandshakeFailed() {
		t.Fatalf("outbound error %v", out.Err())
	}
	if in.V2HandshakeFailed() {
		t.Fatal("v1 side reports a v2 failure")
	}
}
