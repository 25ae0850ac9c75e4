package node

import (
	"net/netip"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// onlyNetNames maps -onlynet's network names to BIP155 network IDs.
var onlyNetNames = map[string]wire.NetworkID{
	"ipv4":  wire.NetIPv4,
	"ipv6":  wire.NetIPv6,
	"onion": wire.NetTorV3,
	"i2p":   wire.NetI2P,
	"cjdns": wire.NetCJDNS,
}

// validateOnlyNet parses --onlynet into cfg.onlyNets. When it leaves out
// both IPv4 and IPv6 the DNS seeds (which give only IP addresses) are
// turned off, and asking for them explicitly is an error, as in bitcoind.
func (cfg *Config) validateOnlyNet() error {
	if len(cfg.OnlyNets) == 0 {
		return nil
	}
	cfg.onlyNets = make(map[wire.NetworkID]bool, len(cfg.OnlyNets))
	for _, n := range cfg.OnlyNets {
		id, ok := onlyNetNames[strings.ToLower(n)]
		if !ok {
			return invalidf("--onlynet: Unknown network specified in -onlynet: '%s'", n)
		}
		cfg.onlyNets[id] = true
	}
	// Restricting outbound connections to a network this node cannot
	// reach would leave it with none at all.
	switch {
	case cfg.onlyNets[wire.NetCJDNS] && !cfg.CJDNSReachable:
		return conflictf("--onlynet: Outbound connections restricted to CJDNS (-onlynet=cjdns) but -cjdnsreachable is not provided")
	case cfg.onlyNets[wire.NetTorV3] && (cfg.NoOnion || cfg.OnionProxy == "0"):
		return conflictf("--onlynet: Outbound connections restricted to Tor (-onlynet=onion) but the proxy for reaching the Tor network is explicitly forbidden: -onion=0")
	case cfg.onlyNets[wire.NetTorV3] && cfg.proxies.onion == "" && !cfg.ListenOnion:
		return conflictf("--onlynet: Outbound connections restricted to Tor (-onlynet=onion) but the proxy for reaching the Tor network is not provided: none of -proxy, -onion or -listenonion is given")
	case cfg.onlyNets[wire.NetI2P] && cfg.I2PSAM == "":
		return conflictf("--onlynet: Outbound connections restricted to i2p (-onlynet=i2p) but -i2psam is not provided")
	}
	if !cfg.onlyNets[wire.NetIPv4] && !cfg.onlyNets[wire.NetIPv6] {
		if cfg.Bitcoind.KeepDNSSeed {
			return conflictf("--onlynet: Incompatible options: -dnsseed=1 was explicitly specified, but -onlynet forbids connections to IPv4/IPv6")
		}
		cfg.DisableDNSSeed = true
	}
	return nil
}

// reachableNet reports whether automatic outbound connections may go to
// an address of network id (--onlynet; every network without it).
func (cfg *Config) reachableNet(id wire.NetworkID) bool {
	return cfg.onlyNets == nil || cfg.onlyNets[id]
}

// cjdnsPrefix is where CJDNS addresses live inside IPv6 (fc00::/8).
var cjdnsPrefix = netip.MustParsePrefix("fc00::/8")

// flipCJDNS returns an IPv6 address in fc00::/8 as a CJDNS address when
// --cjdnsreachable says this host is on CJDNS (Core's
// MaybeFlipIPv6toCJDNS); other addresses are returned unchanged.
func (cfg *Config) flipCJDNS(id wire.NetworkID, raw []byte) wire.NetworkID {
	if cfg.CJDNSReachable && id == wire.NetIPv6 && len(raw) == 16 && raw[0] == 0xfc {
		return wire.NetCJDNS
	}
	return id
}
