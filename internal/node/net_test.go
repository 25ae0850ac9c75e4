package node

import (
	"bytes"
	"encoding/json"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// netPeer is a hand-driven P2P connection for tests that need to see or
// withhold individual messages (the fakePeer of sync_test.go
// answers everything itself).
type netPeer struct {
	conn net.Conn
	net  wire.BitcoinNet
	msgs chan wire.Message
	// relay marks a peer made by dialRelayPeer: it answers pings itself
	// and drops what arrives while msgs is full (a test that stopped
	// listening) instead of closing the connection.
	relay bool
}

// send writes m; t may be nil where a failure does not matter.
func (r *netPeer) send(t *testing.T, m wire.Message) {
	if _, err := wire.WriteMessage(r.conn, m, wire.ProtocolVersion, r.net, wire.WitnessEncoding); err != nil && t != nil {
		t.Helper()
		t.Fatalf("raw peer send %s: %v", m.Command(), err)
	}
}

// next returns the next message satisfying keep, within timeout.
func (r *netPeer) next(t *testing.T, timeout time.Duration, what string, keep func(wire.Message) bool) wire.Message {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case m, ok := <-r.msgs:
			if !ok {
				t.Fatalf("connection closed waiting for %s", what)
			}
			if keep(m) {
				return m
			}
		case <-deadline:
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
	}
}

func (r *netPeer) readLoop() {
	defer close(r.msgs)
	for {
		r.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		_, m, err := wire.ReadMessage(r.conn, wire.ProtocolVersion, r.net, wire.WitnessEncoding)
		if err != nil {
			if _, ok := err.(*wire.UnknownCommandError); ok {
				continue
			}
			return
		}
		if p, ok := m.(*wire.MsgPing); ok && r.relay {
			r.send(nil, &wire.MsgPong{Nonce: p.Nonce})
			continue
		}
		if r.relay {
			select {
			case r.msgs <- m:
			default:
			}
			continue
		}
		select {
		case r.msgs <- m:
		case <-time.After(30 * time.Second):
			return
		}
	}
}

func netPeerVersion(n *testNode, you netip.AddrPort) *wire.MsgVersion {
	return &wire.MsgVersion{
		ProtocolVersion: int32(wire.ProtocolVersion),
		Services:        wire.SFNodeNetwork | wire.SFNodeWitness,
		Timestamp:       time.Now().Unix(),
		AddrYou:         wire.NetAddress{Addr: you.Addr(), Port: you.Port()},
		Nonce:           uint64(time.Now().UnixNano()) | 1,
		UserAgent:       "/raw:0.1/",
		LastBlock:       n.s.chain.BestSnapshot().Height,
	}
}

// dialP2P opens a TCP connection to the node's P2P port, closed when the
// test ends.
func dialP2P(t *testing.T, n *testNode) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", n.s.p2pAddr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// pipeHandshake runs an outbound peer of the node (built from cfg, of
// connection type typ, or the default for "") over an in-memory pipe to
// a hand-driven remote claiming to be remote, and returns it once the
// handshake is done with a function that disconnects both ends.
func pipeHandshake(t *testing.T, n *testNode, cfg *peer.Config, remote string, typ peer.ConnType) (*peer.Peer, func()) {
	t.Helper()
	c1, c2 := net.Pipe()
	p := peer.NewOutbound(cfg, c1, remote)
	if typ != "" {
		p.SetConnType(typ)
	}
	p.Start()
	stop := func() { p.Disconnect(); <-p.Done(); c2.Close() }
	r := &netPeer{conn: c2, net: n.s.cfg.params.Net, msgs: make(chan wire.Message, 64)}
	go r.readLoop()
	r.next(t, 5*time.Second, "version", func(m wire.Message) bool { _, ok := m.(*wire.MsgVersion); return ok })
	r.send(t, netPeerVersion(n, netip.MustParseAddrPort("5.6.7.8:50000")))
	r.send(t, &wire.MsgVerAck{})
	if !p.WaitForHandshake() {
		stop()
		t.Fatalf("handshake with %s: %v", remote, p.Err())
	}
	return p, stop
}

