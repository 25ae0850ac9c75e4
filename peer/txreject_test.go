package peer

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// Core's p2p_blocksonly.py: a peer we asked for no transactions (a
// block-relay-only connection, or any under --blocksonly without the relay
// permission) is dropped for a transaction or for announcing one by the id
// kind it negotiated, with Core's log lines; announcements of the other
// kind are ignored, as Core ignores them.
func TestNoTxRelayViolations(t *testing.T) {
	h := wire.Hash{0x34, 0x12}
	cfg := baseConfig()
	logs := captureLog(cfg)
	p, r := startWithRemote(t, cfg, false, ConnBlockRelay, 0)
	r.send(r.version(999)) // the remote negotiates wtxidrelay
	r.answerWtxid()
	r.send(&wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeTx, Hash: h}}})
	r.inStep()
	if !p.Connected() {
		t.Fatalf("txid inv from a wtxid peer: %v", p.Err())
	}
	r.drain()
	r.send(&wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: h}}})
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrProtocolViolation) {
		t.Fatalf("err %v", p.Err())
	}
	logs.waitFor(t, fmt.Sprintf("transaction (%v) inv sent in violation of protocol, disconnecting peer=%d", h, p.ID()))

	cfg = baseConfig()
	cfg.DisableRelayTx = true
	logs = captureLog(cfg)
	p, r = newInboundWithRemote(t, cfg, "203.0.113.60:1")
	r.handshake()
	r.drain()
	p.WaitForHandshake()
	r.send(&wire.MsgTx{Version: 2})
	waitDone(t, p, 5*time.Second)
	logs.waitFor(t, fmt.Sprintf("transaction sent in violation of protocol, disconnecting peer=%d", p.ID()))

	// The relay permission lifts --blocksonly's ban, not a block-relay-only
	// connection's.
	got := make(chan struct{}, 1)
	cfg.Listeners.OnTx = func(*Peer, *wire.MsgTx) { got <- struct{}{} }
	p, r = startWithRemote(t, cfg, true, "", PermRelay)
	r.handshake()
	r.send(&wire.MsgTx{Version: 2})
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatalf("transaction from a relay-permission peer not handled: %v", p.Err())
	}
	cfg.DisableRelayTx = false
	p, r = startWithRemote(t, cfg, false, ConnBlockRelay, PermRelay)
	r.answerHandshake(false)
	r.drain()
	r.send(&wire.MsgTx{Version: 2})
	waitDone(t, p, 5*time.Second)
}

// answerWtxid finishes answerHandshake's work after the remote's version
// was sent by the test: wtxidrelay, verack, then our verack.
func (r *remote) answerWtxid() {
	r.t.Helper()
	r.send(&wire.MsgWtxidRelay{})
	r.send(&wire.MsgVerAck{})
	r.recvUntil(wire.CmdVerAck)
}

// getdata is logged as Core logs it: its size, and its first entry.
func TestGetDataLogLines(t *testing.T) {
	cfg := baseConfig()
	logs := captureLog(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.61:1")
	r.handshake()
	r.drain()
	p.WaitForHandshake()
	h := wire.Hash{0x94, 0x9e}
	r.send(&wire.MsgGetData{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: h}, {Type: wire.InvTypeWitnessBlock, Hash: h}}})
	logs.waitFor(t, fmt.Sprintf("received getdata (2 invsz) peer=%d", p.ID()))
	logs.waitFor(t, fmt.Sprintf("received getdata for: wtx %v peer=%d", h, p.ID()))
	if s := invString(&wire.InvVect{Type: wire.InvTypeWitnessBlock, Hash: h}); s != "witness-block "+h.String() {
		t.Fatalf("invString %q", s)
	}
}

// Our version's relay flag is Core's !RejectIncomingTxs: off on
// block-relay-only connections and under --blocksonly, except to a peer
// with the relay permission, and on feelers, which only test that the
// address works.
func TestVersionRelayFlag(t *testing.T) {
	for _, tc := range []struct {
		blocksOnly bool
		typ        ConnType
		perms      Permissions
		relay      bool
	}{
		{false, "", 0, true},
		{false, ConnFeeler, 0, false},
		{false, ConnBlockRelay, PermRelay, false},
		{true, "", 0, false},
		{true, "", PermRelay, true},
	} {
		cfg := baseConfig()
		cfg.DisableRelayTx = tc.blocksOnly
		_, r := startWithRemote(t, cfg, false, tc.typ, tc.perms)
		v := r.recvUntil(wire.CmdVersion).(*wire.MsgVersion)
		if v.DisableRelayTx == tc.relay {
			t.Errorf("%+v: version relay flag %v", tc, !v.DisableRelayTx)
		}
	}
}
