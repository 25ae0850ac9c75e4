package node

import (
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// addrPeer is an inbound test connection that keeps itself alive (it
// answers pings and getheaders) and collects the addresses the node
// sends it.
type addrPeer struct {
	*netPeer
	addrs chan []wire.NetAddressV2
}

// dialAddrPeer connects to the node's P2P address to, completes the
// handshake (with BIP155 if addrV2) and, if getAddr, asks for addresses,
// which makes the node gossip addresses with it.
func dialAddrPeer(t *testing.T, n *testNode, to string, addrV2, getAddr bool) *addrPeer {
	t.Helper()
	c, err := net.DialTimeout("tcp", to, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	p := &addrPeer{netPeer: &netPeer{conn: c, net: n.s.cfg.params.Net}, addrs: make(chan []wire.NetAddressV2, 64)}
	p.send(t, netPeerVersion(n, netip.MustParseAddrPort(to)))
	if addrV2 {
		p.send(t, &wire.MsgSendAddrV2{})
	}
	p.send(t, &wire.MsgVerAck{})
	if getAddr {
		p.send(t, &wire.MsgGetAddr{})
	}
	go p.serve()
	return p
}

func (p *addrPeer) serve() {
	for {
		p.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		_, m, err := wire.ReadMessage(p.conn, wire.ProtocolVersion, p.net, wire.WitnessEncoding)
		if err != nil {
			if _, ok := err.(*wire.UnknownCommandError); ok {
				continue
			}
			return
		}
		var reply wire.Message
		switch m := m.(type) {
		case *wire.MsgPing:
			reply = &wire.MsgPong{Nonce: m.Nonce}
		case *wire.MsgGetHeaders:
			reply = &wire.MsgHeaders{}
		case *wire.MsgAddr:
			v2 := make([]wire.NetAddressV2, len(m.AddrList))
			for i := range m.AddrList {
				v2[i] = wire.NetAddressV2FromNetAddress(m.AddrList[i])
			}
			p.addrs <- v2
		case *wire.MsgAddrV2:
			p.addrs <- m.AddrList
		}
		if reply != nil {
			wire.WriteMessage(p.conn, reply, wire.ProtocolVersion, p.net, wire.WitnessEncoding)
		}
	}
}

// drain returns the addresses received within d.
func (p *addrPeer) drain(d time.Duration) []wire.NetAddressV2 {
	var out []wire.NetAddressV2
	deadline := time.After(d)
	for {
		select {
		case a := <-p.addrs:
			out = append(out, a...)
		case <-deadline:
			return out
		}
	}
}

// next returns the next addr message's addresses.
func (p *addrPeer) nextAddrs(t *testing.T) []wire.NetAddressV2 {
	t.Helper()
	select {
	case a := <-p.addrs:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no addr message")
	}
	return nil
}

func mockNodeClock(t *testing.T, at int64) {
	clock.SetMock(at)
	t.Cleanup(func() { clock.SetMock(0) })
}

// Core's p2p_addr_relay.py: a fresh routable address from a small addr
// message goes to exactly two of the peers taking part in address relay,
// never back to its source nor to a peer that never sent an address
// message, and is stored; a repeat (within the day) goes to the same two,
// so each gets it once. An I2P address (not reachable here) is relayed to
// one or two peers but not stored.
func TestAddrRelayDestinations(t *testing.T) {
	// As in Core's test, the addr permission lifts the rate limit.
	n := newTestNode(t, "--nodnsseed", "--whitelist=addr@127.0.0.1")
	now := time.Now().Unix()
	mockNodeClock(t, now)
	to := n.s.p2pAddr()
	src := dialAddrPeer(t, n, to, true, true)
	var receivers []*addrPeer
	for range 4 {
		receivers = append(receivers, dialAddrPeer(t, n, to, true, true))
	}
	blackhole := dialAddrPeer(t, n, to, true, false)
	waitFor(t, 10*time.Second, "peers", func() bool { return len(n.s.peerList()) == 6 })
	for _, p := range append(receivers, src, blackhole) {
		p.drain(200 * time.Millisecond) // the (empty) getaddr answers
	}
	ip := wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.MustParseAddrPort("44.4.4.4:8333"), wire.SFNodeNetwork|wire.SFNodeWitness, uint32(now)))
	i2p := wire.NetAddressV2{NetworkID: wire.NetI2P, Addr: slices.Repeat([]byte{7}, 32), Services: wire.SFNodeNetwork, Timestamp: uint32(now)}
	// got maps each address relayed to the receivers that got it.
	got := func() map[string][]int {
		who := map[string][]int{}
		for i, p := range receivers {
			for _, na := range p.drain(300 * time.Millisecond) {
				who[na.String()] = append(who[na.String()], i)
			}
		}
		return who
	}
	src.send(t, &wire.MsgAddrV2{AddrList: []wire.NetAddressV2{ip, i2p}})
	src.send(t, &wire.MsgAddrV2{AddrList: []wire.NetAddressV2{ip}})
	time.Sleep(200 * time.Millisecond)
	clock.SetMock(now + 600) // past every peer's next addr send
	first := got()
	if who := first[ip.String()]; len(who) != 2 || who[0] == who[1] {
		t.Fatalf("IP address relayed to receivers %v, want two, once each", who)
	}
	if n := len(first[i2p.String()]); n < 1 || n > 2 || len(first) != 2 {
		t.Fatalf("relayed %v; want the I2P address to one or two receivers", first)
	}
	if a := src.drain(100 * time.Millisecond); len(a) > 0 {
		t.Fatalf("relayed back to the source: %v", a)
	}
	if a := blackhole.drain(100 * time.Millisecond); len(a) > 0 {
		t.Fatalf("relayed to a peer that never sent an address message: %v", a)
	}
	if _, ok := n.s.addrs.Lookup(ip); !ok {
		t.Fatal("IP address not stored")
	}
	if _, ok := n.s.addrs.Lookup(i2p); ok {
		t.Fatal("unreachable I2P address stored")
	}

}

