package zmq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// ZMTP 3.0 frame flags (RFC 23).
const (
	flagMore    = 0x01
	flagLong    = 0x02
	flagCommand = 0x04
)

// Limits on what a subscriber may send us. Subscribers only ever send the
// READY handshake command and (un)subscribe messages, so anything bigger is
// hostile or broken and the connection is dropped before allocating.
const (
	greetingSize     = 64
	maxInboundFrame  = 4096
	maxInboundFrames = 16
	maxSubscriptions = 64
	handshakeTimeout = 10 * time.Second
)

// appendFrameHeader appends the ZMTP header of a message frame of size n.
func appendFrameHeader(dst []byte, n int, more bool) []byte {
	var fl byte
	if more {
		fl = flagMore
	}
	if n > 255 {
		dst = append(dst, fl|flagLong)
		return binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	return append(dst, fl, byte(n))
}

// frameReader reads ZMTP frames from a subscriber with hard size limits.
// The buffer is reused between frames; callers must copy what they keep.
type frameReader struct {
	r   io.Reader
	hdr [9]byte
	buf []byte
}

// readFrame returns the next frame's flags and body. Bodies larger than
// maxInboundFrame fail with ErrProtocol before anything is read into memory.
func (fr *frameReader) readFrame() (byte, []byte, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:2]); err != nil {
		return 0, nil, err
	}
	fl := fr.hdr[0]
	if fl&^(flagMore|flagLong|flagCommand) != 0 {
		return 0, nil, fmt.Errorf("%w: reserved frame flags %#x", ErrProtocol, fl)
	}
	size := uint64(fr.hdr[1])
	if fl&flagLong != 0 {
		if _, err := io.ReadFull(fr.r, fr.hdr[2:9]); err != nil {
			return 0, nil, err
		}
		size = binary.BigEndian.Uint64(fr.hdr[1:9])
	}
	if size > maxInboundFrame {
		return 0, nil, fmt.Errorf("%w: %d-byte frame from subscriber", ErrProtocol, size)
	}
	if cap(fr.buf) < int(size) {
		fr.buf = make([]byte, maxInboundFrame)
	}
	body := fr.buf[:size]
	if _, err := io.ReadFull(fr.r, body); err != nil {
		return 0, nil, err
	}
	return fl, body, nil
}

// subChange is one subscription update parsed from a subscriber.
type subChange struct {
	subscribe bool
	topic     string
}

// parseSubscription interprets one complete inbound message (a single frame;
// multi-frame messages never carry subscriptions). ZMTP 3.0 peers send a
// message whose first byte is 1 (subscribe) or 0 (cancel); ZMTP 3.1 peers
// may send SUBSCRIBE/CANCEL commands instead. ok is false for anything
// else, which PUB sockets ignore.
func parseSubscription(flags byte, body []byte) (subChange, bool) {
	if flags&flagCommand != 0 {
		if len(body) < 1 || int(body[0]) > len(body)-1 {
			return subChange{}, false
		}
		name, rest := string(body[1:1+body[0]]), body[1+body[0]:]
		switch name {
		case "SUBSCRIBE":
			return subChange{subscribe: true, topic: string(rest)}, true
		case "CANCEL":
			return subChange{topic: string(rest)}, true
		}
		return subChange{}, false
	}
	if len(body) == 0 || body[0] > 1 {
		return subChange{}, false
	}
	return subChange{subscribe: body[0] == 1, topic: string(body[1:])}, true
}

// handshakeGuard feeds zmq4's handshake code. zmq4 allocates a frame's
// body at whatever size the peer announces and trusts property lengths, so
// the guard lets through the 64-byte greeting and then exactly one frame
// (the peer's READY command), refusing oversized frames before zmq4 sees
// their length.
type handshakeGuard struct {
	net.Conn
	greeting int    // greeting bytes still to pass through
	pending  []byte // validated header bytes not yet handed out
	body     uint64 // body bytes of the current frame still to pass
	done     bool   // the single frame has been fully handed out
	hdr      [9]byte
}

func (g *handshakeGuard) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if g.greeting > 0 {
		if len(p) > g.greeting {
			p = p[:g.greeting]
		}
		n, err := g.Conn.Read(p)
		g.greeting -= n
		return n, err
	}
	if len(g.pending) > 0 {
		n := copy(p, g.pending)
		g.pending = g.pending[n:]
		return n, nil
	}
	if g.body > 0 {
		if uint64(len(p)) > g.body {
			p = p[:g.body]
		}
		n, err := g.Conn.Read(p)
		g.body -= uint64(n)
		if g.body == 0 {
			g.done = true
		}
		return n, err
	}
	if g.done {
		return 0, fmt.Errorf("%w: unexpected data during handshake", ErrProtocol)
	}
	// Start of the READY frame: read and check its header first.
	if _, err := io.ReadFull(g.Conn, g.hdr[:2]); err != nil {
		return 0, err
	}
	hl := 2
	size := uint64(g.hdr[1])
	if g.hdr[0]&flagLong != 0 {
		if _, err := io.ReadFull(g.Conn, g.hdr[2:9]); err != nil {
			return 0, err
		}
		hl = 9
		size = binary.BigEndian.Uint64(g.hdr[1:9])
	}
	if size > maxInboundFrame || g.hdr[0]&flagMore != 0 {
		return 0, fmt.Errorf("%w: bad handshake frame (%d bytes)", ErrProtocol, size)
	}
	g.body = size
	g.done = size == 0
	g.pending = g.hdr[:hl]
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// handshake runs the ZMTP 3.0 greeting and NULL-mechanism READY exchange
// as a PUB socket, using zmq4 for the protocol and the guard for limits.
// zmq4 can panic on a malformed READY body, so panics become errors.
func handshake(c net.Conn) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: malformed handshake: %v", ErrProtocol, r)
		}
	}()
	if err := c.SetDeadline(time.Now().Add(handshakeTimeout)); err != nil {
		return err
	}
	g := &handshakeGuard{Conn: c, greeting: greetingSize}
	if _, err := zmq4.Open(g, null.Security(), zmq4.Pub, zmq4.SocketIdentity(nil), true, nil); err != nil {
		return err
	}
	if g.body != 0 || len(g.pending) != 0 {
		return errors.Join(ErrProtocol, errors.New("handshake frame not fully consumed"))
	}
	return c.SetDeadline(time.Time{})
}
