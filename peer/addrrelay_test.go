package peer

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

func addrMsg(n int) *wire.MsgAddr {
	m := &wire.MsgAddr{AddrList: make([]wire.NetAddress, n)}
	for i := range m.AddrList {
		m.AddrList[i] = wire.NetAddress{Timestamp: uint32(clock.Unix()), Services: wire.SFNodeNetwork,
			Addr: netip.AddrFrom4([4]byte{11, byte(i >> 8), byte(i), 1}), Port: 8333}
	}
	return m
}

func appendCount(b []byte, n int) []byte {
	if n < 0xfd {
		return append(b, byte(n))
	}
	return binary.LittleEndian.AppendUint16(append(b, 0xfd), uint16(n))
}

// addrPayload is an addr payload of n entries, which may be more than
// wire will encode.
func addrPayload(n int) []byte {
	b := appendCount(nil, n)
	for i := range n {
		b = binary.LittleEndian.AppendUint32(b, uint32(clock.Unix()))
		b = binary.LittleEndian.AppendUint64(b, uint64(wire.SFNodeNetwork))
		ip := netip.AddrFrom4([4]byte{11, byte(i >> 8), byte(i), 1}).As16()
		b = append(b, ip[:]...)
		b = binary.BigEndian.AppendUint16(b, 8333)
	}
	return b
}

// addrV2Payload is an addrv2 payload of n IPv4 entries.
func addrV2Payload(n int) []byte {
	b := appendCount(nil, n)
	for i := range n {
		b = binary.LittleEndian.AppendUint32(b, uint32(clock.Unix()))
		b = append(b, byte(wire.SFNodeNetwork), byte(wire.NetIPv4), 4, 11, byte(i>>8), byte(i), 1)
		b = binary.BigEndian.AppendUint16(b, 8333)
	}
	return b
}

// startWithRemote starts a peer of the given direction, type and
// permissions over a pipe whose far end the test drives.
func startWithRemote(t *testing.T, cfg *Config, inbound bool, typ ConnType, perms Permissions) (*Peer, *remote) {
	t.Helper()
	c1, c2 := net.Pipe()
	var p *Peer
	if inbound {
		p = NewInbound(cfg, withAddr(c1, "198.51.100.20:5000"))
	} else {
		p = NewOutbound(cfg, withAddr(c1, "198.51.100.21:8333"), "198.51.100.21:8333")
		p.SetConnType(typ)
	}
	p.SetPermissions(perms)
	t.Cleanup(func() {
		p.Disconnect()
		c2.Close()
		select {
		case <-p.Done():
		case <-time.After(5 * time.Second):
			t.Errorf("peer goroutines did not exit")
		}
	})
	p.Start()
	return p, &remote{t: t, conn: c2, pver: wire.ProtocolVersion}
}

// answerHandshake plays the accepting side of an outbound peer's
// handshake; addrV2 asks for BIP155 addresses.
func (r *remote) answerHandshake(addrV2 bool) {
	r.t.Helper()
	r.recvUntil(wire.CmdVersion)
	r.send(r.version(999))
	if addrV2 {
		r.send(&wire.MsgSendAddrV2{})
	}
	r.send(&wire.MsgVerAck{})
	r.recvUntil(wire.CmdVerAck)
}

// handshakeV1 is handshake without sendaddrv2.
func (r *remote) handshakeV1() {
	r.t.Helper()
	r.send(r.version(12345))
	r.recvUntil(wire.CmdVerAck)
	r.send(&wire.MsgVerAck{})
}

// inStep sends a ping and waits for its pong, so everything sent before
// has been handled.
func (r *remote) inStep() {
	r.t.Helper()
	r.send(&wire.MsgPing{Nonce: 4242})
	for {
		if r.recvUntil(wire.CmdPong).(*wire.MsgPong).Nonce == 4242 {
			return
		}
	}
}

type addrCall struct {
	addrs []wire.NetAddressV2
	relay bool
}

