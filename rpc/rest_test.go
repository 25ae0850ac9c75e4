package rpc

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// restBackends is the fake chain plus a one-transaction mempool,
// deployments and a block filter index, for the REST tests.
func restBackends(f *fakeChain) Backend {
	c := f.backend()
	c.DeploymentInfo = func(h wire.Hash) (*DeploymentInfo, error) {
		i := f.find(h)
		if i < 0 {
			return nil, ErrBlockNotFound
		}
		zero := int32(0)
		return &DeploymentInfo{Hash: h.String(), Height: int32(i), Deployments: map[string]*Deployment{
			"segwit": {Type: "buried", Height: &zero, Active: true}}}, nil
	}
	c.BlockFilter = func(h wire.Hash, _ string) (*BlockFilter, error) {
		i := f.find(h)
		if i < 0 {
			return nil, NewError(ErrInvalidAddress, "Block not found")
		}
		hdr := wire.Hash{byte(i + 1)}
		return &BlockFilter{Filter: "0102", Header: hdr.String()}, nil
	}
	tx := decodeTxMust(firstSpendHex)
	m := &MempoolBackend{
		Info: func() (*MempoolInfo, error) {
			return &MempoolInfo{Loaded: true, Size: 1, TotalFee: FormatBTC(0), MempoolMinFee: FormatBTC(1000),
				MinRelayTxFee: FormatBTC(1000), IncrementalRelayFee: FormatBTC(1000)}, nil
		},
		TxIDs: func() ([]wire.Hash, uint64, error) { return []wire.Hash{tx.TxHash()}, 7, nil },
		Entry: func(h wire.Hash) (*MempoolEntry, error) {
			return &MempoolEntry{VSize: 10, WTxID: h.String(), Fees: MempoolFees{Base: FormatBTC(1), Modified: FormatBTC(1),
				Ancestor: FormatBTC(1), Descendant: FormatBTC(1)}, Depends: []string{}, SpentBy: []string{}}, nil
		},
	}
	return Backend{Chain: c, Mempool: m}
}

// restGet requests path without credentials and returns status, content
// type and body.
func restGet(t testing.TB, base, method, path string, body []byte) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doHTTP(t, req)
}

// restCase is one request and its expected status, content type and
// body (exact when body is set, prefix when prefix is).
type restCase struct {
	path         string
	status       int
	ctype        string
	body, prefix string
}

func runRESTCases(t *testing.T, url string, cases []restCase) {
	t.Helper()
	for _, c := range cases {
		st, ct, b := restGet(t, url, http.MethodGet, c.path, nil)
		if st != c.status || (c.ctype != "" && ct != c.ctype) {
			t.Errorf("GET %s: %d %q %q, want %d %q", c.path, st, ct, b, c.status, c.ctype)
			continue
		}
		if c.body != "" && string(b) != c.body {
			t.Errorf("GET %s: body %q, want %q", c.path, b, c.body)
		}
		if c.prefix != "" && !strings.HasPrefix(string(b), c.prefix) {
			t.Errorf("GET %s: body %q, want prefix %q", c.path, b, c.prefix)
		}
	}
}

func decodeJSONBody(t *testing.T, what string, b []byte) any {
	t.Helper()
	if !bytes.HasSuffix(b, []byte("\n")) {
		t.Errorf("%s: JSON body lacks the trailing newline", what)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: bad JSON %q: %v", what, b, err)
	}
	return v
}

func TestRESTDisabled(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend = restBackends(f) })
	for _, p := range []string{"/rest/chaininfo.json", "/rest/block/" + f.hashes[0].String() + ".bin", "/rest/nosuch"} {
		st, _, b := restGet(t, url, http.MethodGet, p, nil)
		if st != http.StatusNotFound || len(b) != 0 {
			t.Errorf("REST off: GET %s: %d %q, want empty 404", p, st, b)
		}
	}
	// JSON-RPC is unaffected.
	if got := mustResult(t, url, "getblockcount", nil); got != json.Number("1") {
		t.Errorf("getblockcount %v", got)
	}
}

