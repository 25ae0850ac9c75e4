package i2p

import (
	"bufio"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
)

// Limits on what the bridge may send.
const (
	// MaxLineLen bounds every line read from the bridge, newline
	// included; real replies are a few kilobytes at most.
	MaxLineLen = 64 << 10
	// MaxDestLen bounds a public destination in its binary form: 387
	// bytes of keys and certificate header plus the certificate's
	// payload, a few bytes for the key certificates in use.
	MaxDestLen = 1024
	// MaxPrivLen bounds a private destination (the public destination
	// followed by its private keys) in its binary form.
	MaxPrivLen = 4096
	// destFixedLen is the part of a destination before the certificate
	// payload: a 256-byte public key, a 128-byte signing key, the
	// certificate type and its 2-byte length.
	destFixedLen = 256 + 128 + 1 + 2
)

// SAM31Port is the port every I2P peer address carries: SAM 3.1 streams
// have no ports, so any other port is not a real I2P peer.
const SAM31Port = 0

// i2pBase64 is I2P's base64: standard, with '-' and '~' for '+' and '/'.
var i2pBase64 = base64.NewEncoding("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-~")

// b32Encoding is the lower-case, unpadded base32 of .b32.i2p names.
var b32Encoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Reply is one parsed line from the bridge: its two topic words
// ("STREAM STATUS") and its KEY=VALUE arguments.
type Reply struct {
	Topic string
	Args  map[string]string
}

// ParseReply parses a SAM reply line (without its newline). Values may
// be quoted ("MESSAGE=\"no such session\""); a key without '=' is kept
// with an empty value.
func ParseReply(line string) (Reply, error) {
	if len(line) > MaxLineLen {
		return Reply{}, newErr(ErrProtocol, nil, "SAM reply line too long")
	}
	line = strings.TrimRight(line, "\r")
	var words []string
	for i := 0; i < len(line); {
		if line[i] == ' ' {
			i++
			continue
		}
		start := i
		inQuote := false
		for i < len(line) && (inQuote || line[i] != ' ') {
			if line[i] == '"' {
				inQuote = !inQuote
			}
			i++
		}
		if inQuote {
			return Reply{}, newErr(ErrProtocol, nil, "SAM reply has an unterminated quote")
		}
		words = append(words, line[start:i])
	}
	if len(words) < 2 {
		return Reply{}, newErr(ErrProtocol, nil, fmt.Sprintf("malformed SAM reply %q", truncate(line)))
	}
	for _, w := range words[:2] {
		if strings.ContainsAny(w, "=\"") {
			return Reply{}, newErr(ErrProtocol, nil, fmt.Sprintf("malformed SAM reply %q", truncate(line)))
		}
	}
	r := Reply{Topic: words[0] + " " + words[1], Args: make(map[string]string, len(words)-2)}
	for _, w := range words[2:] {
		k, v, _ := strings.Cut(w, "=")
		if k == "" {
			return Reply{}, newErr(ErrProtocol, nil, fmt.Sprintf("malformed SAM reply %q", truncate(line)))
		}
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		r.Args[k] = v
	}
	return r, nil
}

// truncate shortens untrusted text before it goes into an error message.
func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// readLine reads one newline-terminated line of at most MaxLineLen bytes.
func readLine(r *bufio.Reader) (string, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineLen {
			return "", newErr(ErrProtocol, nil, "SAM reply line too long")
		}
		buf = append(buf, chunk...)
		switch err {
		case nil:
			return strings.TrimRight(string(buf[:len(buf)-1]), "\r"), nil
		case bufio.ErrBufferFull:
			continue
		default:
			return "", newErr(ErrProtocol, err, fmt.Sprintf("SAM bridge connection lost: %v", err))
		}
	}
}

// decodeDest decodes an I2P base64 destination of at most max bytes.
func decodeDest(s string, max int) ([]byte, error) {
	if i2pBase64.DecodedLen(len(s)) > max+3 {
		return nil, newErr(ErrProtocol, nil, "SAM destination too long")
	}
	b, err := i2pBase64.DecodeString(s)
	if err != nil {
		return nil, newErr(ErrProtocol, err, "SAM destination is not valid I2P base64")
	}
	if len(b) > max {
		return nil, newErr(ErrProtocol, nil, "SAM destination too long")
	}
	return b, nil
}

// publicOf returns the public destination at the start of priv (or priv
// itself when it is just a destination), as its certificate length says.
func publicOf(priv []byte) ([]byte, error) {
	if len(priv) < destFixedLen {
		return nil, newErr(ErrProtocol, nil, "I2P destination too short")
	}
	n := destFixedLen + int(binary.BigEndian.Uint16(priv[destFixedLen-2:destFixedLen]))
	if n > len(priv) || n > MaxDestLen {
		return nil, newErr(ErrProtocol, nil, "I2P destination certificate length out of range")
	}
	return priv[:n], nil
}

// B32Address returns the .b32.i2p name of a binary public destination.
func B32Address(dest []byte) string {
	h := sha256.Sum256(dest)
	return b32Encoding.EncodeToString(h[:]) + ".b32.i2p"
}

// IsI2PHost reports whether host is a .b32.i2p name.
func IsI2PHost(host string) bool {
	return strings.HasSuffix(strings.ToLower(host), ".b32.i2p")
}

// validB32 checks that host is 52 base32 characters then ".b32.i2p".
func validB32(host string) bool {
	h := strings.ToLower(host)
	if !strings.HasSuffix(h, ".b32.i2p") {
		return false
	}
	b, err := b32Encoding.DecodeString(strings.TrimSuffix(h, ".b32.i2p"))
	return err == nil && len(b) == 32
}

// Addr is an I2P endpoint as a net.Addr: "<name>.b32.i2p:0".
type Addr struct{ Host string }

// Network returns "i2p".
func (a Addr) Network() string { return "i2p" }

// String returns host:0, the form every I2P peer address takes.
func (a Addr) String() string { return net.JoinHostPort(a.Host, "0") }

// conn is a stream through the bridge: reads first drain what the
// handshake's reader buffered past the bridge's last reply line.
type conn struct {
	net.Conn
	r             *bufio.Reader
	local, remote Addr
}

func (c *conn) Read(p []byte) (int, error) { return c.r.Read(p) }

// LocalAddr returns our own .b32.i2p address.
func (c *conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr returns the peer's .b32.i2p address.
func (c *conn) RemoteAddr() net.Addr { return c.remote }
