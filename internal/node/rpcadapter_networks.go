package node

import (
	"net"

	"github.com/btcnode/btcd/rpc"
)

// Default ports of proxies named without one, as bitcoind assumes them.
const (
	defaultSOCKSPort = "9050"
	defaultSAMPort   = "7656"
)

// proxyText is a proxy address as getnetworkinfo shows it: host:port,
// with the default port filled in.
func proxyText(addr, defPort string) string {
	if addr == "" {
		return ""
	}
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(addr, defPort)
}

// networksInfo is getnetworkinfo's "networks": each network bitcoind
// knows, in its order, with the proxy reaching it (proxies.go; torSOCKS
// is the SOCKS port Tor's control port named, which takes over onion).
// Onion is reachable through a proxy, I2P through the SAM bridge of
// --i2psam, CJDNS with --cjdnsreachable.
func networksInfo(cfg *Config, torSOCKS string) []rpc.NetworkEntry {
	randomize := !cfg.NoProxyRandomize
	entry := func(name, proxy string, reachable, randomize bool) rpc.NetworkEntry {
		return rpc.NetworkEntry{
			Name: name, Limited: !reachable, Reachable: reachable,
			Proxy: proxy, ProxyRandomizeCredentials: randomize && proxy != "",
		}
	}
	np := cfg.proxies
	if torSOCKS != "" {
		np.onion = torSOCKS
	}
	return []rpc.NetworkEntry{
		entry("ipv4", np.ipv4, true, randomize),
		entry("ipv6", np.ipv6, true, randomize),
		entry("onion", np.onion, np.onion != "", randomize),
		// bitcoind's SAM proxy does no stream isolation.
		entry("i2p", proxyText(cfg.I2PSAM, defaultSAMPort), cfg.I2PSAM != "", false),
		entry("cjdns", np.cjdns, cfg.CJDNSReachable, randomize),
	}
}
