package connmgr

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// SOCKS5 constants from RFC 1928 and RFC 1929.
const (
	socksVersion        = 5
	socksAuthNone       = 0x00
	socksAuthPassword   = 0x02
	socksAuthNoAccept   = 0xff
	socksPasswordVer    = 1
	socksCmdConnect     = 1
	socksAtypIPv4       = 1
	socksAtypDomain     = 3
	socksAtypIPv6       = 4
	socksMaxCredLen     = 255
	defaultProxyTimeout = 30 * time.Second
)

// socksReplies names the reply codes of RFC 1928 section 6.
var socksReplies = [...]string{
	1: "general SOCKS server failure",
	2: "connection not allowed by ruleset",
	3: "network unreachable",
	4: "host unreachable",
	5: "connection refused",
	6: "TTL expired",
	7: "command not supported",
	8: "address type not supported",
}

// UnixProxyPrefix starts a Proxy.Addr that names a Unix socket
// ("unix:/run/tor/socks", as bitcoind's -proxy and -onion take it).
const UnixProxyPrefix = "unix:"

// Proxy is a SOCKS5 proxy client (RFC 1928 CONNECT with no authentication
// or RFC 1929 username/password).
type Proxy struct {
	// Addr is the proxy's host:port, or UnixProxyPrefix and the path of
	// a Unix socket.
	Addr string
	// Username and Password select username/password authentication when
	// either is set.
	Username, Password string
	// TorIsolation sends fresh random credentials on every connection so
	// Tor puts each one on its own circuit (stream isolation). It overrides
	// Username and Password.
	TorIsolation bool
	// Dial reaches the proxy; nil means a plain TCP dial. Tests inject one.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// DialContext connects to addr (host:port; the host may be a name, which
// the proxy resolves, such as a .onion address) through the proxy.
func (p *Proxy) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidAddress, err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("%w: bad port in %q", ErrInvalidAddress, addr)
	}
	if len(host) > 255 {
		return nil, fmt.Errorf("%w: host name too long", ErrInvalidAddress)
	}
	dial := p.Dial
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	proxyNet, proxyAddr := "tcp", p.Addr
	if path, ok := strings.CutPrefix(p.Addr, UnixProxyPrefix); ok {
		proxyNet, proxyAddr = "unix", path
	}
	conn, err := dial(ctx, proxyNet, proxyAddr)
	if err != nil {
		return nil, fmt.Errorf("%w: dialing proxy %s: %v", ErrProxy, p.Addr, err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(defaultProxyTimeout)
	}
	conn.SetDeadline(deadline)
	// Abort the handshake if the context ends before the deadline does.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	err = p.handshake(conn, host, uint16(port))
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}

func (p *Proxy) handshake(conn net.Conn, host string, port uint16) error {
	user, pass := p.Username, p.Password
	if p.TorIsolation {
		var r [16]byte
		rand.Read(r[:])
		user, pass = hex.EncodeToString(r[:8]), hex.EncodeToString(r[8:])
	}
	if len(user) > socksMaxCredLen || len(pass) > socksMaxCredLen {
		return fmt.Errorf("%w: proxy credentials longer than 255 bytes", ErrProxy)
	}
	withAuth := user != "" || pass != ""

	// Method negotiation: offer password auth only when we have
	// credentials, so a no-auth proxy cannot be talked into a downgrade we
	// did not intend.
	greeting := []byte{socksVersion, 1, socksAuthNone}
	if withAuth {
		greeting = []byte{socksVersion, 2, socksAuthNone, socksAuthPassword}
	}
	if _, err := conn.Write(greeting); err != nil {
		return fmt.Errorf("%w: %v", ErrProxy, err)
	}
	var resp [2]byte
	if _, err := io.ReadFull(conn, resp[:]); err != nil {
		return fmt.Errorf("%w: reading method: %v", ErrProxy, err)
	}
	if resp[0] != socksVersion {
		return fmt.Errorf("%w: proxy speaks SOCKS version %d", ErrProxy, resp[0])
	}
	switch resp[1] {
	case socksAuthNone:
	case socksAuthPassword:
		if !withAuth {
			return fmt.Errorf("%w: proxy chose password authentication we did not offer", ErrProxy)
		}
		msg := make([]byte, 0, 3+len(user)+len(pass))
		msg = append(msg, socksPasswordVer, byte(len(user)))
		msg = append(msg, user...)
		msg = append(msg, byte(len(pass)))
		msg = append(msg, pass...)
		if _, err := conn.Write(msg); err != nil {
			return fmt.Errorf("%w: %v", ErrProxy, err)
		}
		if _, err := io.ReadFull(conn, resp[:]); err != nil {
			return fmt.Errorf("%w: reading auth status: %v", ErrProxy, err)
		}
		if resp[1] != 0 {
			return fmt.Errorf("%w: proxy rejected the credentials", ErrProxyAuth)
		}
	case socksAuthNoAccept:
		return fmt.Errorf("%w: proxy accepted none of our methods", ErrProxyAuth)
	default:
		return fmt.Errorf("%w: proxy chose unknown method %#x", ErrProxy, resp[1])
	}

	// Every destination goes as a domain name, IP addresses in their
	// text form, as bitcoind sends them: a proxy sees one request shape,
	// and Tor resolves nothing locally either way.
	if ip, err := netip.ParseAddr(host); err == nil && ip.Zone() == "" {
		host = ip.Unmap().String()
	}
	req := make([]byte, 0, 7+len(host))
	req = append(req, socksVersion, socksCmdConnect, 0, socksAtypDomain, byte(len(host)))
	req = append(req, host...)
	req = binary.BigEndian.AppendUint16(req, port)
	if _, err := conn.Write(req); err != nil {
		return fmt.Errorf("%w: %v", ErrProxy, err)
	}

	var hdr [4]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return fmt.Errorf("%w: reading reply: %v", ErrProxy, err)
	}
	if hdr[0] != socksVersion {
		return fmt.Errorf("%w: bad reply version %d", ErrProxy, hdr[0])
	}
	if hdr[1] != 0 {
		msg := "unknown error"
		if int(hdr[1]) < len(socksReplies) && socksReplies[hdr[1]] != "" {
			msg = socksReplies[hdr[1]]
		}
		return fmt.Errorf("%w: %s (code %d)", ErrProxyConnect, msg, hdr[1])
	}
	// Skip the bound address; its length depends on its type.
	var skip int
	switch hdr[3] {
	case socksAtypIPv4:
		skip = 4
	case socksAtypIPv6:
		skip = 16
	case socksAtypDomain:
		var l [1]byte
		if _, err := io.ReadFull(conn, l[:]); err != nil {
			return fmt.Errorf("%w: reading reply: %v", ErrProxy, err)
		}
		skip = int(l[0])
	default:
		return fmt.Errorf("%w: bad address type %d in reply", ErrProxy, hdr[3])
	}
	var buf [255 + 2]byte
	if _, err := io.ReadFull(conn, buf[:skip+2]); err != nil {
		return fmt.Errorf("%w: reading reply: %v", ErrProxy, err)
	}
	return nil
}
