package addrmgr

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func na(s string) wire.NetAddressV2 {
	ap := netip.MustParseAddrPort(s)
	return wire.NetAddressV2FromNetAddress(wire.NewNetAddress(ap, wire.SFNodeNetwork|wire.SFNodeWitness, uint32(time.Now().Unix())))
}

func ip4(a, b, c, d byte, port uint16) wire.NetAddressV2 {
	return na(netip.AddrPortFrom(netip.AddrFrom4([4]byte{a, b, c, d}), port).String())
}

func mustNew(t testing.TB, cfg Config) *Manager {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func checkInv(t testing.TB, m *Manager) {
	t.Helper()
	if err := m.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}

func TestGroups(t *testing.T) {
	g := func(s string) string { a := na(s); return GroupKey(&a) }
	same := [][2]string{
		{"1.2.3.4:8333", "1.2.250.1:1"},
		{"[2a01:1234:5::1]:8333", "[2a01:1234:ffff::2]:1"},
		{"[2002:102:304::1]:1", "1.2.99.99:1"},           // 6to4 embeds 1.2.3.4
		{"[2001:0:0:0:0:0:fefd:fcfb]:1", "1.2.3.4:1"},    // Teredo, inverted
		{"[::ffff:1.2.3.4]:1", "1.2.7.7:1"},              // mapped
		{"[64:ff9b::102:304]:1", "1.2.0.1:1"},            // NAT64
		{"[2001:470:1000::1]:1", "[2001:470:1fff::1]:1"}, // he.net /36
	}
	for _, c := range same {
		if g(c[0]) != g(c[1]) {
			t.Errorf("%s and %s should share a group", c[0], c[1])
		}
	}
	differ := [][2]string{
		{"1.2.3.4:1", "1.3.3.4:1"},
		{"[2a01:1234::1]:1", "[2a01:1235::1]:1"},
		{"[2001:470:1000::1]:1", "[2001:470:2000::1]:1"},
		{"1.2.3.4:1", "[2a01:1234::1]:1"},
	}
	for _, c := range differ {
		if g(c[0]) == g(c[1]) {
			t.Errorf("%s and %s should not share a group", c[0], c[1])
		}
	}
	tor1 := wire.NetAddressV2{NetworkID: wire.NetTorV3, Addr: make([]byte, 32), Port: 1}
	tor2 := wire.NetAddressV2{NetworkID: wire.NetTorV3, Addr: make([]byte, 32), Port: 1}
	tor2.Addr[0], tor2.Addr[5] = 0x03, 0xff // same high nibble
	if GroupKey(&tor1) != GroupKey(&tor2) {
		t.Error("Tor addresses with the same first 4 bits should share a group")
	}
	tor2.Addr[0] = 0x13
	if GroupKey(&tor1) == GroupKey(&tor2) {
		t.Error("Tor addresses with different first 4 bits share a group")
	}
}

func TestRoutable(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8:8333": true, "10.1.1.1:8333": false, "127.0.0.1:8333": false,
		"192.168.1.1:1": false, "100.64.0.1:1": false, "203.0.113.1:1": false,
		"[2001:db8::1]:1": false, "[fe80::1]:1": false, "[2a00::1]:1": true,
		"8.8.8.8:0": false, "0.0.0.0:1": false, "[fd00::1]:1": false,
	} {
		a := na(s)
		k, _ := keyOf(&a)
		if got := isRoutable(&k); got != want {
			t.Errorf("isRoutable(%s) = %v", s, got)
		}
	}
	m := mustNew(t, Config{})
	if m.AddAddresses([]wire.NetAddressV2{na("10.0.0.1:8333")}, na("8.8.8.8:8333"), 0) != 0 {
		t.Fatal("unroutable address added")
	}
}

