package node

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// restFetch requests path from the node's RPC listener without
// credentials (REST is unauthenticated) and returns status, content type
// and body.
func restFetch(t *testing.T, n *testNode, method, path string, body []byte) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+n.s.rpcAddr()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doHTTP(t, req)
}

// restOK fetches path, requires 200 with content type ctype, and returns
// the body.
func restOK(t *testing.T, n *testNode, path, ctype string) []byte {
	t.Helper()
	st, ct, b := restFetch(t, n, http.MethodGet, path, nil)
	if st != http.StatusOK || ct != ctype {
		t.Fatalf("GET %s: %d %q %.200q, want 200 %q", path, st, ct, b, ctype)
	}
	return b
}

// restErrIs requires an error answer: status and plain-text body.
func restErrIs(t *testing.T, n *testNode, path string, status int, body string) {
	t.Helper()
	st, ct, b := restFetch(t, n, http.MethodGet, path, nil)
	if st != status || ct != "text/plain" || string(b) != body+"\r\n" {
		t.Errorf("GET %s: %d %q %q, want %d text/plain %q", path, st, ct, b, status, body)
	}
}

func TestRESTDisabledByDefault(t *testing.T) {
	n := newTestNode(t)
	for _, p := range []string{"/rest/chaininfo.json", "/rest/mempool/info.json"} {
		st, _, b := restFetch(t, n, http.MethodGet, p, nil)
		if st != http.StatusNotFound || len(b) != 0 {
			t.Errorf("without --rest: GET %s: %d %q, want empty 404", p, st, b)
		}
	}
	n.must(t, "getblockcount")
}

