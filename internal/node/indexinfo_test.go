package node

import (
	"encoding/json"
	"testing"
	"time"
)

// TestGetIndexInfoListsFilterIndex: getindexinfo names the BIP158 index
// "basic block filter index" as Core does, synced at the tip height, and
// answers a query by that name alone.
func TestGetIndexInfoListsFilterIndex(t *testing.T) {
	n := newTestNode(t, "--blockfilterindex", "--txindex")
	n.mine(t, 5)
	const name = "basic block filter index"
	type info struct {
		Synced bool  `json:"synced"`
		Height int32 `json:"best_block_height"`
	}
	var all map[string]info
	waitFor(t, 30*time.Second, "filter index synced", func() bool {
		json.Unmarshal(n.must(t, "getindexinfo"), &all)
		return all[name].Synced
	})
	if all[name].Height != 5 {
		t.Fatalf("filter index entry %+v", all[name])
	}
	var one map[string]info
	json.Unmarshal(n.must(t, "getindexinfo", name), &one)
	if len(one) != 1 || one[name] != all[name] {
		t.Fatalf("getindexinfo %q: %v", name, one)
	}
}
