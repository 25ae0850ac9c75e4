package rpc

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcnode/btcd/chaincfg"

	"github.com/btcnode/btcd/wire"
)

// Mainnet transactions with well-known decodings.
const (
	genesisCoinbaseHex = "01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000"
	firstSpendHex      = "0100000001c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704000000004847304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901ffffffff0200ca9a3b00000000434104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac00286bee0000000043410411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412a3ac00000000"
)

var (
	txShape = shape{"txid": "string", "hash": "string", "version": "number", "size": "number", "vsize": "number",
		"weight": "number", "locktime": "number", "vin": "array", "vout": "array"}
	vinShape         = shape{"txid": "string", "vout": "number", "scriptSig": "object", "txinwitness": "array?", "sequence": "number"}
	coinbaseVinShape = shape{"coinbase": "string", "txinwitness": "array?", "sequence": "number"}
	voutShape        = shape{"value": "number", "n": "number", "scriptPubKey": "object"}
	spkShape         = shape{"asm": "string", "desc": "string", "hex": "string", "address": "string?", "type": "string"}
)

func checkTxShape(t *testing.T, v any) {
	t.Helper()
	checkShape(t, "tx", v, txShape)
	tx := v.(map[string]any)
	for _, in := range tx["vin"].([]any) {
		if _, ok := in.(map[string]any)["coinbase"]; ok {
			checkShape(t, "coinbase vin", in, coinbaseVinShape)
		} else {
			checkShape(t, "vin", in, vinShape)
			checkShape(t, "scriptSig", in.(map[string]any)["scriptSig"], shape{"asm": "string", "hex": "string"})
		}
	}
	for _, out := range tx["vout"].([]any) {
		checkShape(t, "vout", out, voutShape)
		checkShape(t, "scriptPubKey", out.(map[string]any)["scriptPubKey"], spkShape)
	}
}

