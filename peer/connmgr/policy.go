package connmgr

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

// ErrorKind classifies connection manager failures for errors.Is.
type ErrorKind string

// Error returns the kind's description.
func (e ErrorKind) Error() string { return string(e) }

// Kinds of connection manager errors.
const (
	// ErrInvalidAddress means an address string could not be parsed.
	ErrInvalidAddress = ErrorKind("invalid address")
	// ErrProxy means the SOCKS5 proxy could not be reached or spoke
	// nonsense.
	ErrProxy = ErrorKind("SOCKS5 proxy error")
	// ErrProxyAuth means the proxy refused our authentication.
	ErrProxyAuth = ErrorKind("SOCKS5 proxy authentication failed")
	// ErrProxyConnect means the proxy could not reach the target.
	ErrProxyConnect = ErrorKind("SOCKS5 proxy could not connect")
	// ErrNoOnionProxy means a .onion address was dialed with no proxy
	// configured to reach it.
	ErrNoOnionProxy = ErrorKind("no proxy for .onion addresses")
	// ErrNameLookup means a host name was dialed with lookups disabled
	// (--nodns) and no proxy to resolve it.
	ErrNameLookup = ErrorKind("host name lookups are disabled")
	// ErrNoI2PSession means a .b32.i2p address was dialed with no SAM
	// bridge configured (--i2psam) to reach it.
	ErrNoI2PSession = ErrorKind("no I2P SAM bridge for .b32.i2p addresses")
	// ErrArbitraryPort means an I2P address carried a port other than 0:
	// SAM 3.1 streams have no ports, so such an address is no real peer
	// and is not dialed.
	ErrArbitraryPort = ErrorKind("connection refused due to arbitrary port")
	// ErrStopped means the manager has been stopped.
	ErrStopped = ErrorKind("connection manager stopped")
	// ErrNoAddress means no candidate address is available.
	ErrNoAddress = ErrorKind("no address available")
)

var log = btclog.Disabled

// UseLogger sets the logger used by the package.
func UseLogger(l btclog.Logger) { log = l }

// PolicyInput holds the daemon options that decide how the node finds
// peers.
type PolicyInput struct {
	Connect   []string // --connect
	Listen    []string // --listen
	NoListen  bool     // --nolisten
	Proxy     string   // --proxy
	NoDNSSeed bool     // --nodnsseed
}

// Policy is what the node does given its options.
type Policy struct {
	// Listen says whether to accept inbound connections.
	Listen bool
	// DNSSeed says whether to query DNS seeds for addresses.
	DNSSeed bool
	// AutoConnect says whether to make automatic outbound connections to
	// addresses from the address manager.
	AutoConnect bool
	// SeedThroughProxy says that DNS seeds must not be resolved locally,
	// which would reveal the node to its DNS resolver, but reached by
	// name through the proxy for a one-time address fetch, as Core does
	// when a proxy is set.
	SeedThroughProxy bool
}

// ResolvePolicy applies the rules of btcd and Bitcoin Core: --connect means
// only those peers, so it turns off automatic connections and DNS seeding,
// and turns off listening unless --listen is given; --proxy also turns off
// listening unless --listen is given (a node hiding behind a proxy should
// not reveal itself by accepting connections); --nolisten always wins.
func ResolvePolicy(in PolicyInput) Policy {
	explicitListen := len(in.Listen) > 0
	p := Policy{
		Listen:      !in.NoListen && (explicitListen || (len(in.Connect) == 0 && in.Proxy == "")),
		DNSSeed:     !in.NoDNSSeed && len(in.Connect) == 0,
		AutoConnect: len(in.Connect) == 0,
	}
	p.SeedThroughProxy = p.DNSSeed && in.Proxy != ""
	return p
}

// ListenAddresses returns the addresses to listen on: each --listen value
// with defaultPort added where it has none, or every interface on
// defaultPort when none is given.
func ListenAddresses(listen []string, defaultPort string) []string {
	if len(listen) == 0 {
		return []string{net.JoinHostPort("", defaultPort)}
	}
	out := make([]string, len(listen))
	for i, l := range listen {
		out[i] = NormalizeAddress(l, defaultPort)
	}
	return out
}

