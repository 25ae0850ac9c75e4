package v2transport

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"sync"
	"time"

	"github.com/btcnode/btcd/wire"
)

// MaxGarbageLen is the most garbage either side may send before its
// garbage terminator.
const MaxGarbageLen = 4095

// keepWriteBuf is the largest write buffer a session keeps for reuse.
const keepWriteBuf = 16 << 10

// V1PrefixLen is how many bytes of a v1 version message the responder
// compares before deciding the peer speaks v1.
const V1PrefixLen = 16

// ErrV1Peer reports that an inbound peer started with a v1 version
// message; the error is a *V1PeerError carrying the bytes consumed.
var ErrV1Peer = errors.New("v2transport: peer speaks v1")

// ErrNoTerminator is returned when the peer's garbage runs past
// MaxGarbageLen without the garbage terminator.
var ErrNoTerminator = errors.New("v2transport: garbage terminator not found")

// V1PeerError is returned by the responder's handshake when the first
// bytes are a v1 version message header; Received holds those bytes so
// the caller can replay them into a v1 reader.
type V1PeerError struct {
	Received []byte
}

func (e *V1PeerError) Error() string { return ErrV1Peer.Error() }

// Is makes errors.Is(err, ErrV1Peer) true.
func (e *V1PeerError) Is(target error) bool { return target == ErrV1Peer }

// V1Prefix returns the first V1PrefixLen bytes every v1 connection
// starts with on a network: its magic and the "version" command.
func V1Prefix(net wire.BitcoinNet) [V1PrefixLen]byte {
	var p [V1PrefixLen]byte
	binary.LittleEndian.PutUint32(p[:4], uint32(net))
	copy(p[4:], "version")
	return p
}

// Config parameterizes a session.
type Config struct {
	// Net is the network whose magic salts the keys and forms the v1
	// prefix.
	Net wire.BitcoinNet
	// Initiator is true for the side that opened the connection.
	Initiator bool
	// MaxPayload bounds a message's payload; 0 means
	// wire.MaxProtocolMessageLength.
	MaxPayload int
	// Timeout bounds the whole handshake (a connection deadline); 0
	// leaves the connection's deadlines alone.
	Timeout time.Duration
	// Rand supplies keys, encodings and garbage; nil means crypto/rand.
	Rand io.Reader
	// GarbageLen fixes how much garbage we send; nil picks a uniform
	// length in [0, MaxGarbageLen].
	GarbageLen *int
	// GetBuffer and PutBuffer, when set, supply and take back the
	// buffers packets are read into (wire.GetBuffer/PutBuffer); the
	// payloads ReadMessageBuf returns come from GetBuffer.
	GetBuffer func(int) *[]byte
	PutBuffer func(*[]byte)
}

// Session is an established v2 connection: ReadMessage and
// WriteMessage may run concurrently with each other, but each only from
// one goroutine at a time.
type Session struct {
	conn      net.Conn
	r         *bufio.Reader
	send      cipherPair
	recv      cipherPair
	sessionID [32]byte
	maxLen    int // largest packet contents accepted
	maxPay    int // largest message payload accepted
	getBuf    func(int) *[]byte
	putBuf    func(*[]byte)

	wmu  sync.Mutex
	wbuf []byte
}

// SessionID returns the 32-byte session id both ends derive.
func (s *Session) SessionID() [32]byte { return s.sessionID }

// Conn returns the underlying connection.
func (s *Session) Conn() net.Conn { return s.conn }

func (c *Config) rand() io.Reader {
	if c.Rand != nil {
		return c.Rand
	}
	return rand.Reader
}

func (c *Config) garbage() ([]byte, error) {
	n := 0
	if c.GarbageLen != nil {
		n = min(max(*c.GarbageLen, 0), MaxGarbageLen)
	} else {
		// At most MaxGarbageLen-1: btcd v0.26.2 never checks for the
		// terminator after the last byte it may read, so it refuses a
		// peer that sends the full MaxGarbageLen (the BIP allows it, and
		// we accept it).
		v, err := rand.Int(c.rand(), big.NewInt(MaxGarbageLen))
		if err != nil {
			return nil, err
		}
		n = int(v.Int64())
	}
	g := make([]byte, n)
	_, err := io.ReadFull(c.rand(), g)
	return g, err
}

// asyncWriter sends the handshake's chunks from a goroutine so that
// neither side blocks writing while the other is also writing (a
// synchronous pipe would deadlock).
type asyncWriter struct {
	conn net.Conn
	ch   chan []byte
	done chan error
}

func newAsyncWriter(conn net.Conn) *asyncWriter {
	w := &asyncWriter{conn: conn, ch: make(chan []byte, 4), done: make(chan error, 1)}
	go func() {
		var err error
		for b := range w.ch {
			if err == nil {
				_, err = conn.Write(b)
			}
		}
		w.done <- err
	}()
	return w
}