func TestRESTInterface(t *testing.T) {
	n := newTestNode(t, "--rest", "--txindex")
	n.mine(t, 101)
	// A confirmed fan-out of the first coinbase, then a mempool spend of
	// its first output.
	op, v := n.coinbaseOut(t, 1)
	fan := opTrueSpend(op, v, 2, 10_000)
	n.mustSend(t, fan)
	tipHash := n.mine(t, 1)[0]
	spend := opTrueSpend(wire.OutPoint{Hash: fan.TxHash(), Index: 0}, fan.TxOut[0].Value, 1, 1_000)
	n.mustSend(t, spend)
	tip, fanID, spendID := tipHash.String(), fan.TxHash().String(), spend.TxHash().String()
	h100 := unquote(t, n.must(t, "getblockhash", 100))
	unknown := strings.Repeat("0f", 32)
	fmtErr := "output format not found (available: .bin, .hex, .json)"

	t.Run("chaininfo", func(t *testing.T) {
		b := restOK(t, n, "/rest/chaininfo.json", "application/json")
		var ci, rpcCI map[string]json.RawMessage
		if err := json.Unmarshal(b, &ci); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		json.Unmarshal(n.must(t, "getblockchaininfo"), &rpcCI)
		if len(ci) != len(rpcCI) || string(ci["blocks"]) != "102" || string(ci["bestblockhash"]) != `"`+tip+`"` {
			t.Errorf("chaininfo %s\nrpc %v", b, rpcCI)
		}
		restErrIs(t, n, "/rest/chaininfo.hex", 404, "output format not found (available: json)")
	})

	t.Run("block", func(t *testing.T) {
		rawHex := unquote(t, n.must(t, "getblock", tip, 0))
		raw, _ := hex.DecodeString(rawHex)
		if b := restOK(t, n, "/rest/block/"+tip+".bin", "application/octet-stream"); !bytes.Equal(b, raw) {
			t.Errorf("block bin differs from getblock 0")
		}
		if b := restOK(t, n, "/rest/block/"+tip+".hex", "text/plain"); string(b) != rawHex+"\n" {
			t.Errorf("block hex %.100q", b)
		}
		b := restOK(t, n, "/rest/block/"+tip+".json", "application/json")
		obj := checkShape(t, "rest block", b, blockShape)
		var txs []json.RawMessage
		json.Unmarshal(obj["tx"], &txs)
		if len(txs) != 2 {
			t.Fatalf("block txs %s", obj["tx"])
		}
		tx1 := checkShape(t, "rest block tx", txs[1], txShape)
		var vins []json.RawMessage
		json.Unmarshal(tx1["vin"], &vins)
		vin := checkShape(t, "rest block vin", vins[0], vinShape)
		if _, ok := vin["prevout"]; !ok {
			t.Errorf("/rest/block/ lacks prevouts (verbosity 3)")
		}
		b = restOK(t, n, "/rest/block/notxdetails/"+tip+".json", "application/json")
		obj = checkShape(t, "rest block notxdetails", b, blockShape)
		if !strings.Contains(string(obj["tx"]), `"`+fanID+`"`) {
			t.Errorf("notxdetails tx %s", obj["tx"])
		}
		restErrIs(t, n, "/rest/block/"+unknown+".bin", 404, unknown+" not found")
		restErrIs(t, n, "/rest/block/"+unknown+".json", 404, unknown+" not found")
		restErrIs(t, n, "/rest/block/"+tip[:60]+".json", 400, "Invalid hash: "+tip[:60])
		restErrIs(t, n, "/rest/block/"+tip+".txt", 400, "Invalid hash: "+tip+".txt")
		restErrIs(t, n, "/rest/block/"+tip, 404, fmtErr)
	})

	t.Run("tx", func(t *testing.T) {
		if b := restOK(t, n, "/rest/tx/"+fanID+".hex", "text/plain"); string(b) != hex.EncodeToString(fan.Bytes())+"\n" {
			t.Errorf("tx hex %q", b)
		}
		if b := restOK(t, n, "/rest/tx/"+spendID+".bin", "application/octet-stream"); !bytes.Equal(b, spend.Bytes()) {
			t.Errorf("mempool tx bin %x", b)
		}
		obj := checkShape(t, "rest tx", restOK(t, n, "/rest/tx/"+fanID+".json", "application/json"), txShape)
		if string(obj["blockhash"]) != `"`+tip+`"` || string(obj["txid"]) != `"`+fanID+`"` {
			t.Errorf("confirmed tx json blockhash %s", obj["blockhash"])
		}
		obj = checkShape(t, "rest mempool tx", restOK(t, n, "/rest/tx/"+spendID+".json", "application/json"), txShape)
		if _, ok := obj["blockhash"]; ok {
			t.Errorf("mempool tx has a blockhash")
		}
		restErrIs(t, n, "/rest/tx/"+unknown+".json", 404, unknown+" not found")
		restErrIs(t, n, "/rest/tx/zz.json", 400, "Invalid hash: zz")
		restErrIs(t, n, "/rest/tx/"+fanID+".xml", 400, "Invalid hash: "+fanID+".xml")
	})

	t.Run("headers", func(t *testing.T) {
		b := restOK(t, n, "/rest/headers/"+h100+".bin?count=5", "application/octet-stream")
		if len(b) != 3*80 {
			t.Fatalf("headers from 100: %d bytes", len(b))
		}
		var last wire.BlockHeader
		if err := last.Decode(b[160:]); err != nil || last.BlockHash() != tipHash {
			t.Errorf("last header %v %v", last.BlockHash(), err)
		}
		if b := restOK(t, n, "/rest/headers/2/"+h100+".hex", "text/plain"); len(b) != 2*160+1 {
			t.Errorf("deprecated headers form: %q", b)
		}
		var list []json.RawMessage
		if err := json.Unmarshal(restOK(t, n, "/rest/headers/"+h100+".json", "application/json"), &list); err != nil || len(list) != 3 {
			t.Fatalf("headers json: %d %v", len(list), err)
		}
		for _, h := range list {
			checkShape(t, "rest header", h, blockHeaderShape)
		}
		rpcHdr, _ := json.Marshal(json.RawMessage(n.must(t, "getblockheader", h100)))
		if cmp, _ := json.Marshal(list[0]); !bytes.Equal(cmp, rpcHdr) {
			t.Errorf("header json %s\nrpc %s", list[0], rpcHdr)
		}
		if b := restOK(t, n, "/rest/headers/"+unknown+".json", "application/json"); string(b) != "[]\n" {
			t.Errorf("unknown start: %q", b)
		}
		restErrIs(t, n, "/rest/headers/"+h100+".json?count=0", 400, "Header count is invalid or out of acceptable range (1-2000): 0")
		restErrIs(t, n, "/rest/headers/"+h100+".json?count=2001", 400, "Header count is invalid or out of acceptable range (1-2000): 2001")
		restErrIs(t, n, "/rest/headers/abc.json", 400, "Invalid hash: abc")
		restErrIs(t, n, "/rest/headers/"+h100, 404, fmtErr)
	})

	t.Run("blockhashbyheight", func(t *testing.T) {
		if b := restOK(t, n, "/rest/blockhashbyheight/102.json", "application/json"); string(b) != `{"blockhash":"`+tip+"\"}\n" {
			t.Errorf("json %q", b)
		}
		if b := restOK(t, n, "/rest/blockhashbyheight/102.bin", "application/octet-stream"); !bytes.Equal(b, tipHash[:]) {
			t.Errorf("bin %x", b)
		}
		if b := restOK(t, n, "/rest/blockhashbyheight/100.hex", "text/plain"); string(b) != h100+"\n" {
			t.Errorf("hex %q", b)
		}
		restErrIs(t, n, "/rest/blockhashbyheight/103.json", 404, "Block height out of range")
		restErrIs(t, n, "/rest/blockhashbyheight/-1.json", 400, "Invalid height: -1")
		restErrIs(t, n, "/rest/blockhashbyheight/1.pdf", 400, "Invalid height: 1.pdf")
	})

	t.Run("mempool", func(t *testing.T) {
		info := checkShape(t, "rest mempool info", restOK(t, n, "/rest/mempool/info.json", "application/json"), shape{
			"loaded": "boolean", "size": "number", "bytes": "number", "usage": "number", "total_fee": "number",
			"maxmempool": "number", "mempoolminfee": "number", "minrelaytxfee": "number", "incrementalrelayfee": "number",
			"unbroadcastcount": "number", "fullrbf": "boolean"})
		if string(info["size"]) != "1" {
			t.Errorf("mempool size %s", info["size"])
		}
		var verbose map[string]json.RawMessage
		json.Unmarshal(restOK(t, n, "/rest/mempool/contents.json", "application/json"), &verbose)
		if e, ok := verbose[spendID]; !ok || len(verbose) != 1 {
			t.Errorf("contents %v", verbose)
		} else {
			checkShape(t, "rest mempool entry", e, mempoolEntryShape)
		}
		if b := restOK(t, n, "/rest/mempool/contents.json?verbose=false", "application/json"); string(b) != `["`+spendID+"\"]\n" {
			t.Errorf("contents verbose=false %q", b)
		}
		checkShape(t, "contents with sequence", restOK(t, n, "/rest/mempool/contents.json?verbose=false&mempool_sequence=true", "application/json"),
			shape{"txids": "array", "mempool_sequence": "number"})
		restErrIs(t, n, "/rest/mempool/contents.json?mempool_sequence=true", 400,
			`Verbose results cannot contain mempool sequence values. (hint: set "verbose=false")`)
		restErrIs(t, n, "/rest/mempool/contents.json?verbose=yes", 400, `The "verbose" query parameter must be either "true" or "false".`)
		restErrIs(t, n, "/rest/mempool/all.json", 400, "Invalid URI format. Expected /rest/mempool/<info|contents>.json")
	})

	t.Run("getutxos", func(t *testing.T) {
		outs := "/" + fanID + "-0/" + fanID + "-1/" + spendID + "-0/" + unknown + "-0"
		var chainView, memView struct {
			ChainHeight  int32  `json:"chainHeight"`
			ChaintipHash string `json:"chaintipHash"`
			Bitmap       string `json:"bitmap"`
			UTXOs        []struct {
				Height       int64           `json:"height"`
				Value        json.Number     `json:"value"`
				ScriptPubKey json.RawMessage `json:"scriptPubKey"`
			} `json:"utxos"`
		}
		json.Unmarshal(restOK(t, n, "/rest/getutxos"+outs+".json", "application/json"), &chainView)
		if chainView.Bitmap != "1100" || len(chainView.UTXOs) != 2 || chainView.ChainHeight != 102 || chainView.ChaintipHash != tip ||
			chainView.UTXOs[0].Height != 102 {
			t.Errorf("chain view %+v", chainView)
		}
		json.Unmarshal(restOK(t, n, "/rest/getutxos/checkmempool"+outs+".json", "application/json"), &memView)
		if memView.Bitmap != "0110" || len(memView.UTXOs) != 2 || memView.UTXOs[1].Height != 0x7fffffff {
			t.Errorf("mempool view %+v", memView)
		}
		// The binary request and answer (BIP64).
		req := []byte{1, 2}
		for _, op := range []wire.OutPoint{{Hash: fan.TxHash(), Index: 1}, {Hash: spend.TxHash(), Index: 0}} {
			req = append(req, op.Hash[:]...)
			req = binary.LittleEndian.AppendUint32(req, op.Index)
		}
		st, ct, b := restFetch(t, n, http.MethodPost, "/rest/getutxos.bin", req)
		if st != 200 || ct != "application/octet-stream" || len(b) < 38 || binary.LittleEndian.Uint32(b) != 102 ||
			!bytes.Equal(b[4:36], tipHash[:]) || b[36] != 1 || b[37] != 3 {
			t.Errorf("getutxos bin: %d %s %x", st, ct, b)
		}
		many := "/rest/getutxos" + strings.Repeat("/"+fanID+"-0", 16) + ".json"
		restErrIs(t, n, many, 400, "Error: max outpoints exceeded (max: 15, tried: 16)")
		restErrIs(t, n, "/rest/getutxos/"+fanID+"-x.json", 400, "Parse error")
		restErrIs(t, n, "/rest/getutxos.json", 400, "Error: empty request")
	})

	t.Run("deploymentinfo", func(t *testing.T) {
		obj := checkShape(t, "rest deploymentinfo", restOK(t, n, "/rest/deploymentinfo.json", "application/json"),
			shape{"hash": "string", "height": "number", "deployments": "object"})
		if string(obj["hash"]) != `"`+tip+`"` {
			t.Errorf("deploymentinfo hash %s", obj["hash"])
		}
		restOK(t, n, "/rest/deploymentinfo/"+h100+".json", "application/json")
		restErrIs(t, n, "/rest/deploymentinfo/"+unknown+".json", 400, "Block not found")
	})

	t.Run("misc", func(t *testing.T) {
		if st, _, b := restFetch(t, n, http.MethodGet, "/rest/nosuch.json", nil); st != 404 || len(b) != 0 {
			t.Errorf("unknown endpoint: %d %q", st, b)
		}
		if st, _, _ := restFetch(t, n, http.MethodDelete, "/rest/chaininfo.json", nil); st != http.StatusMethodNotAllowed {
			t.Errorf("DELETE: %d", st)
		}
		// JSON-RPC still needs credentials.
		req, _ := http.NewRequest(http.MethodPost, "http://"+n.s.rpcAddr(), strings.NewReader(`{"method":"getblockcount","id":1}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("JSON-RPC without credentials: %d", resp.StatusCode)
		}
	})
}

func TestRESTBlockFilters(t *testing.T) {
	n := newTestNode(t, "--rest", "--blockfilterindex")
	n.mine(t, 3)
	waitFilterTip(t, n)
	h1, _, hdr1 := rpcBlockFilter(t, n, 1)
	h3, f3, hdr3 := rpcBlockFilter(t, n, 3)
	b := restOK(t, n, "/rest/blockfilter/basic/"+h3.String()+".json", "application/json")
	if string(b) != `{"filter":"`+hex.EncodeToString(f3)+"\"}\n" {
		t.Errorf("blockfilter json %q", b)
	}
	want := append([]byte{0}, h3[:]...)
	want = wire.AppendVarBytes(want, f3)
	if b := restOK(t, n, "/rest/blockfilter/basic/"+h3.String()+".bin", "application/octet-stream"); !bytes.Equal(b, want) {
		t.Errorf("blockfilter bin %x, want %x", b, want)
	}
	b = restOK(t, n, "/rest/blockfilterheaders/basic/"+h1.String()+".bin?count=10", "application/octet-stream")
	if len(b) != 3*32 || !bytes.Equal(b[:32], hdr1[:]) || !bytes.Equal(b[64:], hdr3[:]) {
		t.Errorf("filter headers %x", b)
	}
	restErrIs(t, n, "/rest/blockfilter/v2/"+h3.String()+".json", 400, "Unknown filtertype v2")
	unknown := strings.Repeat("0e", 32)
	restErrIs(t, n, "/rest/blockfilter/basic/"+unknown+".json", 404, unknown+" not found")

	plain := newTestNode(t, "--rest")
	restErrIs(t, plain, "/rest/blockfilter/basic/"+h3.String()+".json", 400, "Index is not enabled for filtertype basic")
}
