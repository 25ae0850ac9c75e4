package connmgr

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// socksServer is a minimal SOCKS5 server for tests: it checks the
// credentials if user is set, records the requested target and then either
// fails with code reply or echoes bytes back.
type socksServer struct {
	l          net.Listener
	user, pass string
	reply      byte
	targets    chan string
	atyps      chan byte
}

func startSocks(t *testing.T, user, pass string, reply byte) *socksServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveSocks(t, l, user, pass, reply)
}

// serveSocks runs the fake proxy on l.
func serveSocks(t *testing.T, l net.Listener, user, pass string, reply byte) *socksServer {
	s := &socksServer{l: l, user: user, pass: pass, reply: reply, targets: make(chan string, 4), atyps: make(chan byte, 4)}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *socksServer) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var hdr [2]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil || hdr[0] != 5 {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(c, methods); err != nil {
		return
	}
	want := byte(0)
	if s.user != "" {
		want = 2
	}
	ok := false
	for _, m := range methods {
		ok = ok || m == want
	}
	if !ok {
		c.Write([]byte{5, 0xff})
		return
	}
	c.Write([]byte{5, want})
	if want == 2 {
		var v [2]byte
		io.ReadFull(c, v[:])
		u := make([]byte, v[1])
		io.ReadFull(c, u)
		io.ReadFull(c, v[:1])
		p := make([]byte, v[0])
		io.ReadFull(c, p)
		if string(u) != s.user || string(p) != s.pass {
			c.Write([]byte{1, 1})
			return
		}
		c.Write([]byte{1, 0})
	}
	var req [4]byte
	if _, err := io.ReadFull(c, req[:]); err != nil {
		return
	}
	select {
	case s.atyps <- req[3]:
	default: // tests that do not look at address types
	}
	var host string
	switch req[3] {
	case 1:
		b := make([]byte, 4)
		io.ReadFull(c, b)
		host = net.IP(b).String()
	case 4:
		b := make([]byte, 16)
		io.ReadFull(c, b)
		host = net.IP(b).String()
	case 3:
		var l [1]byte
		io.ReadFull(c, l[:])
		b := make([]byte, l[0])
		io.ReadFull(c, b)
		host = string(b)
	}
	var pb [2]byte
	io.ReadFull(c, pb[:])
	s.targets <- net.JoinHostPort(host, itoa(binary.BigEndian.Uint16(pb[:])))
	// Reply with a domain-typed bound address to exercise that path.
	c.Write([]byte{5, s.reply, 0, 3, 4, 'a', 'b', 'c', 'd', 0, 1})
	if s.reply != 0 {
		return
	}
	io.Copy(c, c)
}

