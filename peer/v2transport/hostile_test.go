package v2transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// respond starts a responder on b and returns its result channel.
func respond(b net.Conn, cfg *Config) chan result {
	ch := make(chan result, 1)
	go func() {
		s, err := NewSession(b, cfg)
		ch <- result{s, err}
	}()
	return ch
}

func wait(t *testing.T, ch chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("responder did not return")
		return result{}
	}
}

func TestGarbageTooLong(t *testing.T) {
	a, b := tcpPair(t)
	go io.Copy(io.Discard, a)
	ch := respond(b, &Config{Net: testNet, Timeout: 5 * time.Second})
	k, err := NewPrivateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A valid key, then more garbage than allowed and no terminator.
	a.Write(k.EllSwift[:])
	a.Write(bytes.Repeat([]byte{0x55}, MaxGarbageLen+GarbageTerminatorLen+100))
	if r := wait(t, ch); !errors.Is(r.err, ErrNoTerminator) {
		t.Fatalf("got %v", r.err)
	}
}

func TestHandshakeStall(t *testing.T) {
	a, b := tcpPair(t)
	go io.Copy(io.Discard, a)
	ch := respond(b, &Config{Net: testNet, Timeout: 200 * time.Millisecond})
	a.Write(make([]byte, 30)) // part of a key, then nothing
	r := wait(t, ch)
	var ne net.Error
	if !errors.As(r.err, &ne) || !ne.Timeout() {
		t.Fatalf("got %v", r.err)
	}
}

func TestBadMAC(t *testing.T) {
	a, b := tcpPair(t)
	ini, res := pair(t, a, b)
	pkt := ini.send.encrypt(nil, []byte{18, 1, 2, 3, 4, 5, 6, 7, 8}, nil, false)
	pkt[len(pkt)-1] ^= 1
	a.Write(pkt)
	if _, _, err := res.ReadMessage(); !errors.Is(err, ErrBadMAC) {
		t.Fatalf("got %v", err)
	}
}

// countingPool tracks how many read buffers are outstanding at once.
type countingPool struct {
	out, peak, gets atomic.Int64
}

func (p *countingPool) get(n int) *[]byte {
	p.gets.Add(1)
	if v := p.out.Add(1); v > p.peak.Load() {
		p.peak.Store(v)
	}
	b := make([]byte, n)
	return &b
}

func (p *countingPool) put(*[]byte) { p.out.Add(-1) }

func pooledPair(t *testing.T, pool *countingPool, maxPayload int) (*Session, *Session) {
	a, b := tcpPair(t)
	ch := respond(b, &Config{Net: testNet, Timeout: 5 * time.Second, GetBuffer: pool.get, PutBuffer: pool.put, MaxPayload: maxPayload})
	ini, err := NewSession(a, &Config{Net: testNet, Initiator: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := wait(t, ch)
	if r.err != nil {
		t.Fatal(r.err)
	}
	return ini, r.s
}

func TestDecoyFlood(t *testing.T) {
	pool := &countingPool{}
	ini, res := pooledPair(t, pool, 0)
	const decoys = 5000
	go func() {
		for range decoys {
			if _, err := ini.WriteDecoy(1000); err != nil {
				return
			}
		}
		ini.WriteMessage("ping", make([]byte, 8))
	}()
	cmd, bp, n, err := res.ReadMessageBuf()
	if err != nil || cmd != "ping" {
		t.Fatalf("got %s %v", cmd, err)
	}
	if want := decoys*(PacketOverhead+1000) + PacketOverhead + 9; n != want {
		t.Fatalf("wire bytes %d, want %d", n, want)
	}
	res.release(bp)
	// Each decoy's buffer went back before the next was taken.
	if p := pool.peak.Load(); p != 1 {
		t.Fatalf("peak outstanding buffers %d", p)
	}
}

func TestOversizeLength(t *testing.T) {
	pool := &countingPool{}
	ini, res := pooledPair(t, pool, 1000)
	gets := pool.gets.Load()
	// A correctly encrypted length one past the limit, and nothing else.
	n := 1 + commandLen + 1000 + 1
	lf := []byte{byte(n), byte(n >> 8), byte(n >> 16)}
	ini.send.l.Crypt(lf, lf)
	ini.conn.Write(lf)
	if _, _, err := res.ReadMessage(); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("got %v", err)
	}
	if pool.gets.Load() != gets {
		t.Fatal("buffer taken for an oversized packet")
	}
	// A payload over the limit within the contents bound is refused
	// after authentication.
	ini2, res2 := pooledPair(t, &countingPool{}, 1000)
	ini2.wmu.Lock()
	ini2.conn.Write(ini2.send.encrypt(nil, append([]byte{21}, make([]byte, 1001)...), nil, false))
	ini2.wmu.Unlock()
	if _, _, err := res2.ReadMessage(); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("got %v", err)
	}
}

// fuzzConn is a connection that reads a fixed byte string and discards
// writes.
type fuzzConn struct {
	net.Conn
	r io.Reader
}

func (c *fuzzConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *fuzzConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *fuzzConn) SetDeadline(time.Time) error      { return nil }
func (c *fuzzConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fuzzConn) SetWriteDeadline(time.Time) error { return nil }
func (c *fuzzConn) Close() error                     { return nil }
func (c *fuzzConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *fuzzConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }

func FuzzHandshake(f *testing.F) {
	k, _ := NewPrivateKey(nil)
	prefix := V1Prefix(testNet)
	f.Add([]byte{})
	f.Add(prefix[:])
	f.Add(append(prefix[:], make([]byte, 100)...))
	f.Add(k.EllSwift[:])
	f.Add(append(k.EllSwift[:], bytes.Repeat([]byte{1}, 5000)...))
	f.Add(append(k.EllSwift[:], make([]byte, 40)...))
	f.Fuzz(func(t *testing.T, in []byte) {
		g := 0
		s, err := NewSession(&fuzzConn{r: bytes.NewReader(in)}, &Config{Net: testNet, GarbageLen: &g})
		if err == nil && s == nil {
			t.Fatal("nil session without error")
		}
	})
}

// fixedPair returns both directions' ciphers for a fixed secret.
func fixedKeys() *Keys { return DeriveKeys([32]byte{1, 2, 3}, [4]byte{0xfa, 0xbf, 0xb5, 0xda}) }

func FuzzPacketDecode(f *testing.F) {
	// Seeds are valid packet streams under the fixed keys.
	keys := fixedKeys()
	enc := newCipherPair(keys.InitiatorL, keys.InitiatorP)
	var stream []byte
	stream = enc.encrypt(stream, nil, nil, true)
	stream = enc.encrypt(stream, []byte{18, 1, 2, 3, 4, 5, 6, 7, 8}, nil, false)
	c, _ := appendType(nil, "version")
	stream = enc.encrypt(stream, append(c, 9, 9), nil, false)
	f.Add(stream)
	f.Add(stream[:10])
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		s := newSession(&fuzzConn{r: bytes.NewReader(in)}, bufio.NewReader(bytes.NewReader(in)), fixedKeys(), &Config{MaxPayload: 1 << 16})
		for range 100 {
			cmd, p, err := s.ReadMessage()
			if err != nil {
				if errors.Is(err, ErrUnknownMessageType) {
					continue
				}
				return
			}
			if cmd == "" || len(p) > 1<<16 {
				t.Fatalf("bad message %q %d", cmd, len(p))
			}
		}
	})
}
