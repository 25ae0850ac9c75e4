package banmgr

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestBanPersistsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	m, err := New(Config{DataDir: dir, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	a := netip.MustParseAddr("203.0.113.7")
	if !m.Ban(a, "test") {
		t.Fatal("Ban refused")
	}
	if err := m.BanSubnet(netip.MustParsePrefix("198.51.100.0/24"), clk.t.Add(time.Hour), "range"); err != nil {
		t.Fatal(err)
	}
	if !m.IsBanned(a) || !m.IsBanned(netip.MustParseAddr("::ffff:203.0.113.7")) {
		t.Fatal("address not banned")
	}
	if !m.IsBanned(netip.MustParseAddr("198.51.100.99")) {
		t.Fatal("subnet not banned")
	}
	if m.IsBanned(netip.MustParseAddr("203.0.113.8")) {
		t.Fatal("neighbour banned")
	}

	m2, err := New(Config{DataDir: dir, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	if !m2.IsBanned(a) || !m2.IsBanned(netip.MustParseAddr("198.51.100.1")) {
		t.Fatal("ban lost across restart")
	}
	if got := len(m2.List()); got != 2 {
		t.Fatalf("List has %d entries, want 2", got)
	}

	// The range expires after an hour, the address after a day.
	clk.t = clk.t.Add(2 * time.Hour)
	if m2.IsBanned(netip.MustParseAddr("198.51.100.1")) {
		t.Fatal("expired subnet still banned")
	}
	clk.t = clk.t.Add(DefaultBanDuration)
	if m2.IsBanned(a) {
		t.Fatal("expired ban still active")
	}
	m3, _ := New(Config{DataDir: dir, Now: clk.now})
	if len(m3.List()) != 0 {
		t.Fatal("expired bans reloaded")
	}
}

func TestWhitelistNeverBanned(t *testing.T) {
	m, _ := New(Config{Whitelist: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	a := netip.MustParseAddr("10.1.2.3")
	if m.Ban(a, "x") {
		t.Fatal("whitelisted address banned")
	}
	if m.IsBanned(a) || !m.IsWhitelisted(a) {
		t.Fatal("whitelist not honoured")
	}
	if err := m.BanSubnet(netip.MustParsePrefix("10.0.0.0/16"), time.Now().Add(time.Hour), ""); !errors.Is(err, ErrInvalidSubnet) {
		t.Fatalf("banning a whitelisted range: err %v", err)
	}
}

func TestUnbanAndClear(t *testing.T) {
	dir := t.TempDir()
	m, _ := New(Config{DataDir: dir})
	a := netip.MustParseAddr("2001:db8::1")
	m.Ban(a, "")
	if !m.Unban(netip.PrefixFrom(a, 128)) || m.IsBanned(a) {
		t.Fatal("unban failed")
	}
	m.Ban(a, "")
	m.ClearBanned()
	if m.IsBanned(a) {
		t.Fatal("clear failed")
	}
}

func TestCorruptFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{DataDir: dir})
	if !errors.Is(err, ErrCorruptFile) || m == nil {
		t.Fatalf("err %v, manager %v", err, m)
	}
}

func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	m, _ := New(Config{DataDir: dir})
	m.Ban(netip.MustParseAddr("203.0.113.7"), "x")
	m.BanSubnet(netip.MustParsePrefix("2001:db8::/32"), time.Now().Add(time.Hour), "y")
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"version":1,"banned_nets":[{"address":"1.2.3.4","banned_until":99999999999}]}`))
	f.Add([]byte(`{"banned_nets":[{"address":"::ffff:1.2.3.4/120","banned_until":99999999999}]}`))
	f.Add([]byte(`nonsense`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o600); err != nil {
			t.Fatal(err)
		}
		m, err := New(Config{DataDir: dir})
		if err != nil && !errors.Is(err, ErrCorruptFile) {
			t.Fatalf("unexpected error: %v", err)
		}
		for _, e := range m.List() {
			if !e.Subnet.IsValid() || e.Subnet != e.Subnet.Masked() {
				t.Fatalf("bad entry %+v", e)
			}
			if !m.IsBanned(e.Subnet.Addr()) {
				t.Fatalf("listed ban %v not enforced", e.Subnet)
			}
		}
	})
}
