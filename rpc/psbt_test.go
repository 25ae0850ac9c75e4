package rpc

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"

	"github.com/btcnode/btcd/internal/psbt"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// psbtVectors are BIP174's vectors, shared with internal/psbt.
type psbtVectors struct {
	Invalid []string `json:"invalid"`
	Valid   []string `json:"valid"`
	Creator []struct {
		Inputs  json.RawMessage `json:"inputs"`
		Outputs json.RawMessage `json:"outputs"`
		Result  string          `json:"result"`
	} `json:"creator"`
	Combiner []struct {
		Combine []string `json:"combine"`
		Result  string   `json:"result"`
	} `json:"combiner"`
	Finalizer []struct {
		Finalize string `json:"finalize"`
		Result   string `json:"result"`
	} `json:"finalizer"`
	Extractor []struct {
		Extract string `json:"extract"`
		Result  string `json:"result"`
	} `json:"extractor"`
}

func loadPSBTVectors(t *testing.T) *psbtVectors {
	t.Helper()
	raw, err := os.ReadFile("../internal/psbt/testdata/bip_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v psbtVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

func TestDecodePSBT(t *testing.T) {
	v := loadPSBTVectors(t)
	_, url := startServer(t, nil)
	// BIP174's first valid vector: one P2PKH input with its full previous
	// transaction, two outputs.
	r := mustResult(t, url, "decodepsbt", []any{v.Valid[0]}).(map[string]any)
	tx := r["tx"].(map[string]any)
	if tx["txid"] != "af2cac1e0e33d896d9d0751d66fcb2fa54b737c7a13199281fb57e4f497bb652" {
		t.Fatalf("tx: %v", tx)
	}
	for _, k := range []string{"tx", "global_xpubs", "psbt_version", "proprietary", "unknown", "inputs", "outputs", "fee"} {
		if _, ok := r[k]; !ok {
			t.Errorf("missing %q in %v", k, r)
		}
	}
	in := r["inputs"].([]any)[0].(map[string]any)
	if _, ok := in["non_witness_utxo"].(map[string]any)["vout"]; !ok {
		t.Errorf("non_witness_utxo not decoded: %v", in)
	}
	if r["fee"] != json.Number("0.00000301") {
		t.Errorf("fee %v", r["fee"])
	}

	// A vector with derivations and partial signatures.
	r = mustResult(t, url, "decodepsbt", []any{v.Combiner[0].Result}).(map[string]any)
	in = r["inputs"].([]any)[0].(map[string]any)
	if len(in["partial_signatures"].(map[string]any)) != 2 {
		t.Errorf("partial_signatures: %v", in["partial_signatures"])
	}
	d := in["bip32_derivs"].([]any)[0].(map[string]any)
	if d["master_fingerprint"] != "d90c6a4f" || !strings.HasPrefix(d["path"].(string), "m/0h/0h/") {
		t.Errorf("bip32_derivs: %v", d)
	}
	if rs := in["redeem_script"].(map[string]any); rs["type"] != "multisig" || rs["desc"] == nil {
		t.Errorf("redeem_script: %v", rs)
	}

	// Invalid ones fail as Core's: -22, "TX decode failed " and the reason.
	e := mustError(t, url, "decodepsbt", []any{v.Invalid[0]}, ErrDeserialization)
	if e.Message != "TX decode failed Invalid PSBT magic bytes" {
		t.Errorf("message %q", e.Message)
	}
	e = mustError(t, url, "decodepsbt", []any{"not base64!"}, ErrDeserialization)
	if e.Message != "TX decode failed invalid base64" {
		t.Errorf("message %q", e.Message)
	}
	for i, s := range v.Invalid {
		if rpcCall(t, url, "decodepsbt", []any{s}).Error == nil {
			t.Errorf("invalid vector %d decoded", i)
		}
	}
}

func TestCreateAndConvertPSBT(t *testing.T) {
	v := loadPSBTVectors(t)
	_, url := startServer(t, nil)
	c := v.Creator[0]
	got := mustResult(t, url, "createpsbt", []any{c.Inputs, c.Outputs, 0, false})
	if got != c.Result {
		t.Fatalf("createpsbt:\n got %v\nwant %s", got, c.Result)
	}
	// converttopsbt of the same transaction gives the same PSBT.
	p, _ := psbt.DecodeBase64(c.Result)
	txHex := hex.EncodeToString(p.Tx.Bytes())
	if got := mustResult(t, url, "converttopsbt", []any{txHex}); got != c.Result {
		t.Fatalf("converttopsbt: %v", got)
	}
	// Signed inputs need permitsigdata.
	signed := p.Tx.Copy()
	signed.TxIn[0].SignatureScript = []byte{0x51}
	sh := hex.EncodeToString(signed.Bytes())
	e := mustError(t, url, "converttopsbt", []any{sh}, ErrDeserialization)
	if e.Message != "Inputs must not have scriptSigs and scriptWitnesses" {
		t.Errorf("message %q", e.Message)
	}
	if got := mustResult(t, url, "converttopsbt", []any{sh, true}); got != c.Result {
		t.Errorf("permitsigdata: %v", got)
	}
	mustError(t, url, "converttopsbt", []any{"zz"}, ErrDeserialization)
}

func TestCombineFinalizePSBT(t *testing.T) {
	v := loadPSBTVectors(t)
	_, url := startServer(t, nil)
	cb := v.Combiner[0]
	if got := mustResult(t, url, "combinepsbt", []any{cb.Combine}); got != cb.Result {
		t.Fatalf("combinepsbt:\n got %v\nwant %s", got, cb.Result)
	}
	e := mustError(t, url, "combinepsbt", []any{[]string{}}, ErrInvalidParam)
	if e.Message != "Parameter 'txs' cannot be empty" {
		t.Errorf("message %q", e.Message)
	}
	e = mustError(t, url, "combinepsbt", []any{[]string{cb.Result, v.Valid[0]}}, ErrInvalidParam)
	if e.Message != "PSBTs not compatible (different transactions)" {
		t.Errorf("message %q", e.Message)
	}
	mustError(t, url, "combinepsbt", []any{[]string{"AAAA"}}, ErrDeserialization)

	f := v.Finalizer[0]
	r := mustResult(t, url, "finalizepsbt", []any{f.Finalize, false}).(map[string]any)
	if r["psbt"] != f.Result || r["complete"] != true {
		t.Fatalf("finalizepsbt: %v", r)
	}
	x := v.Extractor[0]
	r = mustResult(t, url, "finalizepsbt", []any{f.Finalize}).(map[string]any)
	if r["hex"] != x.Result || r["complete"] != true || r["psbt"] != nil {
		t.Fatalf("finalizepsbt extract: %v", r)
	}
	// An unsigned PSBT stays a PSBT, not complete.
	r = mustResult(t, url, "finalizepsbt", []any{v.Creator[0].Result}).(map[string]any)
	if r["complete"] != false || r["psbt"] != v.Creator[0].Result {
		t.Fatalf("finalizepsbt unsigned: %v", r)
	}
}

func TestJoinPSBTs(t *testing.T) {
	v := loadPSBTVectors(t)
	_, url := startServer(t, nil)
	a := v.Creator[0].Result
	e := mustError(t, url, "joinpsbts", []any{[]string{a}}, ErrInvalidParam)
	if e.Message != "At least two PSBTs are required to join PSBTs." {
		t.Errorf("message %q", e.Message)
	}
	e = mustError(t, url, "joinpsbts", []any{[]string{a, a}}, ErrInvalidParam)
	if !strings.HasSuffix(e.Message, " exists in multiple PSBTs") || !strings.HasPrefix(e.Message, "Input 75ddabb27b8845f5247975c8a5ba7c6f336c4570708ebe230caf6db5217ae858:0") &&
		!strings.HasPrefix(e.Message, "Input 1dea7cd05979072a3578cab271c02244ea8a090bbb46aa680a65ecd027048d83:1") {
		t.Errorf("message %q", e.Message)
	}
	b := v.Valid[0]
	got := mustResult(t, url, "joinpsbts", []any{[]string{a, b}}).(string)
	p, err := psbt.DecodeBase64(got)
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := psbt.DecodeBase64(a)
	pb, _ := psbt.DecodeBase64(b)
	if len(p.Tx.TxIn) != len(pa.Tx.TxIn)+len(pb.Tx.TxIn) || len(p.Tx.TxOut) != len(pa.Tx.TxOut)+len(pb.Tx.TxOut) {
		t.Fatalf("joined %d inputs, %d outputs", len(p.Tx.TxIn), len(p.Tx.TxOut))
	}
	if p.Tx.Version != max(pa.Tx.Version, pb.Tx.Version) || p.Tx.LockTime != min(pa.Tx.LockTime, pb.Tx.LockTime) {
		t.Errorf("version %d locktime %d", p.Tx.Version, p.Tx.LockTime)
	}
	// Each input keeps its own map (b's full previous transaction).
	for i, in := range p.Tx.TxIn {
		if in.PreviousOutPoint == pb.Tx.TxIn[0].PreviousOutPoint && p.Inputs[i].NonWitnessUTXO == nil {
			t.Error("input map lost in the join")
		}
	}
}

func TestAnalyzePSBT(t *testing.T) {
	v := loadPSBTVectors(t)
	_, url := startServer(t, nil)
	r := mustResult(t, url, "analyzepsbt", []any{v.Creator[0].Result}).(map[string]any)
	if r["next"] != "updater" || r["fee"] != nil {
		t.Fatalf("creator: %v", r)
	}
	in := r["inputs"].([]any)[0].(map[string]any)
	if in["has_utxo"] != false || in["is_final"] != false || in["next"] != "updater" {
		t.Fatalf("creator input: %v", in)
	}
	// Signed but not finalized: the finalizer is next, the fee is known.
	r = mustResult(t, url, "analyzepsbt", []any{v.Finalizer[0].Finalize}).(map[string]any)
	if r["next"] != "finalizer" || r["fee"] != json.Number("0.00010000") || r["estimated_vsize"] != json.Number("463") || r["estimated_feerate"] != json.Number("0.00021598") {
		t.Fatalf("signed: %v", r)
	}
	r = mustResult(t, url, "analyzepsbt", []any{v.Finalizer[0].Result}).(map[string]any)
	if r["next"] != "extractor" {
		t.Fatalf("final: %v", r)
	}
	for _, x := range r["inputs"].([]any) {
		if x.(map[string]any)["is_final"] != true {
			t.Fatalf("final input: %v", x)
		}
	}
	// Updated but unsigned (BIP174's signer input): signatures missing.
	r = mustResult(t, url, "analyzepsbt", []any{v.Combiner[0].Combine[0]}).(map[string]any)
	in = r["inputs"].([]any)[0].(map[string]any)
	if r["next"] != "signer" || r["fee"] != json.Number("0.00010000") || r["estimated_vsize"] != nil {
		t.Fatalf("partly signed: %v", r)
	}
	if m := in["missing"].(map[string]any); len(m["signatures"].([]any)) != 1 || m["signatures"].([]any)[0] != "b9147fd38b198ab90491adec86ad6b69f5a3ec44" {
		t.Fatalf("missing: %v", m)
	}
	// A P2PKH input whose key is not known yet: the updater must add it.
	r = mustResult(t, url, "analyzepsbt", []any{v.Valid[0]}).(map[string]any)
	in = r["inputs"].([]any)[0].(map[string]any)
	if r["next"] != "updater" || in["missing"].(map[string]any)["pubkeys"].([]any)[0] != "85cff1097fd9e008bb34af709c62197b38978a48" {
		t.Fatalf("unknown key: %v", r)
	}
	mustError(t, url, "analyzepsbt", []any{"AAAA"}, ErrDeserialization)
}

func TestUTXOUpdatePSBT(t *testing.T) {
	priv, _ := btcec.NewPrivateKey()
	pub := priv.PubKey().SerializeCompressed()
	h := txscript.Hash160(pub)
	wpkh := txscript.PayToWitnessScript(0, h[:])
	redeem := wpkh
	rh := txscript.Hash160(redeem)
	shwpkh := txscript.PayToScriptHashScript(rh[:])
	pkh := txscript.PayToPubKeyHashScript(h[:])
	coins := map[wire.OutPoint]*PrevOut{
		{Index: 0}: {Value: 1000, PkScript: wpkh},
		{Index: 1}: {Value: 2000, PkScript: shwpkh},
		{Index: 2}: {Value: 3000, PkScript: pkh},
	}
	_, url := startServer(t, func(c *Config) {
		c.Backend.Chain = &ChainBackend{Coins: func(ops []wire.OutPoint, mempool bool) ([]*PrevOut, error) {
			out := make([]*PrevOut, len(ops))
			for i, op := range ops {
				out[i] = coins[op]
			}
			return out, nil
		}}
	})
	tx := &wire.MsgTx{Version: 2, TxOut: []wire.TxOut{{Value: 500, PkScript: shwpkh}}}
	for i := range 4 {
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: wire.OutPoint{Index: uint32(i)}, Sequence: 0xffffffff})
	}
	base := psbt.New(tx).Base64()

	// Without descriptors only native segwit coins are added.
	got := mustResult(t, url, "utxoupdatepsbt", []any{base}).(string)
	p, err := psbt.DecodeBase64(got)
	if err != nil {
		t.Fatal(err)
	}
	if w := p.Inputs[0].WitnessUTXO; w == nil || w.Value != 1000 {
		t.Fatalf("P2WPKH input: %+v", p.Inputs[0])
	}
	if p.Inputs[1].WitnessUTXO != nil || p.Inputs[2].WitnessUTXO != nil || p.Inputs[3].WitnessUTXO != nil {
		t.Fatalf("non-segwit inputs updated: %+v", p.Inputs[1:])
	}

	// With the key's descriptor the P2SH-P2WPKH coin is known as segwit
	// and gets its redeem script; keys get their origins.
	desc := "sh(wpkh([deadbeef/0'/1]" + hex.EncodeToString(pub) + "))"
	got = mustResult(t, url, "utxoupdatepsbt", []any{base, []any{desc, map[string]any{"desc": "wpkh(" + hex.EncodeToString(pub) + ")"}}}).(string)
	if p, err = psbt.DecodeBase64(got); err != nil {
		t.Fatal(err)
	}
	in := p.Inputs[1]
	if in.WitnessUTXO == nil || hex.EncodeToString(in.RedeemScript) != hex.EncodeToString(redeem) {
		t.Fatalf("P2SH-P2WPKH input: %+v", in)
	}
	if len(in.Bip32) != 1 || hex.EncodeToString(in.Bip32[0].Origin.Fingerprint[:]) != "deadbeef" || len(in.Bip32[0].Origin.Path) != 2 || in.Bip32[0].Origin.Path[0] != 0x80000000 {
		t.Fatalf("derivation: %+v", in.Bip32)
	}
	if len(p.Inputs[0].Bip32) != 1 {
		t.Fatalf("P2WPKH derivation: %+v", p.Inputs[0].Bip32)
	}
	if out := p.Outputs[0]; len(out.RedeemScript) == 0 || len(out.Bip32) != 1 {
		t.Fatalf("output: %+v", out)
	}
	// Analysis now wants signatures for the updated segwit inputs.
	a := p.Analyze()
	if a.Inputs[0].Next != psbt.RoleSigner || len(a.Inputs[0].MissingSigs) != 1 || a.Inputs[0].MissingSigs[0] != h {
		t.Fatalf("analysis: %+v", a.Inputs[0])
	}

	e := mustError(t, url, "utxoupdatepsbt", []any{base, []any{"wpkh(nonsense)"}}, ErrInvalidAddress)
	if e.Message == "" {
		t.Error("empty message")
	}
	mustError(t, url, "utxoupdatepsbt", []any{base, []any{1}}, ErrInvalidParam)
	mustError(t, url, "utxoupdatepsbt", []any{"AAAA"}, ErrDeserialization)
}

