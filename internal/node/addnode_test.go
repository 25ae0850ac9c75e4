package node

import (
	"encoding/json"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func TestSameNode(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"127.0.0.1:8333", "127.1:8333", true},
		{"127.0.0.1:8333", "127.0.1:8333", true},
		{"10.0.0.1:1", "167772161:1", true},
		{"127.0.0.1:8333", "127.1:8334", false},
		{"127.0.0.1:8333", "127.2:8333", false},
		{"[::ffff:1.2.3.4]:1", "1.2.3.4:1", true},
		{"example.com:1", "example.com:1", true},
		{"example.com:1", "127.0.0.1:1", false},
		{"256.1:1", "0.0.1.0:1", false},
	} {
		if got := sameNode(tc.a, tc.b); got != tc.same {
			t.Errorf("sameNode(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// Service bits are named lowest first, unknown ones as UNKNOWN[2^n].
func TestServiceNamesUnknownBits(t *testing.T) {
	got := serviceNames(wire.SFNodeNetwork | 1<<4 | wire.SFNodeWitness | 1<<63)
	if strings.Join(got, ",") != "NETWORK,WITNESS,UNKNOWN[2^4],UNKNOWN[2^63]" {
		t.Fatalf("serviceNames %q", got)
	}
}

// TestAddNodeToPrunedPeer: a manual connection (addnode onetry or add) to
// a pruned peer, offering NODE_NETWORK_LIMITED without NODE_NETWORK, is
// kept although the node is far from the tip, as in Core, which asks
// services only of automatic outbound connections.
func TestAddNodeToPrunedPeer(t *testing.T) {
	for _, cmd := range []string{"onetry", "add"} {
		n := newTestNode(t)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		n.must(t, "addnode", l.Addr().String(), cmd, false) // the test peer speaks v1
		l.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
		c, err := l.Accept()
		if err != nil {
			t.Fatalf("%s: accept: %v", cmd, err)
		}
		defer c.Close()
		r := &netPeer{conn: c, net: n.s.cfg.params.Net, msgs: make(chan wire.Message, 256)}
		go r.readLoop()
		r.next(t, 10*time.Second, cmd+": version", func(m wire.Message) bool { _, ok := m.(*wire.MsgVersion); return ok })
		v := netPeerVersion(n, netip.MustParseAddrPort("5.6.7.8:40000"))
		v.Services = wire.SFNodeNetworkLimited | wire.SFNodeWitness
		r.send(t, v)
		r.send(t, &wire.MsgVerAck{})
		r.next(t, 10*time.Second, cmd+": verack", func(m wire.Message) bool { _, ok := m.(*wire.MsgVerAck); return ok })
		var out []struct {
			Type string `json:"connection_type"`
		}
		waitFor(t, 10*time.Second, cmd+": manual peer listed", func() bool {
			out = nil
			json.Unmarshal(n.must(t, "getpeerinfo"), &out)
			return len(out) == 1 && out[0].Type == "manual"
		})
	}
}
