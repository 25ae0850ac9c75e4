package peer

import (
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// TestWhitelistPermissions checks the permission sets Core's
// p2p_permissions.py expects for each --whitelist form.
func TestWhitelistPermissions(t *testing.T) {
	ip := netip.MustParseAddr("127.0.0.1")
	for _, c := range []struct {
		entry             string
		relay, forceRelay bool
		want              []string
	}{
		{"127.0.0.1", true, false, []string{"noban", "relay", "mempool", "download"}},
		{"@127.0.0.1", true, true, []string{}},
		{"127.0.0.1", false, false, []string{"noban", "mempool", "download"}},
		{"127.0.0.1", true, true, []string{"noban", "forcerelay", "relay", "mempool", "download"}},
		{"noban,mempool@127.0.0.1", true, true, []string{"noban", "mempool", "download"}},
		{"noban@127.0.0.1", true, false, []string{"noban", "download"}},
		{"all@127.0.0.1", true, false, []string{"bloomfilter", "noban", "forcerelay", "relay", "mempool", "download", "addr"}},
		{"download@127.0.0.0/8", true, false, []string{"download"}},
	} {
		e, err := ParseWhitelist(c.entry)
		if err != nil {
			t.Fatalf("%s: %v", c.entry, err)
		}
		got := PermissionsFor([]WhitelistEntry{e}, ip, true, c.relay, c.forceRelay).Names()
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s (relay %v force %v): %v, want %v", c.entry, c.relay, c.forceRelay, got, c.want)
		}
	}
}

func TestWhitelistDirection(t *testing.T) {
	ip := netip.MustParseAddr("127.0.0.1")
	in, _ := ParseWhitelist("noban@127.0.0.1")
	out, _ := ParseWhitelist("noban,out@127.0.0.1")
	both, _ := ParseWhitelist("noban,in,out@127.0.0.1")
	for _, c := range []struct {
		e       WhitelistEntry
		inbound bool
		want    bool
	}{{in, true, true}, {in, false, false}, {out, true, false}, {out, false, true}, {both, true, true}, {both, false, true}} {
		if got := PermissionsFor([]WhitelistEntry{c.e}, ip, c.inbound, true, false).Has(PermNoBan); got != c.want {
			t.Errorf("%+v inbound=%v: noban %v, want %v", c.e, c.inbound, got, c.want)
		}
	}
}

func TestPermissionErrors(t *testing.T) {
	for entry, want := range map[string]string{
		"in,out@127.0.0.1":    "Only direction was set, no permissions",
		"oopsie@127.0.0.1":    "Invalid P2P permission: 'oopsie'",
		"noban@127.0.0.1:230": "Invalid netmask specified in -whitelist",
		"noban@300.1.1.1":     "Invalid netmask specified in -whitelist",
	} {
		if _, err := ParseWhitelist(entry); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", entry, err, want)
		}
	}
	for bind, want := range map[string]string{
		"noban@127.0.0.1/10": "Cannot resolve -whitebind address",
		"noban@127.0.0.1":    "Need to specify a port with -whitebind",
		"in@127.0.0.1:1":     "Invalid P2P permission: 'in'",
	} {
		if _, err := ParseWhiteBind(bind); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", bind, err, want)
		}
	}
	b, err := ParseWhiteBind("bloomfilter,forcerelay@127.0.0.1:8333")
	if err != nil || b.Addr.String() != "127.0.0.1:8333" || !reflect.DeepEqual(b.Perms.Names(), []string{"bloomfilter", "forcerelay", "relay"}) {
		t.Errorf("whitebind %+v %v", b, err)
	}
}

// TestManualConnectionToPrunedPeer: a manual connection (addnode) to a
// pruned peer is kept, as in Core; an automatic one is dropped unless the
// node is near the tip, where NODE_NETWORK_LIMITED suffices.
func TestManualConnectionToPrunedPeer(t *testing.T) {
	for _, c := range []struct {
		manual, nearTip, keep bool
	}{{true, false, true}, {false, false, false}, {false, true, true}} {
		outCfg, inCfg := baseConfig(), baseConfig()
		inCfg.Services = wire.SFNodeNetworkLimited | wire.SFNodeWitness
		outCfg.RequiredServices = wire.SFNodeNetwork | wire.SFNodeWitness
		outCfg.NearTip = func() bool { return c.nearTip }
		c1, c2 := net.Pipe()
		out := NewOutbound(outCfg, withAddr(c1, "198.51.100.2:18444"), "198.51.100.2:18444")
		in := NewInbound(inCfg, withAddr(c2, "198.51.100.1:50000"))
		if c.manual {
			out.SetManual()
		}
		out.Start()
		in.Start()
		ok := out.WaitForHandshake()
		if ok != c.keep {
			t.Errorf("manual=%v nearTip=%v: handshake %v, want %v (err %v)", c.manual, c.nearTip, ok, c.keep, out.Err())
		}
		out.Disconnect()
		in.Disconnect()
		waitDone(t, out, 5*time.Second)
		waitDone(t, in, 5*time.Second)
	}
}
