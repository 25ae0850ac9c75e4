package i2p

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds each exchange with the bridge when Config gives
// none. Building tunnels for a new session or a first stream to a peer
// can take the router a while.
const DefaultTimeout = 3 * time.Minute

// Config describes a Session.
type Config struct {
	// SAMAddr is the bridge's host:port.
	SAMAddr string
	// KeyFile holds the persistent session's private destination; it is
	// created on first use. Empty means a transient session.
	KeyFile string
	// Timeout bounds dialing the bridge and each request and reply; zero
	// means DefaultTimeout.
	Timeout time.Duration
	// Dial opens connections to the bridge; nil means plain TCP.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Session is a SAM session: created on first use, re-created after the
// bridge drops it.
type Session struct {
	cfg Config

	mu      sync.Mutex
	control net.Conn // nil when no session exists
	id      string
	local   Addr
	closed  bool
}

// New returns a session that connects to the bridge when first used.
func New(cfg Config) *Session {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Dial == nil {
		var d net.Dialer
		cfg.Dial = d.DialContext
	}
	return &Session{cfg: cfg}
}

// Persistent reports whether the session keeps its key in a file (and so
// can take inbound streams).
func (s *Session) Persistent() bool { return s.cfg.KeyFile != "" }

// KeyFile returns where a persistent session keeps its private key ("" for
// a transient one).
func (s *Session) KeyFile() string { return s.cfg.KeyFile }

// SAMAddr returns the bridge's address.
func (s *Session) SAMAddr() string { return s.cfg.SAMAddr }

// LocalAddr returns our .b32.i2p address, or "" while no session exists.
func (s *Session) LocalAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.local.Host
}

// Close ends the SAM session; later calls fail with ErrClosed.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.dropLocked()
	return nil
}

func (s *Session) dropLocked() {
	if s.control != nil {
		s.control.Close()
		s.control = nil
		s.id = ""
	}
}

// drop forgets the session if it is still the one named id, so the next
// use builds a new one.
func (s *Session) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id == id {
		s.dropLocked()
	}
}

// bridge is one connection to the SAM bridge during its text exchange.
type bridge struct {
	c net.Conn
	r *bufio.Reader
}

