package banmgr

import (
	"errors"
	"net/netip"
	"testing"
	"time"
)

const testOnion = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion"

func TestHostBanPersistsAndSortsLast(t *testing.T) {
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	m, err := New(Config{DataDir: dir, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.BanHost(testOnion, clk.t.Add(time.Hour), "manual"); err != nil {
		t.Fatal(err)
	}
	if err := m.BanHost(testOnion, clk.t.Add(time.Hour), "again"); !errors.Is(err, ErrAlreadyBanned) {
		t.Fatalf("second ban: %v, want ErrAlreadyBanned", err)
	}
	if !m.Ban(netip.MustParseAddr("10.0.0.1"), "ip") {
		t.Fatal("ip ban refused")
	}
	m2, err := New(Config{DataDir: dir, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	l := m2.List()
	if len(l) != 2 || l[0].Address() != "10.0.0.1/32" || l[1].Address() != testOnion {
		t.Fatalf("list after restart %+v", l)
	}
	if !m2.IsHostBanned(testOnion) || !m2.UnbanHost(testOnion) || m2.IsHostBanned(testOnion) {
		t.Fatal("unban of a host ban failed")
	}
	clk.t = clk.t.Add(2 * time.Hour)
	if err := m2.BanHost(testOnion, clk.t.Add(time.Second), ""); err != nil {
		t.Fatal(err)
	}
	clk.t = clk.t.Add(time.Second)
	if m2.IsHostBanned(testOnion) {
		t.Fatal("expired host ban still in force")
	}
}

func TestCanonicalHostRefusesIPsAndBadOnions(t *testing.T) {
	for _, h := range []string{"1.2.3.4", "::1", "example.com", "aaaa.onion",
		"pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryc.onion"} {
		if _, ok := CanonicalHost(h); ok {
			t.Errorf("CanonicalHost(%q) accepted", h)
		}
	}
	if h, ok := CanonicalHost("PG6MMJIYJMCRSSLVYKFWNNTLARU7P5SVN6Y2YMMJU6NUBXNDF4PSCRYD.onion"); !ok || h != testOnion {
		t.Errorf("upper-case onion: %q %v", h, ok)
	}
}