func recordAddrs(cfg *Config) chan addrCall {
	got := make(chan addrCall, 10)
	cfg.Listeners.OnAddrs = func(_ *Peer, addrs []wire.NetAddressV2, relay bool) { got <- addrCall{addrs, relay} }
	return got
}

func nextAddrs(t *testing.T, got chan addrCall) addrCall {
	t.Helper()
	select {
	case c := <-got:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no OnAddrs call")
	}
	return addrCall{}
}

// The token bucket: one address at first, 0.1 a second after, 1000 more
// once we sent getaddr; getpeerinfo's counters add up.
func TestAddrRateLimit(t *testing.T) {
	cfg := baseConfig()
	got := recordAddrs(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.3:1")
	r.handshake()
	r.drain()
	if !p.WaitForHandshake() {
		t.Fatal(p.Err())
	}
	r.send(addrMsg(1000))
	if n := len(nextAddrs(t, got).addrs); n != 1 {
		t.Fatalf("processed %d of an unsolicited burst, want 1", n)
	}
	// After we ask with getaddr, a full response is accepted.
	p.PushGetAddr()
	r.send(addrMsg(1000))
	if n := len(nextAddrs(t, got).addrs); n != 1000 {
		t.Fatalf("processed %d of a solicited response, want 1000", n)
	}
	s := p.Stats()
	if s.AddrProcessed != 1001 || s.AddrRateLimited != 999 {
		t.Fatalf("stats processed %d limited %d", s.AddrProcessed, s.AddrRateLimited)
	}
}

// The bucket refills with the node clock.
func TestAddrRateLimitMockClock(t *testing.T) {
	mockClock(t, 1_700_000_000)
	cfg := baseConfig()
	got := recordAddrs(cfg)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.3:1")
	r.handshake()
	r.drain()
	p.WaitForHandshake()
	r.send(addrMsg(50))
	nextAddrs(t, got)
	clock.SetMock(1_700_000_100) // 10 more tokens
	r.send(addrMsg(50))
	if n := len(nextAddrs(t, got).addrs); n != 10 {
		t.Fatalf("processed %d after 100s, want 10", n)
	}
	if s := p.Stats(); s.AddrProcessed != 11 || s.AddrRateLimited != 89 {
		t.Fatalf("stats processed %d limited %d", s.AddrProcessed, s.AddrRateLimited)
	}
}

func TestGetAddrOncePerInbound(t *testing.T) {
	cfg := baseConfig()
	logs := captureLog(cfg)
	calls := make(chan struct{}, 10)
	cfg.Listeners.OnGetAddr = func(*Peer) { calls <- struct{}{} }
	p, r := newInboundWithRemote(t, cfg, "203.0.113.3:1")
	r.handshake()
	r.drain()
	if !p.WaitForHandshake() {
		t.Fatal(p.Err())
	}
	r.sendRaw(okFrame(wire.CmdGetAddr, nil))
	r.sendRaw(okFrame(wire.CmdGetAddr, nil))
	r.send(&wire.MsgPing{Nonce: 1})
	waitCond(t, "ping processed", 5*time.Second, func() bool { return p.Stats().BytesRecvPerMsg[wire.CmdPing] > 0 })
	if len(calls) != 1 {
		t.Fatalf("OnGetAddr called %d times", len(calls))
	}
	logs.waitFor(t, `Ignoring repeated "getaddr". peer=`)

	// Outbound peers are not answered at all.
	out, or := startWithRemote(t, cfg, false, "", 0)
	or.answerHandshake(false)
	or.sendRaw(okFrame(wire.CmdGetAddr, nil))
	or.inStep()
	if len(calls) != 1 || !out.Connected() {
		t.Fatalf("outbound getaddr: %d calls, err %v", len(calls), out.Err())
	}
	logs.waitFor(t, `Ignoring "getaddr" from outbound-full-relay connection. peer=`)
}

// Which peers take part in address relay (getpeerinfo's
// addr_relay_enabled) and which are asked with getaddr.
func TestAddrRelayEnabled(t *testing.T) {
	cfg := baseConfig()
	in, r := newInboundWithRemote(t, cfg, "203.0.113.4:1")
	r.handshake()
	r.inStep()
	if in.AddrRelayEnabled() || in.Stats().AddrRelayEnabled {
		t.Fatal("relay enabled for an inbound peer that never asked")
	}
	r.send(&wire.MsgAddr{})
	r.inStep()
	if !in.Stats().AddrRelayEnabled {
		t.Fatal("an empty addr did not enable relay")
	}

	// A full-relay outbound peer is asked for addresses in the
	// handshake, once, however often PushGetAddr is called.
	out, or := startWithRemote(t, cfg, false, "", 0)
	or.recvUntil(wire.CmdVersion)
	or.send(or.version(999))
	or.recvUntil(wire.CmdVerAck)
	or.recvUntil(wire.CmdGetAddr)
	or.send(&wire.MsgVerAck{})
	if !out.WaitForHandshake() || !out.AddrRelayEnabled() {
		t.Fatal("outbound peer not relaying addresses")
	}
	out.PushGetAddr()
	or.inStep()
	if n := out.Stats().BytesSentPerMsg[wire.CmdGetAddr]; n != wire.MessageHeaderSize {
		t.Fatalf("%d bytes of getaddr sent, want one message", n)
	}

	// A block-relay-only peer neither: its addresses are ignored.
	br, brr := startWithRemote(t, cfg, false, ConnBlockRelay, 0)
	brr.answerHandshake(false)
	br.PushGetAddr()
	brr.send(addrMsg(2))
	brr.inStep()
	if st := br.Stats(); st.AddrRelayEnabled || st.AddrProcessed != 0 || st.BytesSentPerMsg[wire.CmdGetAddr] != 0 {
		t.Fatalf("block-relay-only peer: %+v", st)
	}
}

// An addr or addrv2 of more than 1000 entries disconnects with Core's
// message, except from a block-relay-only peer, whose address messages
// are ignored.
func TestOversizedAddr(t *testing.T) {
	for _, tc := range []struct {
		cmd     string
		payload []byte
	}{{wire.CmdAddr, addrPayload(1010)}, {wire.CmdAddrV2, addrV2Payload(1010)}} {
		cfg := baseConfig()
		logs := captureLog(cfg)
		p, r := newInboundWithRemote(t, cfg, "203.0.113.5:1")
		r.handshake()
		r.drain()
		p.WaitForHandshake()
		r.sendRaw(okFrame(tc.cmd, tc.payload))
		waitDone(t, p, 5*time.Second)
		if !errors.Is(p.Err(), ErrProtocolViolation) || p.BanScore() != PenaltyOversized {
			t.Fatalf("%s: err %v score %d", tc.cmd, p.Err(), p.BanScore())
		}
		logs.waitFor(t, tc.cmd+" message size = 1010")
	}
	cfg := baseConfig()
	p, r := startWithRemote(t, cfg, false, ConnBlockRelay, 0)
	r.answerHandshake(false)
	r.sendRaw(okFrame(wire.CmdAddr, addrPayload(1010)))
	r.inStep()
	if !p.Connected() || p.BanScore() != 0 {
		t.Fatalf("block-relay-only peer: err %v score %d", p.Err(), p.BanScore())
	}
}

// What OnAddrs gets: addresses without a useful service dropped, bad
// timestamps replaced, and relay only for small unsolicited messages.
func TestAddrGossipFilter(t *testing.T) {
	mockClock(t, 1_700_000_000)
	cfg := baseConfig()
	logs := captureLog(cfg)
	got := recordAddrs(cfg)
	p, r := startWithRemote(t, cfg, true, "", PermAddr)
	r.handshake()
	r.drain()
	p.WaitForHandshake()
	m := addrMsg(4)
	m.AddrList[0].Services = wire.SFNodeWitness // not a full or pruned node
	m.AddrList[1].Timestamp = 5                 // implausibly old
	m.AddrList[2].Timestamp = uint32(clock.Unix() + 3600)
	r.send(m)
	c := nextAddrs(t, got)
	if len(c.addrs) != 3 || !c.relay {
		t.Fatalf("got %d addresses, relay %v", len(c.addrs), c.relay)
	}
	for _, na := range c.addrs {
		ts := int64(na.Timestamp)
		if ts != clock.Unix() && ts != clock.Unix()-5*24*3600 {
			t.Fatalf("timestamp %d kept", ts)
		}
	}
	logs.waitFor(t, "Received addr: 4 addresses (3 processed, 0 rate-limited) from peer=")
	// Larger messages are stored but not relayed.
	r.send(addrMsg(11))
	if c := nextAddrs(t, got); len(c.addrs) != 11 || c.relay {
		t.Fatalf("11 addresses: got %d, relay %v", len(c.addrs), c.relay)
	}
}

// The answer to our getaddr is not relayed; the next small message is.
func TestGetAddrAnswerNotRelayed(t *testing.T) {
	cfg := baseConfig()
	got := recordAddrs(cfg)
	_, r := startWithRemote(t, cfg, false, "", 0)
	r.answerHandshake(false)
	r.send(addrMsg(2))
	if c := nextAddrs(t, got); len(c.addrs) != 2 || c.relay {
		t.Fatalf("getaddr answer: %d addresses, relay %v", len(c.addrs), c.relay)
	}
	r.send(addrMsg(2))
	if c := nextAddrs(t, got); !c.relay {
		t.Fatal("later gossip not relayable")
	}
}

// Queued addresses go out in one message on the send schedule, in addr
// to a peer without BIP155 (which cannot take a Tor address), and never
// back to a peer that knows them.
func TestPushAddressSchedule(t *testing.T) {
	cfg := baseConfig()
	cfg.AddrInterval = 20 * time.Millisecond
	a := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.MustParseAddrPort("44.1.1.1:8333"), wire.SFNodeNetwork, 1))
	b := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.MustParseAddrPort("44.1.1.2:8333"), wire.SFNodeNetwork, 1))
	onion := wire.NetAddressV2{NetworkID: wire.NetTorV3, Addr: make([]byte, 32), Port: 8333, Services: wire.SFNodeNetwork}
	cfg.Listeners.OnGetAddr = func(p *Peer) {
		p.PushAddress(a)
		p.PushAddress(onion)
	}
	p, r := newInboundWithRemote(t, cfg, "203.0.113.6:1")
	r.handshakeV1()
	p.WaitForHandshake()
	p.PushAddress(b) // relay not enabled yet: dropped
	r.sendRaw(okFrame(wire.CmdGetAddr, nil))
	m := r.recvUntil(wire.CmdAddr).(*wire.MsgAddr)
	if len(m.AddrList) != 1 || m.AddrList[0].AddrPort().String() != "44.1.1.1:8333" {
		t.Fatalf("sent %+v", m.AddrList)
	}
	// a is known now, and so is what the peer sends us.
	r.send(&wire.MsgAddr{AddrList: []wire.NetAddress{wire.NewNetAddress(netip.MustParseAddrPort("44.1.1.3:8333"), wire.SFNodeNetwork, uint32(clock.Unix()))}})
	r.inStep()
	p.PushAddress(a)
	p.PushAddress(wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.MustParseAddrPort("44.1.1.3:8333"), wire.SFNodeNetwork, 1)))
	p.PushAddress(b)
	m = r.recvUntil(wire.CmdAddr).(*wire.MsgAddr)
	if len(m.AddrList) != 1 || m.AddrList[0].AddrPort().String() != "44.1.1.2:8333" {
		t.Fatalf("second send %+v", m.AddrList)
	}
}

