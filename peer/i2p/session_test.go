package i2p

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btclog"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// checkStream reads the bridge's greeting and has bytes echoed back.
func checkStream(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	if l, err := r.ReadString('\n'); err != nil || l != "hello\n" {
		t.Fatalf("greeting %q, %v", l, err)
	}
	if _, err := c.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	if l, err := r.ReadString('\n'); err != nil || l != "ping\n" {
		t.Fatalf("echo %q, %v", l, err)
	}
}

func TestPersistentKeyWrittenAndReused(t *testing.T) {
	f := newFakeSAM(t)
	peer, _ := f.addPeer()
	key := filepath.Join(t.TempDir(), "i2p_private_key")
	s := testSession(f, key)
	c, err := s.Connect(ctxT(t), peer)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	saved, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	if gen, _ := f.counts(); gen != 1 || !bytes.Equal(saved, f.generated[0]) {
		t.Fatalf("key file does not hold the generated key (%d generated)", gen)
	}
	pub, _ := publicOf(saved)
	if s.LocalAddr() != B32Address(pub) {
		t.Errorf("local address %q, want %q", s.LocalAddr(), B32Address(pub))
	}
	s.Close()

	s2 := testSession(f, key)
	defer s2.Close()
	c, err = s2.Connect(ctxT(t), peer)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	gen, creates := f.counts()
	if gen != 1 || creates != 2 || f.creates[1] != i2pBase64.EncodeToString(saved) {
		t.Errorf("second session: %d generated, %d created; not from the saved key", gen, creates)
	}
	if s2.LocalAddr() != B32Address(pub) {
		t.Errorf("address changed across restart: %q", s2.LocalAddr())
	}
}

func TestTransientSession(t *testing.T) {
	f := newFakeSAM(t)
	peer, _ := f.addPeer()
	s := testSession(f, "")
	defer s.Close()
	c, err := s.Connect(ctxT(t), peer)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if gen, creates := f.counts(); gen != 0 || creates != 1 || f.creates[0] != "TRANSIENT" {
		t.Errorf("transient: %d generated, creates %v", gen, f.creates)
	}
	if !strings.HasSuffix(s.LocalAddr(), ".b32.i2p") {
		t.Errorf("no local address from the transient destination: %q", s.LocalAddr())
	}
	if _, err := s.Listen(); !errors.Is(err, ErrNotPersistent) {
		t.Errorf("Listen on transient session: %v", err)
	}
}

func TestConnectStreamBothWays(t *testing.T) {
	f := newFakeSAM(t)
	peer, _ := f.addPeer()
	s := testSession(f, "")
	defer s.Close()
	c, err := s.Connect(ctxT(t), strings.ToUpper(peer[:10])+peer[10:])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.RemoteAddr().String() != peer+":0" || c.RemoteAddr().Network() != "i2p" {
		t.Errorf("remote address %v", c.RemoteAddr())
	}
	checkStream(t, c)
	// A second stream reuses the session.
	c2, err := s.Connect(ctxT(t), peer)
	if err != nil {
		t.Fatal(err)
	}
	c2.Close()
	if _, creates := f.counts(); creates != 1 {
		t.Errorf("%d sessions created for two streams", creates)
	}
}

