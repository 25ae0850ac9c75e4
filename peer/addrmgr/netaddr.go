package addrmgr

import (
	"crypto/sha256"
	"net/netip"

	"github.com/btcnode/btcd/wire"
)

// netInternal marks synthetic source addresses such as the fixed seeds;
// it is not a BIP155 network.
const netInternal wire.NetworkID = 0xfe

// Core's network classes, the first byte of a network group (its enum
// Network, which differs from BIP155's network ids).
const (
	classUnroutable = 0
	classIPv4       = 1
	classIPv6       = 2
	classOnion      = 3
	classI2P        = 4
	classCJDNS      = 5
	classInternal   = 6
)

// addrKey identifies an address (network, address bytes, port); it is
// comparable so it can key maps.
type addrKey struct {
	net  wire.NetworkID
	addr [32]byte
	port uint16
}

// addrLen is the address length of the key's network.
func (k *addrKey) addrLen() int {
	switch k.net {
	case wire.NetIPv4:
		return 4
	case wire.NetIPv6, wire.NetCJDNS:
		return 16
	case wire.NetTorV3, wire.NetI2P:
		return 32
	case netInternal:
		return 16
	}
	return 0
}

// keyOf returns the key of a, with IPv4-mapped IPv6 addresses folded into
// IPv4 so one host has one entry. ok is false for addresses of unknown
// networks or the wrong length.
func keyOf(a *wire.NetAddressV2) (k addrKey, ok bool) {
	k.net, k.port = a.NetworkID, a.Port
	if k.addrLen() == 0 || len(a.Addr) != k.addrLen() {
		return k, false
	}
	copy(k.addr[:], a.Addr)
	if k.net == wire.NetIPv6 {
		ip := netip.AddrFrom16([16]byte(a.Addr))
		if ip.Is4In6() {
			k.net = wire.NetIPv4
			k.addr = [32]byte{}
			b := ip.Unmap().As4()
			copy(k.addr[:], b[:])
		}
	}
	return k, true
}

// keyFromAddrPort returns the key of an IP address and port.
func keyFromAddrPort(ap netip.AddrPort) addrKey {
	var k addrKey
	ip := ap.Addr().Unmap()
	k.port = ap.Port()
	if ip.Is4() {
		k.net = wire.NetIPv4
		b := ip.As4()
		copy(k.addr[:], b[:])
	} else {
		k.net = wire.NetIPv6
		b := ip.As16()
		copy(k.addr[:], b[:])
	}
	return k
}

// netAddress converts the key back to a wire address.
func (k *addrKey) netAddress() wire.NetAddressV2 {
	b := make([]byte, k.addrLen())
	copy(b, k.addr[:])
	return wire.NetAddressV2{NetworkID: k.net, Addr: b, Port: k.port}
}

// ip returns the key's IP for IPv4 and IPv6.
func (k *addrKey) ip() (netip.Addr, bool) {
	switch k.net {
	case wire.NetIPv4:
		return netip.AddrFrom4([4]byte(k.addr[:4])), true
	case wire.NetIPv6, wire.NetCJDNS:
		return netip.AddrFrom16([16]byte(k.addr[:16])), true
	}
	return netip.Addr{}, false
}

// bytes is the serialization hashed for bucketing, Core's
// CService::GetKey: the address as addr (v1) serializes it (16 bytes,
// IPv4 mapped into IPv6) for IPv4, IPv6 and internal addresses, the raw
// address for the others, then the big-endian port.
func (k *addrKey) bytes() []byte {
	b := make([]byte, 0, 32+2)
	if k.net == wire.NetIPv4 {
		b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff)
	}
	b = append(b, k.addr[:k.addrLen()]...)
	return append(b, byte(k.port>>8), byte(k.port))
}

// String formats the key as host:port.
func (k *addrKey) String() string {
	na := k.netAddress()
	return na.String()
}

var (
	pfx = netip.MustParsePrefix
	// Ranges that are not globally routable (Bitcoin Core's
	// CNetAddr::IsRoutable and IsValid).
	unroutable = []netip.Prefix{
		pfx("0.0.0.0/8"),          // "this network"
		pfx("10.0.0.0/8"),         // RFC1918
		pfx("172.16.0.0/12"),      // RFC1918
		pfx("192.168.0.0/16"),     // RFC1918
		pfx("198.18.0.0/15"),      // RFC2544 benchmarking
		pfx("169.254.0.0/16"),     // RFC3927 link local
		pfx("100.64.0.0/10"),      // RFC6598 shared address space
		pfx("192.0.2.0/24"),       // RFC5737 documentation
		pfx("198.51.100.0/24"),    // RFC5737
		pfx("203.0.113.0/24"),     // RFC5737
		pfx("255.255.255.255/32"), // broadcast (INADDR_NONE)
		pfx("2001:db8::/32"),      // RFC3849 documentation
		pfx("fc00::/7"),           // RFC4193 unique local
		pfx("fe80::/64"),          // RFC4862 link local
		pfx("2001:10::/28"),       // RFC4843 ORCHID
		pfx("2001:20::/28"),       // RFC7343 ORCHIDv2
	}
	rfc6052   = pfx("64:ff9b::/96")  // NAT64 well-known prefix
	rfc3964   = pfx("2002::/16")     // 6to4
	rfc4380   = pfx("2001::/32")     // Teredo
	heNet     = pfx("2001:470::/32") // Hurricane Electric, one huge operator
	rfc6145   = pfx("::ffff:0:0:0/96")
	rfc4291v4 = pfx("::/96") // IPv4-compatible, deprecated
)

