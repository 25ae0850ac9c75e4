package connmgr

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"
)

const testInterval = 10 * time.Millisecond

func TestResolvePolicy(t *testing.T) {
	tests := []struct {
		name string
		in   PolicyInput
		want Policy
	}{
		{"defaults", PolicyInput{}, Policy{Listen: true, DNSSeed: true, AutoConnect: true}},
		{"connect", PolicyInput{Connect: []string{"a"}}, Policy{}},
		{"connect+listen", PolicyInput{Connect: []string{"a"}, Listen: []string{":1"}}, Policy{Listen: true}},
		{"proxy", PolicyInput{Proxy: "p"}, Policy{DNSSeed: true, AutoConnect: true, SeedThroughProxy: true}},
		{"proxy+listen", PolicyInput{Proxy: "p", Listen: []string{":1"}}, Policy{Listen: true, DNSSeed: true, AutoConnect: true, SeedThroughProxy: true}},
		{"proxy+nodnsseed", PolicyInput{Proxy: "p", NoDNSSeed: true}, Policy{AutoConnect: true}},
		{"nolisten wins", PolicyInput{NoListen: true, Listen: []string{":1"}}, Policy{DNSSeed: true, AutoConnect: true}},
		{"nodnsseed", PolicyInput{NoDNSSeed: true}, Policy{Listen: true, AutoConnect: true}},
	}
	for _, tc := range tests {
		if got := ResolvePolicy(tc.in); got != tc.want {
			t.Errorf("%s: got %+v want %+v", tc.name, got, tc.want)
		}
	}
}

func TestNormalizeAndExternalIPs(t *testing.T) {
	for in, want := range map[string]string{
		"1.2.3.4": "1.2.3.4:8333", "1.2.3.4:1": "1.2.3.4:1", "::1": "[::1]:8333",
		"[::1]": "[::1]:8333", "[::1]:5": "[::1]:5", "x.onion": "x.onion:8333",
	} {
		if got := NormalizeAddress(in, "8333"); got != want {
			t.Errorf("NormalizeAddress(%q) = %q want %q", in, got, want)
		}
	}
	if got := ListenAddresses(nil, "8333"); len(got) != 1 || got[0] != ":8333" {
		t.Errorf("default listen %v", got)
	}
	if got := ListenAddresses([]string{"127.0.0.1", "[::1]:9"}, "8333"); got[0] != "127.0.0.1:8333" || got[1] != "[::1]:9" {
		t.Errorf("listen %v", got)
	}
	got, err := ParseExternalIPs([]string{"1.2.3.4", "[2001:db8::1]:99", "5.6.7.8:1"}, 8333)
	if err != nil || len(got) != 3 || got[0].Port() != 8333 || got[1].Port() != 99 {
		t.Fatalf("ParseExternalIPs: %v %v", got, err)
	}
	if _, err := ParseExternalIPs([]string{"nonsense"}, 1); !errors.Is(err, ErrInvalidAddress) {
		t.Fatalf("bad externalip: %v", err)
	}
}

// fakeDialer fails the first failN dials of each address and records when
// each attempt happened.
type fakeDialer struct {
	mu       sync.Mutex
	failN    int
	attempts map[string][]time.Time
}

func (f *fakeDialer) dial(ctx context.Context, addr string) (net.Conn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.attempts == nil {
		f.attempts = make(map[string][]time.Time)
	}
	f.attempts[addr] = append(f.attempts[addr], time.Now())
	if len(f.attempts[addr]) <= f.failN {
		return nil, errors.New("refused")
	}
	c1, c2 := net.Pipe()
	go func() { // The far end just waits to be closed.
		var b [1]byte
		c2.Read(b[:])
		c2.Close()
	}()
	return c1, nil
}

func (f *fakeDialer) count(addr string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.attempts[addr])
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestPermanentRetryBackoff(t *testing.T) {
	fd := &fakeDialer{failN: 3}
	conns := make(chan net.Conn, 4)
	m := New(Config{
		Dial:         fd.dial,
		RetryBase:    20 * time.Millisecond,
		MaxRetry:     50 * time.Millisecond,
		OnConnection: func(_ *ConnReq, c net.Conn) { conns <- c },
	})
	defer m.Stop()
	m.Start()
	req, err := m.Connect("10.0.0.1:8333", true)
	if err != nil {
		t.Fatal(err)
	}
	var c net.Conn
	select {
	case c = <-conns:
	case <-time.After(5 * time.Second):
		t.Fatal("never connected")
	}
	if n := fd.count("10.0.0.1:8333"); n != 4 {
		t.Fatalf("%d attempts, want 4", n)
	}
	at := fd.attempts["10.0.0.1:8333"]
	// Delays 20, 40, then capped at 50 ms.
	wants := []time.Duration{20, 40, 50}
	for i, w := range wants {
		if gap := at[i+1].Sub(at[i]); gap < w*time.Millisecond {
			t.Errorf("retry %d after %v, want at least %v ms", i+1, gap, w)
		}
	}
	if req.State() != ConnEstablished {
		t.Fatalf("state %v", req.State())
	}
	// Losing the connection schedules a reconnect.
	c.Close()
	select {
	case c = <-conns:
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("no reconnect after disconnect")
	}
	m.Remove(req.ID)
}

