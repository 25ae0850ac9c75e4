package peer

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/internal/clock"

	"github.com/btcnode/btcd/peer/v2transport"
	"github.com/btcnode/btcd/wire"
)

// Transport names as getpeerinfo's transport_protocol_type reports them.
const (
	TransportDetecting = "detecting"
	TransportV1        = "v1"
	TransportV2        = "v2"
)

// ErrV2Handshake marks a disconnection because the BIP324 handshake
// failed; for an outbound peer the caller may retry in v1.
var ErrV2Handshake = errors.New("v2 handshake failed")

// Transport returns "v1", "v2" or, while an inbound v2-capable
// connection has not shown which it speaks, "detecting".
func (p *Peer) Transport() string {
	if t, ok := p.transport.Load().(string); ok {
		return t
	}
	if p.cfg.V2 {
		if p.inbound {
			return TransportDetecting
		}
		return TransportV2
	}
	return TransportV1
}

// SessionID returns the hex BIP324 session id, "" unless the peer is v2.
func (p *Peer) SessionID() string {
	if !p.transportUp() || p.v2 == nil {
		return ""
	}
	return p.sessionIDHex()
}

// V2HandshakeFailed reports whether an outbound peer's connection ended
// during the BIP324 handshake (the peer hung up, sent what a v1 node
// sends, or timed out); Core then reconnects in v1.
func (p *Peer) V2HandshakeFailed() bool { return !p.inbound && p.v2Failed.Load() }

// countingConn counts a v2 connection's bytes as they cross the socket,
// so the statistics (and the inactivity checks, which look at the last
// send and receive) see the handshake while it is in progress; the
// per-message counters are kept by the reader and writer.
type countingConn struct {
	net.Conn
	p   *Peer
	off atomic.Bool // once the connection turned out to be v1
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && !c.off.Load() {
		c.p.noteRecv(n)
	}
	return n, err
}

// arrivalReader counts a v1 connection's received bytes as they are read
// from the socket, before the frame reader has a whole message
// (countingConn does this for v2).
type arrivalReader struct {
	r io.Reader
	p *Peer
}

func (a arrivalReader) Read(b []byte) (int, error) {
	n, err := a.r.Read(b)
	if n > 0 {
		a.p.noteRecv(n)
	}
	return n, err
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if n > 0 && !c.off.Load() {
		c.p.bytesSent.Add(uint64(n))
		c.p.lastSend.Store(clock.Now().UnixNano())
	}
	return n, err
}

// countMsg records a v2 message in the per-command counters (the totals
// come from countingConn).
func (p *Peer) countMsg(recv bool, cmd string, n int) {
	m := p.sentPerCmd
	if recv {
		m = p.recvPerCmd
	}
	p.mu.Lock()
	if _, ok := m[cmd]; ok || len(m) < 64 {
		m[cmd] += uint64(n)
	} else {
		m["*other*"] += uint64(n)
	}
	p.mu.Unlock()
}

// waitTransport blocks the writer until the transport is settled,
// running the timers meanwhile so a stalled v2 handshake is dropped.
func (p *Peer) waitTransport(tick <-chan time.Time) bool {
	for {
		select {
		case <-p.quit:
			return false
		case <-p.transportReady:
			return true
		case <-tick:
			p.timers(clock.Now())
		case <-clock.Changed():
			p.timers(clock.Now())
		}
	}
}

// usesV2 reports whether messages go out through a v2 session; before
// the transport is settled it is false.
func (p *Peer) usesV2() bool { return p.transportUp() && p.v2 != nil }

func (p *Peer) transportUp() bool {
	select {
	case <-p.transportReady:
		return true
	default:
		return false
	}
}

// setupTransport decides the connection's framing before any message is
// read or written: v1 directly, or the BIP324 handshake, which for an
// inbound peer falls back to v1 when the peer opens with a v1 version
// header (those bytes are replayed into the v1 reader). It reports
// whether the connection is usable.
func (p *Peer) setupTransport() bool {
	p.rd = arrivalReader{r: p.conn, p: p}
	if !p.cfg.V2 {
		p.transport.Store(TransportV1)
		close(p.transportReady)
		return true
	}
	// The handshake has no deadline of its own: the writer's timers
	// drop a connection that has not finished it within -peertimeout on
	// the node clock, as Core does.
	cc := &countingConn{Conn: p.conn, p: p}
	s, err := v2transport.NewSession(cc, &v2transport.Config{
		Net:       p.cfg.Net,
		Initiator: !p.inbound,
		GetBuffer: wire.GetBuffer,
		PutBuffer: wire.PutBuffer,
	})
	var v1 *v2transport.V1PeerError
	switch {
	case errors.As(err, &v1):
		// The bytes read while detecting v1 were counted as they
		// arrived; the v1 reader is given them again, uncounted.
		cc.off.Store(true)
		p.rd = io.MultiReader(bytes.NewReader(v1.Received), arrivalReader{r: p.conn, p: p})
		p.transport.Store(TransportV1)
	case err != nil:
		p.v2Failed.Store(true)
		if p.Connected() {
			p.cfg.Log.Debugf("V2 transport error: %s, peer=%d", v2Reason(err), p.id)
			p.disconnect(fmt.Errorf("%w: %w: %v", ErrConnection, ErrV2Handshake, err))
		}
		return false
	default:
		p.v2 = s
		p.transport.Store(TransportV2)
		p.cfg.Log.Debugf("v2 session with peer=%d, session id %s", p.id, p.sessionIDHex())
	}
	close(p.transportReady)
	return true
}

func (p *Peer) sessionIDHex() string {
	id := p.v2.SessionID()
	return hex.EncodeToString(id[:])
}

// readFrameV2 reads the next message from the v2 session. Messages of
// an unknown type are counted and dropped, as Core does; any other
// error ends the connection.
func (p *Peer) readFrameV2() (f frame, ok bool) {
	for {
		cmd, bp, n, err := p.v2.ReadMessageBuf()
		if errors.Is(err, v2transport.ErrUnknownMessageType) {
			p.cfg.Log.Debugf("dropped v2 message of unknown type from peer=%d: %v", p.id, err)
			continue
		}
		if err != nil {
			if errors.Is(err, v2transport.ErrBadMAC) || errors.Is(err, v2transport.ErrPacketTooLarge) {
				p.cfg.Log.Debugf("V2 transport error: %s, peer=%d", v2Reason(err), p.id)
				p.disconnect(fmt.Errorf("%w: %v", ErrBadMessage, err))
				return f, false
			}
			p.readFailed(err)
			return f, false
		}
		if !p.checkLength(cmd, uint32(len(*bp)), n) {
			wire.PutBuffer(bp)
			return f, false
		}
		p.countMsg(true, cmd, n)
		if p.debug() {
			p.cfg.Log.Debugf("received: %s (%d bytes) peer=%d", cmd, len(*bp), p.id)
		}
		if l := p.cfg.Listeners.OnCapture; l != nil {
			l(p, false, cmd, *bp)
		}
		return frame{cmd: cmd, buf: bp, n: n}, true
	}
}

// v2Reason words a session error as Core's log lines do.
func v2Reason(err error) string {
	switch {
	case errors.Is(err, v2transport.ErrNoTerminator):
		return "missing garbage terminator"
	case errors.Is(err, v2transport.ErrBadMAC):
		return "packet decryption failure"
	case errors.Is(err, v2transport.ErrPacketTooLarge):
		return "packet too large"
	}
	return err.Error()
}
