package node

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// TestUploadTarget: the target counts bytes per 24 h of node time, the
// historical limit keeps a maximal block per remaining ten minutes in
// reserve, and a new cycle starts the count again.
func TestUploadTarget(t *testing.T) {
	clock.SetMock(1_700_000_000)
	defer clock.SetMock(0)
	const limit = 800 << 20
	u := &uploadTarget{limit: limit}
	if u.reached(false) || u.reached(true) {
		t.Fatal("reached before anything was sent")
	}
	// A full cycle ahead needs 144 maximal blocks in reserve: 576 MB.
	u.record(limit - 144*wire.MaxBlockSerializedSize + 1)
	if u.reached(false) || !u.reached(true) {
		t.Fatalf("historical limit: reached %v/%v, want false/true", u.reached(false), u.reached(true))
	}
	const day = 24 * 3600
	if !u.refuseBlock(0, 8*day) || u.refuseBlock(7*day, 8*day) {
		t.Fatal("refuseBlock should refuse only blocks more than a week old")
	}
	u.record(limit)
	if !u.reached(false) {
		t.Fatal("target not reached after the whole budget")
	}
	st := u.status()
	if !st.TargetReached || st.ServeHistoricalBlocks || st.BytesLeftInCycle != 0 || st.Target != limit || st.TimeLeftInCycle != day {
		t.Fatalf("status %+v", st)
	}
	clock.SetMock(1_700_000_000 + day + 1)
	if u.reached(false) || u.reached(true) {
		t.Fatal("the next cycle did not start afresh")
	}
	var none *uploadTarget
	none.record(1)
	if none.reached(true) || none.status().Target != 0 {
		t.Fatal("no target: nothing is ever reached")
	}
}

// TestUploadTargetCountsQueued: a message counts toward the target as
// soon as it is queued to a peer, not once the peer has read it. A block
// served to a slow reader sits in the send queue while the peer's next
// getdata is checked against the historical limit; counted only when
// written, several more old blocks got out past the limit.
func TestUploadTargetCountsQueued(t *testing.T) {
	n := newTestNode(t, "--maxuploadtarget=1000")
	c1, c2 := net.Pipe()
	t.Cleanup(func() { c2.Close() })
	cfg := n.s.peerCfg
	p := peer.NewOutbound(&cfg, c1, "127.0.0.1:4670")
	p.Start()
	t.Cleanup(func() { p.Disconnect(); <-p.Done() })
	r := &netPeer{conn: c2, net: n.s.cfg.params.Net}
	read := func(cmd string) {
		t.Helper()
		c2.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			_, m, err := wire.ReadMessage(c2, wire.ProtocolVersion, r.net, wire.WitnessEncoding)
			if err != nil {
				if _, ok := err.(*wire.UnknownCommandError); ok {
					continue
				}
				t.Fatalf("reading for %s: %v", cmd, err)
			}
			if m.Command() == cmd {
				return
			}
		}
	}
	read(wire.CmdVersion)
	r.send(t, netPeerVersion(n, netip.MustParseAddrPort("5.6.7.8:50000")))
	r.send(t, &wire.MsgVerAck{})
	read(wire.CmdVerAck)
	if !p.WaitForHandshake() {
		t.Fatal(p.Err())
	}
	// From here the remote reads nothing: over a pipe, the node's writer
	// blocks on its first message after the handshake.
	sent := func() uint64 { st := n.s.upload.status(); return st.Target - st.BytesLeftInCycle }
	before := sent()
	msg := &wire.MsgInv{InvList: make([]wire.InvVect, 1000)}
	for i := range msg.InvList {
		msg.InvList[i] = wire.InvVect{Type: wire.InvTypeBlock, Hash: wire.Hash{byte(i), byte(i >> 8)}}
	}
	if err := p.QueueMessage(msg, nil); err != nil {
		t.Fatal(err)
	}
	want := uint64(len(msg.InvList) * wire.InvVectSize)
	if got := sent() - before; got < want {
		t.Fatalf("queued %d bytes, the target counted %d", want, got)
	}
}