func TestAutoOutboundFillsTarget(t *testing.T) {
	fd := &fakeDialer{}
	var mu sync.Mutex
	next := 0
	var conns []net.Conn
	m := New(Config{
		Dial:            fd.dial,
		AttemptInterval: testInterval,
		TargetOutbound:  3,
		GetNewAddress: func() (string, error) {
			mu.Lock()
			defer mu.Unlock()
			next++
			if next == 2 { // a banned address is skipped
				return "192.0.2.1:8333", nil
			}
			return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(next)}), 8333).String(), nil
		},
		IsBanned: func(a netip.Addr) bool { return a == netip.MustParseAddr("192.0.2.1") },
		OnConnection: func(_ *ConnReq, c net.Conn) {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		},
	})
	defer m.Stop()
	m.Start()
	waitFor(t, "three connections", 5*time.Second, func() bool {
		out, _ := m.Counts()
		return out == 3
	})
	if fd.count("192.0.2.1:8333") != 0 {
		t.Fatal("banned address dialed")
	}
	// Closing one makes room for a replacement.
	mu.Lock()
	conns[0].Close()
	mu.Unlock()
	waitFor(t, "replacement", 5*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(conns) == 4
	})
	time.Sleep(10 * testInterval)
	if out, _ := m.Counts(); out != 3 {
		t.Fatalf("%d outbound, want 3", out)
	}
}

func TestInboundLimit(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 10)
	m := New(Config{
		Listeners:      []net.Listener{l},
		MaxPeers:       4,
		TargetOutbound: 2, // leaves 2 inbound slots
		OnAccept:       func(c net.Conn) { accepted <- c },
	})
	m.Start()
	defer m.Stop()
	var clients []net.Conn
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	var got []net.Conn
	for range 2 {
		select {
		case c := <-accepted:
			got = append(got, c)
		case <-time.After(5 * time.Second):
			t.Fatal("inbound not accepted")
		}
	}
	// The third is closed by the manager.
	clients[2].SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [1]byte
	if _, err := clients[2].Read(b[:]); err == nil {
		t.Fatal("third inbound connection was not closed")
	}
	// Closing an accepted conn frees a slot.
	got[0].Close()
	waitFor(t, "slot freed", 5*time.Second, func() bool { _, in := m.Counts(); return in == 1 })
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	clients = append(clients, c)
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("inbound not accepted after slot freed")
	}
	got[1].Close()
}

func TestStopCancelsDial(t *testing.T) {
	started := make(chan struct{})
	m := New(Config{Dial: func(ctx context.Context, addr string) (net.Conn, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	m.Start()
	if _, err := m.Connect("10.0.0.1:1", true); err != nil {
		t.Fatal(err)
	}
	<-started
	done := make(chan struct{})
	go func() { m.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop hung")
	}
	if _, err := m.Connect("10.0.0.1:2", false); !errors.Is(err, ErrStopped) {
		t.Fatalf("Connect after Stop: %v", err)
	}
}

func TestNoOnionProxy(t *testing.T) {
	d := NewDialer(DialConfig{Timeout: time.Second})
	if _, err := d(context.Background(), "abc.onion:8333"); !errors.Is(err, ErrNoOnionProxy) {
		t.Fatalf("err %v", err)
	}
}

func TestAutoOutboundOnePerGroup(t *testing.T) {
	fd := &fakeDialer{}
	var mu sync.Mutex
	next := 0
	m := New(Config{
		Dial:            fd.dial,
		AttemptInterval: testInterval,
		TargetOutbound:  3,
		GetNewAddress: func() (string, error) {
			mu.Lock()
			defer mu.Unlock()
			next++
			return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(next % 2), 0, byte(next)}), 8333).String(), nil
		},
		OutboundGroup: func(addr string) string {
			ap := netip.MustParseAddrPort(addr)
			b := ap.Addr().As4()
			return string(b[:2])
		},
		OnConnection: func(_ *ConnReq, c net.Conn) {},
	})
	defer m.Stop()
	m.Start()
	waitFor(t, "two connections", 5*time.Second, func() bool { out, _ := m.Counts(); return out == 2 })
	time.Sleep(10 * testInterval)
	if out, _ := m.Counts(); out != 2 {
		t.Fatalf("%d outbound connections from two groups", out)
	}
}