// Sends wait for the schedule, which runs on the node clock.
func TestAddrSendWaitsForClock(t *testing.T) {
	mockClock(t, 1_700_000_000)
	cfg := baseConfig()
	got := make(chan *wire.MsgAddrV2, 4)
	p, r := newInboundWithRemote(t, cfg, "203.0.113.7:1")
	r.handshake()
	r.sendRaw(okFrame(wire.CmdGetAddr, nil))
	r.inStep()
	go func() {
		for {
			msg, err := r.recv()
			if err != nil {
				return
			}
			if m, ok := msg.(*wire.MsgAddrV2); ok {
				got <- m
			}
		}
	}()
	// The first send (empty) happened when relay started; the next is
	// about 30 s of node time away.
	time.Sleep(300 * time.Millisecond)
	p.PushAddress(wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.MustParseAddrPort("44.1.1.9:8333"), wire.SFNodeNetwork, 1)))
	select {
	case <-got:
		t.Fatal("addr sent before its time")
	case <-time.After(300 * time.Millisecond):
	}
	clock.SetMock(1_700_000_000 + 600)
	select {
	case m := <-got:
		if len(m.AddrList) != 1 {
			t.Fatalf("sent %d addresses", len(m.AddrList))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("addr not sent after the clock moved")
	}
}

