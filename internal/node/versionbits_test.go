package node

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/chaincfg"
)

// Version bits through the RPCs, on regtest: testdummy (bit 28, period
// 144, threshold 108) starts at height 144, and the node's own blocks
// signal it.

// jsonEqual compares two JSON documents as values.
func jsonEqual(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// deployment returns one entry of getdeploymentinfo (at hash, or the tip).
func (n *testNode) deployment(t *testing.T, name string, hash ...any) json.RawMessage {
	t.Helper()
	var di struct {
		Deployments map[string]json.RawMessage `json:"deployments"`
	}
	if err := json.Unmarshal(n.must(t, "getdeploymentinfo", hash...), &di); err != nil {
		t.Fatal(err)
	}
	return di.Deployments[name]
}

// TestGetDeploymentInfoBIP9 mirrors Core 30's rpc_blockchain.py
// expectations for testdummy while started (bit, statistics and the
// signalling string) and for taproot (always active: no bit, no
// statistics).
func TestGetDeploymentInfoBIP9(t *testing.T) {
	n := newTestNode(t)
	hs := n.mine(t, 207)
	started := func(height int, next string) string {
		k := height - 143
		return `{"type":"bip9","active":false,"bip9":{"bit":28,"start_time":0,"timeout":9223372036854775807,
			"min_activation_height":0,"status":"started","since":144,"status_next":"` + next + `",
			"statistics":{"period":144,"threshold":108,"elapsed":` + itoa(k) + `,"count":` + itoa(k) + `,"possible":true},
			"signalling":"` + strings.Repeat("#", k) + `"}}`
	}
	jsonEqual(t, "testdummy at 207", n.deployment(t, "testdummy"), started(207, "started"))
	jsonEqual(t, "taproot", n.deployment(t, "taproot"), `{"type":"bip9","height":0,"active":true,"bip9":{
		"start_time":-1,"timeout":9223372036854775807,"min_activation_height":0,"status":"active","since":0,"status_next":"active"}}`)
	var hdr struct{ Version int64 }
	json.Unmarshal(n.must(t, "getblockheader", hs[206].String()), &hdr)
	if hdr.Version != 0x30000000 {
		t.Errorf("mined block version %#x, want testdummy's bit", hdr.Version)
	}
	n.mine(t, 80)
	jsonEqual(t, "testdummy at 287", n.deployment(t, "testdummy"), started(287, "locked_in"))
	jsonEqual(t, "testdummy at 207 by hash", n.deployment(t, "testdummy", hs[206].String()), started(207, "started"))
	n.mine(t, 2)
	jsonEqual(t, "testdummy locked in", n.deployment(t, "testdummy"), `{"type":"bip9","active":false,"bip9":{"bit":28,
		"start_time":0,"timeout":9223372036854775807,"min_activation_height":0,"status":"locked_in","since":288,
		"status_next":"locked_in","statistics":{"period":144,"elapsed":2,"count":2},"signalling":"##"}}`)
}

// TestGetDeploymentInfoNeverActive: Core leaves out a deployment that can
// never activate.
func TestGetDeploymentInfoNeverActive(t *testing.T) {
	n := newTestNode(t, "--vbparams=testdummy:-2:-2")
	n.mine(t, 1)
	if d := n.deployment(t, "testdummy"); d != nil {
		t.Errorf("never-active testdummy listed: %s", d)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// templateBits returns getblocktemplate's version-bits fields for rules.
func (n *testNode) templateBits(t *testing.T, rules ...string) (int64, []string, map[string]int) {
	t.Helper()
	var tmpl struct {
		Version     int64          `json:"version"`
		Rules       []string       `json:"rules"`
		VBAvailable map[string]int `json:"vbavailable"`
		VBRequired  *int           `json:"vbrequired"`
	}
	if err := json.Unmarshal(n.must(t, "getblocktemplate", map[string]any{"rules": append([]string{"segwit"}, rules...)}), &tmpl); err != nil {
		t.Fatal(err)
	}
	if tmpl.VBRequired == nil || *tmpl.VBRequired != 0 {
		t.Errorf("vbrequired %v", tmpl.VBRequired)
	}
	return tmpl.Version, tmpl.Rules, tmpl.VBAvailable
}

// TestBlockTemplateVersionBits: vbavailable lists testdummy while started
// and locked in, the version signals it, and once active it moves to the
// rules. A mandatory deployment ('!' prefix) is dropped from the version
// for a client that does not list it, and refuses such a client once
// active.
func TestBlockTemplateVersionBits(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 100)
	check := func(what string, wantVersion int64, wantRules []string, wantAvail map[string]int, rules ...string) {
		t.Helper()
		v, r, a := n.templateBits(t, rules...)
		if v != wantVersion || !reflect.DeepEqual(r, wantRules) || !reflect.DeepEqual(a, wantAvail) {
			t.Errorf("%s: version %#x rules %v vbavailable %v", what, v, r, a)
		}
	}
	base := []string{"csv", "!segwit", "taproot"}
	check("defined", 0x20000000, base, map[string]int{})
	n.mine(t, 43)
	check("started", 0x30000000, base, map[string]int{"testdummy": 28})

	gbtMandatoryRules["testdummy"] = true
	check("mandatory, unsupported", 0x20000000, base, map[string]int{"!testdummy": 28})
	check("mandatory, supported", 0x30000000, base, map[string]int{"!testdummy": 28}, "testdummy")
	delete(gbtMandatoryRules, "testdummy")

	n.mine(t, 144) // all signalling: locked in from 288
	check("locked in", 0x30000000, base, map[string]int{"testdummy": 28})
	n.mine(t, 144)
	check("active", 0x20000000, append(base, "testdummy"), map[string]int{})

	gbtMandatoryRules["testdummy"] = true
	defer delete(gbtMandatoryRules, "testdummy")
	if _, rerr := n.rpcCall(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}}); rerr == nil || rerr.Code != -8 ||
		rerr.Message != "Support for 'testdummy' rule requires explicit client support" {
		t.Errorf("active mandatory rule without client support: %v", rerr)
	}
	check("active mandatory, supported", 0x20000000, append(base, "!testdummy"), map[string]int{}, "testdummy")
}

