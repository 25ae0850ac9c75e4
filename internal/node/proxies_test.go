package node

import (
	"strings"
	"testing"
)

// The proxy options resolve into one proxy per network as bitcoind's
// -proxy[=NET], -onion and -noonion do, later options overriding
// earlier ones for their network.
func TestResolveProxies(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    P2POptions
		want netProxies
	}{
		{"none", P2POptions{}, netProxies{}},
		{"all", P2POptions{Proxy: "127.0.0.1"},
			netProxies{ipv4: "127.0.0.1:9050", ipv6: "127.0.0.1:9050", onion: "127.0.0.1:9050", cjdns: "127.0.0.1:9050", name: "127.0.0.1:9050"}},
		{"ipv6 only", P2POptions{NetProxies: []string{"127.6.6.6:6666=ipv6"}},
			netProxies{ipv6: "127.6.6.6:6666", name: "127.6.6.6:6666"}},
		{"ipv4 and ipv6", P2POptions{NetProxies: []string{"127.4.4.4:4444=ipv4", "127.6.6.6:6666=IPv6"}},
			netProxies{ipv4: "127.4.4.4:4444", ipv6: "127.6.6.6:6666", name: "127.6.6.6:6666"}},
		{"tor override", P2POptions{Proxy: "127.1.1.1:1111", NetProxies: []string{"127.2.2.2:2222=tor"}},
			netProxies{ipv4: "127.1.1.1:1111", ipv6: "127.1.1.1:1111", onion: "127.2.2.2:2222", cjdns: "127.1.1.1:1111", name: "127.1.1.1:1111"}},
		{"cjdns removed", P2POptions{Proxy: "127.1.1.1:1111", NetProxies: []string{"0=cjdns"}},
			netProxies{ipv4: "127.1.1.1:1111", ipv6: "127.1.1.1:1111", onion: "127.1.1.1:1111", name: "127.1.1.1:1111"}},
		{"noonion", P2POptions{Proxy: "[::1]:9050", NoOnion: true},
			netProxies{ipv4: "[::1]:9050", ipv6: "[::1]:9050", cjdns: "[::1]:9050", name: "[::1]:9050"}},
		{"onion=0", P2POptions{Proxy: "::1", OnionProxy: "0"},
			netProxies{ipv4: "[::1]:9050", ipv6: "[::1]:9050", cjdns: "[::1]:9050", name: "[::1]:9050"}},
		{"onion only", P2POptions{OnionProxy: "unix:/run/tor/socks"}, netProxies{onion: "unix:/run/tor/socks"}},
	} {
		cfg := &Config{P2POptions: tc.o}
		if err := cfg.resolveProxies(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if cfg.proxies != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, cfg.proxies, tc.want)
		}
	}
}