func TestDecodeRawTransaction(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.Net = NetParamsOf(&chaincfg.MainNetParams) })
	v := mustResult(t, url, "decoderawtransaction", []any{genesisCoinbaseHex})
	checkTxShape(t, v)
	tx := v.(map[string]any)
	if tx["txid"] != "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b" || tx["size"] != json.Number("204") ||
		tx["vsize"] != json.Number("204") || tx["weight"] != json.Number("816") || tx["version"] != json.Number("1") {
		t.Errorf("genesis coinbase: %v", tx)
	}
	out := tx["vout"].([]any)[0].(map[string]any)
	spk := out["scriptPubKey"].(map[string]any)
	if out["value"] != json.Number("50.00000000") || spk["type"] != "pubkey" || spk["address"] != nil ||
		!strings.HasPrefix(spk["desc"].(string), "pk(04678afdb0") {
		t.Errorf("genesis output: %v", out)
	}

	v = mustResult(t, url, "decoderawtransaction", []any{firstSpendHex})
	checkTxShape(t, v)
	tx = v.(map[string]any)
	if tx["txid"] != "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16" {
		t.Errorf("txid %v", tx["txid"])
	}
	in := tx["vin"].([]any)[0].(map[string]any)
	if !strings.HasSuffix(in["scriptSig"].(map[string]any)["asm"].(string), "[ALL]") || in["sequence"] != json.Number("4294967295") {
		t.Errorf("vin %v", in)
	}
	if tx["vout"].([]any)[1].(map[string]any)["value"] != json.Number("40.00000000") {
		t.Errorf("vout %v", tx["vout"])
	}

	// A segwit spend: witness shown, hash differs from txid, vsize < size.
	seg := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{
		PreviousOutPoint: wire.OutPoint{Index: 3},
		Witness:          [][]byte{{1, 2, 3}, make([]byte, 33)},
		Sequence:         0xfffffffd,
	}}, TxOut: []wire.TxOut{{Value: 12345, PkScript: mustHex("0014751e76e8199196d454941c45d1b3a323f1433bd6")}}}
	v = mustResult(t, url, "decoderawtransaction", []any{hex.EncodeToString(seg.Bytes())})
	checkTxShape(t, v)
	tx = v.(map[string]any)
	in = tx["vin"].([]any)[0].(map[string]any)
	if tx["txid"] == tx["hash"] || in["txinwitness"].([]any)[0] != "010203" {
		t.Errorf("segwit decode: %v", tx)
	}
	spk = tx["vout"].([]any)[0].(map[string]any)["scriptPubKey"].(map[string]any)
	if spk["address"] != "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" || spk["type"] != "witness_v0_keyhash" ||
		tx["vout"].([]any)[0].(map[string]any)["value"] != json.Number("0.00012345") {
		t.Errorf("segwit output %v", spk)
	}

	// Legacy transaction without inputs.
	noIn := &wire.MsgTx{Version: 2, TxOut: []wire.TxOut{{Value: 1, PkScript: []byte{0x51}}}}
	v = mustResult(t, url, "decoderawtransaction", []any{hex.EncodeToString(noIn.AppendTo(nil, false))})
	if len(v.(map[string]any)["vin"].([]any)) != 0 {
		t.Errorf("no-input tx: %v", v)
	}

	e := mustError(t, url, "decoderawtransaction", []any{"00"}, ErrDeserialization)
	if e.Message != "TX decode failed" {
		t.Errorf("message %q", e.Message)
	}
	mustError(t, url, "decoderawtransaction", []any{genesisCoinbaseHex + "00"}, ErrDeserialization)
	mustError(t, url, "decoderawtransaction", []any{5}, ErrType)
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestCreateRawTransaction(t *testing.T) {
	_, url := startServer(t, nil) // regtest
	txid := "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16"
	addr := "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
	h := mustResult(t, url, "createrawtransaction", []any{
		[]any{map[string]any{"txid": txid, "vout": 1}},
		map[string]any{addr: 0.1, "data": "00ff"},
	}).(string)
	var tx wire.MsgTx
	if _, err := tx.Decode(mustHex(h)); err != nil {
		t.Fatal(err)
	}
	if tx.Version != 2 || len(tx.TxIn) != 1 || tx.TxIn[0].Sequence != 0xfffffffd || tx.TxIn[0].PreviousOutPoint.Index != 1 ||
		tx.TxIn[0].PreviousOutPoint.Hash.String() != txid || len(tx.TxOut) != 2 || tx.TxOut[0].Value != 10000000 ||
		hex.EncodeToString(tx.TxOut[1].PkScript) != "6a0200ff" {
		t.Fatalf("created tx %+v", tx)
	}
	// Array outputs, locktime, no RBF, explicit sequence.
	h = mustResult(t, url, "createrawtransaction", []any{
		[]any{map[string]any{"txid": txid, "vout": 0}, map[string]any{"txid": txid, "vout": 2, "sequence": 7}},
		[]any{map[string]any{"data": ""}, map[string]any{addr: "1.5"}},
		500, false,
	}).(string)
	tx = wire.MsgTx{}
	if _, err := tx.Decode(mustHex(h)); err != nil {
		t.Fatal(err)
	}
	if tx.LockTime != 500 || tx.TxIn[0].Sequence != 0xfffffffe || tx.TxIn[1].Sequence != 7 ||
		hex.EncodeToString(tx.TxOut[0].PkScript) != "6a00" || tx.TxOut[1].Value != 150000000 {
		t.Fatalf("created tx %+v", tx)
	}
	for _, c := range []struct {
		params []any
		code   ErrorCode
		msg    string
	}{
		{[]any{[]any{map[string]any{"txid": txid}}, map[string]any{}}, ErrInvalidParam, "Invalid parameter, missing vout key"},
		{[]any{[]any{map[string]any{"txid": txid, "vout": -1}}, map[string]any{}}, ErrInvalidParam, "Invalid parameter, vout cannot be negative"},
		{[]any{[]any{map[string]any{"txid": "abc", "vout": 1}}, map[string]any{}}, ErrInvalidParam, "txid must be of length 64 (not 3, for 'abc')"},
		{[]any{[]any{}, map[string]any{"nope": 1}}, ErrInvalidAddress, "Invalid Bitcoin address: nope"},
		{[]any{[]any{}, []any{map[string]any{addr: 1}, map[string]any{addr: 2}}}, ErrInvalidParam, "Invalid parameter, duplicated address: " + addr},
		{[]any{[]any{}, []any{map[string]any{"data": "00"}, map[string]any{"data": "01"}}}, ErrInvalidParam, "Invalid parameter, duplicate key: data"},
		{[]any{[]any{}, []any{map[string]any{addr: 1, "data": "00"}}}, ErrInvalidParam, "Invalid parameter, key-value pair must contain exactly one key"},
		{[]any{[]any{}, map[string]any{addr: -1}}, ErrType, "Amount out of range"},
		{[]any{[]any{}, map[string]any{addr: 0.000000001}}, ErrType, "Invalid amount"},
		{[]any{[]any{}, map[string]any{}, -1}, ErrInvalidParam, "Invalid parameter, locktime out of range"},
		{[]any{[]any{map[string]any{"txid": txid, "vout": 0, "sequence": -1}}, map[string]any{}}, ErrInvalidParam, "Invalid parameter, sequence number is out of range"},
		{[]any{[]any{map[string]any{"txid": txid, "vout": 0, "sequence": 0xffffffff}}, map[string]any{}, 0, true}, ErrInvalidParam, "Invalid parameter combination: Sequence number(s) contradict replaceable option"},
		{[]any{[]any{}, map[string]any{}, 0, true, 4}, ErrInvalidParam, "Invalid parameter, version out of range(1~3)"},
	} {
		e := mustError(t, url, "createrawtransaction", c.params, c.code)
		if e.Message != c.msg {
			t.Errorf("%v: %q, want %q", c.params, e.Message, c.msg)
		}
	}
}