func TestAddGoodSelect(t *testing.T) {
	m := mustNew(t, Config{})
	src := ip4(50, 1, 1, 1, 8333)
	var addrs []wire.NetAddressV2
	for i := range 200 {
		addrs = append(addrs, ip4(byte(20+i%50), byte(i), 1, 1, 8333))
	}
	if n := m.AddAddresses(addrs, src, DefaultTimePenalty); n == 0 {
		t.Fatal("nothing added")
	}
	checkInv(t, m)
	nNew, nTried := m.Counts()
	if nNew == 0 || nTried != 0 {
		t.Fatalf("counts %d/%d", nNew, nTried)
	}
	// Relayed timestamps carry the penalty.
	ka, ok := m.Lookup(addrs[0])
	if !ok || int64(ka.Addr.Timestamp) > time.Now().Add(-DefaultTimePenalty+time.Minute).Unix() {
		t.Fatalf("entry %+v", ka)
	}
	sel, err := m.Select(false)
	if err != nil {
		t.Fatal(err)
	}
	m.Attempt(sel.Addr)
	m.Good(sel.Addr)
	checkInv(t, m)
	ka, _ = m.Lookup(sel.Addr)
	if !ka.Tried || ka.Attempts != 0 || ka.LastSuccess.IsZero() {
		t.Fatalf("after Good: %+v", ka)
	}
	if _, nTried := m.Counts(); nTried != 1 {
		t.Fatalf("tried %d", nTried)
	}
	// Good on an unknown address adds it as tried.
	m.Good(ip4(99, 9, 9, 9, 8333))
	checkInv(t, m)
	if ka, ok := m.Lookup(ip4(99, 9, 9, 9, 8333)); !ok || !ka.Tried {
		t.Fatal("unknown good address not tried")
	}
	if _, err := (mustNew(t, Config{})).Select(false); !errors.Is(err, ErrNoAddresses) {
		t.Fatalf("empty select: %v", err)
	}
}

// Addresses from one source group can fill only a few new buckets, and
// addresses of one group from one source only one: a single attacker
// cannot flood the new table.
func TestNewTableResistsFlooding(t *testing.T) {
	m := mustNew(t, Config{})
	src := ip4(60, 1, 1, 1, 8333)
	var addrs []wire.NetAddressV2
	for i := range 5000 {
		addrs = append(addrs, ip4(61, 7, byte(i>>8), byte(i), 8333))
	}
	m.AddAddresses(addrs, src, 0)
	checkInv(t, m)
	if n := m.Size(); n > bucketSize {
		t.Fatalf("%d addresses of one group from one source kept, want <= %d", n, bucketSize)
	}

	// Many groups from one source group: at most 64 buckets.
	m2 := mustNew(t, Config{})
	addrs = addrs[:0]
	for i := range 20000 {
		addrs = append(addrs, ip4(byte(1+i%200), byte(i/200), 3, 4, 8333))
	}
	for i := 0; i < len(addrs); i += 1000 {
		m2.AddAddresses(addrs[i:i+1000], ip4(60, 1, byte(i/1000), 9, 8333), 0) // all in 60.1/16
	}
	checkInv(t, m2)
	if n := m2.Size(); n > newBucketsPerSourceGroup*bucketSize {
		t.Fatalf("%d addresses from one source group, want <= %d", n, newBucketsPerSourceGroup*bucketSize)
	}
	buckets := 0
	for b := range m2.newTbl {
		for _, id := range m2.newTbl[b] {
			if id != 0 {
				buckets++
				break
			}
		}
	}
	if buckets > newBucketsPerSourceGroup {
		t.Fatalf("%d buckets used by one source group", buckets)
	}
}

// Tried entries of one group occupy at most triedBucketsPerGroup buckets.
func TestTriedBucketsPerGroup(t *testing.T) {
	m := mustNew(t, Config{})
	for i := range 2000 {
		m.Good(ip4(70, 8, byte(i>>8), byte(i), 8333))
	}
	checkInv(t, m)
	used := 0
	for b := range m.tried {
		for _, id := range m.tried[b] {
			if id != 0 {
				used++
				break
			}
		}
	}
	if used > triedBucketsPerGroup {
		t.Fatalf("one group uses %d tried buckets", used)
	}
	if _, nTried := m.Counts(); nTried > triedBucketsPerGroup*bucketSize {
		t.Fatalf("%d tried from one group", nTried)
	}
}

