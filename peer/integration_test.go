package peer_test

import (
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/banmgr"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/wire"
)

// TestConnmgrPeerBanIntegration wires the connection manager, peers and
// the ban manager as the server will: a peer that reaches the ban
// threshold is disconnected, and a banned address is refused at accept.
func TestConnmgrPeerBanIntegration(t *testing.T) {
	bans, err := banmgr.New(banmgr.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	nonces := peer.NewNonceSet()
	mkCfg := func() *peer.Config {
		return &peer.Config{
			Net: wire.RegTest, Services: peer.Services(false, false),
			UserAgent: peer.UserAgent("it", "1"), Bans: bans, Nonces: nonces,
			HandshakeTimeout: 5 * time.Second,
		}
	}
	inbound := make(chan *peer.Peer, 4)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := connmgr.New(connmgr.Config{
		Listeners: []net.Listener{l},
		IsBanned:  bans.IsBanned,
		OnAccept: func(c net.Conn) {
			p := peer.NewInbound(mkCfg(), c)
			p.Start()
			inbound <- p
		},
	})
	server.Start()
	defer server.Stop()

	// The client side uses its own nonce set: it is another node.
	clientCfg := mkCfg()
	clientCfg.Nonces = peer.NewNonceSet()
	clientCfg.Bans = nil
	outbound := make(chan *peer.Peer, 4)
	client := connmgr.New(connmgr.Config{OnConnection: func(r *connmgr.ConnReq, c net.Conn) {
		p := peer.NewOutbound(clientCfg, c, r.Addr)
		p.Start()
		outbound <- p
	}})
	defer client.Stop()
	if _, err := client.Connect(l.Addr().String(), false); err != nil {
		t.Fatal(err)
	}
	var in, out *peer.Peer
	select {
	case in = <-inbound:
	case <-time.After(5 * time.Second):
		t.Fatal("no inbound peer")
	}
	select {
	case out = <-outbound:
	case <-time.After(5 * time.Second):
		t.Fatal("no outbound peer")
	}
	defer out.Disconnect()
	if !in.WaitForHandshake() || !out.WaitForHandshake() {
		t.Fatalf("handshake: %v / %v", in.Err(), out.Err())
	}
	// The server decides the client sent an invalid block.
	in.Misbehaving(100, "invalid block")
	select {
	case <-in.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("banned peer still connected")
	}
	// A loopback peer (which may stand for every Tor inbound) is dropped
	// but, as in Core, not banned.
	loop := netip.MustParseAddr("127.0.0.1")
	if !errors.Is(in.Err(), peer.ErrBanned) || bans.IsBanned(loop) {
		t.Fatalf("err %v, banned %v", in.Err(), bans.IsBanned(loop))
	}
	// An operator ban (RPC setban) of the address refuses it from now on.
	if err := bans.BanSubnet(netip.PrefixFrom(loop, 32), time.Now().Add(time.Hour), "setban"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-out.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("client did not notice")
	}
	// A new connection from the banned address is closed at once.
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	if _, err := c.Read(b[:]); err == nil {
		t.Fatal("banned address got a connection")
	}
	select {
	case p := <-inbound:
		t.Fatalf("banned address became peer %v", p)
	default:
	}
}
