package peer

import (
	"encoding/binary"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// The peer's timers all run on the node clock (internal/clock) so that
// setmocktime moves them as it moves Core's: the writer calls timers on a
// short real-time tick and whenever the mock time changes, and the reader
// before each message it handles.

// timers runs the time-driven checks: the inactivity timeouts, then, once
// the handshake is done, the addr-fetch timeout, pings and address sends.
func (p *Peer) timers(now time.Time) {
	if !p.Connected() || p.inactivityCheck(now) {
		return
	}
	if !p.handshakeComplete() {
		return
	}
	if p.connType == ConnAddrFetch && now.Sub(p.connTime) > addrFetchTimeout {
		p.cfg.Log.Debugf("addrfetch connection timeout, disconnecting peer=%d", p.id)
		p.disconnectf(ErrFeelerDone, "addrfetch connection timed out")
		return
	}
	p.maybePing(now)
	if p.Connected() {
		p.maybeTrickle(now)
	}
	if p.Connected() {
		p.maybeSendAddr(now)
	}
	if p.Connected() {
		p.maybeSendFeeFilter(now)
	}
}

// inactivityChecksDue reports whether the connection is older than the
// -peertimeout grace period, after which Core starts judging it.
func (p *Peer) inactivityChecksDue(now time.Time) bool {
	return now.After(p.connTime.Add(p.cfg.HandshakeTimeout))
}

// inactivityCheck disconnects, with Core's log line, a connection past
// its grace period that has not exchanged a message each way, has sent
// or received nothing for the idle timeout, or has not finished the
// handshake. It reports whether it disconnected.
func (p *Peer) inactivityCheck(now time.Time) bool {
	if !p.inactivityChecksDue(now) {
		return false
	}
	lastSend, lastRecv := p.lastSend.Load(), p.lastRecv.Load()
	switch {
	case lastSend == 0 || lastRecv == 0:
		never := ""
		if lastRecv == 0 {
			never += ", never received from peer"
		}
		if lastSend == 0 {
			never += ", never sent to peer"
		}
		secs := int64(p.cfg.HandshakeTimeout / time.Second)
		p.cfg.Log.Debugf("socket no message in first %d seconds%s, disconnecting peer=%d", secs, never, p.id)
		p.disconnectf(ErrHandshakeTimeout, "no message in the first %v%s", p.cfg.HandshakeTimeout, never)
	case now.Sub(time.Unix(0, lastSend)) > p.cfg.IdleTimeout:
		secs := int64(now.Sub(time.Unix(0, lastSend)) / time.Second)
		p.cfg.Log.Debugf("socket sending timeout: %ds, disconnecting peer=%d", secs, p.id)
		p.disconnectf(ErrIdleTimeout, "nothing sent for %ds", secs)
	case now.Sub(time.Unix(0, lastRecv)) > p.cfg.IdleTimeout:
		secs := int64(now.Sub(time.Unix(0, lastRecv)) / time.Second)
		p.cfg.Log.Debugf("socket receive timeout: %ds, disconnecting peer=%d", secs, p.id)
		p.disconnectf(ErrIdleTimeout, "nothing received for %ds", secs)
	case !p.handshakeComplete() && !p.transportUp():
		p.cfg.Log.Debugf("V2 handshake timeout, disconnecting peer=%d", p.id)
		p.disconnectf(ErrHandshakeTimeout, "no v2 handshake within %v", p.cfg.HandshakeTimeout)
	case !p.handshakeComplete():
		p.cfg.Log.Debugf("version handshake timeout, disconnecting peer=%d", p.id)
		p.disconnectf(ErrHandshakeTimeout, "no handshake within %v", p.cfg.HandshakeTimeout)
	default:
		return false
	}
	return true
}

// maybePing disconnects a peer that left a ping unanswered past the ping
// timeout, and otherwise sends a ping when none is outstanding and the
// ping interval has passed since the last one (at once after the
// handshake, which gives getpeerinfo a latency early).
func (p *Peer) maybePing(now time.Time) {
	p.mu.Lock()
	if p.pingNonce != 0 {
		waited := now.Sub(p.pingStart)
		p.mu.Unlock()
		if waited > p.cfg.PingTimeout && p.inactivityChecksDue(now) {
			p.cfg.Log.Infof("ping timeout: %fs, disconnecting peer=%d", waited.Seconds(), p.id)
			p.disconnectf(ErrPingTimeout, "no pong for %v", waited)
		}
		return
	}
	if !p.pingStart.IsZero() && !now.After(p.pingStart.Add(p.cfg.PingInterval)) {
		p.mu.Unlock()
		return
	}
	nonce := randUint64()
	p.pingNonce, p.pingStart = nonce, now
	p.mu.Unlock()
	p.QueueMessage(&wire.MsgPing{Nonce: nonce}, nil)
}

// PingNow sends a ping with a fresh nonce at once (the ping RPC), as
// Core's queued ping does: it replaces any outstanding ping, so the pong
// that answers it sets the ping time and the wait restarts from now. It
// does nothing before the handshake completes, which pings anyway.
func (p *Peer) PingNow() {
	if !p.handshakeComplete() || !p.Connected() {
		return
	}
	nonce := randUint64()
	p.mu.Lock()
	p.pingNonce, p.pingStart = nonce, clock.Now()
	p.mu.Unlock()
	p.QueueMessage(&wire.MsgPing{Nonce: nonce}, nil)
}

// handlePong matches a pong against the outstanding ping. As in Core a
// pong never disconnects: a payload too short for a nonce and a zero
// nonce both end the wait without a measurement, a wrong nonce leaves
// the ping outstanding, and an unsolicited pong is only logged. Bytes
// after the nonce are ignored.
func (p *Peer) handlePong(payload []byte, n int) {
	now := clock.Now()
	var nonce uint64
	if len(payload) >= 8 {
		nonce = binary.LittleEndian.Uint64(payload)
		p.observeRead(n, &wire.MsgPong{Nonce: nonce}, nil)
	}
	var problem string
	var rtt time.Duration
	measured := false
	p.mu.Lock()
	expected := p.pingNonce
	switch {
	case len(payload) < 8:
		problem = "Short payload"
		p.pingNonce = 0
	case expected == 0:
		problem = "Unsolicited pong without ping"
	case nonce == expected:
		p.pingNonce = 0
		if rtt = now.Sub(p.pingStart); rtt >= 0 {
			measured = true
			p.lastPingRTT = rtt
			if p.minPingRTT == 0 || rtt < p.minPingRTT {
				p.minPingRTT = rtt
			}
		} else {
			problem = "Timing mishap" // the node clock went back
		}
	case nonce == 0:
		// Core reads a zero nonce as the peer giving up on our ping.
		problem = "Nonce zero"
		p.pingNonce = 0
	default:
		problem = "Nonce mismatch"
	}
	p.mu.Unlock()
	if problem != "" {
		p.cfg.Log.Debugf("pong peer=%d: %s, %x expected, %x received, %d bytes", p.id, problem, expected, nonce, len(payload))
	}
	if l := p.cfg.Listeners.OnPong; measured && l != nil {
		l(p, rtt)
	}
}