// IsRoutable reports whether a is a globally routable address, one worth
// storing and relaying (Core's CNetAddr::IsRoutable): Tor v3 and I2P
// addresses, CJDNS ones in fc00::/8, and IP addresses outside the
// private, reserved and documentation ranges, with a port.
func IsRoutable(a *wire.NetAddressV2) bool {
	k, ok := keyOf(a)
	return ok && isRoutable(&k)
}

// isRoutable reports whether the address is worth storing and relaying.
func isRoutable(k *addrKey) bool {
	switch k.net {
	case wire.NetTorV3, wire.NetI2P:
		return true
	case wire.NetCJDNS:
		return k.addr[0] == 0xfc
	case wire.NetIPv4, wire.NetIPv6:
	default:
		return false
	}
	if k.port == 0 {
		return false
	}
	ip, _ := k.ip()
	return isRoutableIP(ip)
}

// isRoutableIP reports whether ip is a globally routable address.
func isRoutableIP(ip netip.Addr) bool {
	if !ip.IsValid() || ip.IsUnspecified() || ip.IsLoopback() {
		return false
	}
	for _, p := range unroutable {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// group returns the network group of k: addresses in one group are
// assumed to be under one operator's control, so the tables limit how many
// of them we keep and connect to.
//
// The bytes are Core's (NetGroupManager::GetGroup without an ASMap), so
// that addresses land in the buckets they would in Core's addrman.
func group(k *addrKey) []byte {
	switch k.net {
	case wire.NetTorV3:
		// Keys are random, so only 4 bits are used: this limits an
		// attacker to a sixteenth of the buckets for these networks.
		return []byte{classOnion, k.addr[0] | 0x0f}
	case wire.NetI2P:
		return []byte{classI2P, k.addr[0] | 0x0f}
	case wire.NetCJDNS:
		// The first byte is always 0xfc; the random bits follow.
		return []byte{classCJDNS, k.addr[0], k.addr[1] | 0x0f}
	case netInternal:
		// Each name has a group of its own: the ten bytes after the
		// internal prefix.
		return append([]byte{classInternal}, k.addr[len(internalInIPv6Prefix):16]...)
	}
	ip, ok := k.ip()
	if !ok || ip.IsLoopback() || !isRoutableIP(ip) {
		// Local and unroutable addresses share one group.
		return []byte{classUnroutable}
	}
	if ip.Is4() {
		b := ip.As4()
		return []byte{classIPv4, b[0], b[1]}
	}
	b := ip.As16()
	// IPv6 addresses that embed an IPv4 address are grouped by it, or an
	// attacker with one IPv4 /16 could appear as many IPv6 groups.
	switch {
	case rfc6145.Contains(ip), rfc6052.Contains(ip), rfc4291v4.Contains(ip):
		return []byte{classIPv4, b[12], b[13]}
	case rfc3964.Contains(ip):
		return []byte{classIPv4, b[2], b[3]}
	case rfc4380.Contains(ip):
		return []byte{classIPv4, b[12] ^ 0xff, b[13] ^ 0xff}
	case heNet.Contains(ip):
		// Hurricane Electric hands out /36s within one /32.
		return []byte{classIPv6, b[0], b[1], b[2], b[3], b[4] | 0x0f}
	}
	return []byte{classIPv6, b[0], b[1], b[2], b[3]}
}

// group is the address's network group for bucketing: its autonomous
// system under an ASMap, else its prefix (group).
func (m *Manager) group(k *addrKey) []byte {
	if m.cfg.ASMap != nil {
		if ip, ok := k.ip(); ok && isRoutableIP(ip) && !ip.IsLoopback() {
			if asn := m.cfg.ASMap.Lookup(ip); asn != 0 {
				return []byte{classIPv6, byte(asn), byte(asn >> 8), byte(asn >> 16), byte(asn >> 24)}
			}
		}
	}
	return group(k)
}

// MappedAS returns the ASN of ip under the configured ASMap (0: none, or
// unmapped).
func (m *Manager) MappedAS(ip netip.Addr) uint32 {
	if m.cfg.ASMap == nil {
		return 0
	}
	return m.cfg.ASMap.Lookup(ip)
}

// GroupKey returns the network group of an address as a string, for
// callers that keep at most one outbound connection per group.
func GroupKey(a *wire.NetAddressV2) string {
	k, ok := keyOf(a)
	if !ok {
		return ""
	}
	return string(group(&k))
}

// internalKey returns a synthetic source address for name (for example
// the fixed seeds), in a group of its own. It is Core's NET_INTERNAL
// address as peers.dat stores it: the first ten bytes of SHA-256(name)
// under Core's internal IPv6 prefix.
func internalKey(name string) addrKey {
	h := sha256.Sum256([]byte(name))
	k := addrKey{net: netInternal}
	n := copy(k.addr[:], internalInIPv6Prefix)
	copy(k.addr[n:16], h[:16-n])
	return k
}
