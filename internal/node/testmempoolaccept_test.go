package node

import (
	"encoding/json"
	"testing"
)

// TestTestMempoolAcceptPackage: testmempoolaccept with several
// transactions tests them as one package, as Core: a child of a parent
// earlier in the list is allowed, and a list breaking package rules (the
// child first) answers package-error for every member, without allowed.
func TestTestMempoolAcceptPackage(t *testing.T) {
	n, w := mempoolNode(t, 101)
	parent, coins := w.split(n.coinbaseCoin(t, 1), 1, 1000)
	child, _ := w.split(coins[0], 1, 1000)
	type result struct {
		TxID         string `json:"txid"`
		Allowed      *bool  `json:"allowed"`
		RejectReason string `json:"reject-reason"`
		PackageError string `json:"package-error"`
	}
	accept := func(hexes ...string) []result {
		var out []result
		if err := json.Unmarshal(n.must(t, "testmempoolaccept", hexes), &out); err != nil || len(out) != len(hexes) {
			t.Fatalf("testmempoolaccept: %v %+v", err, out)
		}
		return out
	}
	if r := accept(txHex(child)); r[0].Allowed == nil || *r[0].Allowed || r[0].RejectReason != "missing-inputs" {
		t.Fatalf("child alone: %+v, want missing-inputs", r[0])
	}
	for i, r := range accept(txHex(parent), txHex(child)) {
		if r.Allowed == nil || !*r.Allowed || r.PackageError != "" {
			t.Errorf("parent and child, member %d: %+v, want allowed", i, r)
		}
	}
	for i, r := range accept(txHex(child), txHex(parent)) {
		if r.Allowed != nil || r.PackageError != "package-not-sorted" {
			t.Errorf("child before parent, member %d: %+v, want package-error package-not-sorted", i, r)
		}
	}
	if n.s.pool.Count() != 0 {
		t.Fatal("testmempoolaccept changed the mempool")
	}
}
