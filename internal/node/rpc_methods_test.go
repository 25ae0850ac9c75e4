package node

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// TestRPCMethodsAgainstNode starts one regtest node, mines 110 blocks and
// a few transactions, and checks every chain, mempool, mining and network
// method's result shape (field names and JSON types as bitcoind documents
// them), a few values, and the errors for bad parameters; then JSON-RPC
// 1.0/2.0 and batch behaviour.
func TestRPCMethodsAgainstNode(t *testing.T) {
	n := newTestNode(t, "--txindex")
	n.mine(t, 110)

	// A parent with two outputs and a child spending one, both in the
	// mempool.
	op, v := n.coinbaseOut(t, 1)
	parent := opTrueSpend(op, v, 2, 5_000)
	child := opTrueSpend(wire.OutPoint{Hash: parent.TxHash(), Index: 0}, parent.TxOut[0].Value, 1, 3_000)
	parentID, childID := parent.TxHash().String(), child.TxHash().String()
	for _, tx := range []*wire.MsgTx{parent, child} {
		n.must(t, "sendrawtransaction", hex.EncodeToString(tx.AppendTo(nil, true)))
	}

	t.Run("mempool", func(t *testing.T) {
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
	})

	t.Run("getblocktemplate", func(t *testing.T) {
		gbt := checkShape(t, "getblocktemplate", n.must(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}}), shape{
			"capabilities": "array", "version": "number", "rules": "array", "vbavailable": "object",
			"vbrequired": "number", "previousblockhash": "string", "transactions": "array",
			"coinbaseaux": "object", "coinbasevalue": "number", "longpollid": "string", "target": "string",
			"mintime": "number", "mutable": "array", "noncerange": "string", "sigoplimit": "number",
			"sizelimit": "number", "weightlimit": "number", "curtime": "number", "bits": "string",
			"height": "number", "default_witness_commitment": "string", "signet_challenge": "string?",
		})
		var txs []json.RawMessage
		json.Unmarshal(gbt["transactions"], &txs)
		if len(txs) != 2 {
			t.Fatalf("template has %d transactions", len(txs))
		}
		checkShape(t, "template tx", txs[1], shape{"data": "string", "txid": "string", "hash": "string",
			"depends": "array", "fee": "number", "sigops": "number", "weight": "number"})
		if !strings.Contains(string(txs[1]), `"depends":[1]`) {
			t.Errorf("child does not depend on entry 1: %s", txs[1])
		}
		if _, rerr := n.rpcCall(t, "getblocktemplate", map[string]any{}); rerr == nil || rerr.Code != -8 {
			t.Errorf("getblocktemplate without segwit rule: %v", rerr)
		}
		if _, rerr := n.rpcCall(t, "getblocktemplate", map[string]any{"mode": "bogus"}); rerr == nil || rerr.Code != -8 {
			t.Errorf("getblocktemplate bad mode: %v", rerr)
		}
	})

	// Confirm both transactions in block 111.
	blockHash := n.mine(t, 1)[0].String()

	t.Run("getblock", func(t *testing.T) {
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
	})

	t.Run("getblockstats", func(t *testing.T) {
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
	})

	t.Run("getchaintxstats", func(t *testing.T) {
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
	})

	t.Run("txoutproof", func(t *testing.T) {
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
	})

	t.Run("chain", func(t *testing.T) {
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
	})

	t.Run("invalidate", func(t *testing.T) {
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
	})

	t.Run("generate", func(t *testing.T) {
		// generateblock with a mempool txid and a raw transaction.
		op, v := n.coinbaseOut(t, 2)
		a := opTrueSpend(op, v, 1, 2_000)
		n.must(t, "sendrawtransaction", hex.EncodeToString(a.AppendTo(nil, true)))
		op3, v3 := n.coinbaseOut(t, 3)
		b := opTrueSpend(op3, v3, 1, 2_000)
		addr := "bcrt1qft5p2uhsdcdc3l2ua4ap5qqfg4pjaqlp250x7us7a8qqhrxrxfsqseac85"
		gb := checkShape(t, "generateblock", n.must(t, "generateblock", addr,
			[]string{a.TxHash().String(), hex.EncodeToString(b.AppendTo(nil, true))}), shape{"hash": "string"})
		h := unquote(t, gb["hash"])
		var blk struct {
			Tx []string `json:"tx"`
		}
		json.Unmarshal(n.must(t, "getblock", h), &blk)
		if len(blk.Tx) != 3 || blk.Tx[1] != a.TxHash().String() || blk.Tx[2] != b.TxHash().String() {
			t.Errorf("generateblock block txs %v", blk.Tx)
		}
		if _, rerr := n.rpcCall(t, "generateblock", addr, []string{strings.Repeat("cd", 32)}); rerr == nil || rerr.Code != -5 {
			t.Errorf("generateblock unknown txid: %v", rerr)
		}
		// Invalid blocks are refused before solving, even when not
		// submitted.
		op4, v4 := n.coinbaseOut(t, 4)
		over := opTrueSpend(op4, v4+1, 1, 0)
		if _, rerr := n.rpcCall(t, "generateblock", addr, []string{hex.EncodeToString(over.AppendTo(nil, true))}, false); rerr == nil ||
			rerr.Code != -25 || !strings.Contains(rerr.Message, "TestBlockValidity failed: bad-txns-in-belowout") {
			t.Errorf("generateblock overspending: %v", rerr)
		}
		tipHeight := n.s.chain.BestSnapshot().Height
		opY, vY := n.coinbaseOut(t, tipHeight-5)
		young := opTrueSpend(opY, vY, 1, 1000)
		if _, rerr := n.rpcCall(t, "generateblock", addr, []string{hex.EncodeToString(young.AppendTo(nil, true))}, false); rerr == nil ||
			rerr.Code != -25 || !strings.Contains(rerr.Message, "premature-spend-of-coinbase") {
			t.Errorf("generateblock immature coinbase spend: %v", rerr)
		}
		if _, rerr := n.rpcCall(t, "generateblock", "nonsense", []string{}); rerr == nil || rerr.Code != -5 {
			t.Errorf("generateblock bad output: %v", rerr)
		}
		script := hex.EncodeToString(opTrueScript)
		for _, d := range []string{"addr(" + addr + ")", "raw(" + script + ")"} {
			var hs []string
			json.Unmarshal(n.must(t, "generatetodescriptor", 1, d), &hs)
			if len(hs) != 1 {
				t.Fatalf("generatetodescriptor %s: %v", d, hs)
			}
		}
		if _, rerr := n.rpcCall(t, "generatetodescriptor", 1, "pkh(nope)"); rerr == nil || rerr.Code != -5 {
			t.Errorf("generatetodescriptor bad descriptor: %v", rerr)
		}
		// BIP23 proposals: a block built on the tip is valid (null); a
		// broken merkle root, a stale parent and a known block are not.
		prop := checkShape(t, "generateblock submit=false", n.must(t, "generateblock", addr, []string{}, false), shape{"hash": "string", "hex": "string"})
		propHex := unquote(t, prop["hex"])
		propose := func(hexBlock string) string {
			t.Helper()
			return string(n.must(t, "getblocktemplate", map[string]any{"mode": "proposal", "data": hexBlock}))
		}
		if r := propose(propHex); r != "null" {
			t.Errorf("proposal of a valid block: %s", r)
		}
		flip := func(h string, i int) string {
			b := []byte(h)
			if b[i] == '0' {
				b[i] = '1'
			} else {
				b[i] = '0'
			}
			return string(b)
		}
		if r := propose(flip(propHex, 72)); /* a merkle root digit */ r != `"bad-txnmrklroot"` {
			t.Errorf("proposal with a bad merkle root: %s", r)
		}
		if r := propose(flip(propHex, 8)); /* a parent hash digit */ r != `"inconclusive-not-best-prevblk"` {
			t.Errorf("proposal on a stale parent: %s", r)
		}
		// No transactions at all (merkle root zero): decodes, and is
		// refused by validation as Core's CheckBlock does.
		noTxs := propHex[:72] + strings.Repeat("0", 64) + propHex[136:160] + "00"
		if r := propose(noTxs); r != `"bad-blk-length"` {
			t.Errorf("proposal without transactions: %s", r)
		}
		tipHex := unquote(t, n.must(t, "getblock", unquote(t, n.must(t, "getbestblockhash")), 0))
		if r := propose(tipHex); r != `"duplicate"` {
			t.Errorf("proposal of the tip: %s", r)
		}
		if _, rerr := n.rpcCall(t, "getblocktemplate", map[string]any{"mode": "proposal"}); rerr == nil || rerr.Code != -3 {
			t.Errorf("proposal without data: %v", rerr)
		}
		if _, rerr := n.rpcCall(t, "getblocktemplate", map[string]any{"mode": "proposal", "data": "00"}); rerr == nil || rerr.Code != -22 {
			t.Errorf("proposal of garbage: %v", rerr)
		}
		// BIP22 long polling: a current longpollid waits for the next
		// block; a stale one answers at once.
		var tmpl struct {
			LongPollID string `json:"longpollid"`
			Prev       string `json:"previousblockhash"`
		}
		json.Unmarshal(n.must(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}}), &tmpl)
		done := make(chan string, 1)
		go func() {
			res, _ := n.rpcCall(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}, "longpollid": tmpl.LongPollID})
			var r struct {
				Prev string `json:"previousblockhash"`
			}
			json.Unmarshal(res, &r)
			done <- r.Prev
		}()
		time.Sleep(300 * time.Millisecond)
		select {
		case <-done:
			t.Fatalf("long poll returned before the tip changed")
		default:
		}
		newTip := n.mine(t, 1)[0].String()
		select {
		case prev := <-done:
			if prev != newTip {
				t.Errorf("long poll template on %s, want %s", prev, newTip)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("long poll did not return after a new block")
		}
		start := time.Now()
		n.must(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}, "longpollid": tmpl.LongPollID})
		if time.Since(start) > 2*time.Second {
			t.Errorf("stale longpollid waited %v", time.Since(start))
		}
		// submitheader of a header built (not submitted) on the tip.
		res := checkShape(t, "generateblock submit=false", n.must(t, "generateblock", addr, []string{}, false), shape{"hash": "string", "hex": "string"})
		hdr := unquote(t, res["hex"])[:160]
		if r := n.must(t, "submitheader", hdr); string(r) != "null" {
			t.Errorf("submitheader %s", r)
		}
		checkShape(t, "header-only block", n.must(t, "getblockheader", unquote(t, res["hash"])), blockHeaderShape)
		if _, rerr := n.rpcCall(t, "submitheader", flip(hdr, 8)); rerr == nil || rerr.Code != -25 || !strings.Contains(rerr.Message, "Must submit previous header") {
			t.Errorf("submitheader with unknown parent: %v", rerr)
		}
		if _, rerr := n.rpcCall(t, "submitheader", "00"); rerr == nil || rerr.Code != -22 {
			t.Errorf("submitheader garbage: %v", rerr)
		}
		checkShape(t, "getmininginfo", n.must(t, "getmininginfo"), shape{"blocks": "number", "bits": "string",
			"difficulty": "number", "target": "string", "networkhashps": "number", "pooledtx": "number",
			"chain": "string", "next": "object", "warnings": "array", "currentblockweight": "number?", "currentblocktx": "number?"})
	})

	t.Run("network", func(t *testing.T) {
		other := newTestNode(t)
		n.must(t, "addnode", other.s.p2pAddr(), "add", false)
		// getpeerinfo lists peers once their handshake is done.
		waitFor(t, 30*time.Second, "handshake", func() bool {
			var ps []json.RawMessage
			res, _ := n.rpcCall(t, "getpeerinfo")
			json.Unmarshal(res, &ps)
			return len(ps) == 1
		})
		var added []json.RawMessage
		json.Unmarshal(n.must(t, "getaddednodeinfo"), &added)
		if len(added) != 1 {
			t.Fatalf("getaddednodeinfo %d entries", len(added))
		}
		ai := checkShape(t, "getaddednodeinfo", added[0], shape{"addednode": "string", "connected": "boolean", "addresses": "array"})
		if string(ai["connected"]) != "true" {
			t.Errorf("added node not connected: %s", added[0])
		}
		if _, rerr := n.rpcCall(t, "getaddednodeinfo", "10.9.9.9:1"); rerr == nil || rerr.Code != -24 {
			t.Errorf("getaddednodeinfo unknown: %v", rerr)
		}
		nt := checkShape(t, "getnettotals", n.must(t, "getnettotals"), shape{"totalbytesrecv": "number",
			"totalbytessent": "number", "timemillis": "number", "uploadtarget": "object"})
		checkShape(t, "uploadtarget", nt["uploadtarget"], shape{"timeframe": "number", "target": "number",
			"target_reached": "boolean", "serve_historical_blocks": "boolean", "bytes_left_in_cycle": "number", "time_left_in_cycle": "number"})
		if string(nt["totalbytessent"]) == "0" {
			t.Errorf("no bytes sent: %s", nt["totalbytessent"])
		}
		var addrs []json.RawMessage
		json.Unmarshal(n.must(t, "getnodeaddresses", 0), &addrs)
		for _, a := range addrs {
			checkShape(t, "getnodeaddresses", a, shape{"time": "number", "services": "number", "address": "string", "port": "number", "network": "string"})
		}
		if _, rerr := n.rpcCall(t, "getnodeaddresses", 1, "bogusnet"); rerr == nil || rerr.Code != -8 {
			t.Errorf("getnodeaddresses bad network: %v", rerr)
		}
		if res := n.must(t, "ping"); string(res) != "null" {
			t.Errorf("ping %s", res)
		}
		var peers []struct {
			ID int64 `json:"id"`
		}
		json.Unmarshal(n.must(t, "getpeerinfo"), &peers)
		if len(peers) != 1 {
			t.Fatalf("getpeerinfo %d peers", len(peers))
		}
		if _, rerr := n.rpcCall(t, "disconnectnode", "x", 1); rerr == nil || rerr.Code != -32602 {
			t.Errorf("disconnectnode with both: %v", rerr)
		}
		n.must(t, "disconnectnode", "", peers[0].ID)
		if _, rerr := n.rpcCall(t, "disconnectnode", "", 9999); rerr == nil || rerr.Code != -29 {
			t.Errorf("disconnectnode unknown id: %v", rerr)
		}
		// Switching the network off drops the (reconnecting) added peer
		// and keeps it out; getnetworkinfo reports the state.
		if res := n.must(t, "setnetworkactive", false); string(res) != "false" {
			t.Errorf("setnetworkactive false: %s", res)
		}
		if !strings.Contains(string(n.must(t, "getnetworkinfo")), `"networkactive":false`) {
			t.Errorf("getnetworkinfo after setnetworkactive false")
		}
		time.Sleep(200 * time.Millisecond)
		waitFor(t, 30*time.Second, "no peers", func() bool {
			res, _ := n.rpcCall(t, "getconnectioncount")
			return string(res) == "0"
		})
		// Traffic of the gone peer is still counted.
		var after struct {
			Sent uint64 `json:"totalbytessent"`
		}
		var before uint64
		json.Unmarshal(nt["totalbytessent"], &before)
		json.Unmarshal(n.must(t, "getnettotals"), &after)
		if after.Sent < before {
			t.Errorf("getnettotals sent went from %d to %d after disconnection", before, after.Sent)
		}
		n.must(t, "setnetworkactive", true)
		n.must(t, "addnode", other.s.p2pAddr(), "remove")
		n.must(t, "setban", "10.1.1.0/24", "add")
		n.must(t, "clearbanned")
		if res := n.must(t, "listbanned"); string(res) != "[]" {
			t.Errorf("listbanned after clearbanned %s", res)
		}
	})

	t.Run("wait", func(t *testing.T) {
		if res := n.must(t, "echo", 1, "a", nil, []int{2}); string(res) != `[1,"a",null,[2]]` {
			t.Errorf("echo %s", res)
		}
		idx := checkShape(t, "getindexinfo", n.must(t, "getindexinfo"), shape{"txindex": "object", "basic block filter index": "object?"})
		checkShape(t, "txindex info", idx["txindex"], shape{"synced": "boolean", "best_block_height": "number"})
		tip := checkShape(t, "waitfornewblock timeout", n.must(t, "waitfornewblock", 50), shape{"hash": "string", "height": "number"})
		var height int32
		json.Unmarshal(tip["height"], &height)
		if res := n.must(t, "waitforblockheight", height, 10_000); !strings.Contains(string(res), unquote(t, tip["hash"])) {
			t.Errorf("waitforblockheight of the current height: %s", res)
		}
		go func() {
			time.Sleep(200 * time.Millisecond)
			n.s.generate(1, opTrueScript, 0, nil, true)
		}()
		start := time.Now()
		got := checkShape(t, "waitfornewblock", n.must(t, "waitfornewblock", 10_000), shape{"hash": "string", "height": "number"})
		if string(got["height"]) != fmt.Sprint(height+1) || time.Since(start) > 5*time.Second {
			t.Errorf("waitfornewblock %v after %v", got, time.Since(start))
		}
		if res := n.must(t, "waitforblock", unquote(t, got["hash"]), 10_000); !strings.Contains(string(res), unquote(t, got["hash"])) {
			t.Errorf("waitforblock of the tip: %s", res)
		}
		if _, rerr := n.rpcCall(t, "waitfornewblock", -1); rerr == nil || rerr.Code != -8 {
			t.Errorf("waitfornewblock negative timeout: %v", rerr)
		}
	})

	t.Run("help", func(t *testing.T) {
		all := unquote(t, n.must(t, "help"))
		for _, m := range rpc.MethodNames() {
			if rpc.LookupMethod(m).Category == "hidden" {
				// Left out of the listing, as bitcoind's.
				if strings.Contains(all, "\n"+m+"\n") {
					t.Errorf("help lists hidden %s", m)
				}
				continue
			}
			if !strings.Contains(all, "\n"+m) && !strings.HasPrefix(all, m) && !strings.Contains(all, "== \n"+m) {
				t.Errorf("help does not list %s", m)
				continue
			}
			h := unquote(t, n.must(t, "help", m))
			if !strings.HasPrefix(h, m) {
				t.Errorf("help %s: %q", m, h)
			}
		}
	})

	t.Run("jsonrpc", func(t *testing.T) {
		// 1.0: result and error both present.
		code, body := n.postRaw(t, `{"id":1,"method":"getblockcount","params":[]}`)
		var obj map[string]json.RawMessage
		json.Unmarshal(body, &obj)
		if code != 200 || string(obj["error"]) != "null" || jsonKindOf(obj["result"]) != "number" || string(obj["id"]) != "1" {
			t.Errorf("1.0 success: %d %s", code, body)
		}
		// 1.0 errors use HTTP status codes (404 for unknown methods).
		code, body = n.postRaw(t, `{"id":"a","method":"nosuchmethod","params":[]}`)
		if code != 404 || !strings.Contains(string(body), `"code":-32601`) {
			t.Errorf("1.0 unknown method: %d %s", code, body)
		}
		code, body = n.postRaw(t, `{"id":"a","method":"getblockhash","params":[-1]}`)
		if code != 500 || !strings.Contains(string(body), `"code":-8`) {
			t.Errorf("1.0 bad parameter: %d %s", code, body)
		}
		// 2.0: exactly one of result and error, HTTP 200 either way.
		code, body = n.postRaw(t, `{"jsonrpc":"2.0","id":2,"method":"getblockcount"}`)
		obj = nil
		json.Unmarshal(body, &obj)
		if _, hasErr := obj["error"]; code != 200 || hasErr || string(obj["jsonrpc"]) != `"2.0"` {
			t.Errorf("2.0 success: %d %s", code, body)
		}
		code, body = n.postRaw(t, `{"jsonrpc":"2.0","id":3,"method":"nosuchmethod"}`)
		obj = nil
		json.Unmarshal(body, &obj)
		if _, hasRes := obj["result"]; code != 200 || hasRes || !strings.Contains(string(body), `"code":-32601`) {
			t.Errorf("2.0 error: %d %s", code, body)
		}
		// A 2.0 notification gets no reply.
		if code, body = n.postRaw(t, `{"jsonrpc":"2.0","method":"getblockcount"}`); code != 204 || len(body) != 0 {
			t.Errorf("2.0 notification: %d %q", code, body)
		}
		// Named parameters.
		code, body = n.postRaw(t, `{"jsonrpc":"2.0","id":4,"method":"getblockhash","params":{"height":0}}`)
		if code != 200 || !strings.Contains(string(body), n.s.cfg.params.GenesisHash.String()) {
			t.Errorf("named params: %d %s", code, body)
		}
		code, body = n.postRaw(t, `{"jsonrpc":"2.0","id":5,"method":"getblockhash","params":{"nosuch":0}}`)
		if !strings.Contains(string(body), `"code":-8`) {
			t.Errorf("unknown named param: %d %s", code, body)
		}
		// Batches: replies in order, each with its own id and style; a
		// bad element gets its own error; notifications are left out.
		code, body = n.postRaw(t, `[{"id":1,"method":"getblockcount"},{"jsonrpc":"2.0","id":2,"method":"getbestblockhash"},`+
			`{"jsonrpc":"2.0","method":"getblockcount"},{"jsonrpc":"2.0","id":3,"method":"getblockhash","params":["x"]},5]`)
		var batch []map[string]json.RawMessage
		if err := json.Unmarshal(body, &batch); err != nil || code != 200 || len(batch) != 4 {
			t.Fatalf("batch: %d %s", code, body)
		}
		if string(batch[0]["id"]) != "1" || jsonKindOf(batch[0]["result"]) != "number" || string(batch[0]["error"]) != "null" {
			t.Errorf("batch[0] %v", batch[0])
		}
		if string(batch[1]["id"]) != "2" || jsonKindOf(batch[1]["result"]) != "string" {
			t.Errorf("batch[1] %v", batch[1])
		}
		if string(batch[2]["id"]) != "3" || !strings.Contains(string(batch[2]["error"]), `"code":-3`) {
			t.Errorf("batch[2] %v", batch[2])
		}
		if !strings.Contains(string(batch[3]["error"]), `"code":-32600`) {
			t.Errorf("batch[3] %v", batch[3])
		}
		code, body = n.postRaw(t, `{"id":1,"method":`)
		if code != 500 || !strings.Contains(string(body), `"code":-32700`) {
			t.Errorf("parse error: %d %s", code, body)
		}
	})
}