// NormalizeAddress adds defaultPort to addr when it has none, so "1.2.3.4",
// "::1", "[::1]" and "host" all become dialable host:port strings. A
// .b32.i2p host gets port 0 instead: I2P streams have no ports, and the
// dialer refuses any other.
func NormalizeAddress(addr, defaultPort string) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	addr = strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
	if strings.HasSuffix(strings.ToLower(addr), ".b32.i2p") {
		defaultPort = "0"
	}
	return net.JoinHostPort(addr, defaultPort)
}

// ParseExternalIPs parses --externalip values (IP or IP:port, port
// defaulting to defaultPort) into the addresses to advertise.
func ParseExternalIPs(list []string, defaultPort uint16) ([]netip.AddrPort, error) {
	out := make([]netip.AddrPort, 0, len(list))
	for _, s := range list {
		if ap, err := netip.ParseAddrPort(s); err == nil {
			out = append(out, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()))
			continue
		}
		a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
		if err != nil {
			return nil, fmt.Errorf("%w: externalip %q", ErrInvalidAddress, s)
		}
		out = append(out, netip.AddrPortFrom(a.Unmap(), defaultPort))
	}
	return out, nil
}

// DialFunc connects to a host:port address.
type DialFunc func(ctx context.Context, addr string) (net.Conn, error)

// Proxies names the SOCKS5 proxy that reaches each network, as
// bitcoind's per-network -proxy=ADDR=NET. A nil entry means the network
// is dialed directly, or, for Onion, not at all.
type Proxies struct {
	IPv4, IPv6, Onion, CJDNS *Proxy
	// Name reaches host names (which the proxy resolves, so no local
	// lookup tells the resolver who we are).
	Name *Proxy
}

// AllNetworks is p for every network: a -proxy without a network.
func AllNetworks(p *Proxy) Proxies {
	return Proxies{IPv4: p, IPv6: p, Onion: p, CJDNS: p, Name: p}
}

// DialConfig chooses how outbound connections are made.
type DialConfig struct {
	// Proxies are the SOCKS5 proxies of the networks (--proxy,
	// --netproxy, --onion); addresses that are not publicly routable
	// are always dialed directly.
	Proxies Proxies
	// TorSOCKS, when set and returning non-nil, reaches .onion addresses
	// in place of Proxies.Onion: the SOCKS port Tor's control port named
	// (-listenonion without -onion).
	TorSOCKS func() *Proxy
	// Timeout bounds each connection attempt; zero means 30 seconds.
	Timeout time.Duration
	// NoNameLookup refuses host names that no proxy resolves (--nodns),
	// rather than looking them up.
	NoNameLookup bool
	// CJDNS: fc00::/8 addresses are CJDNS peers (--cjdnsreachable),
	// reached through Proxies.CJDNS or directly.
	CJDNS bool
	// I2P opens streams to .b32.i2p hosts through the SAM bridge
	// (--i2psam); nil means such hosts cannot be reached.
	I2P func(ctx context.Context, host string) (net.Conn, error)
}

// arbitraryPortError is ErrArbitraryPort with the port that was refused.
type arbitraryPortError struct{ port string }

func (e arbitraryPortError) Error() string { return string(ErrArbitraryPort) + " " + e.port }

func (e arbitraryPortError) Is(target error) bool { return target == ErrArbitraryPort }

// ConnectError formats a failed outbound attempt as bitcoind logs it,
// which its tests look for: "Error connecting to ADDR: REASON", or
// "Error connecting to ADDR, connection refused due to arbitrary port N"
// for an I2P address with a port.
func ConnectError(addr string, err error) string {
	if errors.Is(err, ErrArbitraryPort) {
		return fmt.Sprintf("Error connecting to %s, %v", addr, err)
	}
	return fmt.Sprintf("Error connecting to %s: %v", addr, err)
}

