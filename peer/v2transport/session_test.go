package v2transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

const testNet = wire.BitcoinNet(0xdab5bffa) // regtest

type result struct {
	s   *Session
	err error
}

// pair runs both handshakes over conns a (initiator) and b.
func pair(t *testing.T, a, b net.Conn) (*Session, *Session) {
	t.Helper()
	ch := make(chan result, 1)
	go func() {
		s, err := NewSession(b, &Config{Net: testNet, Timeout: 5 * time.Second})
		ch <- result{s, err}
	}()
	ini, err := NewSession(a, &Config{Net: testNet, Initiator: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("initiator: %v", err)
	}
	r := <-ch
	if r.err != nil {
		t.Fatalf("responder: %v", r.err)
	}
	if ini.SessionID() != r.s.SessionID() {
		t.Fatal("session ids differ")
	}
	return ini, r.s
}

func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ch := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		ch <- c
	}()
	a, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b := <-ch
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func pipePair(t *testing.T) (net.Conn, net.Conn) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// exchange sends n messages from w to r (with a decoy before every
// third) and checks each arrives intact.
func exchange(t *testing.T, w, r *Session, n int) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		for i := range n {
			if i%3 == 0 {
				if _, err := w.WriteDecoy(i % 50); err != nil {
					errc <- err
					return
				}
			}
			cmd := []string{"ping", "tx", "sendheaders", "wtxidrelay"}[i%4]
			if _, err := w.WriteMessage(cmd, bytes.Repeat([]byte{byte(i)}, i%300)); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	for i := range n {
		cmd, payload, err := r.ReadMessage()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		want := []string{"ping", "tx", "sendheaders", "wtxidrelay"}[i%4]
		if cmd != want || !bytes.Equal(payload, bytes.Repeat([]byte{byte(i)}, i%300)) {
			t.Fatalf("message %d: got %s (%d bytes)", i, cmd, len(payload))
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestSessionRoundTrip(t *testing.T) {
	for name, mk := range map[string]func(*testing.T) (net.Conn, net.Conn){"pipe": pipePair, "tcp": tcpPair} {
		t.Run(name, func(t *testing.T) {
			a, b := mk(t)
			ini, res := pair(t, a, b)
			// Past two rekeys of both ciphers, both directions.
			exchange(t, ini, res, 2*RekeyInterval+10)
			exchange(t, res, ini, 2*RekeyInterval+10)
		})
	}
}

func TestSessionLargeMessage(t *testing.T) {
	a, b := tcpPair(t)
	ini, res := pair(t, a, b)
	big := bytes.Repeat([]byte{7}, wire.MaxProtocolMessageLength)
	go ini.WriteMessage("block", big)
	cmd, p, err := res.ReadMessage()
	if err != nil || cmd != "block" || !bytes.Equal(p, big) {
		t.Fatalf("got %s %d %v", cmd, len(p), err)
	}
	if _, err := ini.WriteMessage("block", append(big, 0)); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("oversize write: %v", err)
	}
}

func TestV1Detection(t *testing.T) {
	a, b := pipePair(t)
	hdr := wire.MessageHeader{Net: testNet, Command: "version", Length: 100}
	raw := hdr.AppendTo(nil)
	go a.Write(raw)
	_, err := NewSession(b, &Config{Net: testNet, Timeout: 5 * time.Second})
	var v1 *V1PeerError
	if !errors.As(err, &v1) || !errors.Is(err, ErrV1Peer) {
		t.Fatalf("got %v", err)
	}
	if !bytes.Equal(v1.Received, raw[:V1PrefixLen]) {
		t.Fatalf("received %x", v1.Received)
	}
	// The rest of the header is still unread on the connection.
	rest := make([]byte, len(raw)-V1PrefixLen)
	if _, err := io.ReadFull(b, rest); err != nil || !bytes.Equal(rest, raw[V1PrefixLen:]) {
		t.Fatalf("rest %x %v", rest, err)
	}
}

// TestUnknownMessageType checks that an unassigned short id or a bad
// command drops that message and keeps the session.
func TestUnknownMessageType(t *testing.T) {
	a, b := tcpPair(t)
	ini, res := pair(t, a, b)
	go func() {
		ini.wmu.Lock()
		for _, c := range [][]byte{{200}, {0, 'a'}, append([]byte{0, 'a', 0, 'b'}, make([]byte, 9)...)} {
			ini.conn.Write(ini.send.encrypt(nil, c, nil, false))
		}
		ini.wmu.Unlock()
		ini.WriteMessage("pong", []byte{1})
	}()
	for range 3 {
		if _, _, err := res.ReadMessage(); !errors.Is(err, ErrUnknownMessageType) {
			t.Fatalf("got %v", err)
		}
	}
	if cmd, _, err := res.ReadMessage(); err != nil || cmd != "pong" {
		t.Fatalf("got %s %v", cmd, err)
	}
}

func TestShortIDs(t *testing.T) {
	for id, cmd := range shortIDs {
		if cmd == "" {
			continue
		}
		b, err := appendType(nil, cmd)
		if err != nil || len(b) != 1 || b[0] != byte(id) {
			t.Fatalf("%s: %x %v", cmd, b, err)
		}
		got, _, err := ParseContents(b)
		if err != nil || got != cmd {
			t.Fatalf("%d: %s %v", id, got, err)
		}
	}
	b, _ := appendType(nil, "version")
	if len(b) != 13 {
		t.Fatalf("version encodes to %d bytes", len(b))
	}
	if _, err := appendType(nil, "thirteenbytes"); err == nil {
		t.Fatal("13-byte command accepted")
	}
}

// ExampleNewSession shows a handshake over an in-memory connection.
func ExampleNewSession() {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		s, err := NewSession(b, &Config{Net: wire.MainNet})
		if err != nil {
			return
		}
		s.WriteMessage("ping", []byte{1, 2, 3, 4, 5, 6, 7, 8})
	}()
	s, err := NewSession(a, &Config{Net: wire.MainNet, Initiator: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	cmd, payload, _ := s.ReadMessage()
	fmt.Println(cmd, len(payload))
	// Output: ping 8
}
