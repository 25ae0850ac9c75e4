package peer

import (
	"bytes"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// TestBytesCountedOnArrival: received bytes enter the peer's totals (and
// so getnettotals) as they come off the socket, as in Core, not only once
// their message is complete; the per-message counter takes the message
// when it is whole. Checked for a v1 peer on a v1-only listener and on one
// that detects v1 after listening for v2.
func TestBytesCountedOnArrival(t *testing.T) {
	for _, v2 := range []bool{false, true} {
		cfg := baseConfig()
		cfg.V2 = v2
		p, r := newInboundWithRemote(t, cfg, "203.0.113.40:1")
		r.handshake()
		r.drain()
		waitCond(t, "handshake", 5*time.Second, p.handshakeComplete)
		var buf bytes.Buffer
		if _, err := wire.WriteMessage(&buf, &wire.MsgPing{Nonce: 7}, r.pver, testNet, wire.WitnessEncoding); err != nil {
			t.Fatal(err)
		}
		msg := buf.Bytes()
		before := p.Stats()
		r.sendRaw(msg[:wire.MessageHeaderSize+3]) // the header and part of the nonce
		waitCond(t, "partial message counted", 5*time.Second, func() bool {
			return p.Stats().BytesRecv == before.BytesRecv+wire.MessageHeaderSize+3
		})
		if got := p.Stats().BytesRecvPerMsg[wire.CmdPing]; got != before.BytesRecvPerMsg[wire.CmdPing] {
			t.Fatalf("v2=%v: ping counted per message before it was complete (%d)", v2, got)
		}
		r.sendRaw(msg[wire.MessageHeaderSize+3:])
		waitCond(t, "whole message counted", 5*time.Second, func() bool {
			st := p.Stats()
			return st.BytesRecv == before.BytesRecv+uint64(len(msg)) &&
				st.BytesRecvPerMsg[wire.CmdPing] == before.BytesRecvPerMsg[wire.CmdPing]+uint64(len(msg))
		})
	}
}
