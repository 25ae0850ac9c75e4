package node

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/wire"
)

// Outbound block-relay-only peers are written to anchors.dat at shutdown,
// others are not; at start the anchors are dialed again as
// block-relay-only connections and the file is removed.
func TestAnchorsDumpAndReconnect(t *testing.T) {
	n := newTestNode(t)
	cfg := n.s.peerCfg
	cfg.Listeners = peer.MessageListeners{}
	handshake := func(remote string, typ peer.ConnType) *serverPeer {
		p, stop := pipeHandshake(t, n, &cfg, remote, typ)
		t.Cleanup(stop)
		return &serverPeer{Peer: p}
	}
	block := handshake("127.0.0.1:4660", peer.ConnBlockRelay)
	full := handshake("127.0.0.2:4661", peer.ConnFullRelay)
	n.s.dumpAnchors([]*serverPeer{full, block})
	b, err := os.ReadFile(n.s.anchorsPath())
	if err != nil {
		t.Fatal(err)
	}
	got, err := addrmgr.DecodeAnchors(n.s.cfg.params.Net, b)
	if err != nil || len(got) != 1 || got[0].String() != "127.0.0.1:4660" || got[0].Services&anchorServices != anchorServices {
		t.Fatalf("anchors %v %v", got, err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a, _ := dialedAddress(l.Addr().String())
	a.Services = anchorServices
	if err := addrmgr.WriteAnchors(n.s.anchorsPath(), n.s.cfg.params.Net, []wire.NetAddressV2{a}); err != nil {
		t.Fatal(err)
	}
	n.s.connectAnchors()
	if _, err := os.Stat(n.s.anchorsPath()); !os.IsNotExist(err) {
		t.Fatalf("anchors.dat kept: %v", err)
	}
	acceptNetPeer(t, n, l, false)
	waitFor(t, 10*time.Second, "anchor connection", func() bool {
		for _, p := range n.s.peerList() {
			if p.Addr() == l.Addr().String() && p.ConnType() == peer.ConnBlockRelay {
				return true
			}
		}
		return false
	})
}

// A block-relay-only connection still being dialed at shutdown (here
// through a proxy that never answers) is saved as an anchor too, since
// bitcoind's addconnection has connected by the time it returns.
func TestAnchorsIncludePendingDial(t *testing.T) {
	proxy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	n := newTestNode(t, "--onion="+proxy.Addr().String())
	const onion = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion:8333"
	if err := n.s.dialOneShot(onion, peer.ConnBlockRelay); err != nil {
		t.Fatal(err)
	}
	n.s.dumpAnchors(nil)
	b, err := os.ReadFile(n.s.anchorsPath())
	if err != nil {
		t.Fatal(err)
	}
	got, err := addrmgr.DecodeAnchors(n.s.cfg.params.Net, b)
	if err != nil || len(got) != 1 || got[0].String() != onion || got[0].Services != 0 {
		t.Fatalf("anchors %v %v", got, err)
	}
}
