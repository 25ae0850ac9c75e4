package rpc

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// maxSignHashBytes bounds the bytes a signrawtransactionwithkey call may
// hash for legacy signature hashes, which cost the whole transaction per
// input: without it a large many-input transaction would cost time
// quadratic in its size. Standard transactions stay far below it.
const maxSignHashBytes = 1 << 30

// maxSignKeys bounds the private keys of one call: each costs a point
// multiplication, and real callers pass a handful.
const maxSignKeys = 100_000

func signMethods() []*Method {
	return []*Method{
		{
			Name: "signrawtransactionwithkey", Category: "rawtransactions",
			Description: `Sign inputs for raw transaction (serialized, hex-encoded).
The second argument is an array of base58-encoded private
keys that will be the only keys used to sign the transaction.
The third optional argument (may be null) is an array of previous transaction outputs that
this transaction depends on but may not yet be in the block chain.`,
			Args: []Arg{
				{Name: "hexstring", Type: ArgStr, Description: "The transaction hex string"},
				{Name: "privkeys", Type: ArgArr, Description: "The base58-encoded private keys for signing"},
				{Name: "prevtxs", Type: ArgArr, Optional: true, Description: `The previous dependent transaction outputs
[{"txid":"hex","vout":n,"scriptPubKey":"hex","redeemScript":"hex","witnessScript":"hex","amount":amount},...]
redeemScript is required for P2SH, witnessScript for P2WSH or P2SH-P2WSH`},
				{Name: "sighashtype", Type: ArgStr, Optional: true, Default: "DEFAULT for Taproot, ALL otherwise", Description: `The signature hash type. Must be one of:
"DEFAULT"
"ALL"
"NONE"
"SINGLE"
"ALL|ANYONECANPAY"
"NONE|ANYONECANPAY"
"SINGLE|ANYONECANPAY"`},
			},
			Result: `{                             (json object)
  "hex" : "hex",               (string) The hex-encoded raw transaction with signature(s)
  "complete" : true|false,     (boolean) If the transaction has a complete set of signatures
  "errors" : [                 (json array, optional) Script verification errors (if there are any)
    {                          (json object)
      "txid" : "hex",          (string) The hash of the referenced, previous transaction
      "vout" : n,              (numeric) The index of the output to spent and used as input
      "witness" : [            (json array)
        "hex",                 (string)
        ...
      ],
      "scriptSig" : "hex",     (string) The hex-encoded signature script
      "sequence" : n,          (numeric) Script sequence number
      "error" : "str"          (string) Verification or signing error related to the input
    },
    ...
  ]
}`,
			Handler: handleSignRawTransactionWithKey,
		},
		{
			Name: "signmessagewithprivkey", Category: "util",
			Description: "Sign a message with the private key of an address",
			Args: []Arg{
				{Name: "privkey", Type: ArgStr, Description: "The private key to sign the message with."},
				{Name: "message", Type: ArgStr, Description: "The message to create a signature of."},
			},
			Result:  `"str"    (string) The signature of the message encoded in base 64`,
			Handler: handleSignMessageWithPrivKey,
		},
	}
}

// decodeWIF decodes a private key in the network's WIF encoding and
// reports whether it selects the compressed public key; nil when invalid.
func decodeWIF(s string, net *NetParams) ([]byte, bool) {
	if len(s) > 60 {
		return nil, false
	}
	raw, err := txscript.Base58Decode(s)
	if err != nil || len(raw) < 4+33 {
		return nil, false
	}
	body, sum := raw[:len(raw)-4], raw[len(raw)-4:]
	h := sha256.Sum256(body)
	h = sha256.Sum256(h[:])
	if !bytes.Equal(h[:4], sum) || body[0] != descNetwork(net).WIFPrefix {
		return nil, false
	}
	compressed := false
	switch {
	case len(body) == 33:
	case len(body) == 34 && body[33] == 1:
		compressed = true
	default:
		return nil, false
	}
	var k btcec.ModNScalar
	if k.SetByteSlice(body[1:33]) || k.IsZero() {
		return nil, false
	}
	return append([]byte(nil), body[1:33]...), compressed
}

func handleSignMessageWithPrivKey(s *Server, p *Params) (any, error) {
	wif, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	msg, err := p.Str(1, "")
	if err != nil {
		return nil, err
	}
	priv, compressed := decodeWIF(wif, &s.cfg.Net)
	if priv == nil {
		return nil, NewError(ErrInvalidAddress, "Invalid private key")
	}
	key, _ := btcec.PrivKeyFromBytes(priv)
	h := signedMessageHash(msg)
	sig := ecdsa.SignCompact(key, h[:], compressed)
	return base64.StdEncoding.EncodeToString(sig), nil
}

