package rpc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// testKey is a deterministic regtest key for the signing tests.
type testKey struct {
	priv *btcec.PrivateKey
	pub  []byte
	wif  string
}

func newTestKey(seed string, compressed bool) testKey {
	h := sha256.Sum256([]byte(seed))
	priv, pub := btcec.PrivKeyFromBytes(h[:])
	b := append([]byte{0xef}, h[:]...)
	ser := pub.SerializeUncompressed()
	if compressed {
		b = append(b, 1)
		ser = pub.SerializeCompressed()
	}
	sum := sha256.Sum256(b)
	sum = sha256.Sum256(sum[:])
	return testKey{priv: priv, pub: ser, wif: txscript.Base58Encode(append(b, sum[:4]...))}
}

func (k testKey) hash() []byte { h := hash160(k.pub); return h[:] }

func p2pkh(k testKey) []byte  { return txscript.PayToPubKeyHashScript(k.hash()) }
func p2wpkh(k testKey) []byte { return txscript.PayToWitnessScript(0, k.hash()) }
func p2sh(s []byte) []byte    { h := hash160(s); return txscript.PayToScriptHashScript(h[:]) }
func p2wsh(s []byte) []byte   { h := sha256.Sum256(s); return txscript.PayToWitnessScript(0, h[:]) }

func multisig(t *testing.T, n int, keys ...testKey) []byte {
	t.Helper()
	pubs := make([][]byte, len(keys))
	for i, k := range keys {
		pubs[i] = k.pub
	}
	s, err := txscript.MultiSigScript(n, pubs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// spendTx spends each prevout (by a made-up txid) to one P2WPKH output.
func spendTx(n int) *wire.MsgTx {
	tx := &wire.MsgTx{Version: 2}
	for i := 0; i < n; i++ {
		var h wire.Hash
		h[0] = byte(i + 1)
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: wire.OutPoint{Hash: h, Index: uint32(i)}, Sequence: 0xffffffff})
	}
	tx.TxOut = []wire.TxOut{{Value: 1000, PkScript: p2wpkh(newTestKey("dest", true))}, {Value: 2000, PkScript: p2wpkh(newTestKey("dest2", true))}}
	return tx
}

type prev struct {
	spk, redeem, witness []byte
	amount               int64 // 0: not given
}

func prevTxsJSON(tx *wire.MsgTx, ps []prev) []map[string]any {
	out := make([]map[string]any, len(ps))
	for i, p := range ps {
		op := tx.TxIn[i].PreviousOutPoint
		m := map[string]any{"txid": op.Hash.String(), "vout": op.Index, "scriptPubKey": hex.EncodeToString(p.spk)}
		if p.redeem != nil {
			m["redeemScript"] = hex.EncodeToString(p.redeem)
		}
		if p.witness != nil {
			m["witnessScript"] = hex.EncodeToString(p.witness)
		}
		if p.amount != 0 {
			m["amount"] = float64(p.amount) / 1e8
		}
		out[i] = m
	}
	return out
}

// verifyAll checks every input of the signed hex with the script engine.
func verifyAll(t *testing.T, txHex string, prevs []wire.TxOut) *wire.MsgTx {
	t.Helper()
	tx, ok := decodeTxHex(txHex, true, true)
	if !ok {
		t.Fatalf("bad hex %s", txHex)
	}
	hashes := txscript.NewTxSigHashes(tx, prevs)
	for i := range tx.TxIn {
		if err := txscript.VerifyInput(tx, i, &prevs[i], txscript.StandardVerifyFlags, nil, hashes); err != nil {
			t.Fatalf("input %d does not verify: %v", i, err)
		}
	}
	return tx
}

func signCall(t *testing.T, url string, tx *wire.MsgTx, keys []testKey, ps []prev, extra ...any) map[string]any {
	t.Helper()
	wifs := make([]string, len(keys))
	for i, k := range keys {
		wifs[i] = k.wif
	}
	params := []any{hex.EncodeToString(tx.Bytes()), wifs, prevTxsJSON(tx, ps)}
	params = append(params, extra...)
	return mustResult(t, url, "signrawtransactionwithkey", params).(map[string]any)
}