func TestRESTBlocksAndTx(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend = restBackends(f); c.REST = true })
	h0, h1 := f.hashes[0].String(), f.hashes[1].String()
	blk1 := f.blocks[1].Bytes()
	spend := f.blocks[1].Transactions[1]
	txid := spend.TxHash().String()
	unknown := strings.Repeat("ab", 32)
	fmtErr := "output format not found (available: .bin, .hex, .json)\r\n"
	runRESTCases(t, url, []restCase{
		{path: "/rest/block/" + h1 + ".bin", status: 200, ctype: "application/octet-stream", body: string(blk1)},
		{path: "/rest/block/" + h1 + ".hex", status: 200, ctype: "text/plain", body: hex.EncodeToString(blk1) + "\n"},
		{path: "/rest/block/notxdetails/" + h1 + ".hex", status: 200, ctype: "text/plain", body: hex.EncodeToString(blk1) + "\n"},
		{path: "/rest/block/" + unknown + ".bin", status: 404, ctype: "text/plain", body: unknown + " not found\r\n"},
		{path: "/rest/block/" + unknown + ".json", status: 404, ctype: "text/plain", body: unknown + " not found\r\n"},
		{path: "/rest/block/" + h1 + ".xml", status: 400, ctype: "text/plain", body: "Invalid hash: " + h1 + ".xml\r\n"},
		{path: "/rest/block/" + h1, status: 404, ctype: "text/plain", body: fmtErr},
		{path: "/rest/block/xyz.json", status: 400, body: "Invalid hash: xyz\r\n"},
		{path: "/rest/block/" + h1[:63] + "g.json", status: 400},
		{path: "/rest/tx/" + txid + ".bin", status: 200, ctype: "application/octet-stream", body: string(spend.Bytes())},
		{path: "/rest/tx/" + txid + ".hex", status: 200, ctype: "text/plain", body: firstSpendHex + "\n"},
		{path: "/rest/tx/" + unknown + ".hex", status: 404, body: unknown + " not found\r\n"},
		{path: "/rest/tx/" + txid, status: 404, body: fmtErr},
		{path: "/rest/tx/12.json", status: 400, body: "Invalid hash: 12\r\n"},
		{path: "/rest/nosuch", status: 404, body: ""},
	})

	st, ct, b := restGet(t, url, http.MethodGet, "/rest/block/"+h1+".json", nil)
	if st != 200 || ct != "application/json" {
		t.Fatalf("block json: %d %s %s", st, ct, b)
	}
	v := decodeJSONBody(t, "block", b).(map[string]any)
	if v["hash"] != h1 || v["previousblockhash"] != h0 {
		t.Errorf("block json %v", v)
	}
	txs := v["tx"].([]any)
	tx1 := txs[1].(map[string]any)
	if tx1["txid"] != txid || tx1["hex"] != firstSpendHex {
		t.Errorf("block json tx %v", tx1)
	}
	if _, ok := tx1["vin"].([]any)[0].(map[string]any)["prevout"]; !ok {
		t.Errorf("/rest/block/ json lacks prevouts (bitcoind shows verbosity 3)")
	}
	_, _, b = restGet(t, url, http.MethodGet, "/rest/block/notxdetails/"+h1+".json", nil)
	v = decodeJSONBody(t, "notxdetails", b).(map[string]any)
	if txs := v["tx"].([]any); len(txs) != 2 || txs[1] != txid {
		t.Errorf("notxdetails tx %v", v["tx"])
	}

	st, ct, b = restGet(t, url, http.MethodGet, "/rest/tx/"+txid+".json", nil)
	if st != 200 || ct != "application/json" {
		t.Fatalf("tx json: %d %s %s", st, ct, b)
	}
	tv := decodeJSONBody(t, "tx", b).(map[string]any)
	checkShape(t, "tx", tv, shape{"txid": "string", "hash": "string", "version": "number", "size": "number", "vsize": "number",
		"weight": "number", "locktime": "number", "vin": "array", "vout": "array", "hex": "string", "blockhash": "string"})
	if tv["blockhash"] != h1 {
		t.Errorf("tx blockhash %v", tv["blockhash"])
	}
}

