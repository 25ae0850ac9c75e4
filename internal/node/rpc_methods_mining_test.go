package node

// TestRPCMethodsAgainstNode's block template and generate methods (see rpcFixture).

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func (fx *rpcFixture) blockTemplate(t *testing.T) {
	n := fx.n
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
}

func (fx *rpcFixture) generate(t *testing.T) {
	n := fx.n
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
}
