package node

import (
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/peer/connmgr"
)

// sameNode reports whether two host:port strings name the same node
// without a DNS lookup: equal text, or IP literals that are the same
// address and port once parsed, IPv4 shorthand ("127.1") included, as
// bitcoind's addnode compares the resolved addresses.
func sameNode(a, b string) bool {
	if a == b {
		return true
	}
	pa, okA := literalAddrPort(a)
	pb, okB := literalAddrPort(b)
	return okA && okB && pa == pb
}

// literalAddrPort parses host:port whose host is an IP literal, taking
// the short IPv4 forms inet_aton accepts (a, a.b, a.b.c, each part a
// decimal number, the last filling the remaining bytes).
func literalAddrPort(s string) (netip.AddrPort, bool) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return netip.AddrPort{}, false
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return netip.AddrPortFrom(ip.Unmap(), uint16(p)), true
	}
	ip, ok := shortIPv4(host)
	return netip.AddrPortFrom(ip, uint16(p)), ok
}

// shortIPv4 parses inet_aton's shortened dotted forms in decimal.
func shortIPv4(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if len(parts) < 1 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	var b [4]byte
	for i, part := range parts {
		last := i == len(parts)-1
		width := 1
		if last {
			width = 4 - i
		}
		v, err := strconv.ParseUint(part, 10, 32)
		if err != nil || part == "" || v >= 1<<(8*width) {
			return netip.Addr{}, false
		}
		for j := width - 1; j >= 0; j-- {
			b[i+j] = byte(v)
			v >>= 8
		}
	}
	return netip.AddrFrom4(b), true
}

// setAddedName records the name an added node was given by.
func (s *server) setAddedName(id uint64, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addedNames == nil {
		s.addedNames = make(map[uint64]string)
	}
	s.addedNames[id] = name
}

// addedName returns the name an added node was given by, else the
// address its request dials.
func (s *server) addedName(r *connmgr.ConnReq) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.addedNames[r.ID]; ok {
		return n
	}
	return r.Addr
}