func TestRESTHeadersAndHeights(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend = restBackends(f); c.REST = true })
	h0, h1 := f.hashes[0], f.hashes[1]
	both := append(f.blocks[0].Header.AppendTo(nil), f.blocks[1].Header.AppendTo(nil)...)
	unknown := strings.Repeat("cd", 32)
	countErr := "Header count is invalid or out of acceptable range (1-2000): "
	runRESTCases(t, url, []restCase{
		{path: "/rest/headers/" + h0.String() + ".bin", status: 200, ctype: "application/octet-stream", body: string(both)},
		{path: "/rest/headers/" + h0.String() + ".bin?count=1", status: 200, body: string(both[:80])},
		{path: "/rest/headers/" + h0.String() + ".hex?count=2000", status: 200, ctype: "text/plain", body: hex.EncodeToString(both) + "\n"},
		{path: "/rest/headers/1/" + h1.String() + ".hex", status: 200, body: hex.EncodeToString(both[80:]) + "\n"},
		{path: "/rest/headers/" + unknown + ".json", status: 200, ctype: "application/json", body: "[]\n"},
		{path: "/rest/headers/" + unknown + ".bin", status: 200, body: ""},
		{path: "/rest/headers/" + h0.String() + ".json?count=0", status: 400, body: countErr + "0\r\n"},
		{path: "/rest/headers/" + h0.String() + ".json?count=2001", status: 400, body: countErr + "2001\r\n"},
		{path: "/rest/headers/" + h0.String() + ".json?count=+5", status: 400},
		{path: "/rest/headers/" + h0.String() + ".json?count=x", status: 400, body: countErr + "x\r\n"},
		{path: "/rest/headers/-1/" + h0.String() + ".json", status: 400, body: countErr + "-1\r\n"},
		{path: "/rest/headers/1/2/" + h0.String() + ".json", status: 400, prefix: "Invalid URI format"},
		{path: "/rest/headers/" + h0.String() + ".json?count=%zz", status: 400, prefix: "URI parsing failed"},
		{path: "/rest/headers/nothex.json", status: 400, body: "Invalid hash: nothex\r\n"},
		{path: "/rest/headers/" + h0.String() + ".txt", status: 400},
		{path: "/rest/headers/" + h0.String(), status: 404, prefix: "output format not found"},
		{path: "/rest/blockhashbyheight/1.bin", status: 200, ctype: "application/octet-stream", body: string(h1[:])},
		{path: "/rest/blockhashbyheight/0.hex", status: 200, ctype: "text/plain", body: h0.String() + "\n"},
		{path: "/rest/blockhashbyheight/1.json", status: 200, ctype: "application/json", body: `{"blockhash":"` + h1.String() + "\"}\n"},
		{path: "/rest/blockhashbyheight/2.json", status: 404, body: "Block height out of range\r\n"},
		{path: "/rest/blockhashbyheight/-1.json", status: 400, body: "Invalid height: -1\r\n"},
		{path: "/rest/blockhashbyheight/1x.json", status: 400, body: "Invalid height: 1x\r\n"},
		{path: "/rest/blockhashbyheight/99999999999.json", status: 400},
		{path: "/rest/blockhashbyheight/1", status: 404, prefix: "output format not found"},
		{path: "/rest/blockfilter/basic/" + h1.String() + ".json", status: 200, body: `{"filter":"0102"}` + "\n"},
		{path: "/rest/blockfilter/basic/" + h1.String() + ".hex", status: 200, body: "00" + hex.EncodeToString(h1[:]) + "020102\n"},
		{path: "/rest/blockfilter/extended/" + h1.String() + ".hex", status: 400, body: "Unknown filtertype extended\r\n"},
		{path: "/rest/blockfilter/basic/" + unknown + ".hex", status: 404, body: unknown + " not found\r\n"},
		{path: "/rest/blockfilter/" + h1.String() + ".hex", status: 400, prefix: "Invalid URI format"},
		{path: "/rest/blockfilterheaders/basic/" + h0.String() + ".json", status: 200,
			body: `["` + (wire.Hash{1}).String() + `","` + (wire.Hash{2}).String() + "\"]\n"},
		{path: "/rest/blockfilterheaders/basic/1/" + h1.String() + ".bin", status: 200, body: string((&wire.Hash{2})[:])},
	})
	_, _, b := restGet(t, url, http.MethodGet, "/rest/headers/"+h0.String()+".json?count=5", nil)
	list := decodeJSONBody(t, "headers", b).([]any)
	if len(list) != 2 {
		t.Fatalf("headers json: %s", b)
	}
	checkShape(t, "header", list[0], shape{"hash": "string", "confirmations": "number", "height": "number", "version": "number",
		"versionHex": "string", "merkleroot": "string", "time": "number", "mediantime": "number", "nonce": "number", "bits": "string",
		"target": "string", "difficulty": "number", "chainwork": "string", "nTx": "number", "previousblockhash": "string?",
		"nextblockhash": "string?"})
}

