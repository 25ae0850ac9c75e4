package peer

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func checkHandshake(t *testing.T, out, in *Peer) {
	t.Helper()
	for _, p := range []*Peer{out, in} {
		select {
		case <-p.HandshakeDone():
		case <-time.After(5 * time.Second):
			t.Fatalf("%v: no handshake (err %v)", p, p.Err())
		}
	}
	for _, p := range []*Peer{out, in} {
		if !p.WantsWtxid() || !p.WantsAddrV2() {
			t.Errorf("%v: wtxid %v addrv2 %v", p, p.WantsWtxid(), p.WantsAddrV2())
		}
		if p.ProtocolVersion() != wire.ProtocolVersion {
			t.Errorf("%v: pver %d", p, p.ProtocolVersion())
		}
		if p.UserAgent() != "/test:0.1/" {
			t.Errorf("%v: user agent %q", p, p.UserAgent())
		}
		if !p.RelayTx() {
			t.Errorf("%v: relay off", p)
		}
	}
	if out.StartingHeight() != 7 || in.StartingHeight() != 3 {
		t.Errorf("heights %d %d", out.StartingHeight(), in.StartingHeight())
	}
	// Both sides ping right after the handshake.
	for _, p := range []*Peer{out, in} {
		waitCond(t, "ping answered", 5*time.Second, func() bool {
			s := p.Stats()
			return s.LastPingRTT > 0 && s.PingWait == 0
		})
		s := p.Stats()
		if s.BytesSent == 0 || s.BytesRecv == 0 || s.BytesRecvPerMsg[wire.CmdPong] != wire.MessageHeaderSize+8 {
			t.Errorf("%v stats: %+v", p, s)
		}
		if s.LastSend.IsZero() || s.LastRecv.IsZero() || !s.HandshakeDone {
			t.Errorf("%v stats times: %+v", p, s)
		}
	}
}

func TestHandshakePipe(t *testing.T) {
	outCfg, inCfg := baseConfig(), baseConfig()
	outCfg.BestHeight = func() int32 { return 3 }
	inCfg.BestHeight = func() int32 { return 7 }
	var verAcks = make(chan *Peer, 2)
	outCfg.Listeners.OnVerAck = func(p *Peer) { verAcks <- p }
	inCfg.Listeners.OnVerAck = func(p *Peer) { verAcks <- p }
	out, in := pipePair(t, outCfg, inCfg)
	checkHandshake(t, out, in)
	for range 2 {
		select {
		case <-verAcks:
		case <-time.After(5 * time.Second):
			t.Fatal("OnVerAck not called")
		}
	}
	if !out.Connected() || !in.Connected() {
		t.Fatal("disconnected")
	}
}

func TestHandshakeTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	inCfg, outCfg := baseConfig(), baseConfig()
	outCfg.BestHeight = func() int32 { return 3 }
	inCfg.BestHeight = func() int32 { return 7 }
	outCfg.SendHeaders = true
	outCfg.FeeFilter = func() int64 { return 1000 }
	outCfg.SendCmpct = &wire.MsgSendCmpct{Version: 2}
	accepted := make(chan *Peer, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		p := NewInbound(inCfg, c)
		p.Start()
		accepted <- p
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	out := NewOutbound(outCfg, c, l.Addr().String())
	out.Start()
	defer out.Disconnect()
	var in *Peer
	select {
	case in = <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("no accept")
	}
	defer in.Disconnect()
	checkHandshake(t, out, in)
	waitCond(t, "post-verack negotiation", 5*time.Second, func() bool {
		v, _ := in.CompactBlocks()
		return in.WantsHeaders() && in.FeeFilter() == 1000 && v == 2
	})
	if !in.IP().IsLoopback() || in.Inbound() == out.Inbound() {
		t.Fatalf("ip %v inbound %v/%v", in.IP(), in.Inbound(), out.Inbound())
	}
	out.Disconnect()
	waitDone(t, in, 5*time.Second)
	waitDone(t, out, 5*time.Second)
	if !errors.Is(out.Err(), ErrDisconnected) || !errors.Is(in.Err(), ErrConnection) {
		t.Fatalf("errors %v / %v", out.Err(), in.Err())
	}
}