// sighashTypes are the names signrawtransactionwithkey accepts.
// sighashParam reads the sighash-type name at argument i; set is false
// when the argument is absent (the caller's default applies).
func sighashParam(p *Params, i int) (ht uint32, set bool, err error) {
	if !p.Has(i) {
		return 0, false, nil
	}
	name, err := p.Str(i, "")
	if err != nil {
		return 0, false, err
	}
	ht, ok := sighashTypes[name]
	if !ok {
		return 0, false, Errorf(ErrInvalidParam, "'%s' is not a valid sighash parameter.", name)
	}
	return ht, true, nil
}

var sighashTypes = map[string]uint32{
	"DEFAULT":             0,
	"ALL":                 1,
	"NONE":                2,
	"SINGLE":              3,
	"ALL|ANYONECANPAY":    0x81,
	"NONE|ANYONECANPAY":   0x82,
	"SINGLE|ANYONECANPAY": 0x83,
}

// SignInputError is one entry of signrawtransactionwithkey's "errors".
type SignInputError struct {
	TxID      string   `json:"txid"`
	Vout      uint32   `json:"vout"`
	Witness   []string `json:"witness"`
	ScriptSig string   `json:"scriptSig"`
	Sequence  uint32   `json:"sequence"`
	Error     string   `json:"error"`
}

// SignRawTxResult is the signrawtransactionwithkey result.
type SignRawTxResult struct {
	Hex      string           `json:"hex"`
	Complete bool             `json:"complete"`
	Errors   []SignInputError `json:"errors,omitempty"`
}

func handleSignRawTransactionWithKey(s *Server, p *Params) (any, error) {
	txHex, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	tx, ok := decodeTxHex(txHex, true, true)
	if !ok {
		return nil, NewError(ErrDeserialization, "TX decode failed. Make sure the tx has at least one input.")
	}
	prov := newSigningProvider()
	var keys []json.RawMessage
	if err := json.Unmarshal(p.Raw(1), &keys); err != nil {
		return nil, typeError(p.Raw(1), "array")
	}
	if len(keys) > maxSignKeys {
		return nil, Errorf(ErrInvalidParam, "At most %d private keys may be given", maxSignKeys)
	}
	for _, k := range keys {
		var wif string
		if jsonKind(k) != "string" || json.Unmarshal(k, &wif) != nil {
			return nil, typeError(k, "string")
		}
		priv, compressed := decodeWIF(wif, &s.cfg.Net)
		if priv == nil {
			return nil, NewError(ErrInvalidAddress, "Invalid private key")
		}
		prov.addKey(priv, compressed)
	}
	coins, err := s.findCoins(tx)
	if err != nil {
		return nil, err
	}
	if err := parsePrevTxs(p.Raw(2), prov, coins, &s.cfg.Net); err != nil {
		return nil, err
	}
	hashType, _, err := sighashParam(p, 3)
	if err != nil {
		return nil, err
	}
	if n := int64(len(tx.TxIn)) * int64(tx.SerializeSize()); n > maxSignHashBytes {
		return nil, NewError(ErrInvalidParam, "Transaction too large to sign")
	}
	return signTransaction(tx, prov, coins, hashType)
}

// findCoins looks up every input's previous output in the UTXO set and
// the mempool (Core's FindCoins).
func (s *Server) findCoins(tx *wire.MsgTx) (map[wire.OutPoint]*PrevOut, error) {
	coins := make(map[wire.OutPoint]*PrevOut, len(tx.TxIn))
	c := s.cfg.Backend.Chain
	if c == nil || c.Coins == nil {
		return coins, nil
	}
	ops := make([]wire.OutPoint, len(tx.TxIn))
	for i := range tx.TxIn {
		ops[i] = tx.TxIn[i].PreviousOutPoint
	}
	found, err := c.Coins(ops, true)
	if err != nil {
		return nil, err
	}
	for i, f := range found {
		if i < len(ops) && f != nil {
			coins[ops[i]] = f
		}
	}
	return coins, nil
}

// prevTxField reads a required typed field of a prevtxs entry with Core's
// RPCTypeCheckObj messages.
func prevTxField(o map[string]json.RawMessage, name, kind string, optional bool) (json.RawMessage, error) {
	v, ok := o[name]
	if !ok || jsonKind(v) == "null" {
		if optional {
			return nil, nil
		}
		return nil, Errorf(ErrType, "Missing %s", name)
	}
	if got := jsonKind(v); got != kind {
		return nil, Errorf(ErrType, "JSON value of type %s for field %s is not of expected type %s", got, name, kind)
	}
	return v, nil
}

