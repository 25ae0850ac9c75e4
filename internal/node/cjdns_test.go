package node

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// --cjdnsreachable makes fc00::/8 CJDNS: addpeeraddress files such an
// address under cjdns, getnetworkinfo calls cjdns reachable, and an
// -rpcallowip subnet inside fc00::/8 is refused (fd00::/8 stays a local
// RFC4193 network), as in Core.
func TestCJDNSReachable(t *testing.T) {
	cfg := mustLoad(t, "--regtest", "--cjdnsreachable")
	fc := netip.MustParseAddr("fc00:1:2:3:4:5:6:7").AsSlice()
	fd := netip.MustParseAddr("fd00:1:2:3:4:5:6:7").AsSlice()
	if got := cfg.flipCJDNS(wire.NetIPv6, fc); got != wire.NetCJDNS {
		t.Errorf("fc00:: is network %d", got)
	}
	if got := cfg.flipCJDNS(wire.NetIPv6, fd); got != wire.NetIPv6 {
		t.Errorf("fd00:: is network %d", got)
	}
	if got := networksInfo(cfg, ""); got[4].Name != "cjdns" || !got[4].Reachable {
		t.Errorf("networks %+v", got[4])
	}
	off := mustLoad(t, "--regtest")
	if got := off.flipCJDNS(wire.NetIPv6, fc); got != wire.NetIPv6 {
		t.Errorf("without the option fc00:: is network %d", got)
	}
	if got := networksInfo(off, ""); got[4].Reachable {
		t.Errorf("cjdns reachable without the option")
	}

	_, a := testArgs(t, "--regtest", "--cjdnsreachable", "--rpcallowip=fc00:db8:c0:ff:ee::/80")
	if _, err := loadConfig(a); err == nil || !strings.Contains(err.Error(), "RFC4193 is allowed only if -cjdnsreachable=0") {
		t.Errorf("fc00 allowip with CJDNS: %v", err)
	}
	mustLoad(t, "--regtest", "--cjdnsreachable", "--rpcallowip=fd00:db8:c0:ff:ee::/80")
	mustLoad(t, "--regtest", "--rpcallowip=fc00:db8:c0:ff:ee::/80")
}

func TestAddPeerAddressCJDNS(t *testing.T) {
	n := newTestNode(t, "--cjdnsreachable", "--test=addrman")
	if r := n.must(t, "addpeeraddress", "fc00:1:2:3:4:5:6:7", 8333); !strings.Contains(string(r), `"success":true`) {
		t.Fatalf("addpeeraddress: %s", r)
	}
	if r := string(n.must(t, "getnodeaddresses", 0, "cjdns")); !strings.Contains(r, "fc00:1:2:3:4:5:6:7") {
		t.Errorf("getnodeaddresses cjdns: %s", r)
	}
}

// With --cjdnsreachable a peer at an fc00::/8 address is a CJDNS peer in
// getpeerinfo; without it, a private IPv6 one.
func TestPeerNetworkCJDNS(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--cjdnsreachable"}, "cjdns"},
		{nil, "not_publicly_routable"},
	} {
		n := newTestNode(t, tc.flags...)
		cfg := n.s.peerCfg
		cfg.Listeners = peer.MessageListeners{}
		p, stop := pipeHandshake(t, n, &cfg, "[fc00:1:2:3:4:5:6:7]:8888", "")
		if got := n.s.peerNetwork(&serverPeer{Peer: p}); got != tc.want {
			t.Errorf("%v: network %q, want %q", tc.flags, got, tc.want)
		}
		if got := n.s.connectedNetwork(p); (got == wire.NetCJDNS) != (tc.want == "cjdns") {
			t.Errorf("%v: connected through network %d", tc.flags, got)
		}
		stop()
	}
}
