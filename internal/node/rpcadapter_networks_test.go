package node

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// withProxies is a configuration of the given options with its proxy
// table resolved, as Validate leaves it.
func withProxies(t *testing.T, o P2POptions) *Config {
	t.Helper()
	cfg := &Config{P2POptions: o}
	if err := cfg.resolveProxies(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestNetworksInfoProxies(t *testing.T) {
	got := networksInfo(withProxies(t, P2POptions{Proxy: "127.0.0.1", I2PSAM: "127.0.0.1:7656"}), "")
	want := []struct {
		name, proxy string
		reachable   bool
	}{
		{"ipv4", "127.0.0.1:9050", true}, {"ipv6", "127.0.0.1:9050", true},
		{"onion", "127.0.0.1:9050", true}, {"i2p", "127.0.0.1:7656", true}, {"cjdns", "127.0.0.1:9050", false},
	}
	if len(got) != len(want) {
		t.Fatalf("networks = %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Proxy != w.proxy || g.Reachable != w.reachable || g.Limited == w.reachable {
			t.Errorf("network %d = %+v, want %+v", i, g, w)
		}
	}
	if got[3].ProxyRandomizeCredentials || !got[0].ProxyRandomizeCredentials {
		t.Error("proxy_randomize_credentials")
	}
	// Without proxies every entry is there, with empty proxies; Tor is
	// unreachable, and -onion alone serves Tor only.
	got = networksInfo(withProxies(t, P2POptions{OnionProxy: "[::1]:9999"}), "")
	if len(got) != 5 || got[0].Proxy != "" || got[2].Proxy != "[::1]:9999" || !got[2].Reachable || got[0].ProxyRandomizeCredentials {
		t.Errorf("onion only: %+v", got)
	}
	if got := networksInfo(&Config{}, ""); got[2].Reachable || got[2].Proxy != "" {
		t.Errorf("no proxy: %+v", got[2])
	}
}

// --noproxyrandomize (bitcoind's -proxyrandomize=0) sends no credentials,
// and getnetworkinfo says so for every proxied network.
func TestNetworksInfoNoProxyRandomize(t *testing.T) {
	cfg := withProxies(t, P2POptions{Proxy: "127.0.0.1:9050", NoProxyRandomize: true})
	for _, n := range networksInfo(cfg, "") {
		if n.ProxyRandomizeCredentials {
			t.Errorf("%s: proxy_randomize_credentials with --noproxyrandomize", n.Name)
		}
	}
	if dc := dialConfig(cfg); dc.Proxies.IPv4 == nil || dc.Proxies.IPv4.TorIsolation {
		t.Error("--noproxyrandomize still randomizes credentials")
	}
	if dc := dialConfig(withProxies(t, P2POptions{Proxy: "127.0.0.1:9050", CJDNSReachable: true})); !dc.Proxies.CJDNS.TorIsolation || !dc.CJDNS {
		t.Error("default proxy without random credentials, or CJDNS not routed through it")
	}
}

// A peer reached through a proxy by its onion or I2P name has that
// network in getpeerinfo; one reached by a DNS name is not routable.
func TestPeerNetworkOfNamedPeers(t *testing.T) {
	for addr, want := range map[string]string{
		"pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion:8333": "onion",
		"zsxwyo6qcn3chqzwxnseusqgsnuw3maqnztkiypyfxtya4snkoka.b32.i2p:0":      "i2p",
		"node.noumenon:8333": "not_publicly_routable",
	} {
		if got := addrNetwork(wire.NetAddressV2{}, false, addr); got != want {
			t.Errorf("%s: network %q, want %q", addr, got, want)
		}
	}
}

// -i2psam makes I2P reachable; without it I2P stays unreachable even with
// -proxy, which does not serve I2P.
func TestNetworksInfoI2PReachable(t *testing.T) {
	if got := networksInfo(withProxies(t, P2POptions{I2PSAM: "127.0.0.1"}), ""); !got[3].Reachable || got[3].Proxy != "127.0.0.1:7656" || got[3].ProxyRandomizeCredentials {
		t.Errorf("with -i2psam: %+v", got[3])
	}
	if got := networksInfo(withProxies(t, P2POptions{Proxy: "127.0.0.1"}), ""); got[3].Reachable || got[3].Proxy != "" {
		t.Errorf("proxy only: %+v", got[3])
	}
}