func TestRESTChainMempoolDeployments(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend = restBackends(f); c.REST = true })
	txid := decodeTxMust(firstSpendHex).TxHash().String()
	jsonOnly := "output format not found (available: json)\r\n"
	runRESTCases(t, url, []restCase{
		{path: "/rest/chaininfo.bin", status: 404, body: jsonOnly},
		{path: "/rest/chaininfo", status: 404, body: jsonOnly},
		{path: "/rest/mempool/info.hex", status: 404, body: jsonOnly},
		{path: "/rest/mempool/other.json", status: 400, body: "Invalid URI format. Expected /rest/mempool/<info|contents>.json\r\n"},
		{path: "/rest/mempool/contents.json?verbose=false", status: 200, ctype: "application/json", body: `["` + txid + "\"]\n"},
		{path: "/rest/mempool/contents.json?verbose=false&mempool_sequence=true", status: 200,
			body: `{"txids":["` + txid + `"],"mempool_sequence":7}` + "\n"},
		{path: "/rest/mempool/contents.json?verbose=1", status: 400, body: `The "verbose" query parameter must be either "true" or "false".` + "\r\n"},
		{path: "/rest/mempool/contents.json?mempool_sequence=yes", status: 400, prefix: `The "mempool_sequence" query parameter`},
		{path: "/rest/mempool/contents.json?mempool_sequence=true", status: 400,
			body: `Verbose results cannot contain mempool sequence values. (hint: set "verbose=false")` + "\r\n"},
		{path: "/rest/deploymentinfo.hex", status: 404, body: jsonOnly},
		{path: "/rest/deploymentinfo/" + strings.Repeat("00", 32) + ".json", status: 400, body: "Block not found\r\n"},
		{path: "/rest/deploymentinfo/zz.json", status: 400, body: "Invalid hash: zz\r\n"},
	})
	_, ct, b := restGet(t, url, http.MethodGet, "/rest/chaininfo.json", nil)
	if ct != "application/json" {
		t.Errorf("chaininfo content type %q", ct)
	}
	ci := decodeJSONBody(t, "chaininfo", b).(map[string]any)
	if ci["chain"] != "regtest" || ci["bestblockhash"] != f.hashes[1].String() {
		t.Errorf("chaininfo %v", ci)
	}
	mi := decodeJSONBody(t, "mempool info", mustGet(t, url, "/rest/mempool/info.json")).(map[string]any)
	checkShape(t, "mempool info", mi, shape{"loaded": "boolean", "size": "number", "bytes": "number", "usage": "number",
		"total_fee": "number", "maxmempool": "number", "mempoolminfee": "number", "minrelaytxfee": "number",
		"incrementalrelayfee": "number", "unbroadcastcount": "number", "fullrbf": "boolean"})
	mc := decodeJSONBody(t, "mempool contents", mustGet(t, url, "/rest/mempool/contents.json")).(map[string]any)
	if _, ok := mc[txid]; !ok || len(mc) != 1 {
		t.Errorf("verbose mempool contents %v", mc)
	}
	di := decodeJSONBody(t, "deploymentinfo", mustGet(t, url, "/rest/deploymentinfo.json")).(map[string]any)
	if di["hash"] != f.hashes[1].String() || di["height"] != json.Number("1") {
		t.Errorf("deploymentinfo tip %v", di)
	}
	di = decodeJSONBody(t, "deploymentinfo", mustGet(t, url, "/rest/deploymentinfo/"+f.hashes[0].String()+".json")).(map[string]any)
	if di["hash"] != f.hashes[0].String() {
		t.Errorf("deploymentinfo at genesis %v", di)
	}
}

