package peer

import (
	"errors"
	"fmt"
	"net"

	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// commandsFor returns the commands the peer sends within d.
func (r *remote) commandsFor(d time.Duration) []string {
	var cmds []string
	r.conn.SetReadDeadline(time.Now().Add(d))
	for {
		_, msg, err := wire.ReadMessage(r.conn, r.pver, testNet, wire.WitnessEncoding)
		var uc *wire.UnknownCommandError
		switch {
		case errors.As(err, &uc):
			cmds = append(cmds, uc.Command)
		case err != nil:
			return cmds
		default:
			cmds = append(cmds, msg.Command())
		}
	}
}

// Core's p2p_leak.py: nothing goes to a peer before its version, and
// before its verack only our version, verack and (from protocol 70016)
// wtxidrelay and sendaddrv2, whatever it sends meanwhile; such messages
// are ignored, not punished.
func TestNothingLeaksBeforeHandshake(t *testing.T) {
	cfg := baseConfig()
	logs := captureLog(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.40:1")
	r.send(&wire.MsgPing{Nonce: 1})
	r.sendRaw(okFrame(wire.CmdGetAddr, nil))
	if cmds := r.commandsFor(300 * time.Millisecond); len(cmds) != 0 {
		t.Fatalf("sent %v before the remote's version", cmds)
	}
	logs.waitFor(t, fmt.Sprintf(`non-version message before version handshake. Message "ping" from peer=%d`, p.ID()))
	r.send(r.version(5))
	r.send(&wire.MsgPing{Nonce: 2})
	r.sendRaw(okFrame(wire.CmdGetAddr, nil))
	cmds := r.commandsFor(300 * time.Millisecond)
	want := []string{wire.CmdVersion, wire.CmdWtxidRelay, wire.CmdSendAddrV2, wire.CmdVerAck}
	if fmt.Sprint(cmds) != fmt.Sprint(want) {
		t.Fatalf("sent %v before verack, want %v", cmds, want)
	}
	logs.waitFor(t, fmt.Sprintf(`Unsupported message "ping" prior to verack from peer=%d`, p.ID()))
	if !p.Connected() || p.BanScore() != 0 {
		t.Fatalf("err %v score %d", p.Err(), p.BanScore())
	}

	// A peer below protocol 70016 gets no feature negotiation.
	_, r2 := newInboundWithRemote(t, cfg, "203.0.113.41:1")
	v := r2.version(6)
	v.ProtocolVersion = 70015
	r2.send(v)
	cmds = r2.commandsFor(300 * time.Millisecond)
	if fmt.Sprint(cmds) != fmt.Sprint([]string{wire.CmdVersion, wire.CmdVerAck}) {
		t.Fatalf("sent %v to a 70015 peer", cmds)
	}
}

// A repeated version is logged and ignored, before and after verack.
func TestRedundantVersion(t *testing.T) {
	cfg := baseConfig()
	logs := captureLog(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.42:1")
	r.send(r.version(7))
	r.send(r.version(8))
	r.recvUntil(wire.CmdVerAck)
	r.send(&wire.MsgVerAck{})
	r.send(r.version(9))
	r.inStep()
	if !p.Connected() || p.BanScore() != 0 {
		t.Fatalf("err %v score %d", p.Err(), p.BanScore())
	}
	logs.waitFor(t, fmt.Sprintf("redundant version message from peer=%d", p.ID()))
}

// Late feature negotiation disconnects with Core's log line.
func TestLateNegotiationLog(t *testing.T) {
	for _, msg := range []wire.Message{&wire.MsgSendAddrV2{}, &wire.MsgWtxidRelay{}} {
		cfg := baseConfig()
		logs := captureLog(cfg)
		p, r := newInboundWithRemote(t, cfg, "203.0.113.43:1")
		r.handshake()
		r.drain()
		p.WaitForHandshake()
		r.send(msg)
		waitDone(t, p, 5*time.Second)
		logs.waitFor(t, fmt.Sprintf("%s received after verack, disconnecting peer=%d", msg.Command(), p.ID()))
	}
}

// Core's p2p_handshake.py: a feeler is not asked for services, it
// completes on the version; and p2p_leak.py's obsolete version line.
func TestFeelerAndObsoleteVersion(t *testing.T) {
	cfg := baseConfig()
	cfg.RequiredServices = wire.SFNodeNetwork | wire.SFNodeWitness
	logs := captureLog(cfg)
	c1, c2 := net.Pipe()
	p := NewOutbound(cfg, withAddr(c1, "198.51.100.50:8333"), "198.51.100.50:8333")
	p.SetConnType(ConnFeeler)
	p.Start()
	defer c2.Close()
	r := &remote{t: t, conn: c2, pver: wire.ProtocolVersion}
	r.recvUntil(wire.CmdVersion)
	v := r.version(3)
	v.Services = 0
	r.send(v)
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrFeelerDone) {
		t.Fatalf("feeler err %v", p.Err())
	}
	logs.waitFor(t, "feeler connection completed")

	old, r2 := newInboundWithRemote(t, cfg, "203.0.113.44:1")
	r2.drain()
	v = r2.version(4)
	v.ProtocolVersion = 31799
	r2.send(v)
	waitDone(t, old, 5*time.Second)
	logs.waitFor(t, fmt.Sprintf("using obsolete version 31799, disconnecting peer=%d", old.ID()))
}

// Every message in and out is logged as Core logs it (its tests match
// "received: addr (301 bytes) peer=1" and the like); unknown commands
// are logged and ignored.
func TestMessageLogLines(t *testing.T) {
	cfg := baseConfig()
	logs := captureLog(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.45:1")
	r.handshake()
	r.sendRaw(okFrame("madeup", []byte{1, 2, 3}))
	r.inStep()
	for _, s := range []string{"received: ping (8 bytes) peer=%d", "sending pong (8 bytes) peer=%d",
		"received: madeup (3 bytes) peer=%d", `Unknown command "madeup" from peer=%d`} {
		logs.waitFor(t, fmt.Sprintf(s, p.ID()))
	}
}

// A pong longer than its nonce is read like Core reads it: the nonce,
// the rest ignored.
func TestLongPong(t *testing.T) {
	p, r := newInboundWithRemote(t, baseConfig(), "203.0.113.46:1")
	r.handshake()
	ping := r.recvUntil(wire.CmdPing).(*wire.MsgPing)
	payload := append(frameMsg(&wire.MsgPong{Nonce: ping.Nonce})[wire.MessageHeaderSize:], 1, 2, 3)
	r.sendRaw(okFrame(wire.CmdPong, payload))
	waitCond(t, "ping time", 5*time.Second, func() bool { return p.Stats().LastPingRTT > 0 })
	if !p.Connected() {
		t.Fatal(p.Err())
	}
}