// NewDialer returns the dial function the daemon's options describe.
func NewDialer(cfg DialConfig) DialFunc {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return func(ctx context.Context, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidAddress, err)
		}
		if strings.HasSuffix(strings.ToLower(host), ".b32.i2p") {
			switch {
			case port != "0":
				return nil, arbitraryPortError{port: port}
			case cfg.I2P == nil:
				return nil, fmt.Errorf("%w: %s", ErrNoI2PSession, addr)
			}
			// The session bounds each bridge exchange itself: a new
			// session's tunnels can take longer than Timeout to build.
			return cfg.I2P(ctx, host)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if strings.HasSuffix(strings.ToLower(host), ".onion") {
			p := cfg.Proxies.Onion
			if cfg.TorSOCKS != nil {
				if tp := cfg.TorSOCKS(); tp != nil {
					p = tp
				}
			}
			if p == nil {
				return nil, fmt.Errorf("%w: %s", ErrNoOnionProxy, addr)
			}
			return p.DialContext(ctx, "tcp", addr)
		}
		if p := cfg.proxyFor(host); p != nil {
			return p.DialContext(ctx, "tcp", addr)
		}
		if _, err := netip.ParseAddr(host); err != nil && cfg.NoNameLookup {
			return nil, fmt.Errorf("%w: %s", ErrNameLookup, addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}

// proxyFor is the proxy reaching host (an IP literal or a name other
// than .onion and .b32.i2p), nil for a direct connection.
func (cfg *DialConfig) proxyFor(host string) *Proxy {
	ip, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return cfg.Proxies.Name
	case cfg.CJDNS && isCJDNS(host):
		return cfg.Proxies.CJDNS
	case unroutableIP(host):
		return nil
	case ip.Unmap().Is4():
		return cfg.Proxies.IPv4
	default:
		return cfg.Proxies.IPv6
	}
}

// wildcardAddrs splits ":port" (every interface) into its IPv4 and IPv6
// listen addresses.
func wildcardAddrs(a string) (v4, v6 string, ok bool) {
	host, port, err := net.SplitHostPort(a)
	if err != nil || host != "" {
		return "", "", false
	}
	return net.JoinHostPort("0.0.0.0", port), net.JoinHostPort("::", port), true
}

// Listen opens a TCP listener on each address (host:port). An empty host
// means every interface: as bitcoind, that is one IPv4 listener
// (0.0.0.0) and one IPv6-only listener ([::]), the latter skipped when
// the host has no IPv6.
func Listen(addrs []string) ([]net.Listener, error) {
	var out []net.Listener
	fail := func(a string, err error) ([]net.Listener, error) {
		for _, o := range out {
			o.Close()
		}
		return nil, fmt.Errorf("listen on %s: %w", a, err)
	}
	for _, a := range addrs {
		if v4, v6, ok := wildcardAddrs(a); ok {
			l4, err := net.Listen("tcp4", v4)
			if err != nil {
				return fail(a, err)
			}
			out = append(out, l4)
			if l6, err := listenV6Only(v6); err == nil {
				out = append(out, l6)
			}
			continue
		}
		l, err := listenOne(a)
		if err != nil {
			return fail(a, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// listenOne listens on one explicit address. As bitcoind, an IPv4
// address gets an IPv4-only socket (Go would open a dual-stack [::]
// socket for 0.0.0.0) and an IPv6 address an IPv6-only one, so the bound
// address is exactly the one asked for.
func listenOne(a string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(a)
	if err == nil {
		if ip, perr := netip.ParseAddr(host); perr == nil {
			if ip.Is4() {
				return net.Listen("tcp4", a)
			}
			return listenV6Only(a)
		}
	}
	return net.Listen("tcp", a)
}

// unroutableIP reports whether host is an IP literal outside the public
// internet (loopback, private and reserved ranges). As bitcoind, such
// addresses are dialed directly even with --proxy: no proxy network
// reaches them, and bitcoind's own tests dial loopback peers that way.
// isCJDNS reports whether host is an fc00::/8 address, CJDNS's range.
func isCJDNS(host string) bool {
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Is6() && !ip.Is4In6() && ip.As16()[0] == 0xfc
}

func unroutableIP(host string) bool {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	na := wire.NetAddressV2FromNetAddress(wire.NetAddress{Addr: ip.Unmap(), Port: 1})
	return !addrmgr.IsRoutable(&na)
}