func TestAcceptInbound(t *testing.T) {
	f := newFakeSAM(t)
	s := testSession(f, filepath.Join(t.TempDir(), "key"))
	defer s.Close()
	l, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	_, pub := newDest()
	f.incoming <- pub
	type res struct {
		c   net.Conn
		err error
	}
	done := make(chan res, 1)
	go func() { c, err := l.Accept(); done <- res{c, err} }()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		defer r.c.Close()
		if r.c.RemoteAddr().String() != B32Address(pub)+":0" {
			t.Errorf("inbound peer %v, want %s:0", r.c.RemoteAddr(), B32Address(pub))
		}
		if r.c.LocalAddr().String() != s.LocalAddr()+":0" || l.Addr().String() != s.LocalAddr()+":0" {
			t.Errorf("local address %v / %v", r.c.LocalAddr(), l.Addr())
		}
		checkStream(t, r.c)
	case <-time.After(10 * time.Second):
		t.Fatal("Accept hung")
	}
	// Close ends a waiting Accept with net.ErrClosed.
	go func() { _, err := l.Accept(); done <- res{nil, err} }()
	time.Sleep(100 * time.Millisecond)
	l.Close()
	select {
	case r := <-done:
		if !errors.Is(r.err, net.ErrClosed) {
			t.Errorf("Accept after Close: %v", r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Accept not ended by Close")
	}
}

func TestNamingLookup(t *testing.T) {
	f := newFakeSAM(t)
	s := testSession(f, "")
	defer s.Close()
	_, pub := newDest()
	unknown := B32Address(pub)
	_, err := s.Connect(ctxT(t), unknown)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "KEY_NOT_FOUND") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := s.Connect(ctxT(t), "notbase32.b32.i2p"); !errors.Is(err, ErrInvalidAddress) {
		t.Errorf("bad name: %v", err)
	}
	// The stream is opened to the destination the lookup returned (the
	// fake refuses any other).
	peer, _ := f.addPeer()
	c, err := s.Connect(ctxT(t), peer)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestSessionRecreatedAfterBridgeDropsIt(t *testing.T) {
	f := newFakeSAM(t)
	peer, _ := f.addPeer()
	s := testSession(f, "")
	defer s.Close()
	c, err := s.Connect(ctxT(t), peer)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	f.closeSessions()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		gone := s.control == nil
		s.mu.Unlock()
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("session not dropped when the bridge closed its control connection")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c, err = s.Connect(ctxT(t), peer)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, creates := f.counts(); creates != 2 {
		t.Errorf("%d sessions created, want a new one after the bridge dropped the first", creates)
	}
}

func TestBridgeErrors(t *testing.T) {
	long := append(bytes.Repeat([]byte("A"), MaxLineLen+10), '\n')
	cases := []struct {
		name  string
		reply func(line string) ([]byte, bool)
		kind  error
	}{
		{"hello refused", func(string) ([]byte, bool) { return []byte("HELLO REPLY RESULT=I2P_ERROR\n"), false }, ErrRefused},
		{"garbage", func(string) ([]byte, bool) { return []byte("lalala\n"), false }, ErrProtocol},
		{"wrong topic", func(string) ([]byte, bool) { return []byte("STREAM STATUS RESULT=OK\n"), false }, ErrProtocol},
		{"over-long line", func(string) ([]byte, bool) { return long, false }, ErrProtocol},
		{"closes", func(string) ([]byte, bool) { return nil, true }, ErrProtocol},
		{"silent", func(string) ([]byte, bool) { time.Sleep(2 * time.Second); return nil, true }, ErrProtocol},
		{"session refused", func(l string) ([]byte, bool) {
			if strings.HasPrefix(l, "SESSION") {
				return []byte("SESSION STATUS RESULT=DUPLICATED_ID\n"), false
			}
			return nil, false
		}, ErrRefused},
		{"oversized destination", func(l string) ([]byte, bool) {
			if strings.HasPrefix(l, "SESSION") {
				return []byte("SESSION STATUS RESULT=OK DESTINATION=" + strings.Repeat("A", 8000) + "\n"), false
			}
			return nil, false
		}, ErrProtocol},
		{"stream refused", func(l string) ([]byte, bool) {
			if strings.HasPrefix(l, "STREAM") {
				return []byte("STREAM STATUS RESULT=I2P_ERROR MESSAGE=\"tunnel build failed\"\n"), false
			}
			return nil, false
		}, ErrRefused},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeSAM(t)
			peer, _ := f.addPeer()
			f.override = tc.reply
			s := New(Config{SAMAddr: f.addr(), Timeout: 500 * time.Millisecond})
			defer s.Close()
			start := time.Now()
			_, err := s.Connect(ctxT(t), peer)
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %v, want kind %v", err, tc.kind)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestCannotConnectToBridge(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := New(Config{SAMAddr: addr, Timeout: time.Second})
	_, pub := newDest()
	_, err = s.Connect(ctxT(t), B32Address(pub))
	if !errors.Is(err, ErrBridgeUnreachable) || err.Error() != "Cannot connect to "+addr {
		t.Errorf("error %v", err)
	}
}

func TestCancelledContextEndsWait(t *testing.T) {
	f := newFakeSAM(t)
	peer, _ := f.addPeer()
	f.override = func(string) ([]byte, bool) { time.Sleep(3 * time.Second); return nil, true }
	s := New(Config{SAMAddr: f.addr(), Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := s.Connect(ctx, peer); err == nil {
		t.Fatal("no error")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled connect took %v", d)
	}
}

func TestSessionLogWords(t *testing.T) {
	var buf bytes.Buffer
	l := btclog.NewBackend(&buf).Logger("I2P")
	l.SetLevel(btclog.LevelInfo)
	UseLogger(l)
	defer UseLogger(btclog.Disabled)
	s := New(Config{SAMAddr: "127.0.0.1:1", KeyFile: filepath.Join(t.TempDir(), "k"), Timeout: time.Second})
	_, pub := newDest()
	s.Connect(ctxT(t), B32Address(pub))
	New(Config{SAMAddr: "127.0.0.1:1", Timeout: time.Second}).Connect(ctxT(t), B32Address(pub))
	out := buf.String()
	if !strings.Contains(out, "Creating persistent SAM session") || !strings.Contains(out, "Creating transient SAM session") {
		t.Errorf("log:\n%s", out)
	}
}

func TestKeyFileChecked(t *testing.T) {
	f := newFakeSAM(t)
	peer, _ := f.addPeer()
	key := filepath.Join(t.TempDir(), "key")
	os.WriteFile(key, []byte("short"), 0o600)
	s := testSession(f, key)
	if _, err := s.Connect(ctxT(t), peer); !errors.Is(err, ErrKeyFile) {
		t.Errorf("corrupt key file: %v", err)
	}
}

func TestDestinationBounds(t *testing.T) {
	priv, pub := newDest()
	got, err := publicOf(priv)
	if err != nil || !bytes.Equal(got, pub) {
		t.Fatalf("publicOf: %v", err)
	}
	bad := append([]byte(nil), pub...)
	bad[destFixedLen-2], bad[destFixedLen-1] = 0xff, 0xff
	if _, err := publicOf(bad); !errors.Is(err, ErrProtocol) {
		t.Errorf("certificate past the end: %v", err)
	}
	if _, err := publicOf(pub[:100]); !errors.Is(err, ErrProtocol) {
		t.Errorf("short destination: %v", err)
	}
	if _, err := decodeDest(strings.Repeat("A", 4*MaxDestLen), MaxDestLen); !errors.Is(err, ErrProtocol) {
		t.Errorf("long destination: %v", err)
	}
	if _, err := decodeDest("+/+/", MaxDestLen); !errors.Is(err, ErrProtocol) {
		t.Errorf("standard base64 accepted: %v", err)
	}
	if b, err := decodeDest("-~-~", MaxDestLen); err != nil || len(b) != 3 {
		t.Errorf("I2P base64 rejected: %v", err)
	}
}

func TestReadLineLimit(t *testing.T) {
	r := bufio.NewReaderSize(io.MultiReader(strings.NewReader(strings.Repeat("x", MaxLineLen+1)), strings.NewReader("\n")), 16)
	if _, err := readLine(r); !errors.Is(err, ErrProtocol) {
		t.Errorf("over-long line: %v", err)
	}
	r = bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", 100)+"\r\nrest"), 16)
	if l, err := readLine(r); err != nil || l != strings.Repeat("x", 100) {
		t.Errorf("line %q, %v", l, err)
	}
}

func TestParseReply(t *testing.T) {
	r, err := ParseReply(`STREAM STATUS RESULT=I2P_ERROR MESSAGE="a b=c" FLAG`)
	if err != nil || r.Topic != "STREAM STATUS" || r.Args["RESULT"] != "I2P_ERROR" || r.Args["MESSAGE"] != "a b=c" {
		t.Fatalf("%+v %v", r, err)
	}
	if _, ok := r.Args["FLAG"]; !ok {
		t.Error("bare key lost")
	}
	for _, bad := range []string{"", "HELLO", `HELLO REPLY MESSAGE="open`, "HELLO REPLY =x", "A=1 B"} {
		if _, err := ParseReply(bad); !errors.Is(err, ErrProtocol) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