func (w *asyncWriter) write(b []byte) { w.ch <- b }

func (w *asyncWriter) finish() error {
	close(w.ch)
	return <-w.done
}

// NewSession runs the BIP324 handshake on conn and returns the session.
// A responder whose peer turns out to speak v1 gets a *V1PeerError.
func NewSession(conn net.Conn, cfg *Config) (s *Session, err error) {
	if cfg.Timeout > 0 {
		conn.SetDeadline(time.Now().Add(cfg.Timeout))
		defer conn.SetDeadline(time.Time{})
	}
	prefix := V1Prefix(cfg.Net)
	var theirKey [EllSwiftLen]byte
	if !cfg.Initiator {
		// Read what decides v1 or v2 before answering, so a v1 peer
		// never sees v2 bytes.
		if _, err := io.ReadFull(conn, theirKey[:V1PrefixLen]); err != nil {
			return nil, fmt.Errorf("v2transport: reading key: %w", err)
		}
		if bytes.Equal(theirKey[:V1PrefixLen], prefix[:]) {
			return nil, &V1PeerError{Received: bytes.Clone(theirKey[:V1PrefixLen])}
		}
	}
	var key *PrivateKey
	for {
		if key, err = NewPrivateKey(cfg.rand()); err != nil {
			return nil, err
		}
		// An initiator's key must not look like a v1 connection.
		if !cfg.Initiator || !bytes.Equal(key.EllSwift[:V1PrefixLen], prefix[:]) {
			break
		}
	}
	garbage, err := cfg.garbage()
	if err != nil {
		return nil, err
	}
	w := newAsyncWriter(conn)
	defer func() {
		if err != nil {
			// Do not wait on a write the peer may never read; it ends
			// when the caller closes the connection.
			close(w.ch)
			return
		}
		if werr := w.finish(); werr != nil {
			s, err = nil, fmt.Errorf("v2transport: handshake write: %w", werr)
		}
	}()
	w.write(append(key.EllSwift[:], garbage...))

	r := bufio.NewReaderSize(conn, 4096)
	from := 0
	if !cfg.Initiator {
		from = V1PrefixLen
	}
	if _, err := io.ReadFull(r, theirKey[from:]); err != nil {
		return nil, fmt.Errorf("v2transport: reading key: %w", err)
	}
	secret := key.SharedSecret(theirKey[:], cfg.Initiator)
	keys := DeriveKeys(secret, prefixMagic(prefix))
	s = newSession(conn, r, keys, cfg)

	// Our garbage terminator, then the version packet (empty contents:
	// no features defined), authenticating our garbage.
	sendTerm, recvTerm := keys.InitiatorTerminator, keys.ResponderTerminator
	if !cfg.Initiator {
		sendTerm, recvTerm = recvTerm, sendTerm
	}
	out := append([]byte(nil), sendTerm[:]...)
	out = s.send.encrypt(out, nil, garbage, false)
	w.write(out)

	theirGarbage, err := readGarbage(r, recvTerm)
	if err != nil {
		return nil, err
	}
	// The first packet carries their garbage as associated data; decoys
	// may precede the version packet, whose contents are reserved for
	// future features and ignored.
	aad := theirGarbage
	for {
		_, ignore, bp, err := s.readPacket(aad)
		if err != nil {
			return nil, err
		}
		s.release(bp)
		aad = nil
		if !ignore {
			break
		}
	}
	return s, nil
}

func prefixMagic(p [V1PrefixLen]byte) [4]byte { return [4]byte(p[:4]) }

// readGarbage reads up to MaxGarbageLen bytes of garbage and the
// terminator that ends it, returning the garbage.
func readGarbage(r *bufio.Reader, term [GarbageTerminatorLen]byte) ([]byte, error) {
	buf := make([]byte, 0, MaxGarbageLen+GarbageTerminatorLen)
	for len(buf) < cap(buf) {
		b, err := r.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("v2transport: reading garbage: %w", err)
		}
		buf = append(buf, b)
		if n := len(buf); n >= GarbageTerminatorLen && bytes.Equal(buf[n-GarbageTerminatorLen:], term[:]) {
			return buf[:n-GarbageTerminatorLen], nil
		}
	}
	return nil, ErrNoTerminator
}

func newSession(conn net.Conn, r *bufio.Reader, keys *Keys, cfg *Config) *Session {
	maxPayload := cfg.MaxPayload
	if maxPayload <= 0 {
		maxPayload = wire.MaxProtocolMessageLength
	}
	s := &Session{
		conn:      conn,
		r:         r,
		sessionID: keys.SessionID,
		maxLen:    min(1+commandLen+maxPayload, maxContentsLen),
		maxPay:    maxPayload,
		getBuf:    cfg.GetBuffer,
		putBuf:    cfg.PutBuffer,
	}
	ini := newCipherPair(keys.InitiatorL, keys.InitiatorP)
	res := newCipherPair(keys.ResponderL, keys.ResponderP)
	if cfg.Initiator {
		s.send, s.recv = ini, res
	} else {
		s.send, s.recv = res, ini
	}
	return s
}

