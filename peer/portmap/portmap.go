package portmap

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// Port is where gateways listen for both protocols.
const Port = 5351

// Errors of a mapping attempt.
var (
	// ErrNoGateway means no default IPv4 gateway was found.
	ErrNoGateway = errors.New("portmap: no default gateway")
	// ErrUnsupportedVersion means the gateway does not speak the
	// protocol version sent (a NAT-PMP gateway answering PCP).
	ErrUnsupportedVersion = errors.New("portmap: gateway does not support this protocol version")
	// ErrNoAnswer means the gateway did not answer in time.
	ErrNoAnswer = errors.New("portmap: no answer from the gateway")
)

// ResultError is a gateway's refusal, with its result code.
type ResultError struct {
	Proto string // "PCP" or "NAT-PMP"
	Code  int
}

func (e *ResultError) Error() string {
	return fmt.Sprintf("portmap: %s gateway refused the mapping (result %d)", e.Proto, e.Code)
}

// Mapping is a port forwarding the gateway granted.
type Mapping struct {
	// External is the public address and port that reach the node.
	External netip.AddrPort
	// Lifetime is how long the gateway keeps it.
	Lifetime time.Duration
	// Proto is the protocol that made it: "PCP" or "NAT-PMP".
	Proto string
}

// Tries and the wait for each answer.
const (
	tries      = 3
	answerWait = time.Second
)

// MapTCP asks the gateway at gw (normally port Port) to forward TCP
// connections to the internal port of this host for lifetime, first with
// PCP, then with NAT-PMP if the gateway speaks only that.
func MapTCP(ctx context.Context, gw netip.AddrPort, internal uint16, lifetime time.Duration) (Mapping, error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(gw))
	if err != nil {
		return Mapping{}, err
	}
	defer c.Close()
	local, _ := netip.ParseAddrPort(c.LocalAddr().String())
	m, err := mapPCP(ctx, c, local.Addr(), internal, lifetime)
	if errors.Is(err, ErrUnsupportedVersion) {
		return mapNATPMP(ctx, c, internal, lifetime)
	}
	return m, err
}

// exchange sends req and returns the first answer accepted by match,
// retrying a few times.
func exchange(ctx context.Context, c *net.UDPConn, req []byte, match func([]byte) (bool, error)) error {
	buf := make([]byte, 1100) // PCP's largest message
	for range tries {
		if _, err := c.Write(req); err != nil {
			return err
		}
		deadline := time.Now().Add(answerWait)
		if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
			deadline = d
		}
		c.SetReadDeadline(deadline)
		for {
			n, err := c.Read(buf)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					break
				}
				return err
			}
			if ok, err := match(buf[:n]); ok || err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return ErrNoAnswer
}

// PCP (RFC 6887): a 24-byte header and the 36-byte MAP opcode body.
const (
	pcpVersion  = 2
	pcpOpMap    = 1
	pcpResponse = 0x80
	pcpUnsuppV  = 1 // UNSUPP_VERSION
	pcpMapLen   = 24 + 36
	protoTCP    = 6
)

func mapPCP(ctx context.Context, c *net.UDPConn, client netip.Addr, internal uint16, lifetime time.Duration) (Mapping, error) {
	req := make([]byte, pcpMapLen)
	req[0], req[1] = pcpVersion, pcpOpMap
	binary.BigEndian.PutUint32(req[4:], uint32(lifetime/time.Second))
	ip16 := netip.AddrFrom16(client.As16())
	if client.Is4() {
		ip16 = netip.AddrFrom16(netip.AddrFrom4(client.As4()).As16()) // IPv4-mapped
	}
	b := ip16.As16()
	copy(req[8:24], b[:])
	nonce := req[24:36]
	rand.Read(nonce)
	req[36] = protoTCP
	binary.BigEndian.PutUint16(req[40:], internal)
	binary.BigEndian.PutUint16(req[42:], internal) // suggested external port
	if client.Is4() {
		any4 := netip.AddrFrom16(netip.AddrFrom4([4]byte{}).As16()).As16() // ::ffff:0.0.0.0
		copy(req[44:60], any4[:])
	}
	var m Mapping
	err := exchange(ctx, c, req, func(r []byte) (ok bool, err error) {
		m, ok, err = parsePCPMap(r, nonce)
		return ok, err
	})
	return m, err
}

