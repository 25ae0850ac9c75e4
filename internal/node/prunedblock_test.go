package node

import (
	"encoding/json"
	"testing"
)

// TestGetBlockPrunedData: getblock on a pruning node names a block whose
// data pruning removed "pruned data", as bitcoind, not "not fully
// downloaded" (which is for blocks never stored).
func TestGetBlockPrunedData(t *testing.T) {
	n := newTestNode(t, "--fastprune", "--prune=1")
	hashes := n.mine(t, 700)
	var height json.Number
	if err := json.Unmarshal(n.must(t, "pruneblockchain", 400), &height); err != nil {
		t.Fatal(err)
	}
	if h, _ := height.Int64(); h < 3 {
		t.Fatalf("prune height %s", height)
	}
	_, rerr := n.rpcCall(t, "getblock", hashes[1].String())
	if rerr == nil || rerr.Code != -1 || rerr.Message != "Block not available (pruned data)" {
		t.Errorf("getblock of a pruned block: %v", rerr)
	}
}