func TestSelectEviction(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var cands []EvictionCandidate
	// 40 inbound peers: 30 from group 1 (the attacker), 10 honest ones in
	// their own groups with good pings and recent blocks.
	for i := range 30 {
		cands = append(cands, EvictionCandidate{ID: int32(i), Inbound: true, NetGroup: 1,
			Connected: now.Add(-time.Duration(i) * time.Minute), RelayTxs: true})
	}
	for i := 30; i < 40; i++ {
		cands = append(cands, EvictionCandidate{ID: int32(i), Inbound: true, NetGroup: uint64(100 + i),
			Connected: now.Add(-time.Hour), MinPing: time.Duration(i) * time.Millisecond,
			LastBlock: now.Add(-time.Duration(i) * time.Second), RelayTxs: true})
	}
	cands = append(cands, EvictionCandidate{ID: 99, Inbound: false, NetGroup: 1, Connected: now})
	cands = append(cands, EvictionCandidate{ID: 98, Inbound: true, NoBan: true, NetGroup: 1, Connected: now})
	id, ok := SelectEviction(cands)
	if !ok {
		t.Fatal("nothing evicted")
	}
	// The youngest peer of the crowded group goes.
	if id != 0 {
		t.Fatalf("evicted %d, want 0", id)
	}
	// Everyone protected: nothing to evict.
	if _, ok := SelectEviction(cands[30:34]); ok {
		t.Fatal("evicted from a protected set")
	}
	// Preferred-for-eviction peers go first.
	cands[5].PreferEvict = true
	if id, _ := SelectEviction(cands); id != 5 {
		t.Fatalf("evicted %d, want the preferred 5", id)
	}
}

func TestInboundEvictionHook(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 10)
	var mu sync.Mutex
	var conns []net.Conn
	m := New(Config{
		Listeners:      []net.Listener{l},
		MaxPeers:       2,
		TargetOutbound: 1,
		OnAccept:       func(c net.Conn) { accepted <- c },
		EvictInbound: func() bool {
			mu.Lock()
			defer mu.Unlock()
			if len(conns) == 0 {
				return false
			}
			conns[0].Close()
			conns = conns[1:]
			return true
		},
	})
	m.Start()
	defer m.Stop()
	for i := range 3 {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		select {
		case a := <-accepted:
			mu.Lock()
			conns = append(conns, a)
			mu.Unlock()
		case <-time.After(5 * time.Second):
			t.Fatalf("connection %d not accepted", i)
		}
	}
	waitFor(t, "one inbound", 5*time.Second, func() bool { _, in := m.Counts(); return in == 1 })
}

func TestBlockRelayOnlyConnections(t *testing.T) {
	fd := &fakeDialer{}
	var mu sync.Mutex
	next := 0
	var br, full int
	m := New(Config{
		Dial:             fd.dial,
		AttemptInterval:  testInterval,
		TargetOutbound:   2,
		TargetBlockRelay: 1,
		MaxPeers:         10,
		GetNewAddress: func() (string, error) {
			mu.Lock()
			defer mu.Unlock()
			next++
			return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(next)}), 8333).String(), nil
		},
		OnConnection: func(r *ConnReq, c net.Conn) {
			mu.Lock()
			defer mu.Unlock()
			if r.BlockRelayOnly {
				br++
			} else {
				full++
			}
		},
	})
	defer m.Stop()
	if m.InboundLimit() != 7 {
		t.Fatalf("inbound limit %d", m.InboundLimit())
	}
	m.Start()
	waitFor(t, "three connections", 5*time.Second, func() bool { out, _ := m.Counts(); return out == 3 })
	time.Sleep(10 * testInterval)
	mu.Lock()
	defer mu.Unlock()
	if br != 1 || full != 2 {
		t.Fatalf("%d block-relay-only, %d full-relay", br, full)
	}
}

// TestWildcardListenAddrs: an empty host means one IPv4 and one
// IPv6-only listener on the port (the split is checked without binding
// every interface, which tests do not do).
func TestWildcardListenAddrs(t *testing.T) {
	v4, v6, ok := wildcardAddrs(":8333")
	if !ok || v4 != "0.0.0.0:8333" || v6 != "[::]:8333" {
		t.Fatalf("wildcardAddrs(:8333) = %q %q %v", v4, v6, ok)
	}
	if _, _, ok := wildcardAddrs("127.0.0.1:8333"); ok {
		t.Fatal("a concrete host is not a wildcard")
	}
}
