package node

// TestRPCMethodsAgainstNode's mempool methods (see rpcFixture).

import (
	"encoding/json"
	"strings"
	"testing"
)

func (fx *rpcFixture) mempool(t *testing.T) {
	n, parentID, childID := fx.n, fx.parentID, fx.childID
	checkShape(t, "getmempoolentry", n.must(t, "getmempoolentry", childID), mempoolEntryShape)
	var ids []string
	json.Unmarshal(n.must(t, "getmempoolancestors", childID), &ids)
	if len(ids) != 1 || ids[0] != parentID {
		t.Errorf("getmempoolancestors %v", ids)
	}
	json.Unmarshal(n.must(t, "getmempooldescendants", parentID), &ids)
	if len(ids) != 1 || ids[0] != childID {
		t.Errorf("getmempooldescendants %v", ids)
	}
	for _, m := range []string{"getmempoolancestors", "getmempooldescendants"} {
		id := childID
		if m == "getmempooldescendants" {
			id = parentID
		}
		var verbose map[string]json.RawMessage
		json.Unmarshal(n.must(t, m, id, true), &verbose)
		if len(verbose) != 1 {
			t.Errorf("%s verbose: %v", m, verbose)
		}
		for _, e := range verbose {
			checkShape(t, m+" verbose", e, mempoolEntryShape)
		}
	}
	entry := checkShape(t, "getmempoolentry", n.must(t, "getmempoolentry", parentID), mempoolEntryShape)
	checkShape(t, "fees", entry["fees"], shape{"base": "number", "modified": "number", "ancestor": "number", "descendant": "number"})
	if string(entry["bip125-replaceable"]) != "false" {
		t.Errorf("final-sequence transaction is bip125-replaceable")
	}
	if !strings.Contains(string(entry["spentby"]), childID) {
		t.Errorf("spentby %s", entry["spentby"])
	}
	var spends []json.RawMessage
	json.Unmarshal(n.must(t, "gettxspendingprevout", []map[string]any{{"txid": parentID, "vout": 0}, {"txid": parentID, "vout": 1}}), &spends)
	if len(spends) != 2 {
		t.Fatalf("gettxspendingprevout %d entries", len(spends))
	}
	sp := checkShape(t, "gettxspendingprevout", spends[0], shape{"txid": "string", "vout": "number", "spendingtxid": "string"})
	if unquote(t, sp["spendingtxid"]) != childID {
		t.Errorf("spendingtxid %s", sp["spendingtxid"])
	}
	checkShape(t, "gettxspendingprevout unspent", spends[1], shape{"txid": "string", "vout": "number"})
	if _, rerr := n.rpcCall(t, "gettxspendingprevout", []any{}); rerr == nil || rerr.Code != -8 {
		t.Errorf("gettxspendingprevout empty: %v", rerr)
	}
	checkShape(t, "savemempool", n.must(t, "savemempool"), shape{"filename": "string"})
	var raw map[string]json.RawMessage
	json.Unmarshal(n.must(t, "getrawmempool", true), &raw)
	if len(raw) != 2 {
		t.Errorf("getrawmempool verbose has %d entries", len(raw))
	}
	checkShape(t, "getrawmempool sequence", n.must(t, "getrawmempool", false, true), shape{"txids": "array", "mempool_sequence": "number"})
	checkShape(t, "getmempoolinfo", n.must(t, "getmempoolinfo"), shape{
		"loaded": "boolean", "size": "number", "bytes": "number", "usage": "number", "total_fee": "number",
		"maxmempool": "number", "mempoolminfee": "number", "minrelaytxfee": "number",
		"incrementalrelayfee": "number", "unbroadcastcount": "number", "fullrbf": "boolean",
	})
}