// Bad proxy addresses stop start-up with bitcoind's messages.
func TestResolveProxiesErrors(t *testing.T) {
	long := "unix:" + strings.Repeat("x", 1000)
	for _, tc := range []struct {
		o    P2POptions
		want string
	}{
		{P2POptions{Proxy: "abc..abc:23456"}, "Invalid -proxy address or hostname: 'abc..abc:23456'"},
		{P2POptions{Proxy: "192.0.0.1:def"}, "Invalid port specified in -proxy: '192.0.0.1:def'"},
		{P2POptions{OnionProxy: "xyz..xyz:23456"}, "Invalid -onion address or hostname: 'xyz..xyz:23456'"},
		{P2POptions{OnionProxy: "192.0.0.1:def"}, "Invalid port specified in -onion: '192.0.0.1:def'"},
		{P2POptions{I2PSAM: "def..def:23456"}, "Invalid -i2psam address or hostname: 'def..def:23456'"},
		{P2POptions{I2PSAM: "192.0.0.1:def"}, "Invalid port specified in -i2psam: '192.0.0.1:def'"},
		{P2POptions{NetProxies: []string{"127.0.0.1:9050="}}, "Invalid -proxy address or hostname, ends with '=': '127.0.0.1:9050='"},
		{P2POptions{NetProxies: []string{"127.0.0.1:9050=foo"}}, "Unrecognized network in -proxy='127.0.0.1:9050=foo': 'foo'"},
		{P2POptions{Proxy: long}, "Invalid -proxy address or hostname: '" + long + "'"},
		{P2POptions{Proxy: "unix:"}, "Invalid -proxy address or hostname: 'unix:'"},
		{P2POptions{Proxy: "127.0.0.1:0"}, "Invalid port specified in -proxy: '127.0.0.1:0'"},
	} {
		cfg := &Config{P2POptions: tc.o}
		err := cfg.resolveProxies()
		if err == nil || ErrorText(err) != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
}

// --onlynet to a network the node has no way to reach is refused, with
// bitcoind's messages; bitcoind's -listenonion lets -onlynet=onion
// through without a proxy.
func TestOnlyNetUnreachable(t *testing.T) {
	for _, tc := range []struct {
		o      P2POptions
		listen bool
		want   string
	}{
		{P2POptions{OnlyNets: []string{"i2p"}}, false, "Outbound connections restricted to i2p (-onlynet=i2p) but -i2psam is not provided"},
		{P2POptions{OnlyNets: []string{"cjdns"}}, false, "Outbound connections restricted to CJDNS (-onlynet=cjdns) but -cjdnsreachable is not provided"},
		{P2POptions{OnlyNets: []string{"onion"}, NoOnion: true, Proxy: "127.0.0.1"}, false,
			"Outbound connections restricted to Tor (-onlynet=onion) but the proxy for reaching the Tor network is explicitly forbidden: -onion=0"},
		{P2POptions{OnlyNets: []string{"onion"}, OnionProxy: "0"}, true,
			"Outbound connections restricted to Tor (-onlynet=onion) but the proxy for reaching the Tor network is explicitly forbidden: -onion=0"},
		{P2POptions{OnlyNets: []string{"onion"}}, false,
			"Outbound connections restricted to Tor (-onlynet=onion) but the proxy for reaching the Tor network is not provided: none of -proxy, -onion or -listenonion is given"},
		{P2POptions{OnlyNets: []string{"onion"}}, true, ""},
		{P2POptions{OnlyNets: []string{"onion"}, NetProxies: []string{"127.0.0.1=onion"}}, false, ""},
		{P2POptions{OnlyNets: []string{"i2p"}, I2PSAM: "127.0.0.1"}, false, ""},
		{P2POptions{OnlyNets: []string{"cjdns"}, CJDNSReachable: true}, false, ""},
	} {
		cfg := &Config{P2POptions: tc.o}
		cfg.ListenOnion = tc.listen
		err := cfg.resolveProxies()
		if err == nil {
			err = cfg.validateOnlyNet()
		}
		if got := ""; err != nil {
			got = ErrorText(err)
			if got != tc.want {
				t.Errorf("%+v: %q, want %q", tc.o, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%+v: accepted, want %q", tc.o, tc.want)
		}
	}
}

// Under --nodns a proxy must be given as an address, as under bitcoind's
// -dns=0; the dialer then refuses names no proxy resolves.
func TestNoDNSProxies(t *testing.T) {
	cfg := &Config{P2POptions: P2POptions{Proxy: "localhost:9050", NoDNS: true}}
	if err := cfg.resolveProxies(); err == nil || ErrorText(err) != "Invalid -proxy address or hostname: 'localhost:9050'" {
		t.Fatalf("a proxy host name under --nodns: %v", err)
	}
	cfg = &Config{P2POptions: P2POptions{Proxy: "127.0.0.1:9050", NoDNS: true}}
	if err := cfg.resolveProxies(); err != nil {
		t.Fatal(err)
	}
	if !dialConfig(cfg).NoNameLookup {
		t.Fatal("the dialer still looks names up")
	}
}
