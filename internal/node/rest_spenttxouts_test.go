package node

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestRESTSpentTxOuts reads /rest/spenttxouts/ of a mined block from a
// running node: one list per transaction, the coinbase's empty, each
// spent output's value and script from the undo data.
func TestRESTSpentTxOuts(t *testing.T) {
	n := newTestNode(t, "--rest")
	n.mine(t, 101)
	op, v := n.coinbaseOut(t, 1)
	tx := opTrueSpend(op, v, 2, 10_000)
	if _, err := n.s.pool.AcceptTransaction(tx, mempoolOpts()); err != nil {
		t.Fatal(err)
	}
	h := n.mine(t, 1)[0].String()

	b := restOK(t, n, "/rest/spenttxouts/"+h+".bin", "application/octet-stream")
	want := []byte{2, 0, 1}
	want = binary.LittleEndian.AppendUint64(want, uint64(v))
	want = append(want, byte(len(opTrueScript)))
	want = append(want, opTrueScript...)
	if string(b) != string(want) {
		t.Fatalf("bin %x, want %x", b, want)
	}
	if hx := restOK(t, n, "/rest/spenttxouts/"+h+".hex", "text/plain"); string(hx) != hex.EncodeToString(want)+"\n" {
		t.Fatalf("hex %q", hx)
	}
	var lists [][]struct {
		Value        json.Number `json:"value"`
		ScriptPubKey struct {
			Hex  string `json:"hex"`
			Type string `json:"type"`
		} `json:"scriptPubKey"`
	}
	if err := json.Unmarshal(restOK(t, n, "/rest/spenttxouts/"+h+".json", "application/json"), &lists); err != nil {
		t.Fatal(err)
	}
	if len(lists) != 2 || len(lists[0]) != 0 || len(lists[1]) != 1 || lists[1][0].Value != "50.00000000" ||
		lists[1][0].ScriptPubKey.Hex != hex.EncodeToString(opTrueScript) || lists[1][0].ScriptPubKey.Type != "witness_v0_scripthash" {
		t.Fatalf("json %+v", lists)
	}
	genesis := n.s.cfg.params.GenesisHash.String()
	if b := restOK(t, n, "/rest/spenttxouts/"+genesis+".json", "application/json"); string(b) != "[[]]\n" {
		t.Fatalf("genesis %q", b)
	}
	restErrIs(t, n, "/rest/spenttxouts/"+wire.Hash{1}.String()+".json", http.StatusNotFound, wire.Hash{1}.String()+" not found")
}
