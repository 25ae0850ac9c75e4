package node

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// TestMempoolNullDummyIsMandatory: a P2SH multisig spend with a non-zero
// CHECKMULTISIG dummy is refused as "mandatory-script-verify-flag-failed"
// even before segwit (which makes NULLDUMMY consensus) is active, as in
// Core, whose mandatory flag set always includes NULLDUMMY. The re-check
// used to run under the next block's consensus flags only, which passed
// and worded the refusal "non-mandatory".
func TestMempoolNullDummyIsMandatory(t *testing.T) {
	n := newTestNode(t, "--testactivationheight=segwit@500")
	priv := bytes.Repeat([]byte{0x11}, 32)
	key, _ := btcec.PrivKeyFromBytes(priv)
	pub := key.PubKey().SerializeCompressed()
	pkh := txscript.Hash160(pub)
	addr := txscript.Base58CheckEncode(0x6f, pkh[:])
	wif := txscript.Base58CheckEncode(0xef, append(append([]byte{}, priv...), 1))

	call := func(method string, params ...any) json.RawMessage {
		t.Helper()
		res, rerr := n.rpcCall(t, method, params...)
		if rerr != nil {
			t.Fatalf("%s: %d %s", method, rerr.Code, rerr.Message)
		}
		return res
	}
	var s string
	var hashes []string
	json.Unmarshal(call("generatetoaddress", 101, addr), &hashes)
	var blk struct{ Tx []string }
	json.Unmarshal(call("getblock", hashes[0]), &blk)

	var ms struct{ Address, RedeemScript string }
	json.Unmarshal(call("createmultisig", 1, []string{hex.EncodeToString(pub)}), &ms)
	var va struct{ ScriptPubKey string }
	json.Unmarshal(call("validateaddress", ms.Address), &va)

	json.Unmarshal(call("createrawtransaction", []any{map[string]any{"txid": blk.Tx[0], "vout": 0}}, map[string]any{ms.Address: 49}), &s)
	var signed struct{ Hex string }
	json.Unmarshal(call("signrawtransactionwithkey", s, []string{wif}), &signed)
	var txid string
	json.Unmarshal(call("sendrawtransaction", signed.Hex, 0), &txid)

	json.Unmarshal(call("createrawtransaction", []any{map[string]any{"txid": txid, "vout": 0}}, map[string]any{ms.Address: 48}), &s)
	prev := []any{map[string]any{"txid": txid, "vout": 0, "scriptPubKey": va.ScriptPubKey, "redeemScript": ms.RedeemScript}}
	json.Unmarshal(call("signrawtransactionwithkey", s, []string{wif}, prev), &signed)
	// The scriptSig starts with the dummy push OP_0; make it OP_1.
	raw, _ := hex.DecodeString(signed.Hex)
	at := 4 + 1 + 36 + 1 // version, input count, outpoint, script length
	if raw[at] != txscript.OP_0 {
		t.Fatalf("unexpected scriptSig start %#x", raw[at])
	}
	raw[at] = txscript.OP_1
	_, rerr := n.rpcCall(t, "sendrawtransaction", hex.EncodeToString(raw), 0)
	const want = "mandatory-script-verify-flag-failed (Dummy CHECKMULTISIG argument must be zero)"
	var bad wire.MsgTx
	if _, err := bad.Decode(raw); err != nil {
		t.Fatal(err)
	}
	// As Core's ValidationState: the reason, then which input failed.
	details := fmt.Sprintf("%s, input 0 of %v (wtxid %v), spending %s:0", want, bad.TxHash(), bad.WitnessHash(), txid)
	if rerr == nil || rerr.Code != -26 || rerr.Message != details {
		t.Fatalf("got %+v, want -26 %q", rerr, details)
	}
	var tma []struct {
		Reason  string `json:"reject-reason"`
		Details string `json:"reject-details"`
	}
	json.Unmarshal(call("testmempoolaccept", []string{hex.EncodeToString(raw)}, 0), &tma)
	if len(tma) != 1 || tma[0].Reason != want || tma[0].Details != details {
		t.Fatalf("testmempoolaccept %+v, want %q / %q", tma, want, details)
	}
}