// TestRPCPruneNode: a node in prune mode reports its pruning state in
// getblockchaininfo and answers pruneblockchain with bitcoind's errors.
func TestRPCPruneNode(t *testing.T) {
	n := newTestNode(t, "--prune=1536")
	n.mine(t, 5)
	info := checkShape(t, "getblockchaininfo", n.must(t, "getblockchaininfo"), shape{
		"chain": "string", "blocks": "number", "headers": "number", "bestblockhash": "string",
		"bits": "string", "target": "string", "difficulty": "number", "time": "number",
		"mediantime": "number", "verificationprogress": "number", "initialblockdownload": "boolean",
		"chainwork": "string", "size_on_disk": "number", "pruned": "boolean", "pruneheight": "number",
		"automatic_pruning": "boolean", "prune_target_size": "number", "warnings": "array",
	})
	if string(info["pruned"]) != "true" || string(info["pruneheight"]) != "0" {
		t.Errorf("getblockchaininfo %v", info)
	}
	// Regtest prunes nothing below height 1000.
	if _, rerr := n.rpcCall(t, "pruneblockchain", 3); rerr == nil || rerr.Code != -1 || !strings.Contains(rerr.Message, "too short") {
		t.Errorf("pruneblockchain on a short chain: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "pruneblockchain", -1); rerr == nil || rerr.Code != -8 {
		t.Errorf("pruneblockchain negative: %v", rerr)
	}
	if _, rerr := n.rpcCall(t, "pruneblockchain", 4_000_000_000); rerr == nil || rerr.Code != -8 {
		t.Errorf("pruneblockchain future timestamp: %v", rerr)
	}
	if res := n.must(t, "verifychain", 4, 0); string(res) != "true" {
		t.Errorf("verifychain on a pruning node: %s", res)
	}
}

// TestRPCNodeAddresses: getnodeaddresses reports the address manager's
// entries with bitcoind's fields and filters by network. The node uses
// --connect (to a closed loopback port), which turns automatic outbound
// connections off, so it never dials the public addresses it is given.
func TestRPCNodeAddresses(t *testing.T) {
	n := newTestNode(t, "--connect=127.0.0.1:1")
	now := uint32(time.Now().Unix())
	addrs := []wire.NetAddressV2{
		{Timestamp: now, Services: wire.SFNodeNetwork | wire.SFNodeWitness, NetworkID: wire.NetIPv4, Addr: []byte{1, 2, 3, 4}, Port: 18444},
		{Timestamp: now, Services: wire.SFNodeNetwork, NetworkID: wire.NetIPv6, Addr: []byte{0x2a, 0x00, 15: 1}, Port: 18445},
	}
	src := wire.NetAddressV2{NetworkID: wire.NetIPv4, Addr: []byte{198, 51, 100, 1}, Port: 18444}
	if k := n.s.addrs.AddAddresses(addrs, src, 0); k != 2 {
		t.Skipf("address manager took %d of the test addresses", k)
	}
	var all []json.RawMessage
	json.Unmarshal(n.must(t, "getnodeaddresses", 0), &all)
	if len(all) != 2 {
		t.Fatalf("getnodeaddresses 0: %d entries", len(all))
	}
	for _, a := range all {
		checkShape(t, "getnodeaddresses", a, shape{"time": "number", "services": "number", "address": "string", "port": "number", "network": "string"})
	}
	var v4 []struct {
		Address  string `json:"address"`
		Port     int    `json:"port"`
		Network  string `json:"network"`
		Services uint64 `json:"services"`
	}
	json.Unmarshal(n.must(t, "getnodeaddresses", 0, "ipv4"), &v4)
	if len(v4) != 1 || v4[0].Address != "1.2.3.4" || v4[0].Port != 18444 || v4[0].Network != "ipv4" || v4[0].Services != 9 {
		t.Errorf("getnodeaddresses ipv4: %+v", v4)
	}
	json.Unmarshal(n.must(t, "getnodeaddresses"), &all)
	if len(all) != 1 {
		t.Errorf("getnodeaddresses default count: %d entries", len(all))
	}
}