func mustGet(t *testing.T, url, path string) []byte {
	t.Helper()
	st, _, b := restGet(t, url, http.MethodGet, path, nil)
	if st != 200 {
		t.Fatalf("GET %s: %d %q", path, st, b)
	}
	return b
}

// utxoRequest is BIP64's binary request body.
func utxoRequest(checkMempool bool, ops ...wire.OutPoint) []byte {
	b := []byte{0}
	if checkMempool {
		b[0] = 1
	}
	b = wire.AppendVarInt(b, uint64(len(ops)))
	for _, op := range ops {
		b = append(b, op.Hash[:]...)
		b = binary.LittleEndian.AppendUint32(b, op.Index)
	}
	return b
}

func TestRESTGetUTXOs(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend = restBackends(f); c.REST = true })
	tip := f.hashes[1]
	txh := strings.Repeat("11", 32)
	op0 := txh + "-0"
	op1 := txh + "-1"
	st, ct, b := restGet(t, url, http.MethodGet, "/rest/getutxos/checkmempool/"+op0+"/"+op1+".json", nil)
	if st != 200 || ct != "application/json" {
		t.Fatalf("getutxos json: %d %s %q", st, ct, b)
	}
	v := decodeJSONBody(t, "getutxos", b).(map[string]any)
	checkShape(t, "getutxos", v, shape{"chainHeight": "number", "chaintipHash": "string", "bitmap": "string", "utxos": "array"})
	if v["bitmap"] != "10" || v["chainHeight"] != json.Number("1") || v["chaintipHash"] != tip.String() {
		t.Errorf("getutxos %v", v)
	}
	u := v["utxos"].([]any)
	if len(u) != 1 {
		t.Fatalf("utxos %v", u)
	}
	checkShape(t, "utxo", u[0], shape{"height": "number", "value": "number", "scriptPubKey": "object"})
	if m := u[0].(map[string]any); m["height"] != json.Number("1") || m["value"] != json.Number("0.00000100") {
		t.Errorf("utxo %v", m)
	}

	// The binary answer: height, tip, bitmap, CCoin records.
	want := binary.LittleEndian.AppendUint32(nil, 1)
	want = append(want, tip[:]...)
	want = append(want, 1, 0x01, 1)
	want = append(want, 0, 0, 0, 0, 1, 0, 0, 0)
	want = binary.LittleEndian.AppendUint64(want, 100)
	want = append(want, 1, 0x51)
	_, ct, b = restGet(t, url, http.MethodGet, "/rest/getutxos/"+op0+"/"+op1+".bin", nil)
	if !bytes.Equal(b, want) || ct != "application/octet-stream" {
		t.Errorf("getutxos bin %x (%s), want %x", b, ct, want)
	}
	h, _ := wire.NewHashFromStr(txh)
	body := utxoRequest(true, wire.OutPoint{Hash: h, Index: 0}, wire.OutPoint{Hash: h, Index: 1})
	st, _, b = restGet(t, url, http.MethodPost, "/rest/getutxos.bin", body)
	if st != 200 || !bytes.Equal(b, want) {
		t.Errorf("getutxos bin POST: %d %x", st, b)
	}
	st, ct, b = restGet(t, url, http.MethodPost, "/rest/getutxos.hex", []byte(hex.EncodeToString(body)))
	if st != 200 || ct != "text/plain" || string(b) != hex.EncodeToString(want)+"\n" {
		t.Errorf("getutxos hex POST: %d %q", st, b)
	}

	many := make([]string, 16)
	for i := range many {
		many[i] = txh + "-" + strconv.Itoa(i)
	}
	many16 := strings.Join(many, "/")
	st, _, b = restGet(t, url, http.MethodGet, "/rest/getutxos/"+strings.Join(many[:15], "/")+".json", nil)
	if st != 200 {
		t.Errorf("15 outpoints: %d %q", st, b)
	}
	tooMany := "Error: max outpoints exceeded (max: 15, tried: 16)\r\n"
	big := make([]wire.OutPoint, 16)
	runRESTCases(t, url, []restCase{
		{path: "/rest/getutxos/" + many16 + ".json", status: 400, body: tooMany},
		{path: "/rest/getutxos/checkmempool/" + many16 + ".bin", status: 400, body: tooMany},
		{path: "/rest/getutxos.json", status: 400, body: "Error: empty request\r\n"},
		{path: "/rest/getutxos/checkmempool.json", status: 400, body: "Error: empty request\r\n"},
		{path: "/rest/getutxos/" + txh + ".json", status: 400, body: "Parse error\r\n"},
		{path: "/rest/getutxos/" + txh + "-x.json", status: 400, body: "Parse error\r\n"},
		{path: "/rest/getutxos/" + txh + "-1-2.json", status: 400, body: "Parse error\r\n"},
		{path: "/rest/getutxos/" + txh + "-4294967296.json", status: 400, body: "Parse error\r\n"},
		{path: "/rest/getutxos/" + op0 + ".xml", status: 400, body: "Parse error\r\n"},
		{path: "/rest/getutxos/" + op0, status: 404, prefix: "output format not found"},
	})
	for _, c := range []struct {
		path string
		body []byte
		want string
	}{
		{"/rest/getutxos.bin", utxoRequest(false, big...), tooMany},
		{"/rest/getutxos.bin", []byte{1, 5, 0}, "Parse error\r\n"},
		{"/rest/getutxos.bin", []byte{1, 0xff, 0, 0, 0, 0, 1, 0, 0, 0}, "Parse error\r\n"},
		{"/rest/getutxos/" + op0 + ".bin", body, "Combination of URI scheme inputs and raw post data is not allowed\r\n"},
		{"/rest/getutxos.json", body, "Error: empty request\r\n"},
	} {
		st, _, b := restGet(t, url, http.MethodPost, c.path, c.body)
		if st != 400 || string(b) != c.want {
			t.Errorf("POST %s %x: %d %q, want 400 %q", c.path, c.body, st, b, c.want)
		}
	}
}

