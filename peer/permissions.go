package peer

import (
	"fmt"
	"net/netip"
	"strings"
)

// Permissions are what a peer may do beyond the defaults, granted by
// --whitelist (by address) and --whitebind (by the listener it reached),
// with Bitcoin Core's names and meanings (NetPermissionFlags).
type Permissions uint32

// Permission flags. NoBan includes Download and ForceRelay includes
// Relay, as in Core.
const (
	// PermBloomFilter allows BIP37 filter messages without NODE_BLOOM.
	PermBloomFilter Permissions = 1 << 1
	// PermRelay accepts the peer's transactions even under --blocksonly.
	PermRelay Permissions = 1 << 3
	// PermForceRelay relays the peer's transactions even when they are
	// already in the mempool.
	PermForceRelay Permissions = 1<<2 | PermRelay
	// PermDownload lets the peer download past --maxuploadtarget.
	PermDownload Permissions = 1 << 6
	// PermNoBan never disconnects or bans the peer for misbehaviour and
	// protects it from eviction.
	PermNoBan Permissions = 1<<4 | PermDownload
	// PermMempool answers the peer's BIP35 mempool requests.
	PermMempool Permissions = 1 << 5
	// PermAddr exempts the peer's address messages from the rate limit.
	PermAddr Permissions = 1 << 7
	// permImplicit marks a --whitelist entry that named no permissions:
	// it gets the legacy set (ResolveImplicit).
	permImplicit Permissions = 1 << 31

	// PermAll is Core's "all".
	PermAll = PermBloomFilter | PermForceRelay | PermRelay | PermNoBan | PermMempool | PermDownload | PermAddr
)

// permissionNames lists the names in the order getpeerinfo reports them.
var permissionNames = []struct {
	name string
	perm Permissions
}{
	{"bloomfilter", PermBloomFilter},
	{"noban", PermNoBan},
	{"forcerelay", PermForceRelay},
	{"relay", PermRelay},
	{"mempool", PermMempool},
	{"download", PermDownload},
	{"addr", PermAddr},
}

// Has reports whether every flag of f is granted.
func (p Permissions) Has(f Permissions) bool { return p&f == f }

// Names lists the granted permissions by name, in Core's order. A flag
// that is part of another (download in noban) is listed on its own.
func (p Permissions) Names() []string {
	out := []string{}
	for _, n := range permissionNames {
		bit := n.perm
		switch n.perm {
		case PermNoBan:
			bit = PermNoBan &^ PermDownload
		case PermForceRelay:
			bit = PermForceRelay &^ PermRelay
		}
		if p&bit == bit {
			out = append(out, n.name)
		}
	}
	return out
}

// ResolveImplicit turns a --whitelist entry without named permissions
// into Core's legacy set: noban, mempool and download, plus relay unless
// --whitelistrelay=0 and forcerelay with --whitelistforcerelay.
func (p Permissions) ResolveImplicit(relay, forceRelay bool) Permissions {
	if p&permImplicit == 0 {
		return p
	}
	p &^= permImplicit
	p |= PermNoBan | PermMempool
	if relay {
		p |= PermRelay
	}
	if forceRelay {
		p |= PermForceRelay
	}
	return p
}

// parsePermissions parses "perm,perm,...@" prefixes. It returns the
// permissions, whether in/out were named, and the rest of s. Without an
// '@' there are no named permissions (implicit ones apply).
func parsePermissions(s string, allowDirection bool) (perms Permissions, in, out bool, rest string, err error) {
	at := strings.IndexByte(s, '@')
	if at < 0 {
		return permImplicit, false, false, s, nil
	}
	list, rest := s[:at], s[at+1:]
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "":
		case "bloomfilter", "bloom":
			perms |= PermBloomFilter
		case "noban":
			perms |= PermNoBan
		case "forcerelay":
			perms |= PermForceRelay
		case "relay":
			perms |= PermRelay
		case "mempool":
			perms |= PermMempool
		case "download":
			perms |= PermDownload
		case "addr":
			perms |= PermAddr
		case "all":
			perms |= PermAll
		case "in", "out":
			if !allowDirection {
				return 0, false, false, "", fmt.Errorf("Invalid P2P permission: '%s'", name)
			}
			if name == "in" {
				in = true
			} else {
				out = true
			}
		default:
			return 0, false, false, "", fmt.Errorf("Invalid P2P permission: '%s'", name)
		}
	}
	if perms == 0 && (in || out) {
		return 0, false, false, "", fmt.Errorf("Only direction was set, no permissions: '%s'", s)
	}
	return perms, in, out, rest, nil
}