func itoa(v uint16) string {
	if v == 0 {
		return "0"
	}
	var b [5]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

func TestSOCKS5(t *testing.T) {
	tests := []struct {
		name       string
		srvUser    string
		srvPass    string
		cliUser    string
		cliPass    string
		reply      byte
		target     string
		wantErr    error
		wantTarget string
	}{
		{name: "noauth ipv4", target: "192.0.2.5:8333", wantTarget: "192.0.2.5:8333"},
		{name: "noauth ipv6", target: "[2001:db8::5]:18333", wantTarget: "[2001:db8::5]:18333"},
		{name: "onion by name", target: "abcdefghijklmnop.onion:8333", wantTarget: "abcdefghijklmnop.onion:8333"},
		{name: "password", srvUser: "alice", srvPass: "secret", cliUser: "alice", cliPass: "secret",
			target: "192.0.2.5:1", wantTarget: "192.0.2.5:1"},
		{name: "bad password", srvUser: "alice", srvPass: "secret", cliUser: "alice", cliPass: "nope",
			target: "192.0.2.5:1", wantErr: ErrProxyAuth},
		{name: "no credentials for auth server", srvUser: "alice", srvPass: "x", target: "192.0.2.5:1", wantErr: ErrProxyAuth},
		{name: "refused", reply: 5, target: "192.0.2.5:1", wantErr: ErrProxyConnect, wantTarget: "192.0.2.5:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startSocks(t, tc.srvUser, tc.srvPass, tc.reply)
			p := &Proxy{Addr: s.l.Addr().String(), Username: tc.cliUser, Password: tc.cliPass}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			conn, err := p.DialContext(ctx, "tcp", tc.target)
			if tc.wantTarget != "" {
				select {
				case got := <-s.targets:
					if got != tc.wantTarget {
						t.Errorf("proxy asked for %s, want %s", got, tc.wantTarget)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("proxy saw no request")
				}
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := conn.Write([]byte("ping")); err != nil {
				t.Fatal(err)
			}
			var b [4]byte
			if _, err := io.ReadFull(conn, b[:]); err != nil || string(b[:]) != "ping" {
				t.Fatalf("echo through proxy: %q %v", b, err)
			}
		})
	}
}

// Each network goes through its own proxy (bitcoind's -proxy=ADDR=NET),
// host names through the name proxy.
func TestDialerPerNetworkProxies(t *testing.T) {
	v4, v6 := startSocks(t, "", "", 0), startSocks(t, "", "", 0)
	onion, name := startSocks(t, "", "", 0), startSocks(t, "", "", 0)
	d := NewDialer(DialConfig{
		Proxies: Proxies{
			IPv4:  &Proxy{Addr: v4.l.Addr().String()},
			IPv6:  &Proxy{Addr: v6.l.Addr().String()},
			Onion: &Proxy{Addr: onion.l.Addr().String()},
			Name:  &Proxy{Addr: name.l.Addr().String()},
		},
		Timeout: 5 * time.Second,
	})
	for _, tc := range []struct {
		addr string
		via  *socksServer
	}{
		{"xyz.onion:8333", onion},
		{"1.2.3.4:8333", v4},
		{"[2a01::1]:8333", v6},
		{"node.example:8333", name},
	} {
		c, err := d(context.Background(), tc.addr)
		if err != nil {
			t.Fatalf("%s: %v", tc.addr, err)
		}
		c.Close()
		if got := <-tc.via.targets; got != tc.addr {
			t.Fatalf("dialing %s: the proxy was asked for %s", tc.addr, got)
		}
	}
	// The SOCKS port learned from Tor's control port takes over onion.
	learned := startSocks(t, "", "", 0)
	d = NewDialer(DialConfig{
		Proxies:  Proxies{Onion: &Proxy{Addr: onion.l.Addr().String()}},
		TorSOCKS: func() *Proxy { return &Proxy{Addr: learned.l.Addr().String()} },
		Timeout:  5 * time.Second,
	})
	if c, err := d(context.Background(), "xyz.onion:8333"); err != nil {
		t.Fatal(err)
	} else {
		c.Close()
	}
	if got := <-learned.targets; got != "xyz.onion:8333" {
		t.Fatalf("Tor's SOCKS port got %s", got)
	}
	// No CJDNS proxy and no --cjdnsreachable: fc00::/8 is not routable
	// and is dialed directly, not through the IPv6 proxy.
	if p := (&DialConfig{Proxies: Proxies{IPv6: &Proxy{}}}).proxyFor("fc00::1"); p != nil {
		t.Fatal("an unroutable address went to a proxy")
	}
}

// Loopback and other unroutable addresses are dialed directly even with
// a proxy set, as bitcoind does (no proxy network reaches them).
func TestDialerBypassesProxyForUnroutable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	d := NewDialer(DialConfig{Proxies: AllNetworks(&Proxy{Addr: "127.0.0.1:1"}), Timeout: 5 * time.Second})
	c, err := d(context.Background(), l.Addr().String())
	if err != nil {
		t.Fatalf("loopback dial with an unreachable proxy: %v", err)
	}
	c.Close()
	if _, err := d(context.Background(), "1.2.3.4:8333"); err == nil {
		t.Fatal("public address dialed without the proxy")
	}
}

func TestProxyTimeout(t *testing.T) {
	// A proxy that accepts and never answers must not hang the dial.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			time.Sleep(3 * time.Second)
			c.Close()
		}
	}()
	p := &Proxy{Addr: l.Addr().String()}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := p.DialContext(ctx, "tcp", "192.0.2.1:1"); err == nil {
		t.Fatal("expected timeout")
	}
	if time.Since(start) > 2*time.Second {
		t.Fatal("dial did not honour the context")
	}
}

