package node

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Helpers and bitcoind result shapes for rpc_methods_test.go.

// jsonKindOf names the JSON type of raw as bitcoind's help does: string,
// number, boolean, object, array or null.
func jsonKindOf(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "missing"
	}
	switch s[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// shape maps result field names to their JSON kinds; a "?" suffix on the
// kind marks an optional field.
type shape map[string]string

// checkShape verifies that raw is an object with every field of want, of
// the right kind, and no field outside want.
func checkShape(t *testing.T, what string, raw json.RawMessage, want shape) map[string]json.RawMessage {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("%s: result is not an object: %s", what, raw)
	}
	for k, kind := range want {
		opt := strings.HasSuffix(kind, "?")
		kind = strings.TrimSuffix(kind, "?")
		v, ok := obj[k]
		if !ok {
			if !opt {
				t.Errorf("%s: missing field %q in %s", what, k, raw)
			}
			continue
		}
		if got := jsonKindOf(v); got != kind {
			t.Errorf("%s: field %q is %s (%s), want %s", what, k, got, v, kind)
		}
	}
	for k := range obj {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected field %q", what, k)
		}
	}
	return obj
}

// postRaw sends body to the node's RPC server and returns the HTTP status
// and body.
func (n *testNode) postRaw(t testing.TB, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+n.s.rpcAddr(), strings.NewReader(body))
	req.SetBasicAuth("u", "p")
	status, _, b := doHTTP(t, req)
	return status, b
}

// doHTTP sends req with a bounded client and returns the status, the
// content type and the whole body.
func doHTTP(t testing.TB, req *http.Request) (int, string, []byte) {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// must calls method and fails the test on an RPC error.
func (n *testNode) must(t *testing.T, method string, params ...any) json.RawMessage {
	t.Helper()
	res, rerr := n.rpcCall(t, method, params...)
	if rerr != nil {
		t.Fatalf("%s%v: %d %s", method, params, rerr.Code, rerr.Message)
	}
	return res
}

// mustInto calls method, fails the test on an RPC error, and decodes the
// result into out.
func (n *testNode) mustInto(t *testing.T, out any, method string, params ...any) {
	t.Helper()
	if err := json.Unmarshal(n.must(t, method, params...), out); err != nil {
		t.Fatalf("%s%v: %v", method, params, err)
	}
}

func unquote(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("not a string: %s", raw)
	}
	return s
}

var (
	blockHeaderShape = shape{
		"hash": "string", "confirmations": "number", "height": "number", "version": "number",
		"versionHex": "string", "merkleroot": "string", "time": "number", "mediantime": "number",
		"nonce": "number", "bits": "string", "target": "string", "difficulty": "number",
		"chainwork": "string", "nTx": "number", "previousblockhash": "string?", "nextblockhash": "string?",
	}
	blockShape = func() shape {
		s := shape{"strippedsize": "number", "size": "number", "weight": "number", "tx": "array"}
		for k, v := range blockHeaderShape {
			s[k] = v
		}
		return s
	}()
	txShape = shape{
		"txid": "string", "hash": "string", "version": "number", "size": "number", "vsize": "number",
		"weight": "number", "locktime": "number", "vin": "array", "vout": "array", "hex": "string?",
		"fee": "number?", "blockhash": "string?", "confirmations": "number?", "time": "number?",
		"blocktime": "number?", "in_active_chain": "boolean?",
	}
	vinShape = shape{
		"txid": "string", "vout": "number", "scriptSig": "object", "txinwitness": "array?",
		"sequence": "number", "prevout": "object?",
	}
	prevoutShape    = shape{"generated": "boolean", "height": "number", "value": "number", "scriptPubKey": "object"}
	blockStatsShape = shape{
		"avgfee": "number", "avgfeerate": "number", "avgtxsize": "number", "blockhash": "string",
		"feerate_percentiles": "array", "height": "number", "ins": "number", "maxfee": "number",
		"maxfeerate": "number", "maxtxsize": "number", "medianfee": "number", "mediantime": "number",
		"mediantxsize": "number", "minfee": "number", "minfeerate": "number", "mintxsize": "number",
		"outs": "number", "subsidy": "number", "swtotal_size": "number", "swtotal_weight": "number",
		"swtxs": "number", "time": "number", "total_out": "number", "total_size": "number",
		"total_weight": "number", "totalfee": "number", "txs": "number", "utxo_increase": "number",
		"utxo_size_inc": "number", "utxo_increase_actual": "number", "utxo_size_inc_actual": "number",
	}
	mempoolEntryShape = shape{
		"vsize": "number", "weight": "number", "time": "number", "height": "number",
		"descendantcount": "number", "descendantsize": "number", "ancestorcount": "number",
		"ancestorsize": "number", "wtxid": "string", "fees": "object", "depends": "array",
		"spentby": "array", "bip125-replaceable": "boolean", "unbroadcast": "boolean",
	}
)