// WhitelistEntry is one --whitelist: permissions for peers in a subnet,
// for inbound connections (In) and/or outbound ones (Out).
type WhitelistEntry struct {
	Subnet  netip.Prefix
	Perms   Permissions
	In, Out bool
}

// ParseWhitelist parses --whitelist's "[permissions@]IP or network". The
// direction flags "in" and "out" choose which connections it applies to
// (inbound only by default).
func ParseWhitelist(s string) (WhitelistEntry, error) {
	perms, in, out, rest, err := parsePermissions(s, true)
	if err != nil {
		return WhitelistEntry{}, err
	}
	if !in && !out {
		in = true
	}
	pfx, err := parseSubnet(rest)
	if err != nil {
		return WhitelistEntry{}, fmt.Errorf("Invalid netmask specified in -whitelist: '%s'", rest)
	}
	return WhitelistEntry{Subnet: pfx, Perms: perms, In: in, Out: out}, nil
}

// parseSubnet accepts an IP address or a CIDR network.
func parseSubnet(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-unmapBits(p.Addr())).Masked(), nil
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Prefix{}, err
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

func unmapBits(a netip.Addr) int {
	if a.Is4In6() {
		return 96
	}
	return 0
}

// WhiteBind is one --whitebind: a listen address whose inbound peers get
// Perms.
type WhiteBind struct {
	Addr  netip.AddrPort
	Perms Permissions
}

// ParseWhiteBind parses --whitebind's "[permissions@]addr:port". Without
// named permissions the listener grants Core's default set.
func ParseWhiteBind(s string) (WhiteBind, error) {
	perms, _, _, rest, err := parsePermissions(s, false)
	if err != nil {
		return WhiteBind{}, err
	}
	ap, err := netip.ParseAddrPort(rest)
	if err != nil {
		if _, err2 := netip.ParseAddr(strings.Trim(rest, "[]")); err2 == nil {
			return WhiteBind{}, fmt.Errorf("Need to specify a port with -whitebind: '%s'", rest)
		}
		return WhiteBind{}, fmt.Errorf("Cannot resolve -whitebind address: '%s'", rest)
	}
	if ap.Port() == 0 {
		return WhiteBind{}, fmt.Errorf("Need to specify a port with -whitebind: '%s'", rest)
	}
	return WhiteBind{Addr: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), Perms: perms}, nil
}

// PermissionsFor returns what a peer at ip gets from the whitelist for a
// connection in the given direction, with implicit entries resolved.
func PermissionsFor(list []WhitelistEntry, ip netip.Addr, inbound, relay, forceRelay bool) Permissions {
	var p Permissions
	ip = ip.Unmap()
	for _, e := range list {
		if (inbound && !e.In) || (!inbound && !e.Out) {
			continue
		}
		if e.Subnet.Contains(ip) {
			p |= e.Perms.ResolveImplicit(relay, forceRelay)
		}
	}
	return p
}

// ConnType is a connection's type, with getpeerinfo's names.
type ConnType string

// Connection types, as Core's ConnectionType.
const (
	ConnInbound    ConnType = "inbound"
	ConnFullRelay  ConnType = "outbound-full-relay"
	ConnManual     ConnType = "manual"
	ConnBlockRelay ConnType = "block-relay-only"
	ConnFeeler     ConnType = "feeler"
	ConnAddrFetch  ConnType = "addr-fetch"
)
