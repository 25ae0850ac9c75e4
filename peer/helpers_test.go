package peer

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

const testNet = wire.RegTest

// addrConn overrides RemoteAddr so pipe peers have an IP to ban.
type addrConn struct {
	net.Conn
	remote net.Addr
}

func (c *addrConn) RemoteAddr() net.Addr { return c.remote }

func withAddr(c net.Conn, hostport string) net.Conn {
	a, err := net.ResolveTCPAddr("tcp", hostport)
	if err != nil {
		panic(err)
	}
	return &addrConn{Conn: c, remote: a}
}

func baseConfig() *Config {
	return &Config{
		Net:              testNet,
		Services:         Services(false, false),
		UserAgent:        UserAgent("test", "0.1"),
		Nonces:           NewNonceSet(),
		HandshakeTimeout: 5 * time.Second,
		TrickleInterval:  20 * time.Millisecond,
	}
}

// waitDone fails the test if p is still connected after d.
func waitDone(t *testing.T, p *Peer, d time.Duration) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(d):
		t.Fatalf("%v still connected after %v", p, d)
	}
}

func waitCond(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// remote is the far end of a connection driven by hand in tests.
type remote struct {
	t    *testing.T
	conn net.Conn
	pver uint32
}

func (r *remote) send(msg wire.Message) {
	r.t.Helper()
	r.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := wire.WriteMessage(r.conn, msg, r.pver, testNet, wire.WitnessEncoding); err != nil {
		r.t.Fatalf("remote send %s: %v", msg.Command(), err)
	}
}

// sendRaw writes bytes as they are; errors are ignored because the peer
// may already have hung up.
func (r *remote) sendRaw(b []byte) {
	r.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	r.conn.Write(b)
}

func (r *remote) recv() (wire.Message, error) {
	r.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, msg, err := wire.ReadMessage(r.conn, r.pver, testNet, wire.WitnessEncoding)
		var uc *wire.UnknownCommandError
		if errors.As(err, &uc) {
			continue // getaddr and the like
		}
		return msg, err
	}
}

// recvUntil reads until a message with command cmd arrives.
func (r *remote) recvUntil(cmd string) wire.Message {
	r.t.Helper()
	for range 100 {
		msg, err := r.recv()
		if err != nil {
			r.t.Fatalf("remote waiting for %s: %v", cmd, err)
		}
		if msg.Command() == cmd {
			return msg
		}
	}
	r.t.Fatalf("no %s in 100 messages", cmd)
	return nil
}

// drain discards everything the peer sends from now on.
func (r *remote) drain() {
	go func() {
		r.conn.SetReadDeadline(time.Time{})
		io.Copy(io.Discard, r.conn)
	}()
}

func (r *remote) version(nonce uint64) *wire.MsgVersion {
	return &wire.MsgVersion{
		ProtocolVersion: int32(wire.ProtocolVersion),
		Services:        wire.SFNodeNetwork | wire.SFNodeWitness,
		Timestamp:       time.Now().Unix(),
		Nonce:           nonce,
		UserAgent:       "/remote:1/",
		LastBlock:       100,
	}
}

// handshake plays the remote side of an inbound peer's handshake.
func (r *remote) handshake() {
	r.t.Helper()
	r.send(r.version(12345))
	r.recvUntil(wire.CmdVerAck)
	r.send(&wire.MsgWtxidRelay{})
	r.send(&wire.MsgSendAddrV2{})
	r.send(&wire.MsgVerAck{})
}

// newInboundWithRemote starts an inbound peer whose remote is driven by
// hand. The peer sees the remote as ip:port.
func newInboundWithRemote(t *testing.T, cfg *Config, hostport string) (*Peer, *remote) {
	t.Helper()
	c1, c2 := net.Pipe()
	p := NewInbound(cfg, withAddr(c1, hostport))
	p.Start()
	t.Cleanup(func() {
		p.Disconnect()
		c2.Close()
		select {
		case <-p.Done():
		case <-time.After(5 * time.Second):
			t.Errorf("peer goroutines did not exit")
		}
	})
	return p, &remote{t: t, conn: c2, pver: wire.ProtocolVersion}
}

// pipePair connects an outbound and an inbound peer over net.Pipe.
func pipePair(t *testing.T, outCfg, inCfg *Config) (out, in *Peer) {
	t.Helper()
	c1, c2 := net.Pipe()
	out = NewOutbound(outCfg, withAddr(c1, "198.51.100.2:18444"), "198.51.100.2:18444")
	in = NewInbound(inCfg, withAddr(c2, "198.51.100.1:50000"))
	t.Cleanup(func() {
		out.Disconnect()
		in.Disconnect()
		for _, p := range []*Peer{out, in} {
			select {
			case <-p.Done():
			case <-time.After(5 * time.Second):
				t.Errorf("%v goroutines did not exit", p)
			}
		}
	})
	out.Start()
	in.Start()
	return out, in
}

func pipeConns() (net.Conn, net.Conn) {
	c1, c2 := net.Pipe()
	return withAddr(c1, "203.0.113.200:1"), c2
}
