package node

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/internal/hostport"
	"github.com/btcnode/btcd/peer/connmgr"
)

// netProxies is the SOCKS5 proxy reaching each network, as host:port or
// unix:path; "" means none: a direct connection, or for onion no way to
// reach the network at all. name reaches host names.
type netProxies struct {
	ipv4, ipv6, onion, cjdns, name string
}

// maxUnixPath is the longest socket path a sockaddr_un holds (108 bytes
// with the terminating NUL on Linux).
const maxUnixPath = 107

// resolveProxies fills cfg.proxies as bitcoind reads its proxy options:
// --proxy for every network, then each --netproxy in order for one
// network, then --onion or --noonion for onion. Each address is checked
// first, with bitcoind's messages.
func (cfg *Config) resolveProxies() error {
	var np netProxies
	p, err := cfg.proxyAddr("--proxy", "-proxy", cfg.Proxy)
	if err != nil {
		return err
	}
	if p != "" {
		np = netProxies{ipv4: p, ipv6: p, onion: p, cjdns: p, name: p}
	}
	for _, v := range cfg.NetProxies {
		i := strings.LastIndexByte(v, '=')
		switch {
		case i < 0:
			return invalidf("--netproxy: %q names no network (ADDR=NET)", v)
		case i == len(v)-1:
			return invalidf("--netproxy: Invalid -proxy address or hostname, ends with '=': '%s'", v)
		}
		p, err := cfg.proxyAddr("--netproxy", "-proxy", v[:i])
		if err != nil {
			return err
		}
		switch net := strings.ToLower(v[i+1:]); net {
		case "ipv4":
			np.ipv4, np.name = p, p
		case "ipv6":
			np.ipv6, np.name = p, p
		case "onion", "tor":
			np.onion = p
		case "cjdns":
			np.cjdns = p
		default:
			return invalidf("--netproxy: Unrecognized network in -proxy='%s': '%s'", v, net)
		}
	}
	switch {
	case cfg.NoOnion || cfg.OnionProxy == "0":
		np.onion = ""
	case cfg.OnionProxy != "":
		if np.onion, err = cfg.proxyAddr("--onion", "-onion", cfg.OnionProxy); err != nil {
			return err
		}
	}
	if _, err := cfg.proxyAddr("--i2psam", "-i2psam", cfg.I2PSAM); err != nil {
		return err
	}
	cfg.proxies = np
	return nil
}

// any reports whether some network is reached through a proxy.
func (np netProxies) any() bool {
	return np.ipv4 != "" || np.ipv6 != "" || np.onion != "" || np.cjdns != "" || np.name != ""
}

// dial is the dialer's view of the table; every proxy sends fresh
// credentials per connection unless randomize is off.
func (np netProxies) dial(randomize bool) connmgr.Proxies {
	mk := func(addr string) *connmgr.Proxy {
		if addr == "" {
			return nil
		}
		return &connmgr.Proxy{Addr: addr, TorIsolation: randomize}
	}
	return connmgr.Proxies{IPv4: mk(np.ipv4), IPv6: mk(np.ipv6), Onion: mk(np.onion), CJDNS: mk(np.cjdns), Name: mk(np.name)}
}

// proxyAddr checks a proxy address given to flag (bitcoind's option
// core) and returns it as the node uses and shows it: host:port with
// bitcoind's default port 9050 filled in, or unix:path. "" and "0" mean
// no proxy. Under --nodns a host name is refused, as bitcoind's -dns=0
// does: it would need a lookup.
func (cfg *Config) proxyAddr(flag, core, addr string) (string, error) {
	if addr == "" || addr == "0" {
		return "", nil
	}
	if path, ok := strings.CutPrefix(addr, connmgr.UnixProxyPrefix); ok {
		if path == "" || len(path) > maxUnixPath {
			return "", invalidf("%s: Invalid %s address or hostname: '%s'", flag, core, addr)
		}
		return addr, nil
	}
	host, p, ok := hostport.Split(addr)
	if !ok {
		return "", invalidf("%s: Invalid port specified in %s: '%s'", flag, core, addr)
	}
	port := ""
	if p != 0 {
		port = strconv.Itoa(int(p))
	}
	if _, err := netip.ParseAddr(host); !validHost(host) || (cfg.NoDNS && err != nil) {
		return "", invalidf("%s: Invalid %s address or hostname: '%s'", flag, core, addr)
	}
	if port == "" {
		port = defaultSOCKSPort
		if core == "-i2psam" {
			port = defaultSAMPort
		}
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port, nil
	}
	return host + ":" + port, nil
}

// validHost reports whether host is an IP address or a well-formed DNS
// name (non-empty labels of letters, digits, '-' and '_').
func validHost(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(host, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
				return false
			}
		}
	}
	return true
}

// resolveListenServices settles --listenonion and --natpmp once the
// listeners are known. A node that does not listen maps no port and
// publishes no service (bitcoind's "-listen=0 -> setting -natpmp=0" and
// "-listenonion=0"). The service forwards to --onionbind (an
// onion bind, listened on, whose inbound peers are onion peers), else to
// the first listener, as bitcoind's onion target: its first
// -bind=...=onion, else its first -bind.
func (cfg *Config) resolveListenServices() error {
	if cfg.DisableListen {
		// Nothing to forward to: bitcoind's "-listen=0 -> setting
		// -natpmp=0".
		cfg.NatPMP = false
	}
	if !cfg.ListenOnion {
		return nil
	}
	if cfg.DisableListen || cfg.MaxPeers == 0 || len(cfg.Listeners) == 0 {
		cfg.ListenOnion = false
		return nil
	}
	if _, _, err := net.SplitHostPort(cfg.TorControl); err != nil {
		return invalidf("--torcontrol: Invalid -torcontrol address: '%s'", cfg.TorControl)
	}
	if cfg.OnionBind != "" {
		ap, err := netip.ParseAddrPort(cfg.OnionBind)
		if err != nil || ap.Port() == 0 {
			return invalidf("--onionbind: %q is not ip:port", cfg.OnionBind)
		}
		if !slices.Contains(cfg.Listeners, cfg.OnionBind) {
			cfg.Listeners = append(cfg.Listeners, cfg.OnionBind)
		}
		cfg.torTarget = cfg.OnionBind
		return nil
	}
	host, port, err := net.SplitHostPort(cfg.Listeners[0])
	if err != nil {
		return invalidf("--listen: %q is not host:port", cfg.Listeners[0])
	}
	// Tor connects to the target itself: an every-interface listener is
	// reached on loopback.
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	cfg.torTarget = net.JoinHostPort(host, port)
	return nil
}