func TestRESTLimits(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend = restBackends(f); c.REST = true; c.MaxRequestBytes = 64 })
	st, _, _ := restGet(t, url, http.MethodPost, "/rest/getutxos.bin", make([]byte, 65))
	if st != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d", st)
	}
	st, _, _ = restGet(t, url, http.MethodDelete, "/rest/chaininfo.json", nil)
	if st != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d", st)
	}
	// Unauthenticated JSON-RPC is still refused.
	if st, _ := post(t, url, "", "", `{"method":"getblockcount","id":1}`); st != http.StatusUnauthorized {
		t.Errorf("JSON-RPC without auth: %d", st)
	}
}

func TestParseDataFormat(t *testing.T) {
	for _, c := range []struct {
		in, param string
		f         restFormat
	}{
		{"abc.json", "abc", restJSON},
		{"abc.bin?count=5", "abc", restBin},
		{"abc.hex?x=1?y=2", "abc.hex?x=1", restUndef}, // bitcoind cuts at the last '?'
		{"abc.xml", "abc.xml", restUndef},
		{"abc", "abc", restUndef},
		{".json", "", restJSON},
		{"a.b.json", "a.b", restJSON},
		{"abc.json?", "abc", restJSON},
	} {
		p, f := parseDataFormat(c.in)
		if p != c.param || f != c.f {
			t.Errorf("parseDataFormat(%q) = %q %d, want %q %d", c.in, p, f, c.param, c.f)
		}
	}
}