func TestSignRawTransactionScriptTypes(t *testing.T) {
	_, url := startServer(t, nil)
	a, b, c := newTestKey("a", true), newTestKey("b", true), newTestKey("c", true)
	u := newTestKey("u", false)
	ms := multisig(t, 2, a, b, c)
	p2pk := append(append([]byte{33}, a.pub...), txscript.OP_CHECKSIG)
	cases := []struct {
		name string
		keys []testKey
		p    prev
	}{
		{"p2pkh", []testKey{a}, prev{spk: p2pkh(a)}},
		{"p2pkh uncompressed", []testKey{u}, prev{spk: p2pkh(u)}},
		{"p2pk", []testKey{a}, prev{spk: p2pk}},
		{"p2wpkh", []testKey{a}, prev{spk: p2wpkh(a), amount: 5000}},
		{"p2sh-p2wpkh", []testKey{a}, prev{spk: p2sh(p2wpkh(a)), redeem: p2wpkh(a), amount: 5000}},
		{"p2sh multisig", []testKey{a, c}, prev{spk: p2sh(ms), redeem: ms}},
		{"p2wsh multisig", []testKey{b, c}, prev{spk: p2wsh(ms), witness: ms, amount: 7000}},
		{"p2sh-p2wsh multisig", []testKey{a, b}, prev{spk: p2sh(p2wsh(ms)), witness: ms, redeem: p2wsh(ms), amount: 7000}},
		{"p2sh-p2wsh via redeemScript", []testKey{a, b}, prev{spk: p2sh(p2wsh(ms)), redeem: ms, amount: 7000}},
		{"p2wsh p2pkh", []testKey{a}, prev{spk: p2wsh(p2pkh(a)), witness: p2pkh(a), amount: 7000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tx := spendTx(1)
			r := signCall(t, url, tx, tc.keys, []prev{tc.p})
			if r["complete"] != true || r["errors"] != nil {
				t.Fatalf("not complete: %v", r)
			}
			verifyAll(t, r["hex"].(string), []wire.TxOut{{Value: tc.p.amount, PkScript: tc.p.spk}})
		})
	}
}

func TestSignRawTransactionTaproot(t *testing.T) {
	_, url := startServer(t, nil)
	k := newTestKey("tr", true)
	outKey, _, ok := txscript.ComputeTaprootOutputKey(k.pub[1:], nil)
	if !ok {
		t.Fatal("tweak")
	}
	spk := txscript.PayToWitnessScript(1, outKey[:])
	other := p2wpkh(k)
	for _, sh := range []string{"DEFAULT", "ALL", "SINGLE|ANYONECANPAY"} {
		tx := spendTx(2)
		r := signCall(t, url, tx, []testKey{k}, []prev{{spk: spk, amount: 9000}, {spk: other, amount: 3000}}, sh)
		if r["complete"] != true {
			t.Fatalf("%s: not complete: %v", sh, r)
		}
		signed := verifyAll(t, r["hex"].(string), []wire.TxOut{{Value: 9000, PkScript: spk}, {Value: 3000, PkScript: other}})
		sig := signed.TxIn[0].Witness[0]
		if want := map[string]int{"DEFAULT": 64, "ALL": 65, "SINGLE|ANYONECANPAY": 65}[sh]; len(sig) != want {
			t.Errorf("%s: signature of %d bytes, want %d", sh, len(sig), want)
		}
	}
	// Without the other input's amount and script the taproot hash
	// cannot be computed: the input stays unsigned.
	tx := spendTx(2)
	r := signCall(t, url, tx, []testKey{k}, []prev{{spk: spk, amount: 9000}})
	if r["complete"] != false {
		t.Fatalf("complete without all prevouts: %v", r)
	}
}

