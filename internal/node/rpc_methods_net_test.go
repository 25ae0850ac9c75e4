package node

// TestRPCMethodsAgainstNode's network, wait, help and JSON-RPC protocol checks (see rpcFixture).

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/rpc"
)

func (fx *rpcFixture) network(t *testing.T) {
	n := fx.n
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
}

func (fx *rpcFixture) wait(t *testing.T) {
	n := fx.n
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
}

func (fx *rpcFixture) help(t *testing.T) {
	n := fx.n
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
}

func (fx *rpcFixture) jsonRPC(t *testing.T) {
	n := fx.n
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
}