// TestUnknownRulesWarnings is Core's feature_versionbits_warning in
// process: 108 blocks of a period signalling bit 27 lock it in, and once
// active the warning shows in getblockchaininfo, getmininginfo and
// getnetworkinfo and runs --alertnotify.
func TestUnknownRulesWarnings(t *testing.T) {
	alert := filepath.Join(t.TempDir(), "alert.txt")
	n := newTestNode(t, "--alertnotify=echo %s >> "+alert)
	n.mine(t, 143)
	for range 108 {
		blk, err := n.s.buildBlock(opTrueScript, nil)
		if err != nil {
			t.Fatal(err)
		}
		blk.Header.Version = 0x20000000 | 1<<27
		n.submitBuilt(t, blk)
	}
	warnings := func() map[string]string {
		out := map[string]string{}
		for _, m := range []string{"getblockchaininfo", "getmininginfo", "getnetworkinfo"} {
			var r struct{ Warnings []string }
			json.Unmarshal(n.must(t, m), &r)
			if r.Warnings == nil {
				t.Fatalf("%s: warnings is not an array", m)
			}
			out[m] = strings.Join(r.Warnings, ",")
		}
		return out
	}
	n.mine(t, 36+143) // tip 430: its child is still locked in
	for m, w := range warnings() {
		if w != "" {
			t.Errorf("%s before activation: %q", m, w)
		}
	}
	n.mine(t, 1)
	const msg = "Unknown new rules activated (versionbit 27)"
	for m, w := range warnings() {
		if w != msg {
			t.Errorf("%s: warnings %q, want %q", m, w, msg)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(alert)
		if strings.Contains(string(b), msg) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("alertnotify wrote %q", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// testnet3 carries Core's deprecation warning in the RPC warnings; the
// other networks do not.
func TestTestnet3DeprecationWarning(t *testing.T) {
	for _, c := range []struct {
		params *chaincfg.Params
		want   bool
	}{{&chaincfg.TestNet3Params, true}, {&chaincfg.TestNet4Params, false}, {&chaincfg.RegressionNetParams, false}} {
		s := &server{cfg: &Config{params: c.params}}
		w := s.warnings()
		if got := len(w) == 1 && w[0] == testnet3Deprecated; got != c.want {
			t.Errorf("%s: warnings %q", c.params.Name, w)
		}
	}
}
