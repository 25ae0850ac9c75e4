package v2transport

import (
	"errors"
	"fmt"
)

const (
	// LengthLen is the size of the encrypted length field.
	LengthLen = 3
	// HeaderLen is the size of the packet header (the ignore bit).
	HeaderLen = 1
	// ignoreBit marks a decoy packet, which the receiver drops.
	ignoreBit = 1 << 7
	// maxContentsLen is what the 3-byte length field can express.
	maxContentsLen = 1<<24 - 1
	// commandLen is the size of a long-form (v1-style) command.
	commandLen = 12
)

// PacketOverhead is what a packet adds to its contents on the wire.
const PacketOverhead = LengthLen + HeaderLen + TagLen

// ErrPacketTooLarge is returned for a packet whose length field exceeds
// the session's limit.
var ErrPacketTooLarge = errors.New("v2transport: packet too large")

// ErrBadMAC is returned when a packet fails authentication.
var ErrBadMAC = errors.New("v2transport: packet authentication failed")

// cipherPair is one direction's length and packet ciphers.
type cipherPair struct {
	l *FSChaCha20
	p *FSChaCha20Poly1305
}

func newCipherPair(l, p [32]byte) cipherPair {
	return cipherPair{l: NewFSChaCha20(l[:]), p: NewFSChaCha20Poly1305(p[:])}
}

// encrypt appends the packet for contents to dst.
func (c *cipherPair) encrypt(dst, contents, aad []byte, ignore bool) []byte {
	start := len(dst)
	var hdr byte
	if ignore {
		hdr = ignoreBit
	}
	dst = append(dst, 0, 0, 0, hdr)
	dst = append(dst, contents...)
	return c.seal(dst, start, aad)
}

// seal turns buf[start:], laid out as a blank length field, the header
// byte and the contents, into the packet in place (the tag is appended).
func (c *cipherPair) seal(buf []byte, start int, aad []byte) []byte {
	n := len(buf) - start - LengthLen - HeaderLen
	lf := buf[start : start+LengthLen]
	lf[0], lf[1], lf[2] = byte(n), byte(n>>8), byte(n>>16)
	c.l.Crypt(lf, lf)
	at := start + LengthLen
	return c.p.Seal(buf[:at], buf[at:], aad)
}

// decryptLength decrypts a packet's length field; the result is the size
// of the contents (header and tag excluded).
func (c *cipherPair) decryptLength(enc []byte) int {
	var b [LengthLen]byte
	c.l.Crypt(b[:], enc[:LengthLen])
	return int(b[0]) | int(b[1])<<8 | int(b[2])<<16
}

// decrypt authenticates and decrypts header, contents and tag in place,
// returning the contents and whether the packet is a decoy.
func (c *cipherPair) decrypt(ct, aad []byte) (contents []byte, ignore bool, err error) {
	if len(ct) < HeaderLen+TagLen {
		return nil, false, ErrBadMAC
	}
	pt, err := c.p.Open(ct[:0], ct, aad)
	if err != nil {
		return nil, false, ErrBadMAC
	}
	return pt[HeaderLen:], pt[0]&ignoreBit != 0, nil
}

// shortIDs is BIP324's table of 1-byte message types, as Bitcoin Core
// assigns them (index 0 means a 12-byte command follows). The
// proposals in the BIP's further allocations (29 and up) are not used
// by Core and are sent in long form.
var shortIDs = [...]string{
	1: "addr", 2: "block", 3: "blocktxn", 4: "cmpctblock", 5: "feefilter",
	6: "filteradd", 7: "filterclear", 8: "filterload", 9: "getblocks",
	10: "getblocktxn", 11: "getdata", 12: "getheaders", 13: "headers",
	14: "inv", 15: "mempool", 16: "merkleblock", 17: "notfound",
	18: "ping", 19: "pong", 20: "sendcmpct", 21: "tx", 22: "getcfilters",
	23: "cfilter", 24: "getcfheaders", 25: "cfheaders", 26: "getcfcheckpt",
	27: "cfcheckpt", 28: "addrv2",
}

var shortIDOf = func() map[string]byte {
	m := make(map[string]byte, len(shortIDs))
	for i, s := range shortIDs {
		if s != "" {
			m[s] = byte(i)
		}
	}
	return m
}()

// ShortID returns the 1-byte message type for a command, or 0 when it
// has none.
func ShortID(cmd string) byte { return shortIDOf[cmd] }

// encodedTypeLen is the size the message type takes in a packet.
func encodedTypeLen(cmd string) int {
	if ShortID(cmd) != 0 {
		return 1
	}
	return 1 + commandLen
}

// appendType appends the message type for cmd. Commands without a short
// id must be at most 12 bytes.
func appendType(dst []byte, cmd string) ([]byte, error) {
	if id := ShortID(cmd); id != 0 {
		return append(dst, id), nil
	}
	if len(cmd) > commandLen {
		return dst, fmt.Errorf("v2transport: command %q longer than %d bytes", cmd, commandLen)
	}
	dst = append(dst, 0)
	dst = append(dst, cmd...)
	for range commandLen - len(cmd) {
		dst = append(dst, 0)
	}
	return dst, nil
}

// ErrUnknownMessageType is returned for contents whose message type is
// an unassigned short id or a malformed 12-byte command; the session
// stays usable (Core drops such messages and keeps the connection).
var ErrUnknownMessageType = errors.New("v2transport: unknown message type")

// ParseContents splits application packet contents into command and
// payload. The payload aliases contents.
func ParseContents(contents []byte) (cmd string, payload []byte, err error) {
	if len(contents) == 0 {
		return "", nil, ErrUnknownMessageType
	}
	if id := contents[0]; id != 0 {
		if int(id) >= len(shortIDs) || shortIDs[id] == "" {
			return "", nil, fmt.Errorf("%w: short id %d", ErrUnknownMessageType, id)
		}
		return shortIDs[id], contents[1:], nil
	}
	if len(contents) < 1+commandLen {
		return "", nil, fmt.Errorf("%w: truncated command", ErrUnknownMessageType)
	}
	raw := contents[1 : 1+commandLen]
	// Printable ASCII, then only NUL padding (Core's rule for v1 and v2).
	n := 0
	for n < commandLen && raw[n] != 0 {
		if raw[n] < ' ' || raw[n] > 0x7e {
			return "", nil, fmt.Errorf("%w: bad command byte", ErrUnknownMessageType)
		}
		n++
	}
	for _, b := range raw[n:] {
		if b != 0 {
			return "", nil, fmt.Errorf("%w: bad command padding", ErrUnknownMessageType)
		}
	}
	if n == 0 {
		return "", nil, fmt.Errorf("%w: empty command", ErrUnknownMessageType)
	}
	return string(raw[:n]), contents[1+commandLen:], nil
}
