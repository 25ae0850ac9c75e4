package node

// TestRPCMethodsAgainstNode's chain methods (see rpcFixture).

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

func (fx *rpcFixture) getBlock(t *testing.T) {
	n, parentID, blockHash := fx.n, fx.parentID, fx.blockHash
	res := n.must(t, "getblock", blockHash)
	b := checkShape(t, "getblock 1", res, blockShape)
	if !strings.Contains(string(b["tx"]), parentID) {
		t.Errorf("tx list %s", b["tx"])
	}
	checkShape(t, "getblockheader", n.must(t, "getblockheader", blockHash), blockHeaderShape)
	if s := unquote(t, n.must(t, "getblockheader", blockHash, false)); len(s) != 160 {
		t.Errorf("getblockheader hex %q", s)
	}
	for _, verbosity := range []int{2, 3} {
		b := checkShape(t, "getblock", n.must(t, "getblock", blockHash, verbosity), blockShape)
		var txs []json.RawMessage
		json.Unmarshal(b["tx"], &txs)
		if len(txs) != 3 {
			t.Fatalf("verbosity %d: %d txs", verbosity, len(txs))
		}
		cb := checkShape(t, "coinbase", txs[0], txShape)
		if _, ok := cb["fee"]; ok {
			t.Errorf("coinbase has a fee")
		}
		tx := checkShape(t, "tx", txs[1], txShape)
		if string(tx["fee"]) != "0.00005000" {
			t.Errorf("verbosity %d: parent fee %s", verbosity, tx["fee"])
		}
		var vin []json.RawMessage
		json.Unmarshal(tx["vin"], &vin)
		in := checkShape(t, "vin", vin[0], vinShape)
		if verbosity == 2 {
			if _, ok := in["prevout"]; ok {
				t.Errorf("verbosity 2 has prevout")
			}
			continue
		}
		po := checkShape(t, "prevout", in["prevout"], prevoutShape)
		if string(po["generated"]) != "true" || string(po["height"]) != "1" || string(po["value"]) != "50.00000000" {
			t.Errorf("prevout %s", in["prevout"])
		}
		checkShape(t, "prevout scriptPubKey", po["scriptPubKey"], shape{"asm": "string", "desc": "string", "hex": "string", "address": "string?", "type": "string"})
	}
	if _, rerr := n.rpcCall(t, "getblock", "zz"); rerr == nil || rerr.Code != -8 {
		t.Errorf("getblock bad hash: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "getblock", strings.Repeat("00", 32)); rerr == nil || rerr.Code != -5 {
		t.Errorf("getblock unknown: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "getblockhash", 1000); rerr == nil || rerr.Code != -8 {
		t.Errorf("getblockhash out of range: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "getblockhash", "1"); rerr == nil || rerr.Code != -3 {
		t.Errorf("getblockhash string height: %v", rerr)
	}
}

func (fx *rpcFixture) blockStats(t *testing.T) {
	n, blockHash := fx.n, fx.blockHash
	st := checkShape(t, "getblockstats", n.must(t, "getblockstats", blockHash), blockStatsShape)
	want := map[string]string{"txs": "3", "ins": "2", "outs": "5", "totalfee": "8000", "height": "111",
		"minfee": "3000", "maxfee": "5000", "avgfee": "4000", "medianfee": "4000", "swtxs": "2",
		"subsidy": "5000000000", "utxo_increase": "3", "utxo_increase_actual": "2"}
	for k, v := range want {
		if string(st[k]) != v {
			t.Errorf("getblockstats %s = %s, want %s", k, st[k], v)
		}
	}
	var pct []int64
	if json.Unmarshal(st["feerate_percentiles"], &pct); len(pct) != 5 || pct[0] <= 0 {
		t.Errorf("feerate_percentiles %s", st["feerate_percentiles"])
	}
	// By height, with selected stats.
	sel := checkShape(t, "getblockstats selected", n.must(t, "getblockstats", 111, []string{"minfee", "txs"}), shape{"minfee": "number", "txs": "number"})
	if string(sel["txs"]) != "3" {
		t.Errorf("selected txs %s", sel["txs"])
	}
	checkShape(t, "getblockstats genesis", n.must(t, "getblockstats", 0), blockStatsShape)
	if _, rerr := n.rpcCall(t, "getblockstats", 1000); rerr == nil || rerr.Code != -8 {
		t.Errorf("getblockstats beyond tip: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "getblockstats", 1, []string{"bogus"}); rerr == nil || rerr.Code != -8 {
		t.Errorf("getblockstats bad stat: %v", rerr)
	}
}

func (fx *rpcFixture) chainTxStats(t *testing.T) {
	n, blockHash := fx.n, fx.blockHash
	full := shape{"time": "number", "txcount": "number", "window_final_block_hash": "string",
		"window_final_block_height": "number", "window_block_count": "number", "window_interval": "number",
		"window_tx_count": "number", "txrate": "number?"}
	st := checkShape(t, "getchaintxstats", n.must(t, "getchaintxstats"), full)
	// 112 blocks with one coinbase each plus two transactions.
	if string(st["txcount"]) != "114" || string(st["window_block_count"]) != "110" || string(st["window_tx_count"]) != "112" {
		t.Errorf("getchaintxstats %v", st)
	}
	st = checkShape(t, "getchaintxstats 5", n.must(t, "getchaintxstats", 5, blockHash), full)
	if string(st["window_tx_count"]) != "7" {
		t.Errorf("window of 5 ending at block 111: %s", st["window_tx_count"])
	}
	checkShape(t, "getchaintxstats 0", n.must(t, "getchaintxstats", 0), shape{"time": "number", "txcount": "number",
		"window_final_block_hash": "string", "window_final_block_height": "number", "window_block_count": "number"})
	if _, rerr := n.rpcCall(t, "getchaintxstats", 111); rerr == nil || rerr.Code != -8 {
		t.Errorf("getchaintxstats too many blocks: %v", rerr)
	}
}

func (fx *rpcFixture) txOutProof(t *testing.T) {
	n, parentID, childID, blockHash := fx.n, fx.parentID, fx.childID, fx.blockHash
	proof := unquote(t, n.must(t, "gettxoutproof", []string{parentID, childID}, blockHash))
	var ids []string
	json.Unmarshal(n.must(t, "verifytxoutproof", proof), &ids)
	sort.Strings(ids)
	want := []string{parentID, childID}
	sort.Strings(want)
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("verifytxoutproof %v, want %v", ids, want)
	}
	// Without a block hash: found by the UTXO set or the txindex.
	p2 := unquote(t, n.must(t, "gettxoutproof", []string{childID}))
	json.Unmarshal(n.must(t, "verifytxoutproof", p2), &ids)
	if len(ids) != 1 || ids[0] != childID {
		t.Errorf("verifytxoutproof single %v", ids)
	}
	// A tampered hash no longer commits to the header's root.
	b, _ := hex.DecodeString(p2)
	b[len(b)-10] ^= 1
	json.Unmarshal(n.must(t, "verifytxoutproof", hex.EncodeToString(b)), &ids)
	if len(ids) != 0 {
		t.Errorf("tampered proof verified: %v", ids)
	}
	if _, rerr := n.rpcCall(t, "gettxoutproof", []string{strings.Repeat("ab", 32)}); rerr == nil || rerr.Code != -5 {
		t.Errorf("gettxoutproof unknown tx: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "gettxoutproof", []string{parentID}, n.s.cfg.params.GenesisHash.String()); rerr == nil || rerr.Code != -5 {
		t.Errorf("gettxoutproof wrong block: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "verifytxoutproof", "00"); rerr == nil || rerr.Code != -1 {
		t.Errorf("verifytxoutproof garbage: %v", rerr)
	}
}

func (fx *rpcFixture) chain(t *testing.T) {
	n, parentID, childID := fx.n, fx.parentID, fx.childID
	info := checkShape(t, "getblockchaininfo", n.must(t, "getblockchaininfo"), shape{
		"chain": "string", "blocks": "number", "headers": "number", "bestblockhash": "string",
		"bits": "string", "target": "string", "difficulty": "number", "time": "number",
		"mediantime": "number", "verificationprogress": "number", "initialblockdownload": "boolean",
		"chainwork": "string", "size_on_disk": "number", "pruned": "boolean", "warnings": "array",
	})
	if string(info["pruned"]) != "false" {
		t.Errorf("pruned %s", info["pruned"])
	}
	txo := checkShape(t, "gettxoutsetinfo", n.must(t, "gettxoutsetinfo", "none"), shape{
		"height": "number", "bestblock": "string", "txouts": "number", "bogosize": "number",
		"transactions": "number", "disk_size": "number", "total_amount": "number",
	})
	// 111 coinbase outputs plus the two new unspent ones, less the
	// spent coinbase output (witness commitments are unspendable).
	if string(txo["txouts"]) != "112" || string(txo["transactions"]) != "112" {
		t.Errorf("gettxoutsetinfo %s", n.must(t, "gettxoutsetinfo", "none"))
	}
	for _, lvl := range []int{0, 1, 2, 3, 4} {
		if res := n.must(t, "verifychain", lvl, 0); string(res) != "true" {
			t.Errorf("verifychain %d: %s", lvl, res)
		}
	}
	if res := n.must(t, "verifychain"); string(res) != "true" {
		t.Errorf("verifychain default: %s", res)
	}
	di := checkShape(t, "getdeploymentinfo", n.must(t, "getdeploymentinfo"), shape{"hash": "string", "height": "number", "deployments": "object"})
	var deps map[string]json.RawMessage
	json.Unmarshal(di["deployments"], &deps)
	for _, name := range []string{"bip34", "bip66", "bip65", "csv", "segwit", "testdummy", "taproot"} {
		d := checkShape(t, "deployment "+name, deps[name], shape{"type": "string", "height": "number?", "active": "boolean", "bip9": "object?"})
		if b, ok := d["bip9"]; ok {
			checkShape(t, "bip9 "+name, b, shape{"bit": "number?", "start_time": "number", "timeout": "number",
				"min_activation_height": "number", "status": "string", "since": "number", "status_next": "string"})
		}
	}
	if !strings.Contains(string(deps["taproot"]), `"active":true`) || !strings.Contains(string(deps["segwit"]), `"active":true`) {
		t.Errorf("deployments %s", di["deployments"])
	}
	checkShape(t, "getdeploymentinfo at genesis", n.must(t, "getdeploymentinfo", n.s.cfg.params.GenesisHash.String()), shape{"hash": "string", "height": "number", "deployments": "object"})
	if _, rerr := n.rpcCall(t, "pruneblockchain", 10); rerr == nil || rerr.Code != -1 {
		t.Errorf("pruneblockchain without prune mode: %v", rerr)
	}
	checkShape(t, "gettxout", n.must(t, "gettxout", childID, 0), shape{"bestblock": "string", "confirmations": "number",
		"value": "number", "scriptPubKey": "object", "coinbase": "boolean"})
	if res := n.must(t, "gettxout", parentID, 0); string(res) != "null" {
		t.Errorf("gettxout of spent output: %s", res)
	}
	var tips []json.RawMessage
	json.Unmarshal(n.must(t, "getchaintips"), &tips)
	if len(tips) != 1 {
		t.Fatalf("getchaintips %d", len(tips))
	}
	checkShape(t, "getchaintips", tips[0], shape{"height": "number", "hash": "string", "branchlen": "number", "status": "string"})
	rt := checkShape(t, "getrawtransaction", n.must(t, "getrawtransaction", parentID, 2), txShape)
	var vin []json.RawMessage
	json.Unmarshal(rt["vin"], &vin)
	if string(rt["fee"]) != "0.00005000" || len(vin) != 1 {
		t.Fatalf("getrawtransaction verbosity 2: fee %s", rt["fee"])
	}
	in := checkShape(t, "getrawtransaction vin", vin[0], vinShape)
	checkShape(t, "getrawtransaction prevout", in["prevout"], prevoutShape)
}

func (fx *rpcFixture) invalidate(t *testing.T) {
	n, childID, blockHash := fx.n, fx.childID, fx.blockHash
	n.must(t, "invalidateblock", blockHash)
	if res := n.must(t, "getblockcount"); string(res) != "110" {
		t.Fatalf("after invalidateblock height %s", res)
	}
	// The transactions went back to the mempool.
	if res := n.must(t, "getrawmempool"); !strings.Contains(string(res), childID) {
		t.Errorf("mempool after invalidate %s", res)
	}
	n.must(t, "reconsiderblock", blockHash)
	if res := n.must(t, "getbestblockhash"); unquote(t, res) != blockHash {
		t.Fatalf("after reconsiderblock tip %s", res)
	}
	if res := n.must(t, "preciousblock", blockHash); string(res) != "null" {
		t.Errorf("preciousblock %s", res)
	}
	if _, rerr := n.rpcCall(t, "invalidateblock", strings.Repeat("11", 32)); rerr == nil || rerr.Code != -5 {
		t.Errorf("invalidateblock unknown: %v", rerr)
	}
}