func TestSelfConnection(t *testing.T) {
	shared := NewNonceSet()
	outCfg, inCfg := baseConfig(), baseConfig()
	outCfg.Nonces, inCfg.Nonces = shared, shared
	out, in := pipePair(t, outCfg, inCfg)
	waitDone(t, in, 5*time.Second)
	waitDone(t, out, 5*time.Second)
	if !errors.Is(in.Err(), ErrSelfConnection) {
		t.Fatalf("inbound err %v", in.Err())
	}
}

func TestHandshakeTimeout(t *testing.T) {
	cfg := baseConfig()
	cfg.HandshakeTimeout = 150 * time.Millisecond
	p, r := newInboundWithRemote(t, cfg, "203.0.113.1:1000")
	r.drain()
	start := time.Now()
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrHandshakeTimeout) {
		t.Fatalf("err %v", p.Err())
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("took %v", el)
	}
	// A remote that trickles valid messages but never finishes also times
	// out: the deadline is for the whole handshake.
	p2, r2 := newInboundWithRemote(t, cfg, "203.0.113.1:1001")
	r2.drain()
	r2.send(r2.version(1))
	waitDone(t, p2, 5*time.Second)
	if !errors.Is(p2.Err(), ErrHandshakeTimeout) {
		t.Fatalf("err %v", p2.Err())
	}
}

func TestOldVersionAndServices(t *testing.T) {
	cfg := baseConfig()
	p, r := newInboundWithRemote(t, cfg, "203.0.113.1:1000")
	r.drain()
	v := r.version(1)
	v.ProtocolVersion = 60000
	r.send(v)
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrOldVersion) {
		t.Fatalf("err %v", p.Err())
	}

	// An outbound peer must offer the required services.
	outCfg, inCfg := baseConfig(), baseConfig()
	inCfg.Services = wire.SFNodeNetworkLimited
	outCfg.RequiredServices = wire.SFNodeNetwork | wire.SFNodeWitness
	out, _ := pipePair(t, outCfg, inCfg)
	waitDone(t, out, 5*time.Second)
	if !errors.Is(out.Err(), ErrMissingServices) {
		t.Fatalf("err %v", out.Err())
	}
}

func TestOnVersionReject(t *testing.T) {
	outCfg, inCfg := baseConfig(), baseConfig()
	inCfg.Listeners.OnVersion = func(*Peer, *wire.MsgVersion) error { return errors.New("no thanks") }
	_, in := pipePair(t, outCfg, inCfg)
	waitDone(t, in, 5*time.Second)
	if !errors.Is(in.Err(), ErrRejected) {
		t.Fatalf("err %v", in.Err())
	}
}

func TestIdleAndPingTimeout(t *testing.T) {
	cfg := baseConfig()
	// The timeouts apply once the -peertimeout grace period is over.
	cfg.HandshakeTimeout = 50 * time.Millisecond
	cfg.IdleTimeout = 200 * time.Millisecond
	p, r := newInboundWithRemote(t, cfg, "203.0.113.1:1000")
	r.handshake()
	r.drain()
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrIdleTimeout) {
		t.Fatalf("err %v", p.Err())
	}

	// A remote that keeps talking but never answers pings.
	cfg = baseConfig()
	cfg.HandshakeTimeout = 50 * time.Millisecond
	cfg.PingInterval = 20 * time.Millisecond
	cfg.PingTimeout = 100 * time.Millisecond
	p, r = newInboundWithRemote(t, cfg, "203.0.113.1:1001")
	r.handshake()
	r.drain()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-p.Done():
				return
			case <-time.After(10 * time.Millisecond):
				wire.WriteMessage(r.conn, &wire.MsgSendHeaders{}, r.pver, testNet, wire.WitnessEncoding)
			}
		}
	}()
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrPingTimeout) {
		t.Fatalf("err %v", p.Err())
	}
}