func TestDecodeUTXORequest(t *testing.T) {
	var req restRequest
	op := wire.OutPoint{Hash: wire.Hash{9}, Index: 3}
	n, ok := decodeUTXORequest(&req, append(utxoRequest(true, op), 0xee))
	if !ok || n != 1 || !req.checkMempool || len(req.outpoints) != 1 || req.outpoints[0] != op {
		t.Errorf("decode: %d %v %+v", n, ok, req)
	}
	// A huge announced count with the bytes present is reported without
	// allocating the outpoints.
	req = restRequest{}
	b := utxoRequest(false, make([]wire.OutPoint, 1000)...)
	if n, ok := decodeUTXORequest(&req, b); !ok || n != 1000 || req.outpoints != nil {
		t.Errorf("1000 outpoints: %d %v %d", n, ok, len(req.outpoints))
	}
	for _, bad := range [][]byte{{}, {0}, {0, 1}, {0, 0xfd, 1, 0}, {0, 0xfe, 0, 0, 0, 0x10}} {
		if _, ok := decodeUTXORequest(&restRequest{}, bad); ok {
			t.Errorf("decoded %x", bad)
		}
	}
	if got := parseHexBody([]byte(" 0a\n0B ")); !bytes.Equal(got, []byte{10, 11}) {
		t.Errorf("parseHexBody %x", got)
	}
	if got := parseHexBody([]byte("0a0")); got != nil {
		t.Errorf("odd hex %x", got)
	}
	if got := sanitizeURI("1<x>\"y\n%20"); got != "1xy%20" {
		t.Errorf("sanitizeURI %q", got)
	}
}