// dialBridge connects to the bridge and says HELLO. The deadline set
// here covers the whole exchange until the caller clears it.
func (s *Session) dialBridge(ctx context.Context) (*bridge, error) {
	dctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	c, err := s.cfg.Dial(dctx, "tcp", s.cfg.SAMAddr)
	if err != nil {
		return nil, newErr(ErrBridgeUnreachable, err, "Cannot connect to "+s.cfg.SAMAddr)
	}
	deadline := time.Now().Add(s.cfg.Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.SetDeadline(deadline)
	b := &bridge{c: c, r: bufio.NewReaderSize(c, 4096)}
	if _, err := b.request(ctx, "HELLO VERSION MIN=3.1 MAX=3.1", "HELLO REPLY"); err != nil {
		c.Close()
		return nil, err
	}
	return b, nil
}

// request sends one command and reads its reply, which must have the
// topic want and RESULT=OK (when it has a RESULT). Cancelling ctx
// aborts the wait.
func (b *bridge) request(ctx context.Context, cmd, want string) (Reply, error) {
	stop := context.AfterFunc(ctx, func() { b.c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := b.c.Write([]byte(cmd + "\n")); err != nil {
		return Reply{}, newErr(ErrProtocol, err, fmt.Sprintf("SAM bridge connection lost: %v", err))
	}
	line, err := readLine(b.r)
	if err != nil {
		return Reply{}, err
	}
	r, err := ParseReply(line)
	if err != nil {
		return Reply{}, err
	}
	verb, _, _ := strings.Cut(cmd, " ")
	if r.Topic != want {
		return Reply{}, newErr(ErrProtocol, nil, fmt.Sprintf("unexpected reply to %s: %q", verb, truncate(line)))
	}
	if res, ok := r.Args["RESULT"]; ok && res != "OK" {
		msg := fmt.Sprintf("%s refused by SAM bridge: RESULT=%s", verb, truncate(res))
		if m := r.Args["MESSAGE"]; m != "" {
			msg += " (" + truncate(m) + ")"
		}
		return r, newErr(ErrRefused, nil, msg)
	}
	return r, nil
}

// ensure returns the live session's ID, creating the session first if
// there is none.
func (s *Session) ensure(ctx context.Context) (string, Addr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", Addr{}, newErr(ErrClosed, nil, string(ErrClosed))
	}
	if s.control != nil {
		return s.id, s.local, nil
	}
	var idb [5]byte
	rand.Read(idb[:])
	id := hex.EncodeToString(idb[:])
	// These words are bitcoind's, which its tests look for.
	if s.Persistent() {
		logger().Infof("Creating persistent SAM session %s with %s", id, s.cfg.SAMAddr)
	} else {
		logger().Infof("Creating transient SAM session %s with %s", id, s.cfg.SAMAddr)
	}
	b, err := s.dialBridge(ctx)
	if err != nil {
		return "", Addr{}, err
	}
	var priv []byte
	if s.Persistent() {
		if priv, err = s.loadOrGenerateKey(ctx, b); err != nil {
			b.c.Close()
			return "", Addr{}, err
		}
	}
	dest := "TRANSIENT"
	if priv != nil {
		dest = i2pBase64.EncodeToString(priv)
	}
	cmd := fmt.Sprintf("SESSION CREATE STYLE=STREAM ID=%s DESTINATION=%s SIGNATURE_TYPE=7", id, dest)
	if !s.Persistent() {
		// Outbound-only: few tunnels are enough.
		cmd += " i2cp.leaseSetEncType=4,0 inbound.quantity=1 outbound.quantity=1"
	} else {
		cmd += " i2cp.leaseSetEncType=4,0"
	}
	r, err := b.request(ctx, cmd, "SESSION STATUS")
	if err != nil {
		b.c.Close()
		return "", Addr{}, err
	}
	if priv == nil {
		if priv, err = decodeDest(r.Args["DESTINATION"], MaxPrivLen); err != nil {
			b.c.Close()
			return "", Addr{}, err
		}
	}
	pub, err := publicOf(priv)
	if err != nil {
		b.c.Close()
		return "", Addr{}, err
	}
	b.c.SetDeadline(time.Time{})
	s.control, s.id, s.local = b.c, id, Addr{Host: B32Address(pub)}
	logger().Infof("SAM session %s created, my address=%s", id, s.local)
	go s.watchControl(b, id)
	return id, s.local, nil
}

// watchControl keeps the control connection serviced: it answers the
// bridge's PINGs and, once the bridge closes it or sends garbage, drops
// the session (the bridge ends a session with its control connection).
func (s *Session) watchControl(b *bridge, id string) {
	defer s.drop(id)
	for {
		line, err := readLine(b.r)
		if err != nil {
			logger().Debugf("SAM session %s control connection: %v", id, err)
			return
		}
		if rest, ok := strings.CutPrefix(line, "PING"); ok {
			b.c.SetWriteDeadline(time.Now().Add(s.cfg.Timeout))
			if _, err := b.c.Write([]byte("PONG" + rest + "\n")); err != nil {
				return
			}
		}
	}
}

// loadOrGenerateKey reads the persistent private destination, or has the
// bridge generate one and saves it.
func (s *Session) loadOrGenerateKey(ctx context.Context, b *bridge) ([]byte, error) {
	data, err := os.ReadFile(s.cfg.KeyFile)
	if err == nil {
		if len(data) > MaxPrivLen {
			return nil, newErr(ErrKeyFile, nil, fmt.Sprintf("%s: too large for an I2P private key", s.cfg.KeyFile))
		}
		if _, err := publicOf(data); err != nil {
			return nil, newErr(ErrKeyFile, err, fmt.Sprintf("%s: not an I2P private key", s.cfg.KeyFile))
		}
		return data, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, newErr(ErrKeyFile, err, fmt.Sprintf("Cannot read %s: %v", s.cfg.KeyFile, err))
	}
	r, err := b.request(ctx, "DEST GENERATE SIGNATURE_TYPE=7", "DEST REPLY")
	if err != nil {
		return nil, err
	}
	priv, err := decodeDest(r.Args["PRIV"], MaxPrivLen)
	if err != nil {
		return nil, err
	}
	if _, err := publicOf(priv); err != nil {
		return nil, err
	}
	if err := os.WriteFile(s.cfg.KeyFile, priv, 0o600); err != nil {
		return nil, newErr(ErrKeyFile, err, fmt.Sprintf("Cannot save I2P private key to %s: %v", s.cfg.KeyFile, err))
	}
	logger().Infof("Saved new I2P private key to %s", s.cfg.KeyFile)
	return priv, nil
}

// Connect opens a stream to host, a .b32.i2p name (any port is ignored
// by the caller: I2P streams have none).
func (s *Session) Connect(ctx context.Context, host string) (net.Conn, error) {
	if !validB32(host) {
		return nil, newErr(ErrInvalidAddress, nil, fmt.Sprintf("%q is not a .b32.i2p address", truncate(host)))
	}
	b, local, err := s.openStream(ctx, "STREAM CONNECT", func(b *bridge) (string, error) {
		r, err := b.request(ctx, "NAMING LOOKUP NAME="+strings.ToLower(host), "NAMING REPLY")
		if err != nil {
			return "", err
		}
		destB64 := r.Args["VALUE"]
		dest, err := decodeDest(destB64, MaxDestLen)
		if err != nil {
			return "", err
		}
		if _, err := publicOf(dest); err != nil {
			return "", err
		}
		return destB64, nil
	})
	if err != nil {
		return nil, err
	}
	b.c.SetDeadline(time.Time{})
	return &conn{Conn: b.c, r: b.r, local: local, remote: Addr{Host: strings.ToLower(host)}}, nil
}

// openStream makes sure the session exists, opens a new socket to the
// bridge and sends verb (STREAM CONNECT or STREAM ACCEPT) with the
// session's ID and, when dest is set, the destination it finds on that
// socket first. On failure the socket is closed, and a bridge that no
// longer knows the session makes the next use create one.
func (s *Session) openStream(ctx context.Context, verb string, dest func(*bridge) (string, error)) (*bridge, Addr, error) {
	id, local, err := s.ensure(ctx)
	if err != nil {
		return nil, Addr{}, err
	}
	b, err := s.dialBridge(ctx)
	if err != nil {
		return nil, Addr{}, err
	}
	line := verb + " ID=" + id
	if dest != nil {
		var d string
		if d, err = dest(b); err == nil {
			line += " DESTINATION=" + d
		}
	}
	if err == nil {
		var r Reply
		r, err = b.request(ctx, line+" SILENT=false", "STREAM STATUS")
		if err != nil && r.Args["RESULT"] == "INVALID_ID" {
			s.drop(id)
		}
	}
	if err != nil {
		b.c.Close()
		return nil, Addr{}, err
	}
	return b, local, nil
}

// accept waits for one inbound stream on the persistent session. The
// wait for a peer has no deadline; cancelling ctx ends it.
func (s *Session) accept(ctx context.Context) (net.Conn, error) {
	if !s.Persistent() {
		return nil, newErr(ErrNotPersistent, nil, string(ErrNotPersistent))
	}
	b, local, err := s.openStream(ctx, "STREAM ACCEPT", nil)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			b.c.Close()
		}
	}()
	b.c.SetDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { b.c.SetDeadline(time.Unix(1, 0)) })
	line, err := readLine(b.r)
	stop()
	if err != nil {
		return nil, err
	}
	// SAM 3.2 bridges may add FROM_PORT/TO_PORT after the destination.
	destB64, _, _ := strings.Cut(line, " ")
	dest, err := decodeDest(destB64, MaxDestLen)
	if err != nil {
		return nil, err
	}
	pub, err := publicOf(dest)
	if err != nil {
		return nil, err
	}
	b.c.SetDeadline(time.Time{})
	ok = true
	return &conn{Conn: b.c, r: b.r, local: local, remote: Addr{Host: B32Address(pub)}}, nil
}