func TestSelectFavoursTried(t *testing.T) {
	m := mustNew(t, Config{})
	for i := range 500 {
		m.AddAddresses([]wire.NetAddressV2{ip4(byte(10+i%100+1), byte(i), 5, 5, 8333)}, ip4(byte(i%200+1), 1, 1, 1, 1), 0)
	}
	good := ip4(80, 80, 80, 80, 8333)
	m.Good(good)
	tried := 0
	const n = 400
	for range n {
		ka, err := m.Select(false)
		if err != nil {
			t.Fatal(err)
		}
		if ka.Tried {
			tried++
		}
	}
	// One tried entry among 500 new ones is still chosen about half the
	// time.
	if tried < n/4 || tried > 3*n/4 {
		t.Fatalf("tried selected %d of %d times", tried, n)
	}
	for range 50 {
		ka, _ := m.Select(true)
		if ka.Tried {
			t.Fatal("newOnly returned a tried address")
		}
	}
}

func TestTerribleAndChance(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	ka := &knownAddress{timestamp: uint32(now.Unix())}
	if ka.isTerrible(now) {
		t.Fatal("fresh address terrible")
	}
	ka.attempts = 3
	if !ka.isTerrible(now) {
		t.Fatal("three failures without success not terrible")
	}
	ka.lastAttempt = now.Add(-30 * time.Second)
	if ka.isTerrible(now) {
		t.Fatal("just-tried address terrible")
	}
	old := &knownAddress{timestamp: uint32(now.Add(-31 * 24 * time.Hour).Unix())}
	if !old.isTerrible(now) {
		t.Fatal("old address not terrible")
	}
	c0 := (&knownAddress{}).chance(now)
	c2 := (&knownAddress{attempts: 2}).chance(now)
	recent := (&knownAddress{lastAttempt: now.Add(-time.Minute)}).chance(now)
	if !(c0 == 1 && c2 < c0 && recent < c2) {
		t.Fatalf("chances %v %v %v", c0, c2, recent)
	}
}

func TestGetAddresses(t *testing.T) {
	m := mustNew(t, Config{})
	for i := range 300 {
		m.AddAddresses([]wire.NetAddressV2{ip4(byte(1+i%200), byte(i), 9, 9, 8333)}, ip4(byte(i%200+1), 2, 2, 2, 1), 0)
	}
	size := m.Size()
	got := m.GetAddresses(GetAddrMax, GetAddrMaxPct)
	if len(got) != size*GetAddrMaxPct/100 {
		t.Fatalf("got %d of %d", len(got), size)
	}
	if got := m.GetAddresses(10, 100); len(got) != 10 {
		t.Fatalf("max count ignored: %d", len(got))
	}
}

func TestCachedAddresses(t *testing.T) {
	now := time.Now()
	m := mustNew(t, Config{Now: func() time.Time { return now }})
	for i := range 100 {
		m.AddAddresses([]wire.NetAddressV2{ip4(byte(1+i), 9, 9, 9, 8333)}, ip4(byte(i+1), 2, 2, 2, 1), 0)
	}
	a := m.CachedAddresses("ipv4")
	m.AddAddresses([]wire.NetAddressV2{ip4(150, 9, 9, 9, 8333)}, ip4(150, 2, 2, 2, 1), 0)
	b := m.CachedAddresses("ipv4")
	if len(a) == 0 || &a[0] != &b[0] {
		t.Fatal("cache not reused")
	}
	now = now.Add(28 * time.Hour)
	if c := m.CachedAddresses("ipv4"); len(c) > 0 && &c[0] == &a[0] {
		t.Fatal("cache not refreshed")
	}
}