func TestCombineRawTransactionErrors(t *testing.T) {
	_, url := startServer(t, func(c *Config) {
		c.Backend.Chain = &ChainBackend{TxOut: func(wire.OutPoint, bool) (*TxOutInfo, error) { return nil, nil }}
	})
	e := mustError(t, url, "combinerawtransaction", []any{[]any{}}, ErrDeserialization)
	if e.Message != "Missing transactions" {
		t.Errorf("%q", e.Message)
	}
	e = mustError(t, url, "combinerawtransaction", []any{[]any{"zz"}}, ErrDeserialization)
	if e.Message != "TX decode failed for tx 0. Make sure the tx has at least one input." {
		t.Errorf("%q", e.Message)
	}
	raw := hex.EncodeToString(spendTx(1).Bytes())
	e = mustError(t, url, "combinerawtransaction", []any{[]any{raw}}, ErrVerify)
	if e.Message != "Input not found or already spent" {
		t.Errorf("%q", e.Message)
	}
}

func TestDecodeScript(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.Net = NetParamsOf(&chaincfg.MainNetParams) })
	top := shape{"asm": "string", "desc": "string", "address": "string?", "type": "string", "p2sh": "string?", "segwit": "object?"}
	segShape := shape{"asm": "string", "desc": "string", "hex": "string", "address": "string?", "type": "string", "p2sh-segwit": "string"}

	v := mustResult(t, url, "decodescript", []any{"76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac"})
	checkShape(t, "p2pkh", v, top)
	r := v.(map[string]any)
	if r["type"] != "pubkeyhash" || r["address"] != "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2" || r["p2sh"] == nil ||
		r["desc"] != addChecksum("addr(1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2)") {
		t.Errorf("p2pkh: %v", r)
	}
	checkShape(t, "segwit", r["segwit"], segShape)
	sw := r["segwit"].(map[string]any)
	if sw["type"] != "witness_v0_keyhash" || sw["hex"] != "001477bff20c60e522dfaa3350c39b030a5d004e839a" {
		t.Errorf("p2pkh segwit: %v", sw)
	}

	key := "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	ms := "5121" + key + "51ae"
	r = mustResult(t, url, "decodescript", []any{ms}).(map[string]any)
	sw = r["segwit"].(map[string]any)
	if r["type"] != "multisig" || r["address"] != nil || r["desc"] != addChecksum("multi(1,"+key+")") ||
		sw["type"] != "witness_v0_scripthash" || sw["desc"] != addChecksum("wsh(multi(1,"+key+"))") {
		t.Errorf("multisig: %v", r)
	}

	// Types that must not be wrapped.
	for _, s := range []string{"6a0568656c6c6f", "a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87", "5120" + strings.Repeat("11", 32)} {
		r = mustResult(t, url, "decodescript", []any{s}).(map[string]any)
		if r["p2sh"] != nil || r["segwit"] != nil {
			t.Errorf("%s wrapped: %v", s, r)
		}
	}
	// A P2WPKH script may be P2SH-wrapped but not P2WSH-wrapped.
	r = mustResult(t, url, "decodescript", []any{"0014751e76e8199196d454941c45d1b3a323f1433bd6"}).(map[string]any)
	if r["p2sh"] == nil || r["segwit"] != nil {
		t.Errorf("p2wpkh: %v", r)
	}
	r = mustResult(t, url, "decodescript", []any{""}).(map[string]any)
	if r["type"] != "nonstandard" || r["asm"] != "" {
		t.Errorf("empty: %v", r)
	}
	mustError(t, url, "decodescript", []any{"zz"}, ErrInvalidParam)
}
