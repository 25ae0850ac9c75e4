package i2p

import (
	"context"
	"errors"
	"net"
	"time"
)

// Backoff between failed attempts to accept, so a missing or broken
// bridge is retried without spinning.
const (
	acceptRetryMin = time.Second
	acceptRetryMax = 5 * time.Minute
)

// Listener hands out inbound streams of a persistent session as a
// net.Listener, so they take the same path as inbound TCP connections.
// Bridge failures are logged and retried with back-off inside Accept.
type Listener struct {
	s      *Session
	ctx    context.Context
	cancel context.CancelFunc
}

// Listen returns a listener for the session's inbound streams; the
// session must be persistent.
func (s *Session) Listen() (*Listener, error) {
	if !s.Persistent() {
		return nil, newErr(ErrNotPersistent, nil, string(ErrNotPersistent))
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Listener{s: s, ctx: ctx, cancel: cancel}, nil
}

// Accept waits for the next inbound stream. It returns net.ErrClosed
// once the listener is closed.
func (l *Listener) Accept() (net.Conn, error) {
	wait := acceptRetryMin
	for {
		c, err := l.s.accept(l.ctx)
		if err == nil {
			return c, nil
		}
		if l.ctx.Err() != nil || errors.Is(err, ErrClosed) {
			return nil, net.ErrClosed
		}
		logger().Debugf("Error accepting I2P stream: %v", err)
		select {
		case <-l.ctx.Done():
			return nil, net.ErrClosed
		case <-time.After(wait):
		}
		wait = min(2*wait, acceptRetryMax)
	}
}

// Close stops Accept; the session stays open for outbound streams.
func (l *Listener) Close() error {
	l.cancel()
	return nil
}

// Addr returns our .b32.i2p address (empty until the session exists).
func (l *Listener) Addr() net.Addr { return Addr{Host: l.s.LocalAddr()} }