// An addr-fetch connection ends once it sent more than one address, or
// after five minutes of node time.
func TestAddrFetch(t *testing.T) {
	cfg := baseConfig()
	p, r := startWithRemote(t, cfg, false, ConnAddrFetch, 0)
	r.answerHandshake(false)
	r.send(addrMsg(1))
	r.inStep()
	if !p.Connected() {
		t.Fatalf("one address ended the connection: %v", p.Err())
	}
	r.drain()
	r.send(addrMsg(2))
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrFeelerDone) {
		t.Fatalf("err %v", p.Err())
	}

	mockClock(t, 1_700_000_000)
	logs := captureLog(cfg)
	p, r = startWithRemote(t, cfg, false, ConnAddrFetch, 0)
	r.answerHandshake(false)
	r.drain()
	clock.SetMock(1_700_000_000 + 295)
	time.Sleep(300 * time.Millisecond)
	if !p.Connected() {
		t.Fatalf("disconnected before five minutes: %v", p.Err())
	}
	clock.SetMock(1_700_000_000 + 301)
	waitDone(t, p, 5*time.Second)
	logs.waitFor(t, "addrfetch connection timeout, disconnecting peer=")
}

// The answer to getaddr goes out at once, not after a send interval: the
// send schedule starts only when the peer joins address relay, so on a
// frozen node clock too.
func TestGetAddrAnsweredAtOnce(t *testing.T) {
	mockClock(t, 1_700_000_000)
	cfg := baseConfig()
	a := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.MustParseAddrPort("44.1.1.1:8333"), wire.SFNodeNetwork, 1))
	cfg.Listeners.OnGetAddr = func(p *Peer) { p.PushAddress(a) }
	for range 20 {
		_, r := newInboundWithRemote(t, cfg, "203.0.113.8:1")
		r.handshake()
		r.sendRaw(okFrame(wire.CmdGetAddr, nil))
		r.recvUntil(wire.CmdAddrV2)
	}
}

// The first send must not slip in between relay starting and the getaddr
// answer being queued: with the writer's handshake tick racing the
// getaddr that follows verack, the answer still goes out at once.
func TestGetAddrRightAfterVerack(t *testing.T) {
	mockClock(t, 1_700_000_000)
	cfg := baseConfig()
	a := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.MustParseAddrPort("44.1.1.1:8333"), wire.SFNodeNetwork, 1))
	cfg.Listeners.OnGetAddr = func(p *Peer) {
		time.Sleep(time.Millisecond) // widen the window
		p.PushAddress(a)
	}
	for range 30 {
		_, r := newInboundWithRemote(t, cfg, "203.0.113.8:1")
		r.send(r.version(12345))
		r.recvUntil(wire.CmdVerAck)
		r.send(&wire.MsgSendAddrV2{})
		r.send(&wire.MsgVerAck{})
		r.sendRaw(okFrame(wire.CmdGetAddr, nil))
		r.recvUntil(wire.CmdAddrV2)
	}
}