func (s *Session) alloc(n int) *[]byte {
	if s.getBuf != nil {
		return s.getBuf(n)
	}
	b := make([]byte, n)
	return &b
}

func (s *Session) release(bp *[]byte) {
	if s.putBuf != nil && bp != nil {
		s.putBuf(bp)
	}
}

// readPacket reads and decrypts one packet. The contents alias *bp,
// which the caller releases. The length is checked against the limit
// before anything is allocated for the packet.
func (s *Session) readPacket(aad []byte) (contents []byte, ignore bool, bp *[]byte, err error) {
	var lenField [LengthLen]byte
	if _, err := io.ReadFull(s.r, lenField[:]); err != nil {
		return nil, false, nil, err
	}
	n := s.recv.decryptLength(lenField[:])
	if n > s.maxLen {
		return nil, false, nil, fmt.Errorf("%w: %d bytes of contents, limit %d", ErrPacketTooLarge, n, s.maxLen)
	}
	bp = s.alloc(HeaderLen + n + TagLen)
	if _, err := io.ReadFull(s.r, *bp); err != nil {
		s.release(bp)
		return nil, false, nil, err
	}
	contents, ignore, err = s.recv.decrypt(*bp, aad)
	if err != nil {
		s.release(bp)
		return nil, false, nil, err
	}
	return contents, ignore, bp, nil
}

// ReadMessageBuf reads the next application message, skipping decoys.
// The payload is *buf (from Config.GetBuffer when set), owned by the
// caller; wireLen counts every byte read for it, decoys included. An
// error wrapping ErrUnknownMessageType leaves the session usable (the
// message is dropped); any other error ends it.
func (s *Session) ReadMessageBuf() (cmd string, buf *[]byte, wireLen int, err error) {
	for {
		contents, ignore, bp, err := s.readPacket(nil)
		if err != nil {
			return "", nil, wireLen, err
		}
		wireLen += PacketOverhead + len(contents)
		if ignore {
			s.release(bp)
			continue
		}
		cmd, payload, err := ParseContents(contents)
		if err == nil && len(payload) > s.maxPay {
			err = fmt.Errorf("%w: %s payload of %d bytes", ErrPacketTooLarge, cmd, len(payload))
		}
		if err != nil {
			s.release(bp)
			return "", nil, wireLen, err
		}
		// Move the payload to the front so *bp is exactly the payload
		// and still the buffer GetBuffer handed out.
		n := copy(*bp, payload)
		*bp = (*bp)[:n]
		return cmd, bp, wireLen, nil
	}
}

// ReadMessage reads the next application message (see ReadMessageBuf);
// the payload is the caller's.
func (s *Session) ReadMessage() (cmd string, payload []byte, err error) {
	cmd, bp, _, err := s.ReadMessageBuf()
	if err != nil {
		return "", nil, err
	}
	return cmd, *bp, nil
}

// WriteMessage encrypts and sends one message, returning the bytes
// written.
func (s *Session) WriteMessage(cmd string, payload []byte) (int, error) {
	if len(payload) > s.maxPay {
		return 0, fmt.Errorf("%w: %s payload of %d bytes", ErrPacketTooLarge, cmd, len(payload))
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	need := PacketOverhead + encodedTypeLen(cmd) + len(payload)
	// Small messages reuse the session's buffer; a larger one comes
	// from the pool (when there is one) and goes straight back, so no
	// peer keeps a big buffer between messages.
	buf := s.wbuf[:0]
	var pooled *[]byte
	if cap(buf) < need {
		if need > keepWriteBuf && s.getBuf != nil {
			pooled = s.getBuf(need)
			defer s.release(pooled)
			buf = (*pooled)[:0]
		} else {
			buf = make([]byte, 0, need)
		}
	}
	buf = append(buf, 0, 0, 0, 0)
	buf, err := appendType(buf, cmd)
	if err != nil {
		return 0, err
	}
	buf = append(buf, payload...)
	pkt := s.send.seal(buf, 0, nil)
	if pooled == nil && cap(pkt) <= keepWriteBuf {
		s.wbuf = pkt
	}
	return s.conn.Write(pkt)
}

// WriteDecoy sends a decoy packet of n random-content bytes, which the
// peer authenticates and drops.
func (s *Session) WriteDecoy(n int) (int, error) {
	if n > s.maxLen {
		return 0, fmt.Errorf("%w: decoy of %d bytes", ErrPacketTooLarge, n)
	}
	contents := make([]byte, n)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	pkt := s.send.encrypt(make([]byte, 0, PacketOverhead+n), contents, nil, true)
	return s.conn.Write(pkt)
}