func rawString(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// parsePrevTxs applies the prevtxs argument (Core's ParsePrevouts): each
// entry names an output, replacing what the UTXO lookup found, and for
// P2SH and P2WSH outputs supplies the scripts to sign them with.
func parsePrevTxs(raw json.RawMessage, prov *signingProvider, coins map[wire.OutPoint]*PrevOut, net *NetParams) error {
	if raw == nil {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return typeError(raw, "array")
	}
	for _, e := range list {
		var o map[string]json.RawMessage
		if jsonKind(e) != "object" || json.Unmarshal(e, &o) != nil {
			return NewError(ErrDeserialization, `expected object with {"txid'","vout","scriptPubKey"}`)
		}
		// Checked in Core's (alphabetical) order.
		spkRaw, err := prevTxField(o, "scriptPubKey", "string", false)
		if err != nil {
			return err
		}
		txidRaw, err := prevTxField(o, "txid", "string", false)
		if err != nil {
			return err
		}
		voutRaw, err := prevTxField(o, "vout", "number", false)
		if err != nil {
			return err
		}
		txid, err := parseHashV(rawString(txidRaw), "txid")
		if err != nil {
			return err
		}
		vout, err := parseJSONInt(voutRaw)
		if err != nil {
			return err
		}
		if vout < 0 {
			return NewError(ErrDeserialization, "vout cannot be negative")
		}
		if vout > 0xffffffff {
			return NewError(ErrMisc, "JSON integer out of range")
		}
		pkScript, err := parseHexV(rawString(spkRaw), "scriptPubKey")
		if err != nil {
			return err
		}
		op := wire.OutPoint{Hash: txid, Index: uint32(vout)}
		if c := coins[op]; c != nil && !bytes.Equal(c.PkScript, pkScript) {
			return NewError(ErrDeserialization, "Previous output scriptPubKey mismatch:\n"+
				scriptToAsm(c.PkScript, false)+"\nvs:\n"+scriptToAsm(pkScript, false))
		}
		coin := &PrevOut{Value: maxMoney, PkScript: pkScript, Height: 1}
		if a, ok := o["amount"]; ok {
			v, err := amountFromJSON(a)
			if err != nil {
				return err
			}
			coin.Value = v
		}
		coins[op] = coin
		isP2SH := txscript.IsPayToScriptHash(pkScript)
		isP2WSH := txscript.GetScriptClass(pkScript) == txscript.WitnessV0ScriptHashTy
		if !isP2SH && !isP2WSH {
			continue
		}
		if err := addPrevTxScripts(o, pkScript, isP2SH, prov); err != nil {
			return err
		}
	}
	return nil
}

// addPrevTxScripts checks and records the redeem and witness scripts of a
// P2SH or P2WSH prevtxs entry.
func addPrevTxScripts(o map[string]json.RawMessage, pkScript []byte, isP2SH bool, prov *signingProvider) error {
	rsRaw, err := prevTxField(o, "redeemScript", "string", true)
	if err != nil {
		return err
	}
	wsRaw, err := prevTxField(o, "witnessScript", "string", true)
	if err != nil {
		return err
	}
	if rsRaw == nil && wsRaw == nil {
		return NewError(ErrInvalidParam, "Missing redeemScript/witnessScript")
	}
	// The witness script is the one to work from when given.
	var script []byte
	if wsRaw != nil {
		script, err = parseHexV(rawString(wsRaw), "witnessScript")
	} else {
		script, err = parseHexV(rawString(rsRaw), "redeemScript")
	}
	if err != nil {
		return err
	}
	prov.addScript(script)
	// The P2WSH form is learnt too, so a redeemScript alone can sign
	// P2SH-P2WSH (Core keeps this for compatibility).
	wsh := sha256.Sum256(script)
	p2wsh := txscript.PayToWitnessScript(0, wsh[:])
	prov.addScript(p2wsh)
	if wsRaw != nil && rsRaw != nil && rawString(wsRaw) != rawString(rsRaw) {
		rs, err := parseHexV(rawString(rsRaw), "redeemScript")
		if err != nil {
			return err
		}
		if !bytes.Equal(rs, p2wsh) {
			return NewError(ErrInvalidParam, "redeemScript does not correspond to witnessScript")
		}
	}
	if isP2SH {
		h1, h2 := hash160(script), hash160(p2wsh)
		if !bytes.Equal(pkScript, txscript.PayToScriptHashScript(h1[:])) && !bytes.Equal(pkScript, txscript.PayToScriptHashScript(h2[:])) {
			return NewError(ErrInvalidParam, "redeemScript/witnessScript does not match scriptPubKey")
		}
		return nil
	}
	if !bytes.Equal(pkScript, p2wsh) {
		return NewError(ErrInvalidParam, "redeemScript/witnessScript does not match scriptPubKey")
	}
	return nil
}

// signTransaction signs every input it can (Core's SignTransaction and
// SignTransactionResultToJSON): inputs that stay unsatisfied are listed
// with the script error that verifying them gives.
func signTransaction(tx *wire.MsgTx, prov *signingProvider, coins map[wire.OutPoint]*PrevOut, hashType uint32) (*SignRawTxResult, error) {
	// Taproot hashes commit to every spent output, so they can only be
	// computed when all are known.
	var prevOuts []wire.TxOut
	for i := range tx.TxIn {
		c := coins[tx.TxIn[i].PreviousOutPoint]
		if c == nil {
			prevOuts = nil
			break
		}
		prevOuts = append(prevOuts, wire.TxOut{Value: c.Value, PkScript: c.PkScript})
	}
	hashes := txscript.NewTxSigHashes(tx, prevOuts)
	single := hashType&^uint32(txscript.SigHashAnyOneCanPay) == uint32(txscript.SigHashSingle)
	errs := make([]string, len(tx.TxIn))
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		c := coins[in.PreviousOutPoint]
		if c == nil {
			errs[i] = "Input not found or already spent"
			continue
		}
		sg := &inputSigner{tx: tx, idx: i, amount: c.Value, hashes: hashes, hashType: hashType, prov: prov, canSign: true}
		sg.data = sg.extract(c.PkScript)
		// SIGHASH_SINGLE signs only inputs with a matching output.
		if !single || i < len(tx.TxOut) {
			sg.produce(c.PkScript)
		}
		in.SignatureScript, in.Witness = sg.data.scriptSig, sg.data.witness
		if c.Value == maxMoney && len(in.Witness) > 0 {
			spk := hex.EncodeToString(c.PkScript)
			if len(spk) > 30 {
				spk = spk[:30]
			}
			return nil, Errorf(ErrType, "Missing amount for CTxOut(nValue=%d.%08d, scriptPubKey=%s)", c.Value/1e8, c.Value%1e8, spk)
		}
		if sg.data.complete {
			continue
		}
		if err := sg.verifies(c.PkScript, in.SignatureScript, in.Witness); err != nil {
			errs[i] = signErrorText(err)
		}
	}
	r := &SignRawTxResult{Hex: hex.EncodeToString(tx.Bytes()), Complete: true}
	for i, e := range errs {
		if e == "" {
			continue
		}
		r.Complete = false
		in := &tx.TxIn[i]
		w := make([]string, len(in.Witness))
		for j, it := range in.Witness {
			w[j] = hex.EncodeToString(it)
		}
		r.Errors = append(r.Errors, SignInputError{
			TxID: in.PreviousOutPoint.Hash.String(), Vout: in.PreviousOutPoint.Index, Witness: w,
			ScriptSig: hex.EncodeToString(in.SignatureScript), Sequence: in.Sequence, Error: e,
		})
	}
	return r, nil
}

