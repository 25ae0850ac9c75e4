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
// knows, in its order, with the proxy reaching it. -proxy serves every
// network except I2P, -onion overrides it for Tor, and -i2psam names the
// SAM bridge that makes I2P reachable; CJDNS is reachable with --cjdnsreachable.
func networksInfo(cfg *Config) []rpc.NetworkEntry {
	proxy := proxyText(cfg.Proxy, defaultSOCKSPort)
	onion := proxyText(cfg.OnionProxy, defaultSOCKSPort)
	if onion == "" {
		onion = proxy
	}
	entry := func(name, proxy string, reachable, randomize bool) rpc.NetworkEntry {
		return rpc.NetworkEntry{
			Name: name, Limited: !reachable, Reachable: reachable,
			Proxy: proxy, ProxyRandomizeCredentials: randomize && proxy != "",
		}
	}
	randomize := !cfg.NoProxyRandomize
	return []rpc.NetworkEntry{
		entry("ipv4", proxy, true, randomize),
		entry("ipv6", proxy, true, randomize),
		entry("onion", onion, onion != "", randomize),
		// bitcoind's SAM proxy does no stream isolation.
		entry("i2p", proxyText(cfg.I2PSAM, defaultSAMPort), cfg.I2PSAM != "", false),
		entry("cjdns", proxy, cfg.CJDNSReachable, randomize),
	}
}