// dialNetPeer connects to the node's P2P port and completes the handshake;
// the returned peer's msgs carry everything the node sends afterwards.
func dialNetPeer(t *testing.T, n *testNode) *netPeer {
	t.Helper()
	c := dialP2P(t, n)
	r := &netPeer{conn: c, net: n.s.cfg.params.Net, msgs: make(chan wire.Message, 256)}
	r.send(t, netPeerVersion(n, netip.MustParseAddrPort(c.RemoteAddr().String())))
	go r.readLoop()
	r.next(t, 10*time.Second, "verack", func(m wire.Message) bool { _, ok := m.(*wire.MsgVerAck); return ok })
	r.send(t, &wire.MsgVerAck{})
	return r
}

// dialRelayPeer is dialNetPeer for transaction relay tests: it asks for
// wtxid announcements (BIP339), answers pings and keeps up to 1024
// messages.
func dialRelayPeer(t *testing.T, n *testNode) *netPeer {
	t.Helper()
	c := dialP2P(t, n)
	r := &netPeer{conn: c, net: n.s.cfg.params.Net, msgs: make(chan wire.Message, 1024), relay: true}
	r.send(t, netPeerVersion(n, netip.MustParseAddrPort(c.RemoteAddr().String())))
	r.send(t, &wire.MsgWtxidRelay{})
	go r.readLoop()
	r.next(t, 10*time.Second, "verack", func(m wire.Message) bool { _, ok := m.(*wire.MsgVerAck); return ok })
	r.send(t, &wire.MsgVerAck{})
	// The node completes its side of the handshake when it reads our
	// verack; until it has registered the peer, nothing is relayed to it.
	local := c.LocalAddr().String()
	waitFor(t, 10*time.Second, "relay peer registered", func() bool {
		for _, p := range n.s.sync.Peers() {
			if p.Addr() == local {
				return true
			}
		}
		return false
	})
	return r
}

// waitInv waits up to timeout for an inv announcing hash (as txid or
// wtxid) and reports whether it came.
func (r *netPeer) waitInv(hash wire.Hash, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		select {
		case m, ok := <-r.msgs:
			if !ok {
				return false
			}
			if inv, ok := m.(*wire.MsgInv); ok {
				for _, iv := range inv.InvList {
					if iv.Hash == hash {
						return true
					}
				}
			}
		case <-deadline:
			return false
		}
	}
}

// acceptNetPeer accepts the node's outbound connection on l and completes the
// handshake as the answering side; addrV2 asks for BIP155 addresses.
func acceptNetPeer(t *testing.T, n *testNode, l net.Listener, addrV2 bool) *netPeer {
	t.Helper()
	l.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	c, err := l.Accept()
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	r := &netPeer{conn: c, net: n.s.cfg.params.Net, msgs: make(chan wire.Message, 256)}
	go r.readLoop()
	r.next(t, 10*time.Second, "version", func(m wire.Message) bool { _, ok := m.(*wire.MsgVersion); return ok })
	// Claim to see the node at a public address, as a peer across the
	// internet would.
	r.send(t, netPeerVersion(n, netip.MustParseAddrPort("5.6.7.8:40000")))
	if addrV2 {
		r.send(t, &wire.MsgSendAddrV2{})
	}
	r.send(t, &wire.MsgVerAck{})
	r.next(t, 10*time.Second, "verack", func(m wire.Message) bool { _, ok := m.(*wire.MsgVerAck); return ok })
	return r
}

type peerInfoPing struct {
	ID        int64    `json:"id"`
	PingTime  *float64 `json:"pingtime"`
	MinPing   *float64 `json:"minping"`
	PingWait  *float64 `json:"pingwait"`
	AddrLocal string   `json:"addrlocal"`
}