// TestDecodePSBTGlobalXPubs checks decodepsbt's global_xpubs as Core
// shows them: BIP174's xpub vector in Core's order (by origin) whatever
// the order of its records, paths with "h" for hardened steps, and each
// xpub with the version bytes the PSBT carries rather than the node's.
func TestDecodePSBTGlobalXPubs(t *testing.T) {
	v := loadPSBTVectors(t)
	_, url := startServer(t, nil)
	want := []map[string]any{
		{"xpub": "tpubDBkJeJo2X94Yq3RVz65DoUgyLUkaDrkfyrn2VcgyCRSKCRonvKvCF2FpYDGJWDkdRHBajXJGpc63GnumUt63ySvqCu2XaTRGVTKMYGuFk9H", "master_fingerprint": "d90c6a4f", "path": "m/174h/0h"},
		{"xpub": "tpubDBkJeJo2X94YsvtBEU1eKoibEWiNv51nW5iHhs6VZp59jsE6nen8KZMFyGHuGbCvqjRqirgeMcfpVBkttpUUT6brm4duzSGoZeTbhqCNUu6", "master_fingerprint": "d90c6a4f", "path": "m/174h/1h"},
	}
	check := func(name, b64 string, prefix string) {
		t.Helper()
		got := mustResult(t, url, "decodepsbt", []any{b64}).(map[string]any)["global_xpubs"].([]any)
		if len(got) != len(want) {
			t.Fatalf("%s: %v", name, got)
		}
		for i, g := range got {
			g := g.(map[string]any)
			checkShape(t, "global_xpubs", g, shape{"xpub": "string", "master_fingerprint": "string", "path": "string"})
			x := g["xpub"].(string)
			if prefix == "tpub" && x != want[i]["xpub"] || !strings.HasPrefix(x, prefix) ||
				g["master_fingerprint"] != want[i]["master_fingerprint"] || g["path"] != want[i]["path"] {
				t.Errorf("%s: xpub %d is %v, want %v", name, i, g, want[i])
			}
		}
	}
	check("vector", v.Valid[8], "tpub")
	raw, err := base64.StdEncoding.DecodeString(v.Valid[8])
	if err != nil {
		t.Fatal(err)
	}
	// The two xpub records (93 bytes each, after the unsigned
	// transaction) swapped.
	const at, n = 90, 93
	swapped := append(append(append(append([]byte{}, raw[:at]...), raw[at+n:at+2*n]...), raw[at:at+n]...), raw[at+2*n:]...)
	check("swapped", base64.StdEncoding.EncodeToString(swapped), "tpub")
	// Mainnet version bytes stay mainnet's on this regtest node.
	mainnet := bytes.Clone(raw)
	for _, off := range []int{at + 2, at + n + 2} {
		copy(mainnet[off:off+4], []byte{0x04, 0x88, 0xb2, 0x1e})
	}
	check("mainnet version", base64.StdEncoding.EncodeToString(mainnet), "xpub")
}
