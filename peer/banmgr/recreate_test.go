package banmgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btclog"
)

// captureLog sends the package's log to a buffer at debug level until
// the test ends.
func captureLog(t *testing.T) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	l := btclog.NewBackend(&b).Logger("BMGR")
	l.SetLevel(btclog.LevelDebug)
	UseLogger(l)
	t.Cleanup(func() { UseLogger(btclog.Disabled) })
	return &b
}

// p2p_disconnect_ban.py deletes banlist.json and expects bitcoind's
// words when the node starts again; the file then exists at once.
func TestMissingBanListIsRecreated(t *testing.T) {
	out := captureLog(t)
	dir := t.TempDir()
	if _, err := New(Config{DataDir: dir}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Recreating the banlist database\n") {
		t.Fatalf("log:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatalf("ban list not written: %v", err)
	}
	var fc fileContents
	if err := json.Unmarshal(b, &fc); err != nil || len(fc.Banned) != 0 {
		t.Fatalf("recreated file %s: %v", b, err)
	}

	out.Reset()
	if _, err := New(Config{DataDir: dir}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Contains(s, "Recreating") || !strings.Contains(s, "Loaded 0 banned node addresses/subnets") {
		t.Fatalf("second start logged:\n%s", s)
	}
}

func TestCorruptBanListIsRecreated(t *testing.T) {
	out := captureLog(t)
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	New(Config{DataDir: dir})
	s := out.String()
	if !strings.Contains(s, "Cannot load banlist "+path) || !strings.Contains(s, "Recreating the banlist database") {
		t.Fatalf("log:\n%s", s)
	}
	if _, err := New(Config{DataDir: dir}); err != nil {
		t.Fatalf("recreated list does not load: %v", err)
	}
}

// p2p_disconnect_ban.py: setban of an address inside a banned range is
// refused, as is banning the same range twice; a wider range over a
// banned address is not.
func TestSetBanAlreadyBanned(t *testing.T) {
	m, _ := New(Config{})
	until := time.Now().Add(time.Hour)
	if err := m.BanSubnet(netip.MustParsePrefix("127.0.0.0/24"), until, ""); err != nil {
		t.Fatal(err)
	}
	if err := m.BanSubnet(netip.MustParsePrefix("127.0.0.1/32"), until, ""); !errors.Is(err, ErrAlreadyBanned) {
		t.Fatalf("address in banned range: %v", err)
	}
	if err := m.BanSubnet(netip.MustParsePrefix("127.0.0.0/24"), until, ""); !errors.Is(err, ErrAlreadyBanned) {
		t.Fatalf("same range: %v", err)
	}
	if err := m.BanSubnet(netip.MustParsePrefix("127.0.0.0/16"), until, ""); err != nil {
		t.Fatalf("wider range: %v", err)
	}
	// Automatic bans are not refused.
	if !m.Ban(netip.MustParseAddr("127.0.0.9"), "misbehaving") {
		t.Fatal("Ban refused inside a banned range")
	}
	if len(m.List()) != 3 {
		t.Fatalf("list %v", m.List())
	}
}