func peerInfos(t *testing.T, n *testNode) []peerInfoPing {
	t.Helper()
	var out []peerInfoPing
	if err := json.Unmarshal(n.must(t, "getpeerinfo"), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNetPingRPC: a peer that leaves the handshake ping unanswered shows
// pingwait and no pingtime; the ping RPC sends a fresh ping at once, and
// answering it sets pingtime and minping and clears pingwait, as in
// bitcoind.
func TestNetPingRPC(t *testing.T) {
	n := newTestNode(t)
	r := dialNetPeer(t, n)
	first := r.next(t, 10*time.Second, "handshake ping", func(m wire.Message) bool { _, ok := m.(*wire.MsgPing); return ok }).(*wire.MsgPing)
	waitFor(t, 30*time.Second, "pingwait", func() bool {
		p := peerInfos(t, n)
		return len(p) == 1 && p[0].PingWait != nil && p[0].PingTime == nil
	})
	n.must(t, "ping")
	second := r.next(t, 10*time.Second, "RPC ping", func(m wire.Message) bool { _, ok := m.(*wire.MsgPing); return ok }).(*wire.MsgPing)
	if second.Nonce == first.Nonce {
		t.Fatal("RPC ping reused the outstanding nonce")
	}
	r.send(t, &wire.MsgPong{Nonce: second.Nonce})
	waitFor(t, 30*time.Second, "pingtime", func() bool {
		p := peerInfos(t, n)
		return len(p) == 1 && p[0].PingTime != nil && p[0].MinPing != nil && p[0].PingWait == nil
	})
	// A pong for the replaced ping is ignored, as Core ignores stale
	// nonces.
	r.send(t, &wire.MsgPong{Nonce: first.Nonce})
	if p := peerInfos(t, n); p[0].PingWait != nil {
		t.Fatalf("stale pong left pingwait: %+v", p[0])
	}
	if p := peerInfos(t, n); p[0].AddrLocal != n.s.p2pAddr() {
		t.Fatalf("addrlocal %q, want %q", p[0].AddrLocal, n.s.p2pAddr())
	}
}

type localAddrJSON struct {
	Address string `json:"address"`
	Port    int    `json:"port"`
	Score   int    `json:"score"`
}

// TestNetExternalIPAdvertised: a listening node started with
// --externalip lists the address in getnetworkinfo and announces it to an
// outbound peer right after the handshake, in addr to a peer without
// BIP155 and addrv2 to one with it.
func TestNetExternalIPAdvertised(t *testing.T) {
	n := newTestNode(t, "--externalip=1.2.3.4")
	port := n.s.cfg.params.DefaultPort
	var ni struct {
		LocalAddresses []localAddrJSON `json:"localaddresses"`
	}
	if err := json.Unmarshal(n.must(t, "getnetworkinfo"), &ni); err != nil {
		t.Fatal(err)
	}
	if len(ni.LocalAddresses) != 1 || ni.LocalAddresses[0].Address != "1.2.3.4" ||
		port != jsonItoa(ni.LocalAddresses[0].Port) || ni.LocalAddresses[0].Score != 4 {
		t.Fatalf("localaddresses %+v, want 1.2.3.4:%s score 4", ni.LocalAddresses, port)
	}
	// Core does not announce itself during initial block download; a
	// fresh block makes the chain current.
	n.mine(t, 1)
	want := netip.MustParseAddrPort("1.2.3.4:" + port)
	for _, v2 := range []bool{false, true} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		n.must(t, "addnode", l.Addr().String(), "onetry", false) // the test peer speaks v1
		r := acceptNetPeer(t, n, l, v2)
		r.next(t, 10*time.Second, "self-announcement", func(m wire.Message) bool {
			switch m := m.(type) {
			case *wire.MsgAddr:
				return !v2 && len(m.AddrList) == 1 && m.AddrList[0].AddrPort() == want
			case *wire.MsgAddrV2:
				return v2 && len(m.AddrList) == 1 && m.AddrList[0].String() == want.String()
			case *wire.MsgPing:
				r.send(t, &wire.MsgPong{Nonce: m.Nonce})
			}
			return false
		})
		r.conn.Close()
	}
	// The outbound peers reported seeing us at 5.6.7.8, which is not an
	// address of ours, so the scores are unchanged and nothing is added.
	if err := json.Unmarshal(n.must(t, "getnetworkinfo"), &ni); err != nil {
		t.Fatal(err)
	}
	if len(ni.LocalAddresses) != 1 {
		t.Fatalf("localaddresses after peers %+v", ni.LocalAddresses)
	}
}

func jsonItoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// fillInbound opens k inbound connections that complete the handshake.
func fillInbound(t *testing.T, n *testNode, k int) []*netPeer {
	t.Helper()
	out := make([]*netPeer, 0, k)
	for range k {
		out = append(out, dialNetPeer(t, n))
	}
	waitFor(t, 30*time.Second, "inbound peers registered", func() bool { return len(n.s.peerList()) == k })
	return out
}

// closedPeers returns the indexes of peers the node hung up on.
func closedPeers(ps []*netPeer) []int {
	var out []int
	for i, p := range ps {
	drain:
		for {
			select {
			case _, ok := <-p.msgs:
				if !ok {
					out = append(out, i)
					break drain
				}
			default:
				break drain
			}
		}
	}
	return out
}

// TestNetInboundEviction: with every inbound slot taken, a new inbound
// connection makes the node evict one unprotected inbound peer (Core's
// AttemptToEvictConnection: 4 by network group, 8 by ping, 4 by recent
// transactions, 4 by recent blocks, half the rest by uptime are kept; the
// youngest of the largest group goes), and the newcomer is served. The
// selection rules themselves are unit-tested in peer/connmgr.
func TestNetInboundEviction(t *testing.T) {
	n := newTestNode(t, "--maxpeers=32")
	limit := n.s.cm.InboundLimit()
	if limit != 21 {
		t.Fatalf("inbound limit %d, want 21 (32 minus 8 full-relay, 2 block-relay-only and 1 feeler slot)", limit)
	}
	old := fillInbound(t, n, limit)
	newcomer := dialNetPeer(t, n)
	var gone []int
	waitFor(t, 30*time.Second, "an eviction", func() bool {
		gone = closedPeers(old)
		return len(gone) > 0
	})
	time.Sleep(200 * time.Millisecond)
	gone = closedPeers(old)
	if len(gone) != 1 {
		t.Fatalf("evicted %v, want exactly one peer", gone)
	}
	// No peer has a ping or relayed anything and all share one network
	// group, so the group and ping protections fall on arbitrary peers,
	// while the recent-transaction and recent-block protections (ties
	// broken by uptime) always keep the 8 oldest.
	if gone[0] < 8 {
		t.Errorf("evicted peer %d of %d, one of the 8 oldest", gone[0], limit)
	}
	waitFor(t, 30*time.Second, "newcomer kept", func() bool { return len(n.s.peerList()) == limit })
	newcomer.send(t, &wire.MsgPing{Nonce: 7})
	newcomer.next(t, 10*time.Second, "pong from the node", func(m wire.Message) bool {
		p, ok := m.(*wire.MsgPong)
		return ok && p.Nonce == 7
	})
}

// TestNetInboundAllProtected: when every inbound peer is protected (here
// fewer than the network-group protection alone covers), a new inbound
// connection is refused rather than evicting anyone.
func TestNetInboundAllProtected(t *testing.T) {
	n := newTestNode(t, "--maxpeers=11")
	limit := n.s.cm.InboundLimit()
	if limit != 3 {
		t.Fatalf("inbound limit %d, want 3", limit)
	}
	old := fillInbound(t, n, limit)
	c := dialP2P(t, n)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [1]byte
	if _, err := c.Read(b[:]); err == nil {
		t.Fatal("refused connection was served")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("new connection neither served nor closed")
	}
	time.Sleep(100 * time.Millisecond)
	if gone := closedPeers(old); len(gone) != 0 {
		t.Fatalf("protected peers %v were evicted", gone)
	}
	if got := len(n.s.peerList()); got != limit {
		t.Fatalf("%d peers, want %d", got, limit)
	}
}

// TestNetMaxPeersZero: as in Bitcoin Core (PRs 9319, 21710, 26899),
// --maxpeers=0 means no automatic connections at all (no listening, no
// DNS seeding, no automatic outbound), while manual connections, from
// --connect and from the addnode RPC, are still made.
func TestNetMaxPeersZero(t *testing.T) {
	l1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Close()
	n := newTestNode(t, "--maxpeers=0", "--connect="+l1.Addr().String())
	if a := n.s.p2pAddr(); a != "" {
		t.Fatalf("listening on %s with --maxpeers=0", a)
	}
	if n.s.dnsSeed {
		t.Fatal("DNS seeding enabled with --maxpeers=0")
	}
	acceptNetPeer(t, n, l1, false)
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	n.must(t, "addnode", l2.Addr().String(), "onetry", false) // the test peer speaks v1
	acceptNetPeer(t, n, l2, true)
	waitFor(t, 30*time.Second, "two manual peers", func() bool { return len(n.s.peerList()) == 2 })
	for _, p := range n.s.peerList() {
		if p.Inbound() || p.req == nil {
			t.Fatalf("unexpected peer %v", p)
		}
	}
}

// TestNetLocalAddressDiscovery: an address outbound peers in two network
// groups report seeing us at (their version's addr_recv) becomes a local
// address with our listening port and a peer score; one report is not
// enough.
func TestNetLocalAddressDiscovery(t *testing.T) {
	n := newTestNode(t)
	cfg := n.s.peerCfg
	cfg.Listeners = peer.MessageListeners{OnVerAck: n.s.noteSeenAs}
	cfg.LocalAddress = nil
	connect := func(remote string) {
		_, stop := pipeHandshake(t, n, &cfg, remote, "")
		stop()
	}
	has := func() bool {
		for _, la := range n.s.addrs.LocalAddresses() {
			if ip, _ := la.Addr.IP(); ip == netip.MustParseAddr("5.6.7.8") {
				return true
			}
		}
		return false
	}
	connect("44.1.1.1:18444")
	connect("44.1.2.2:18444") // same /16: still one group
	if has() {
		t.Fatal("one network group sufficed")
	}
	connect("45.2.2.2:18444")
	waitFor(t, 30*time.Second, "discovered address", has)
	port := netip.MustParseAddrPort(n.s.p2pAddr()).Port()
	got := n.s.localAddresses()
	if len(got) != 1 || got[0].Address != "5.6.7.8" || got[0].Port != int(port) || got[0].Score != 1 {
		t.Fatalf("localaddresses %+v", got)
	}
}

// sendmsgtopeer frames what it is given: a ping built by hand reaches the
// peer as a ping.
func TestSendMsgToPeer(t *testing.T) {
	n := newTestNode(t)
	r := dialNetPeer(t, n)
	var id int64 = -1
	waitFor(t, 10*time.Second, "peer listed", func() bool {
		for _, p := range n.s.peerList() {
			id = int64(p.ID())
		}
		return id >= 0
	})
	n.must(t, "sendmsgtopeer", id, "ping", "0102030405060708")
	// The node pings on its own too; the one sent by hand has this nonce.
	r.next(t, 10*time.Second, "the ping sent by hand", func(m wire.Message) bool {
		p, ok := m.(*wire.MsgPing)
		return ok && p.Nonce == 0x0807060504030201
	})
	if _, rerr := n.rpcCall(t, "sendmsgtopeer", id+100, "ping", ""); rerr == nil || rerr.Message != "Error: Could not send message to peer" {
		t.Errorf("unknown peer: %v", rerr)
	}
}

// TestNetTotalsCountArrivingBytes: getnettotals counts received bytes as
// they arrive, as Core, not only once their message is complete.
func TestNetTotalsCountArrivingBytes(t *testing.T) {
	n := newTestNode(t)
	r := dialNetPeer(t, n) // answers nothing, so only what the test sends arrives
	local := r.conn.LocalAddr().String()
	waitFor(t, 10*time.Second, "peer registered", func() bool {
		for _, p := range n.s.sync.Peers() {
			if p.Addr() == local {
				return true
			}
		}
		return false
	})
	recv := func() uint64 {
		var nt struct {
			Recv uint64 `json:"totalbytesrecv"`
		}
		json.Unmarshal(n.must(t, "getnettotals"), &nt)
		return nt.Recv
	}
	before := recv()
	var buf bytes.Buffer
	if _, err := wire.WriteMessage(&buf, &wire.MsgPing{Nonce: 7}, wire.ProtocolVersion, r.net, wire.WitnessEncoding); err != nil {
		t.Fatal(err)
	}
	part := buf.Bytes()[:wire.MessageHeaderSize+3] // the header and part of the nonce
	if _, err := r.conn.Write(part); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "partial message in getnettotals", func() bool { return recv() == before+uint64(len(part)) })
}