// signErrorText words a verification failure as Core's signer does: two
// errors get hints about what is probably missing.
func signErrorText(err error) string {
	switch err {
	case txscript.ErrInvalidStackOperation:
		return "Unable to sign input, invalid stack size (possibly missing key)"
	case txscript.ErrSigNullFail:
		return "CHECK(MULTI)SIG failing with non-zero signature (possibly need more signatures)"
	}
	if k, ok := err.(txscript.ErrorKind); ok {
		return k.Message()
	}
	return strings.TrimSpace(fmt.Sprint(err))
}

// combineTxInputs merges the signatures of several versions of one
// transaction into the first (Core's combinerawtransaction): for each
// input with a known previous output, every version's signatures and
// scripts are pooled and the best satisfaction they allow is built.
// prevOuts holds the spent outputs by input (nil where unknown, which
// keeps the first version's input).
func combineTxInputs(variants []*wire.MsgTx, prevOuts []*PrevOut) *wire.MsgTx {
	merged := variants[0].Copy()
	var all []wire.TxOut
	for _, c := range prevOuts {
		if c == nil {
			all = nil
			break
		}
		all = append(all, wire.TxOut{Value: c.Value, PkScript: c.PkScript})
	}
	hashes := txscript.NewTxSigHashes(merged, all)
	empty := newSigningProvider()
	for i := range merged.TxIn {
		if i >= len(prevOuts) || prevOuts[i] == nil {
			continue
		}
		c := prevOuts[i]
		data := newSigData()
		for _, v := range variants {
			if i >= len(v.TxIn) {
				continue
			}
			ex := &inputSigner{tx: v, idx: i, amount: c.Value, hashes: txscript.NewTxSigHashes(v, all), prov: empty}
			ex.data = newSigData()
			data.merge(ex.extract(c.PkScript))
		}
		sg := &inputSigner{tx: merged, idx: i, amount: c.Value, hashes: hashes, hashType: 1, prov: empty, data: data}
		sg.produce(c.PkScript)
		merged.TxIn[i].SignatureScript, merged.TxIn[i].Witness = data.scriptSig, data.witness
	}
	return merged
}