func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	m := mustNew(t, Config{DataDir: dir})
	for i := range 300 {
		m.AddAddresses([]wire.NetAddressV2{ip4(byte(1+i%200), byte(i), 7, 7, 8333)}, ip4(byte(i%200+1), 3, 3, 3, 1), 0)
	}
	good := ip4(90, 1, 2, 3, 8333)
	m.Good(good)
	m.Attempt(ip4(1, 0, 7, 7, 8333))
	// The bucket slot depends on the manager's random key; it may hold an
	// address that is not replaced, so try a few until one is stored.
	tor := wire.NetAddressV2{NetworkID: wire.NetTorV3, Addr: make([]byte, 32), Port: 8333, Timestamp: uint32(time.Now().Unix())}
	for i := range 64 {
		tor.Addr = append(tor.Addr[:0:0], make([]byte, 32)...)
		tor.Addr[0], tor.Addr[1] = 0x42, byte(i)
		if m.AddAddresses([]wire.NetAddressV2{tor}, good, 0) == 1 {
			break
		}
	}
	m.Start()
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	nNew, nTried := m.Counts()

	m2 := mustNew(t, Config{DataDir: dir})
	checkInv(t, m2)
	n2, t2 := m2.Counts()
	if n2 != nNew || t2 != nTried || m2.key != m.key {
		t.Fatalf("after reload %d/%d want %d/%d (key same %v)", n2, t2, nNew, nTried, m2.key == m.key)
	}
	if ka, ok := m2.Lookup(good); !ok || !ka.Tried || ka.LastSuccess.IsZero() {
		t.Fatalf("tried entry lost: %+v", ka)
	}
	if ka, ok := m2.Lookup(ip4(1, 0, 7, 7, 8333)); !ok || ka.Attempts != 1 {
		t.Fatalf("attempts lost: %+v", ka)
	}
	if _, ok := m2.Lookup(tor); !ok {
		t.Fatal("tor address lost")
	}

	// A corrupt file stops start-up, as in bitcoind.
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`{"version":1,"key":"zz"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m3, err := New(Config{DataDir: dir})
	if !errors.Is(err, ErrCorruptFile) || m3 != nil {
		t.Fatalf("corrupt file: %v", err)
	}
}

func TestSeedFromDNS(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	m := mustNew(t, Config{Lookup: func(host string) ([]netip.Addr, error) {
		mu.Lock()
		asked = append(asked, host)
		mu.Unlock()
		switch {
		case strings.HasSuffix(host, "good.example"):
			return []netip.Addr{netip.MustParseAddr("31.1.1.1"), netip.MustParseAddr("32.2.2.2"), netip.MustParseAddr("10.0.0.1")}, nil
		case host == "v6.example":
			return []netip.Addr{netip.MustParseAddr("2a02::1")}, nil
		}
		return nil, errors.New("no such host")
	}})
	n := m.SeedFromDNS(context.Background(), []DNSSeed{{"good.example", true}, {"v6.example", false}, {"bad.example", false}}, 8333)
	if n != 3 || m.Size() != 3 {
		t.Fatalf("added %d, size %d", n, m.Size())
	}
	found := false
	for _, h := range asked {
		found = found || h == "x9.good.example"
	}
	if !found {
		t.Fatalf("filtering seed not asked for x9: %v", asked)
	}
	ka, _ := m.Lookup(na("31.1.1.1:8333"))
	age := time.Since(time.Unix(int64(ka.Addr.Timestamp), 0))
	if age < 3*24*time.Hour || age > 7*24*time.Hour+time.Minute {
		t.Fatalf("seed address age %v", age)
	}
	if m.AddFixedSeeds([]netip.AddrPort{netip.MustParseAddrPort("33.3.3.3:8333")}) != 1 {
		t.Fatal("fixed seed not added")
	}
	checkInv(t, m)
}

func TestLocalAddresses(t *testing.T) {
	m := mustNew(t, Config{})
	if m.AddLocalAddress(netip.MustParseAddrPort("192.168.1.1:8333"), LocalScoreManual) {
		t.Fatal("private local address accepted")
	}
	m.AddLocalAddress(netip.MustParseAddrPort("44.4.4.4:8333"), LocalScoreManual)
	m.AddLocalAddress(netip.MustParseAddrPort("[2a03::4]:8333"), LocalScorePeer)
	got, ok := m.BestLocalAddress(na("[2a05::1]:8333"))
	if !ok || got.String() != "44.4.4.4:8333" {
		t.Fatalf("best for IPv6 peer: %v", got.String())
	}
	m.AddLocalAddress(netip.MustParseAddrPort("[2a03::4]:8333"), LocalScoreManual)
	got, _ = m.BestLocalAddress(na("[2a05::1]:8333"))
	if got.String() != "[2a03::4]:8333" {
		t.Fatalf("same-network address not preferred: %v", got.String())
	}
	// Our own addresses are not stored as peers.
	if m.AddAddresses([]wire.NetAddressV2{na("44.4.4.4:8333")}, na("8.8.8.8:1"), 0) != 0 {
		t.Fatal("own address added")
	}
}

// An onion address of ours is advertised to onion peers and forgotten
// when removed.
func TestLocalOnionAddress(t *testing.T) {
	m := mustNew(t, Config{})
	id, raw, err := wire.ParseHost("pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion")
	if err != nil {
		t.Fatal(err)
	}
	onion := wire.NetAddressV2{NetworkID: id, Addr: raw, Port: 8333}
	if !m.AddLocalNetAddress(onion, LocalScoreManual) {
		t.Fatal("onion address refused")
	}
	m.AddLocalAddress(netip.MustParseAddrPort("44.4.4.4:8333"), LocalScorePeer)
	peer := wire.NetAddressV2{NetworkID: id, Addr: make([]byte, 32), Port: 8333}
	peer.Addr[0] = 1
	if got, ok := m.BestLocalAddress(peer); !ok || got.NetworkID != wire.NetTorV3 {
		t.Fatalf("best for an onion peer: %v", got.String())
	}
	if len(m.LocalAddresses()) != 2 {
		t.Fatalf("local addresses %v", m.LocalAddresses())
	}
	// An IPv4 peer gets the IPv4 address; with no IP address of ours,
	// the onion one rather than none.
	if got, _ := m.BestLocalAddress(na("8.8.8.8:8333")); got.String() != "44.4.4.4:8333" {
		t.Fatalf("best for an IPv4 peer: %v", got.String())
	}
	m2 := mustNew(t, Config{})
	m2.AddLocalNetAddress(onion, LocalScoreManual)
	if got, ok := m2.BestLocalAddress(na("8.8.8.8:8333")); !ok || got.NetworkID != wire.NetTorV3 {
		t.Fatalf("onion only, for an IPv4 peer: %v %v", got.String(), ok)
	}
	m.RemoveLocalNetAddress(onion)
	if got, _ := m.BestLocalAddress(peer); got.NetworkID == wire.NetTorV3 || len(m.LocalAddresses()) != 1 {
		t.Fatalf("onion address still advertised: %v", got.String())
	}
}

func FuzzLoad(f *testing.F) {
	m := mustNew(f, Config{})
	for i := range 20 {
		m.AddAddresses([]wire.NetAddressV2{ip4(byte(1+i), 1, 1, 1, 8333)}, ip4(8, 8, 8, 8, 1), 0)
	}
	m.Good(ip4(9, 9, 9, 9, 8333))
	dir := f.TempDir()
	m.path = peersPath(dir)
	if err := m.Save(); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(m.path)
	f.Add(b)
	f.Add(b[:len(b)-40])
	f.Add(append([]byte{1, 2, 3, 4}, b[4:]...))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := mustNew(t, Config{})
		if err := m.loadBytes(data); err != nil {
			return
		}
		if err := m.checkInvariants(); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkAddAddresses(b *testing.B) {
	m := mustNew(b, Config{})
	addrs := make([]wire.NetAddressV2, 1000)
	for i := range addrs {
		addrs[i] = ip4(byte(1+i%200), byte(i/200), 1, 1, 8333)
	}
	src := ip4(8, 8, 8, 8, 1)
	b.ReportAllocs()
	for b.Loop() {
		m.AddAddresses(addrs, src, DefaultTimePenalty)
	}
}

func BenchmarkSelect(b *testing.B) {
	m := mustNew(b, Config{})
	for i := range 5000 {
		m.AddAddresses([]wire.NetAddressV2{ip4(byte(1+i%200), byte(i/200), 1, 1, 8333)}, ip4(byte(i%200+1), 8, 8, 8, 1), 0)
	}
	for i := range 100 {
		m.Good(ip4(byte(1+i), 77, 1, 1, 8333))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Select(false); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFixedSeeds: every network with Core fixed seeds has a routable list
// on its own port, and the seeds fill an empty manager.
func TestFixedSeeds(t *testing.T) {
	for _, c := range []struct {
		net  wire.BitcoinNet
		port uint16
	}{{wire.MainNet, 8333}, {wire.SigNet, 38333}, {wire.TestNet4, 48333}} {
		seeds := FixedSeeds(c.net)
		if len(seeds) < 16 {
			t.Fatalf("%v: %d fixed seeds", c.net, len(seeds))
		}
		seen := map[netip.AddrPort]bool{}
		for _, ap := range seeds {
			k := keyFromAddrPort(ap)
			if ap.Port() != c.port || !isRoutable(&k) || seen[ap] {
				t.Errorf("%v: bad or duplicate seed %v", c.net, ap)
			}
			seen[ap] = true
		}
		m, err := New(Config{DataDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if n := m.AddFixedSeeds(seeds); n < len(seeds)/2 {
			t.Errorf("%v: only %d of %d seeds added", c.net, n, len(seeds))
		}
	}
	if len(FixedSeeds(wire.RegTest)) != 0 || len(FixedSeeds(wire.TestNet3)) != 0 {
		t.Error("regtest and testnet3 have no fixed seeds")
	}
}

// TestLocalAddressList: LocalAddresses lists our addresses best first, and
// SeenLocal raises the score of a known address whatever port the peer saw
// but adds no new one.
func TestLocalAddressList(t *testing.T) {
	m, err := New(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	m.AddLocalAddress(netip.MustParseAddrPort("1.2.3.4:8333"), LocalScoreManual)
	m.AddLocalAddress(netip.MustParseAddrPort("5.6.7.8:8333"), LocalScorePeer)
	if !m.SeenLocal(netip.MustParseAddrPort("5.6.7.8:51234")) {
		t.Fatal("SeenLocal missed a known address")
	}
	if m.SeenLocal(netip.MustParseAddrPort("9.9.9.9:8333")) {
		t.Fatal("SeenLocal accepted an unknown address")
	}
	got := m.LocalAddresses()
	if len(got) != 2 || got[0].Addr.String() != "1.2.3.4:8333" || got[0].Score != LocalScoreManual ||
		got[1].Score != LocalScorePeer+1 {
		t.Fatalf("local addresses %+v", got)
	}
}

// IsRoutable: what the node stores and relays, as Core's IsRoutable.
func TestIsRoutable(t *testing.T) {
	for _, tc := range []struct {
		na   wire.NetAddressV2
		want bool
	}{
		{na("44.1.2.3:8333"), true},
		{na("[2a05::1]:8333"), true},
		{na("10.1.2.3:8333"), false},
		{na("127.0.0.1:8333"), false},
		{na("0.1.1.1:8333"), false},
		{na("44.1.2.3:0"), false},
		{wire.NetAddressV2{NetworkID: wire.NetTorV3, Addr: make([]byte, 32)}, true},
		{wire.NetAddressV2{NetworkID: wire.NetI2P, Addr: make([]byte, 32)}, true},
		{wire.NetAddressV2{NetworkID: wire.NetI2P, Addr: make([]byte, 16)}, false},
	} {
		if got := IsRoutable(&tc.na); got != tc.want {
			t.Errorf("IsRoutable(%v) = %v, want %v", tc.na.String(), got, tc.want)
		}
	}
}