// scriptConn replays a proxy's answers and swallows what we write.
type scriptConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *scriptConn) Read(b []byte) (int, error)         { return c.r.Read(b) }
func (c *scriptConn) Write(b []byte) (int, error)        { return len(b), nil }
func (c *scriptConn) Close() error                       { return nil }
func (c *scriptConn) SetDeadline(t time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(t time.Time) error { return nil }

// FuzzSOCKS5Reply feeds arbitrary proxy answers to the client handshake,
// which must fail cleanly or succeed, never hang or panic.
func FuzzSOCKS5Reply(f *testing.F) {
	f.Add([]byte{5, 0, 5, 0, 0, 1, 1, 2, 3, 4, 0, 80}, false)
	f.Add([]byte{5, 2, 1, 0, 5, 0, 0, 3, 3, 'a', 'b', 'c', 0, 80}, true)
	f.Add([]byte{5, 0, 5, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80}, false)
	f.Add([]byte{5, 0xff}, false)
	f.Add([]byte{5, 0, 5, 1, 0, 1}, false)
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, script []byte, auth bool) {
		p := &Proxy{Addr: "proxy:1", Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return &scriptConn{r: bytes.NewReader(script)}, nil
		}}
		if auth {
			p.Username, p.Password = "u", "p"
		}
		conn, err := p.DialContext(context.Background(), "tcp", "example.onion:8333")
		if err == nil {
			conn.Close()
		}
	})
}

// Every destination goes to the proxy as a domain name, IP addresses in
// text form, as bitcoind sends them (feature_proxy.py checks the type).
func TestSOCKS5SendsIPsAsNames(t *testing.T) {
	s := startSocks(t, "", "", 0)
	p := &Proxy{Addr: s.l.Addr().String()}
	for _, addr := range []string{"15.61.23.23:1234", "[1233:3432:2434:2343:3234:2345:6546:4534]:5443", "[::ffff:1.2.3.4]:8333"} {
		c, err := p.DialContext(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if a := <-s.atyps; a != socksAtypDomain {
			t.Errorf("%s sent with address type %d", addr, a)
		}
		want := addr
		if addr == "[::ffff:1.2.3.4]:8333" {
			want = "1.2.3.4:8333"
		}
		if got := <-s.targets; got != want {
			t.Errorf("proxy asked for %s, want %s", got, want)
		}
	}
}

// A proxy named unix:PATH is reached over that Unix socket.
func TestSOCKS5OverUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "socks")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("no Unix sockets: %v", err)
	}
	s := serveSocks(t, l, "", "", 0)
	d := NewDialer(DialConfig{Proxies: AllNetworks(&Proxy{Addr: UnixProxyPrefix + path}), Timeout: 5 * time.Second})
	c, err := d(context.Background(), "1.2.3.4:8333")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got := <-s.targets; got != "1.2.3.4:8333" {
		t.Fatalf("proxy asked for %s", got)
	}
}

// With CJDNS reachable, fc00::/8 addresses go through the proxy as IPv4
// and IPv6 do (bitcoind's -proxy covers CJDNS).
func TestDialerCJDNSThroughProxy(t *testing.T) {
	s := startSocks(t, "", "", 0)
	d := NewDialer(DialConfig{Proxies: AllNetworks(&Proxy{Addr: s.l.Addr().String()}), CJDNS: true, Timeout: 5 * time.Second})
	c, err := d(context.Background(), "[fc00:1:2:3:4:5:6:7]:8888")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got := <-s.targets; got != "[fc00:1:2:3:4:5:6:7]:8888" {
		t.Fatalf("proxy asked for %s", got)
	}
}

// With NoNameLookup a host name is refused unless a proxy resolves it;
// addresses still dial.
func TestDialerNoNameLookup(t *testing.T) {
	d := NewDialer(DialConfig{NoNameLookup: true, Timeout: time.Second})
	if _, err := d(context.Background(), "node.example:8333"); !errors.Is(err, ErrNameLookup) {
		t.Fatalf("a name dialed with lookups off: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if c, err := d(context.Background(), l.Addr().String()); err != nil {
		t.Fatalf("an address with lookups off: %v", err)
	} else {
		c.Close()
	}
	s := startSocks(t, "", "", 0)
	d = NewDialer(DialConfig{NoNameLookup: true, Proxies: Proxies{Name: &Proxy{Addr: s.l.Addr().String()}}, Timeout: 5 * time.Second})
	if c, err := d(context.Background(), "node.example:8333"); err != nil {
		t.Fatalf("a name through the name proxy: %v", err)
	} else {
		c.Close()
	}
}