func TestSignRawTransactionSighashTypes(t *testing.T) {
	_, url := startServer(t, nil)
	k := newTestKey("sh", true)
	for name, want := range sighashTypes {
		if name == "DEFAULT" {
			want = 1
		}
		tx := spendTx(2)
		ps := []prev{{spk: p2pkh(k)}, {spk: p2wpkh(k), amount: 100}}
		r := signCall(t, url, tx, []testKey{k}, ps, name)
		if r["complete"] != true {
			t.Fatalf("%s: %v", name, r)
		}
		signed := verifyAll(t, r["hex"].(string), []wire.TxOut{{PkScript: ps[0].spk}, {Value: 100, PkScript: ps[1].spk}})
		legacy := txscript.PushedData(signed.TxIn[0].SignatureScript)[0]
		if got := uint32(legacy[len(legacy)-1]); got != want {
			t.Errorf("%s: hash type %#x, want %#x", name, got, want)
		}
		w := signed.TxIn[1].Witness[0]
		if got := uint32(w[len(w)-1]); got != want {
			t.Errorf("%s: witness hash type %#x, want %#x", name, got, want)
		}
	}
	// SIGHASH_SINGLE leaves an input without a matching output unsigned.
	tx := spendTx(3)
	ps := []prev{{spk: p2pkh(k)}, {spk: p2pkh(k)}, {spk: p2pkh(k)}}
	r := signCall(t, url, tx, []testKey{k}, ps, "SINGLE")
	errs, _ := r["errors"].([]any)
	if r["complete"] != false || len(errs) != 1 || errs[0].(map[string]any)["vout"] != jsonNum(2) {
		t.Fatalf("SINGLE with a missing output: %v", r)
	}
}

func jsonNum(n int) any { return json.Number(strconv.Itoa(n)) }

func TestSignRawTransactionPartialMultisig(t *testing.T) {
	_, url := startServer(t, nil)
	a, b, c := newTestKey("a", true), newTestKey("b", true), newTestKey("c", true)
	ms := multisig(t, 2, a, b, c)
	for _, p := range []prev{{spk: p2sh(ms), redeem: ms}, {spk: p2wsh(ms), witness: ms, amount: 1234}} {
		tx := spendTx(1)
		r := signCall(t, url, tx, []testKey{c}, []prev{p})
		if r["complete"] != false {
			t.Fatalf("one of two signatures complete: %v", r)
		}
		e := r["errors"].([]any)[0].(map[string]any)
		if want := "CHECK(MULTI)SIG failing with non-zero signature (possibly need more signatures)"; e["error"] != want {
			t.Errorf("error %q, want %q", e["error"], want)
		}
		checkShape(t, "error entry", e, shape{"txid": "string", "vout": "number", "witness": "array", "scriptSig": "string", "sequence": "number", "error": "string"})
		// The second signer keeps the first signature.
		half, _ := decodeTxHex(r["hex"].(string), true, true)
		r2 := signCall(t, url, half, []testKey{a}, []prev{p})
		if r2["complete"] != true {
			t.Fatalf("second signature did not complete: %v", r2)
		}
		verifyAll(t, r2["hex"].(string), []wire.TxOut{{Value: p.amount, PkScript: p.spk}})

		// combineTxInputs merges two halves signed apart.
		other := signCall(t, url, spendTx(1), []testKey{b}, []prev{p})
		o, _ := decodeTxHex(other["hex"].(string), true, true)
		merged := combineTxInputs([]*wire.MsgTx{half, o}, []*PrevOut{{Value: p.amount, PkScript: p.spk}})
		verifyAll(t, hex.EncodeToString(merged.Bytes()), []wire.TxOut{{Value: p.amount, PkScript: p.spk}})
	}
}