// FuzzRESTPath feeds arbitrary request URIs and bodies through the REST
// parser and, against the fake backends, the whole handler. Parsing must
// respect the outpoint and count limits, and every answer must be a
// well-formed reply: errors are plain text ending in CRLF (or the empty
// 404 of an unknown path), JSON answers are valid JSON.
func FuzzRESTPath(f *testing.F) {
	fc := newFakeChain()
	h0, h1 := fc.hashes[0].String(), fc.hashes[1].String()
	txh := strings.Repeat("11", 32)
	for _, s := range []string{
		"/rest/tx/" + decodeTxMust(firstSpendHex).TxHash().String() + ".json",
		"/rest/block/" + h1 + ".hex",
		"/rest/block/notxdetails/" + h1 + ".json",
		"/rest/headers/" + h0 + ".bin?count=2",
		"/rest/headers/3/" + h0 + ".json",
		"/rest/blockhashbyheight/1.json",
		"/rest/chaininfo.json",
		"/rest/mempool/contents.json?verbose=false&mempool_sequence=true",
		"/rest/mempool/info.json",
		"/rest/getutxos/checkmempool/" + txh + "-0/" + txh + "-1.json",
		"/rest/getutxos.bin",
		"/rest/deploymentinfo/" + h0 + ".json",
		"/rest/blockfilterheaders/basic/" + h0 + ".hex?count=%zz",
		"/rest/blockfilter/basic/" + h1 + ".bin",
		"/rest/spenttxouts/" + h1 + ".json", "/rest/spenttxouts/" + h0 + "/x.bin",
		"/rest/headers/a/b/c.json", "/rest/block/.json", "/rest/", "/rest/getutxos/-.json",
	} {
		f.Add(s, []byte(nil))
	}
	f.Add("/rest/getutxos.bin", utxoRequest(true, wire.OutPoint{Index: 1}))
	f.Add("/rest/getutxos.hex", []byte(hex.EncodeToString(utxoRequest(false, make([]wire.OutPoint, 16)...))))
	f.Add("/rest/getutxos.bin", []byte{0, 0xfe, 0xff, 0xff, 0xff, 0xff})
	s, err := New(Config{DataDir: f.TempDir(), Backend: restBackends(fc), REST: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, uri string, body []byte) {
		if len(uri) > 1<<13 || len(body) > 1<<16 {
			return
		}
		req, rep := parseREST(uri, body)
		if (req == nil) == (rep == nil) {
			t.Fatalf("parseREST(%q): request %v and reply %v", uri, req, rep)
		}
		if req != nil {
			if len(req.outpoints) > MaxRESTOutpoints {
				t.Fatalf("%q: %d outpoints", uri, len(req.outpoints))
			}
			if (req.ep == epHeaders || req.ep == epFilterHeaders) && (req.count < 1 || req.count > MaxRESTHeaders) {
				t.Fatalf("%q: count %d", uri, req.count)
			}
		} else if rep.status != http.StatusBadRequest && rep.status != http.StatusNotFound {
			t.Fatalf("%q: parse status %d", uri, rep.status)
		}
		out := s.handleREST(uri, body)
		switch {
		case out.status == http.StatusOK && out.contentType == "application/json":
			if !json.Valid(out.body) {
				t.Fatalf("%q: invalid JSON %q", uri, out.body)
			}
		case out.status == http.StatusOK:
			if out.contentType != "text/plain" && out.contentType != "application/octet-stream" {
				t.Fatalf("%q: content type %q", uri, out.contentType)
			}
		case out.contentType == "":
			if out.status != http.StatusNotFound || len(out.body) != 0 {
				t.Fatalf("%q: %d without content type", uri, out.status)
			}
		default:
			if out.contentType != "text/plain" || !bytes.HasSuffix(out.body, []byte("\r\n")) {
				t.Fatalf("%q: error %d %q %q", uri, out.status, out.contentType, out.body)
			}
		}
	})
}

func BenchmarkRESTParse(b *testing.B) {
	uri := "/rest/getutxos/checkmempool/" + strings.Repeat("11", 32) + "-0/" + strings.Repeat("22", 32) + "-1.json"
	b.ReportAllocs()
	for b.Loop() {
		if _, rep := parseREST(uri, nil); rep != nil {
			b.Fatal(string(rep.body))
		}
	}
}

func BenchmarkRESTBlockHex(b *testing.B) {
	f := newFakeChain()
	s, err := New(Config{DataDir: b.TempDir(), Backend: restBackends(f), REST: true})
	if err != nil {
		b.Fatal(err)
	}
	uri := "/rest/block/" + f.hashes[1].String() + ".hex"
	b.ReportAllocs()
	for b.Loop() {
		if rep := s.handleREST(uri, nil); rep.status != http.StatusOK {
			b.Fatal(string(rep.body))
		}
	}
}

func BenchmarkRESTHeadersJSON(b *testing.B) {
	f := newFakeChain()
	s, err := New(Config{DataDir: b.TempDir(), Backend: restBackends(f), REST: true})
	if err != nil {
		b.Fatal(err)
	}
	uri := "/rest/headers/" + f.hashes[0].String() + ".json?count=2"
	b.ReportAllocs()
	for b.Loop() {
		if rep := s.handleREST(uri, nil); rep.status != http.StatusOK {
			b.Fatal(string(rep.body))
		}
	}
}