// Core's p2p_getaddr_caching.py: getaddr is answered from a cache per
// local address, so peers on one listener get the same answer and peers
// on another a different one, until the cache expires after about a day.
func TestGetAddrCachePerListener(t *testing.T) {
	n := newTestNode(t, "--nodnsseed", "--listen="+freeAddr(t))
	if len(n.s.listeners) != 2 {
		t.Fatalf("%d listeners", len(n.s.listeners))
	}
	now := time.Now().Unix()
	mockNodeClock(t, now)
	var many []wire.NetAddressV2
	for i := range 6000 {
		// Each in its own /16, so the tables keep them all.
		ap := netip.AddrPortFrom(netip.AddrFrom4([4]byte{byte(30 + i>>8), byte(i), 1, 1}), 8333)
		many = append(many, wire.NetAddressV2FromNetAddress(wire.NewNetAddress(ap, wire.SFNodeNetwork|wire.SFNodeWitness, uint32(now))))
	}
	for i := range many {
		// One source per address, as addpeeraddress adds them.
		n.s.addrs.AddAddresses(many[i:i+1], many[i], 0)
	}
	if n.s.addrs.Size() < 5000 {
		t.Fatalf("address manager holds %d", n.s.addrs.Size())
	}
	answer := func(to string) []string {
		t.Helper()
		p := dialAddrPeer(t, n, to, false, true)
		var out []string
		for _, na := range p.nextAddrs(t) {
			out = append(out, na.String())
		}
		slices.Sort(out)
		return out
	}
	l0, l1 := n.s.listeners[0].Addr().String(), n.s.listeners[1].Addr().String()
	a0, a1 := answer(l0), answer(l1)
	if len(a0) != 1000 || len(a1) != 1000 {
		t.Fatalf("answers of %d and %d addresses, want 1000", len(a0), len(a1))
	}
	if slices.Equal(a0, a1) {
		t.Fatal("two listeners gave the same answer")
	}
	clock.SetMock(now + 5*60)
	if !slices.Equal(answer(l0), a0) || !slices.Equal(answer(l1), a1) {
		t.Fatal("answer changed within the cache lifetime")
	}
	clock.SetMock(now + 3*24*3600)
	if slices.Equal(answer(l0), a0) {
		t.Fatal("answer unchanged after three days")
	}
}

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