func TestSignRawTransactionErrors(t *testing.T) {
	_, url := startServer(t, nil)
	k := newTestKey("e", true)
	ms := multisig(t, 1, k)
	tx := spendTx(1)
	raw := hex.EncodeToString(tx.Bytes())
	call := func(params []any, code ErrorCode, msg string) {
		t.Helper()
		e := mustError(t, url, "signrawtransactionwithkey", params, code)
		if !strings.Contains(e.Message, msg) {
			t.Errorf("error %q, want %q", e.Message, msg)
		}
	}
	op := tx.TxIn[0].PreviousOutPoint
	entry := func(kv ...any) []any {
		m := map[string]any{"txid": op.Hash.String(), "vout": 0, "scriptPubKey": hex.EncodeToString(p2sh(ms))}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return []any{m}
	}
	call([]any{raw + "00", []string{k.wif}}, ErrDeserialization, "TX decode failed. Make sure the tx has at least one input.")
	call([]any{raw, []string{"123"}}, ErrInvalidAddress, "Invalid private key")
	call([]any{raw, []any{1}}, ErrType, "JSON value of type number is not of expected type string")
	call([]any{raw, []string{k.wif}, nil, "all"}, ErrInvalidParam, "'all' is not a valid sighash parameter.")
	call([]any{raw, []string{k.wif}, entry()}, ErrInvalidParam, "Missing redeemScript/witnessScript")
	call([]any{raw, []string{k.wif}, entry("witnessScript", hex.EncodeToString(ms), "redeemScript", "6a")}, ErrInvalidParam, "redeemScript does not correspond to witnessScript")
	call([]any{raw, []string{k.wif}, entry("redeemScript", "6a")}, ErrInvalidParam, "redeemScript/witnessScript does not match scriptPubKey")
	call([]any{raw, []string{k.wif}, entry("scriptPubKey", nil)}, ErrType, "Missing scriptPubKey")
	call([]any{raw, []string{k.wif}, entry("vout", "0")}, ErrType, "JSON value of type string for field vout is not of expected type number")
	call([]any{raw, []string{k.wif}, entry("vout", -1)}, ErrDeserialization, "vout cannot be negative")
	call([]any{raw, []string{k.wif}, []any{1}}, ErrDeserialization, `expected object with {"txid'","vout","scriptPubKey"}`)
	call([]any{raw, []string{k.wif}, entry("txid", "12")}, ErrInvalidParam, "txid must be of length 64")
	// A segwit output without an amount cannot be signed.
	wsh := prevTxsJSON(tx, []prev{{spk: p2wsh(ms), witness: ms}})
	call([]any{raw, []string{k.wif}, wsh}, ErrType, "Missing amount for CTxOut(nValue=21000000.00000000, scriptPubKey=0020")

	// Unknown inputs are reported, not fatal.
	r := mustResult(t, url, "signrawtransactionwithkey", []any{raw, []string{k.wif}}).(map[string]any)
	e := r["errors"].([]any)[0].(map[string]any)
	if r["complete"] != false || e["error"] != "Input not found or already spent" {
		t.Fatalf("unknown input: %v", r)
	}
	// A known output without the key: Core's hint about the key.
	r = signCall(t, url, tx, nil, []prev{{spk: p2pkh(k)}})
	e = r["errors"].([]any)[0].(map[string]any)
	if e["error"] != "Unable to sign input, invalid stack size (possibly missing key)" {
		t.Fatalf("missing key: %v", r)
	}
}

func TestSignRawTransactionCoinsAndAnchor(t *testing.T) {
	k := newTestKey("coins", true)
	anchor := []byte{txscript.OP_1, 0x02, 0x4e, 0x73}
	tx := spendTx(2)
	coins := map[wire.OutPoint]*PrevOut{
		tx.TxIn[0].PreviousOutPoint: {Value: 4000, PkScript: p2wpkh(k)},
		tx.TxIn[1].PreviousOutPoint: {Value: 240, PkScript: anchor},
	}
	var gotMempool bool
	_, url := startServer(t, func(c *Config) {
		c.Backend.Chain = &ChainBackend{Coins: func(ops []wire.OutPoint, mempool bool) ([]*PrevOut, error) {
			gotMempool = mempool
			out := make([]*PrevOut, len(ops))
			for i, op := range ops {
				out[i] = coins[op]
			}
			return out, nil
		}}
	})
	r := signCall(t, url, tx, []testKey{k}, nil)
	if r["complete"] != true || !gotMempool {
		t.Fatalf("not complete: %v (mempool %v)", r, gotMempool)
	}
	signed := verifyAll(t, r["hex"].(string)[:], []wire.TxOut{{Value: 4000, PkScript: p2wpkh(k)}, {Value: 240, PkScript: []byte{txscript.OP_TRUE}}})
	if len(signed.TxIn[1].Witness) != 0 || len(signed.TxIn[1].SignatureScript) != 0 {
		t.Errorf("anchor input got a satisfaction")
	}
	// A prevtxs entry that contradicts the UTXO set is refused.
	e := mustError(t, url, "signrawtransactionwithkey", []any{hex.EncodeToString(tx.Bytes()), []string{k.wif},
		prevTxsJSON(tx, []prev{{spk: p2pkh(k)}})}, ErrDeserialization)
	if !strings.HasPrefix(e.Message, "Previous output scriptPubKey mismatch:\n0 ") {
		t.Errorf("mismatch message %q", e.Message)
	}
}