// parsePCPMap reads a gateway's answer to the MAP request with nonce; ok
// is false for a datagram that is not that answer.
func parsePCPMap(r, nonce []byte) (m Mapping, ok bool, err error) {
	// A gateway of another version says so in its own format; a NAT-PMP
	// one (version 0) puts result 1 in the same byte.
	if len(r) >= 4 && r[0] != pcpVersion && r[3] == pcpUnsuppV {
		return Mapping{}, true, ErrUnsupportedVersion
	}
	if len(r) < pcpMapLen || r[0] != pcpVersion || r[1] != pcpResponse|pcpOpMap || string(r[24:36]) != string(nonce) {
		return Mapping{}, false, nil
	}
	if r[3] != 0 {
		return Mapping{}, true, &ResultError{Proto: "PCP", Code: int(r[3])}
	}
	ext := netip.AddrFrom16([16]byte(r[44:60])).Unmap()
	return Mapping{
		External: netip.AddrPortFrom(ext, binary.BigEndian.Uint16(r[42:])),
		Lifetime: time.Duration(binary.BigEndian.Uint32(r[4:])) * time.Second,
		Proto:    "PCP",
	}, true, nil
}

// NAT-PMP (RFC 6886): the public address, then a TCP mapping.
const (
	natpmpOpAddr = 0
	natpmpOpTCP  = 2
)

func mapNATPMP(ctx context.Context, c *net.UDPConn, internal uint16, lifetime time.Duration) (Mapping, error) {
	var ext netip.Addr
	err := exchange(ctx, c, []byte{0, natpmpOpAddr}, func(r []byte) (ok bool, err error) {
		ext, ok, err = parseNATPMPAddr(r)
		return ok, err
	})
	if err != nil {
		return Mapping{}, err
	}
	req := make([]byte, 12)
	req[1] = natpmpOpTCP
	binary.BigEndian.PutUint16(req[4:], internal)
	binary.BigEndian.PutUint16(req[6:], internal)
	binary.BigEndian.PutUint32(req[8:], uint32(lifetime/time.Second))
	var m Mapping
	err = exchange(ctx, c, req, func(r []byte) (ok bool, err error) {
		m, ok, err = parseNATPMPMap(r, ext, internal)
		return ok, err
	})
	return m, err
}

// parseNATPMPAddr reads the answer to the public address request.
func parseNATPMPAddr(r []byte) (ext netip.Addr, ok bool, err error) {
	if len(r) < 12 || r[0] != 0 || r[1] != 128+natpmpOpAddr {
		return netip.Addr{}, false, nil
	}
	if code := binary.BigEndian.Uint16(r[2:]); code != 0 {
		return netip.Addr{}, true, &ResultError{Proto: "NAT-PMP", Code: int(code)}
	}
	return netip.AddrFrom4([4]byte(r[8:12])), true, nil
}

// parseNATPMPMap reads the answer to the TCP mapping request for the
// internal port; ext is the public address learned before.
func parseNATPMPMap(r []byte, ext netip.Addr, internal uint16) (m Mapping, ok bool, err error) {
	if len(r) < 16 || r[0] != 0 || r[1] != 128+natpmpOpTCP || binary.BigEndian.Uint16(r[8:]) != internal {
		return Mapping{}, false, nil
	}
	if code := binary.BigEndian.Uint16(r[2:]); code != 0 {
		return Mapping{}, true, &ResultError{Proto: "NAT-PMP", Code: int(code)}
	}
	return Mapping{
		External: netip.AddrPortFrom(ext, binary.BigEndian.Uint16(r[10:])),
		Lifetime: time.Duration(binary.BigEndian.Uint32(r[12:])) * time.Second,
		Proto:    "NAT-PMP",
	}, true, nil
}
