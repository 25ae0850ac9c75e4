package rpc

import (
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestRESTSpentTxOuts(t *testing.T) {
	chain := &wsChain{}
	chain.add()
	_, scriptA := testAddr(0xaa)
	chain.add(wsSpendTx(wire.OutPoint{Hash: wire.Hash{1}}, []byte{0x51}, 1000, []byte{0x51}),
		wsSpendTx(wire.OutPoint{Hash: wire.Hash{2}}, []byte{0x51}, 1000, []byte{0x51}))
	chain.add(wsSpendTx(wire.OutPoint{Hash: wire.Hash{3}}, []byte{0x51}, 1, []byte{0x51}))
	_, url := startServer(t, func(c *Config) {
		cb := chain.backend()
		cb.BlockPrevOuts = func(h wire.Hash) ([][]PrevOut, error) {
			if h != chain.hashes[1] {
				return nil, nil // no undo data
			}
			return [][]PrevOut{{{Value: 5000, PkScript: scriptA}}, {}}, nil
		}
		c.Backend = Backend{Chain: cb}
		c.REST = true
	})
	h := func(i int) string { return chain.hashes[i].String() }
	bin := "03" + "00" + "01" + "8813000000000000" + "16" + hex.EncodeToString(scriptA) + "00"
	runRESTCases(t, url, []restCase{
		{path: "/rest/spenttxouts/" + h(1) + ".hex", status: http.StatusOK, ctype: "text/plain", body: bin + "\n"},
		{path: "/rest/spenttxouts/" + h(0) + ".hex", status: http.StatusOK, body: "0100\n"},
		{path: "/rest/spenttxouts/" + h(0) + ".json", status: http.StatusOK, ctype: "application/json", body: "[[]]\n"},
		{path: "/rest/spenttxouts/" + h(2) + ".json", status: http.StatusNotFound, body: h(2) + " undo not available\r\n"},
		{path: "/rest/spenttxouts/" + wire.Hash{9}.String() + ".bin", status: http.StatusNotFound, body: wire.Hash{9}.String() + " not found\r\n"},
		{path: "/rest/spenttxouts/zz.bin", status: http.StatusBadRequest, body: "Invalid hash: zz\r\n"},
		{path: "/rest/spenttxouts/" + h(1) + "/x.bin", status: http.StatusBadRequest, body: "Invalid URI format. Expected /rest/spenttxouts/<hash>.<ext>\r\n"},
		{path: "/rest/spenttxouts/" + h(1) + ".txt", status: http.StatusBadRequest, prefix: "Invalid hash: "},
		{path: "/rest/spenttxouts/" + h(1), status: http.StatusNotFound, prefix: "output format not found"},
	})
	st, ct, b := restGet(t, url, http.MethodGet, "/rest/spenttxouts/"+h(1)+".bin", nil)
	if st != http.StatusOK || ct != "application/octet-stream" || hex.EncodeToString(b) != bin {
		t.Fatalf("bin: %d %s %x", st, ct, b)
	}
	st, _, b = restGet(t, url, http.MethodGet, "/rest/spenttxouts/"+h(1)+".json", nil)
	v := decodeJSONBody(t, "json", b)
	lists, ok := v.([]any)
	if st != http.StatusOK || !ok || len(lists) != 3 || len(lists[0].([]any)) != 0 || len(lists[2].([]any)) != 0 {
		t.Fatalf("json: %s", b)
	}
	out := lists[1].([]any)[0].(map[string]any)
	checkShape(t, "spent txout", out, shape{"value": "number", "scriptPubKey": "object"})
	checkShape(t, "scriptPubKey", out["scriptPubKey"], shape{"asm": "string", "desc": "string", "hex": "string", "address": "string", "type": "string"})
	if out["value"].(interface{ String() string }).String() != "0.00005000" {
		t.Fatalf("value %v", out["value"])
	}
}