func TestSignLowR(t *testing.T) {
	k := newTestKey("lowr", true)
	high := 0
	for i := 0; i < 64; i++ {
		h := sha256.Sum256([]byte{byte(i)})
		der := signLowR(k.priv, h[:])
		sig, err := ecdsa.ParseDERSignature(der)
		if err != nil || !sig.Verify(h[:], k.priv.PubKey()) {
			t.Fatalf("bad signature %x", der)
		}
		if len(der) > 70 || der[4] >= 0x80 {
			t.Fatalf("high R: %x", der)
		}
		// Without grinding the signature is plain RFC 6979.
		if std := ecdsa.Sign(k.priv, h[:]).Serialize(); std[4] < 0x80 && std[3] == 32 {
			if hex.EncodeToString(std) != hex.EncodeToString(der) {
				t.Fatalf("low-R RFC 6979 signature differs: %x vs %x", der, std)
			}
		} else {
			high++
		}
	}
	if high == 0 {
		t.Error("no hash needed grinding; the test covers nothing")
	}
}

func TestSignMessageWithPrivKey(t *testing.T) {
	_, url := startServer(t, nil)
	// Bitcoin Core's rpc_signmessagewithprivkey.py vector.
	const key = "cUeKHd5orzT3mz8P9pxyREHfsWtVfgsfDjiZZBcjUBAaGk1BTj7N"
	const msg = "This is just a test message"
	const want = "INbVnW4e6PeRmsv2Qgu8NuopvrVjkcxob+sX8OcZG0SALhWybUjzMLPdAsXI46YZGb0KQTRii+wWIQzRpG/U+S0="
	if got := mustResult(t, url, "signmessagewithprivkey", []any{key, msg}); got != want {
		t.Fatalf("signature %v, want %s", got, want)
	}
	if ok := mustResult(t, url, "verifymessage", []any{"mpLQjfK79b7CCV4VMJWEWAj5Mpx8Up5zxB", want, msg}); ok != true {
		t.Fatal("verifymessage rejects the signature")
	}
	if ok := mustResult(t, url, "verifymessage", []any{"mpLQjfK79b7CCV4VMJWEWAj5Mpx8Up5zxB", want, msg + "!"}); ok != false {
		t.Fatal("verifymessage accepts another message")
	}
	mustError(t, url, "signmessagewithprivkey", []any{"invalid_key", msg}, ErrInvalidAddress)
	mustError(t, url, "signmessagewithprivkey", []any{key}, ErrMisc)
	// A mainnet key is not a regtest key.
	mustError(t, url, "signmessagewithprivkey", []any{"5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ", msg}, ErrInvalidAddress)
}

// TestCombineRawTransactionMergesSignatures signs a 2-of-3 multisig
// spend twice with different keys and has combinerawtransaction, looking
// the spent output up in the chain, build the complete spend from the
// two halves (Core merges signatures of one input, not whole inputs).
func TestCombineRawTransactionMergesSignatures(t *testing.T) {
	a, b, c := newTestKey("ca", true), newTestKey("cb", true), newTestKey("cc", true)
	ms := multisig(t, 2, a, b, c)
	for _, p := range []prev{{spk: p2sh(ms), redeem: ms}, {spk: p2wsh(ms), witness: ms, amount: 4321}} {
		_, url := startServer(t, func(cf *Config) {
			cf.Backend.Chain = &ChainBackend{TxOut: func(wire.OutPoint, bool) (*TxOutInfo, error) {
				return &TxOutInfo{Value: p.amount, PkScript: p.spk}, nil
			}}
		})
		var halves []any
		for _, k := range []testKey{a, c} {
			r := signCall(t, url, spendTx(1), []testKey{k}, []prev{p})
			if r["complete"] != false {
				t.Fatalf("one signature complete: %v", r)
			}
			halves = append(halves, r["hex"].(string))
		}
		merged := mustResult(t, url, "combinerawtransaction", []any{halves}).(string)
		verifyAll(t, merged, []wire.TxOut{{Value: p.amount, PkScript: p.spk}})
	}
}
