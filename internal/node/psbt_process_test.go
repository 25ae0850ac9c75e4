package node

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/internal/psbt"
	"github.com/btcnode/btcd/wire"
)

// TestDescriptorProcessPSBTTapscript spends a taproot output through a
// script leaf: descriptorprocesspsbt finds the coin in the mempool, signs
// with the descriptor's extended private key and finalizes, and
// testmempoolaccept takes the result; without finalize, finalizepsbt
// builds the same kind of script path witness.
func TestDescriptorProcessPSBTTapscript(t *testing.T) {
	n, w := mempoolNode(t, 101)
	net := descriptor.RegTest
	signer, err := descriptor.NewMasterKey([]byte("descriptorprocesspsbt signer seed"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := descriptor.NewMasterKey([]byte("descriptorprocesspsbt internal key"))
	if err != nil {
		t.Fatal(err)
	}
	// The internal key's private key is not given, so only the leaves
	// can be signed; the smaller pk() leaf is chosen over multi_a().
	internal := hex.EncodeToString(other.PubKey()[1:])
	xprv := signer.String(net)
	desc := "tr(" + internal + ",{multi_a(2," + xprv + "/1," + xprv + "/2),pk(" + xprv + "/3)})"
	ds, err := descriptor.Parse(desc, net, false)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := ds[0].Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	trScript := outs[0].Script

	coin := n.coinbaseCoin(t, 1)
	fund := w.build([]mpCoin{coin}, []wire.TxOut{{Value: coin.value - 10_000, PkScript: trScript}})
	n.mustSend(t, fund)
	spend := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: fund.TxHash()}, Sequence: 0xfffffffd}},
		TxOut: []wire.TxOut{{Value: coin.value - 20_000, PkScript: w.pkScript}}}
	unsigned := psbt.New(spend).Base64()

	var res struct {
		PSBT     string `json:"psbt"`
		Complete bool   `json:"complete"`
		Hex      string `json:"hex"`
	}
	raw := n.must(t, "descriptorprocesspsbt", unsigned, []any{desc})
	if err := json.Unmarshal(raw, &res); err != nil || !res.Complete || res.Hex == "" || res.PSBT == "" {
		t.Fatalf("descriptorprocesspsbt: %s", raw)
	}
	tx := decodeTxHex(t, res.Hex)
	if wit := tx.TxIn[0].Witness; len(wit) != 3 || len(wit[0]) != 64 || len(wit[1]) != 34 {
		t.Fatalf("witness %x, want the pk() leaf's", wit)
	}
	if r := n.testAccept(t, tx); r != "" {
		t.Fatalf("testmempoolaccept: %s", r)
	}

	// Signed but not finalized: no hex; finalizepsbt completes it.
	res = struct {
		PSBT     string `json:"psbt"`
		Complete bool   `json:"complete"`
		Hex      string `json:"hex"`
	}{}
	raw = n.must(t, "descriptorprocesspsbt", unsigned, []any{map[string]any{"desc": desc}}, "DEFAULT", true, false)
	if err := json.Unmarshal(raw, &res); err != nil || res.Complete || res.Hex != "" {
		t.Fatalf("finalize=false: %s", raw)
	}
	p, err := psbt.DecodeBase64(res.PSBT)
	if err != nil {
		t.Fatal(err)
	}
	if in := p.Inputs[0]; in.WitnessUTXO == nil || len(in.TapScriptSigs) != 3 || len(in.TapLeafScripts) != 2 || len(in.TapBip32) != 4 {
		t.Fatalf("updated input: %+v", in)
	}
	raw = n.must(t, "finalizepsbt", res.PSBT)
	var fin struct {
		Hex      string `json:"hex"`
		Complete bool   `json:"complete"`
	}
	if err := json.Unmarshal(raw, &fin); err != nil || !fin.Complete {
		t.Fatalf("finalizepsbt: %s", raw)
	}
	if r := n.testAccept(t, decodeTxHex(t, fin.Hex)); r != "" {
		t.Fatalf("testmempoolaccept of finalizepsbt's: %s", r)
	}

	// Core's error codes.
	for _, c := range []struct {
		params []any
		code   int
	}{
		{[]any{unsigned, []any{"tr(nonsense)"}}, -5},
		{[]any{unsigned, []any{desc}, "ALL|NONSENSE"}, -8},
		{[]any{"AAAA", []any{desc}}, -22},
		{[]any{unsigned, []any{map[string]any{"desc": "wpkh(" + xprv + "/*)", "range": -1}}}, -8},
		{[]any{unsigned, []any{1}}, -8},
		{[]any{unsigned}, -1},
	} {
		_, rerr := n.rpcCall(t, "descriptorprocesspsbt", c.params...)
		if rerr == nil || rerr.Code != c.code {
			t.Errorf("%v: %+v, want code %d", c.params[1:], rerr, c.code)
		}
	}
}

func decodeTxHex(t *testing.T, h string) *wire.MsgTx {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	var tx wire.MsgTx
	if _, err := tx.Decode(b); err != nil {
		t.Fatal(err)
	}
	return &tx
}
