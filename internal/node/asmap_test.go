package node

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// coreTestASMap is the skeleton map of Core's unit tests, in the shared
// Core tree when present.
func coreTestASMap(t *testing.T) string {
	p := filepath.Join("..", "..", "..", "shared", "corefunc", "srcdir", "src", "test", "data", "asmap.raw")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("Core's test asmap not present (%v)", err)
	}
	abs, _ := filepath.Abs(p)
	return abs
}

// TestASMap: with --asmap, getrawaddrman reports each address's AS and
// getaddrmaninfo counts the tables per network; a missing or unparsable
// map stops start-up with Core's message.
func TestASMap(t *testing.T) {
	n := newTestNode(t, "--asmap="+coreTestASMap(t), "--test=addrman", "--checkaddrman=1")
	for i := range 4 {
		n.must(t, "addpeeraddress", fmt.Sprintf("101.%d.0.0", i), 8333, i < 2)
	}
	var raw map[string]map[string]struct {
		Address  string `json:"address"`
		MappedAS int64  `json:"mapped_as"`
	}
	if err := json.Unmarshal(n.must(t, "getrawaddrman"), &raw); err != nil {
		t.Fatal(err)
	}
	asns := map[int64]bool{}
	count := 0
	for _, table := range raw {
		for _, e := range table {
			count++
			if e.MappedAS == 0 {
				t.Errorf("%s unmapped", e.Address)
			}
			asns[e.MappedAS] = true
		}
	}
	if count != 4 || len(asns) != 3 {
		t.Fatalf("%d entries in %d ASNs, want 4 in 3", count, len(asns))
	}
	var info map[string]struct{ New, Tried, Total int }
	if err := json.Unmarshal(n.must(t, "getaddrmaninfo"), &info); err != nil {
		t.Fatal(err)
	}
	if v4 := info["ipv4"]; v4.New != 2 || v4.Tried != 2 || v4.Total != 4 || info["all_networks"].Total != 4 {
		t.Fatalf("getaddrmaninfo %+v", info)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "empty.map")
	os.WriteFile(bad, nil, 0o644)
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.map"): "Could not find asmap file",
		bad:                               "Could not parse asmap file",
	} {
		cfg, err := loadConfig([]string{"--regtest", "--appdata=" + t.TempDir(), "--nolisten", "--norpc", "--asmap=" + path})
		if err != nil {
			t.Fatal(err)
		}
		if s, err := newServer(cfg); err == nil || !strings.HasPrefix(ErrorText(err), want) {
			if s != nil {
				s.Stop()
			}
			t.Errorf("--asmap=%s: %v, want %q", path, err, want)
		}
	}
}
