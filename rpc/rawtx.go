package rpc

import (
	"bytes"
	"encoding/hex"
	"encoding/json"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// maxBIP125RBFSequence is the highest sequence that signals replaceability.
const maxBIP125RBFSequence = 0xfffffffd

func rawTxMethods() []*Method {
	return []*Method{
		{
			Name: "decoderawtransaction", Category: "rawtransactions",
			Description: "Return a JSON object representing the serialized, hex-encoded transaction.",
			Args: []Arg{
				{Name: "hexstring", Type: ArgHex, Description: "The transaction hex string"},
				{Name: "iswitness", Type: ArgBool, Optional: true, Default: "depends on heuristic tests", Description: "Whether the transaction hex is a serialized witness transaction."},
			},
			Result:  txResultHelp,
			Handler: handleDecodeRawTransaction,
		},
		{
			Name: "createrawtransaction", Category: "rawtransactions",
			Description: `Create a transaction spending the given inputs and creating new outputs.
Outputs can be addresses or data.
Returns hex-encoded raw transaction.
Note that the transaction's inputs are not signed, and
it is not stored in the wallet or transmitted to the network.`,
			Args: []Arg{
				{Name: "inputs", Type: ArgArr, Description: `The inputs: [{"txid":"hex","vout":n,"sequence":n},...]`},
				{Name: "outputs", Type: ArgAny, Description: `The outputs specified as key-value pairs: {"address":amount,...}, [{"address":amount},{"data":"hex"},...]`},
				{Name: "locktime", Type: ArgNum, Optional: true, Default: "0", Description: "Raw locktime. Non-0 value also locktime-activates inputs"},
				{Name: "replaceable", Type: ArgBool, Optional: true, Default: "true", Description: "Marks this transaction as BIP125-replaceable. If provided, it is an error if explicit sequence numbers are incompatible."},
				{Name: "version", Type: ArgNum, Optional: true, Default: "2", Description: "Transaction version (1 to 3)"},
			},
			Result:  `"hex"    (string) hex string of the transaction`,
			Handler: handleCreateRawTransaction,
		},
		{
			Name: "combinerawtransaction", Category: "rawtransactions",
			Description: `Combine multiple partially signed transactions into one transaction.
The combined transaction may be another partially signed transaction or a
fully signed transaction.`,
			Args:    []Arg{{Name: "txs", Type: ArgArr, Description: "The hex strings of partially signed transactions"}},
			Result:  `"str"    (string) The hex-encoded raw transaction with signature(s)`,
			Handler: handleCombineRawTransaction,
		},
		{
			Name: "decodescript", Category: "rawtransactions",
			Description: "Decode a hex-encoded script.",
			Args:        []Arg{{Name: "hexstring", Type: ArgHex, Description: "the hex-encoded script"}},
			Result: `{
  "asm" : "str",            (string) Script public key
  "desc" : "str",           (string) Inferred descriptor for the script
  "address" : "str",        (string, optional) The Bitcoin address (only if a well-defined address exists)
  "type" : "str",           (string) The output type (e.g. nonstandard, pubkey, pubkeyhash, scripthash, multisig, nulldata, witness_v0_scripthash, witness_v0_keyhash, witness_v1_taproot, witness_unknown, anchor)
  "p2sh" : "str",           (string, optional) address of P2SH script wrapping this redeem script (not returned for types that should not be wrapped)
  "segwit" : {              (json object, optional) Result of a witness output script wrapping this redeem script (not returned for types that should not be wrapped)
    "asm" : "str",          (string) String representation of the script public key
    "desc" : "str",         (string) Inferred descriptor for the script
    "hex" : "hex",          (string) Hex string of the script public key
    "address" : "str",      (string, optional) The Bitcoin address (only if a well-defined address exists)
    "type" : "str",         (string) The type of the output script (e.g. witness_v0_keyhash or witness_v0_scripthash)
    "p2sh-segwit" : "str"   (string) address of the P2SH script wrapping this witness redeem script
  }
}`,
			Handler: handleDecodeScript,
		},
	}
}

const txResultHelp = `{
  "txid" : "hex",       (string) The transaction id
  "hash" : "hex",       (string) The transaction hash (differs from txid for witness transactions)
  "version" : n,        (numeric) The version
  "size" : n,           (numeric) The serialized transaction size
  "vsize" : n,          (numeric) The virtual transaction size (differs from size for witness transactions)
  "weight" : n,         (numeric) The transaction's weight (between vsize*4-3 and vsize*4)
  "locktime" : xxx,     (numeric) The lock time
  "vin" : [             (json array)
    {
      "coinbase" : "hex",       (string, optional) The coinbase value (only if coinbase transaction)
      "txid" : "hex",           (string, optional) The transaction id (if not coinbase transaction)
      "vout" : n,               (numeric, optional) The output number (if not coinbase transaction)
      "scriptSig" : {           (json object, optional) The script (if not coinbase transaction)
        "asm" : "str",          (string) Disassembly of the signature script
        "hex" : "hex"           (string) The raw signature script bytes, hex-encoded
      },
      "txinwitness" : [ "hex", ... ],  (json array, optional)
      "sequence" : n            (numeric) The script sequence number
    },
    ...
  ],
  "vout" : [            (json array)
    {
      "value" : n,              (numeric) The value in BTC
      "n" : n,                  (numeric) index
      "scriptPubKey" : {        (json object)
        "asm" : "str",          (string) Disassembly of the output script
        "desc" : "str",         (string) Inferred descriptor for the output
        "hex" : "hex",          (string) The raw output script bytes, hex-encoded
        "address" : "str",      (string, optional) The Bitcoin address (only if a well-defined address exists)
        "type" : "str"          (string) The type (one of: nonstandard, anchor, pubkey, pubkeyhash, scripthash, multisig, nulldata, witness_v0_scripthash, witness_v0_keyhash, witness_v1_taproot, witness_unknown)
      }
    },
    ...
  ]
}`

func handleDecodeRawTransaction(s *Server, p *Params) (any, error) {
	h, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	tryWitness, tryLegacy := true, true
	if p.Has(1) {
		w, err := p.Bool(1, true)
		if err != nil {
			return nil, err
		}
		tryWitness, tryLegacy = w, !w
	}
	tx, ok := decodeTxHex(h, tryWitness, tryLegacy)
	if !ok {
		return nil, NewError(ErrDeserialization, "TX decode failed")
	}
	return txToResult(tx, &s.cfg.Net, false, nil, false), nil
}

// jsonKV is one member of a JSON object, in document order.
type jsonKV struct {
	Key   string
	Value json.RawMessage
}

// orderedObject decodes a JSON object keeping member order (bitcoind keeps
// outputs in the order given).
func orderedObject(raw json.RawMessage) ([]jsonKV, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []jsonKV
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, ok := kt.(string)
		if !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, jsonKV{k, v})
	}
	return out, true
}

func handleCreateRawTransaction(s *Server, p *Params) (any, error) {
	locktime, err := p.Int(2, 0)
	if err != nil {
		return nil, err
	}
	if locktime < 0 || locktime > 0xffffffff {
		return nil, NewError(ErrInvalidParam, "Invalid parameter, locktime out of range")
	}
	rbf, err := p.Bool(3, true)
	if err != nil {
		return nil, err
	}
	version, err := p.Int(4, 2)
	if err != nil {
		return nil, err
	}
	if version < 1 || version > 3 {
		return nil, NewError(ErrInvalidParam, "Invalid parameter, version out of range(1~3)")
	}
	tx := &wire.MsgTx{Version: uint32(version), LockTime: uint32(locktime)}
	var inputs []json.RawMessage
	if err := json.Unmarshal(p.Raw(0), &inputs); err != nil {
		return nil, NewError(ErrType, "Expected type array")
	}
	for _, in := range inputs {
		var o map[string]json.RawMessage
		if jsonKind(in) != "object" || json.Unmarshal(in, &o) != nil {
			return nil, typeError(in, "object")
		}
		var txid string
		if jsonKind(o["txid"]) != "string" || json.Unmarshal(o["txid"], &txid) != nil {
			return nil, NewError(ErrInvalidParam, "txid must be hexadecimal string (not '')")
		}
		h, err := parseHashV(txid, "txid")
		if err != nil {
			return nil, err
		}
		if jsonKind(o["vout"]) != "number" {
			return nil, NewError(ErrInvalidParam, "Invalid parameter, missing vout key")
		}
		vout, err := parseJSONInt(o["vout"])
		if err != nil {
			return nil, err
		}
		if vout < 0 {
			return nil, NewError(ErrInvalidParam, "Invalid parameter, vout cannot be negative")
		}
		if vout > 0xffffffff {
			return nil, NewError(ErrMisc, "JSON integer out of range")
		}
		seq := uint32(wire.MaxTxInSequenceNum)
		if rbf {
			seq = maxBIP125RBFSequence
		} else if locktime != 0 {
			seq = wire.MaxTxInSequenceNum - 1
		}
		if sv, ok := o["sequence"]; ok && !isNull(sv) {
			n, err := parseJSONInt(sv)
			if err != nil {
				return nil, err
			}
			if n < 0 || n > 0xffffffff {
				return nil, NewError(ErrInvalidParam, "Invalid parameter, sequence number is out of range")
			}
			seq = uint32(n)
		}
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: wire.OutPoint{Hash: h, Index: uint32(vout)}, Sequence: seq})
	}
	outs, err := parseOutputs(p.Raw(1), &s.cfg.Net)
	if err != nil {
		return nil, err
	}
	tx.TxOut = outs
	if p.Has(3) && rbf && len(tx.TxIn) > 0 {
		signals := false
		for i := range tx.TxIn {
			if tx.TxIn[i].Sequence <= maxBIP125RBFSequence {
				signals = true
			}
		}
		if !signals {
			return nil, NewError(ErrInvalidParam, "Invalid parameter combination: Sequence number(s) contradict replaceable option")
		}
	}
	return hex.EncodeToString(tx.AppendTo(nil, false)), nil
}

// parseOutputs reads createrawtransaction's outputs: an object of
// address: amount (and "data": hex) or an array of one-member objects.
func parseOutputs(raw json.RawMessage, net *NetParams) ([]wire.TxOut, error) {
	var kvs []jsonKV
	switch jsonKind(raw) {
	case "object":
		var ok bool
		if kvs, ok = orderedObject(raw); !ok {
			return nil, NewError(ErrInvalidParam, "Invalid parameter, outputs must be an object or array")
		}
	case "array":
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return nil, NewError(ErrInvalidParam, "Invalid parameter, outputs must be an object or array")
		}
		for _, e := range arr {
			if jsonKind(e) != "object" {
				return nil, NewError(ErrInvalidParam, "Invalid parameter, key-value pair not an object as expected")
			}
			one, ok := orderedObject(e)
			if !ok || len(one) != 1 {
				return nil, NewError(ErrInvalidParam, "Invalid parameter, key-value pair must contain exactly one key")
			}
			kvs = append(kvs, one[0])
		}
	case "null":
		return nil, NewError(ErrInvalidParam, "Invalid parameter, output argument must be non-null")
	default:
		return nil, NewError(ErrType, "JSON value of type "+jsonKind(raw)+" is not of expected type array")
	}
	seen := map[string]bool{}
	hasData := false
	var outs []wire.TxOut
	for _, kv := range kvs {
		if kv.Key == "data" {
			if hasData {
				return nil, NewError(ErrInvalidParam, "Invalid parameter, duplicate key: data")
			}
			hasData = true
			var h string
			if jsonKind(kv.Value) != "string" || json.Unmarshal(kv.Value, &h) != nil {
				return nil, typeError(kv.Value, "string")
			}
			var data []byte
			if h != "" {
				d, err := parseHexV(h, "Data")
				if err != nil {
					return nil, err
				}
				data = d
			}
			outs = append(outs, wire.TxOut{PkScript: nullDataScript(data)})
			continue
		}
		a, msg := decodeAddress(kv.Key, net)
		if msg != "" {
			return nil, NewError(ErrInvalidAddress, "Invalid Bitcoin address: "+kv.Key)
		}
		if seen[kv.Key] {
			return nil, NewError(ErrInvalidParam, "Invalid parameter, duplicated address: "+kv.Key)
		}
		seen[kv.Key] = true
		amt, err := amountFromJSON(kv.Value)
		if err != nil {
			return nil, err
		}
		outs = append(outs, wire.TxOut{Value: amt, PkScript: a.script()})
	}
	return outs, nil
}

// nullDataScript is OP_RETURN followed by one minimal push of data.
func nullDataScript(data []byte) []byte {
	s := []byte{opReturn}
	return txscript.AppendPush(s, data)
}

func handleCombineRawTransaction(s *Server, p *Params) (any, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(p.Raw(0), &list); err != nil {
		return nil, NewError(ErrType, "Expected type array")
	}
	variants := make([]*wire.MsgTx, len(list))
	for i, raw := range list {
		var h string
		if jsonKind(raw) != "string" || json.Unmarshal(raw, &h) != nil {
			return nil, typeError(raw, "string")
		}
		tx, ok := decodeTxHex(h, true, true)
		if !ok || len(tx.TxIn) == 0 {
			return nil, Errorf(ErrDeserialization, "TX decode failed for tx %d. Make sure the tx has at least one input.", i)
		}
		variants[i] = tx
	}
	if len(variants) == 0 {
		return nil, NewError(ErrDeserialization, "Missing transactions")
	}
	var lookup func(wire.OutPoint, bool) (*TxOutInfo, error)
	if c := s.cfg.Backend.Chain; c != nil {
		lookup = c.TxOut
	}
	if lookup == nil {
		return nil, NewError(ErrMisc, "No chain to look the spent outputs up in")
	}
	prevOuts := make([]*PrevOut, len(variants[0].TxIn))
	for i, in := range variants[0].TxIn {
		coin, err := lookup(in.PreviousOutPoint, true)
		if err != nil {
			return nil, err
		}
		if coin == nil {
			return nil, NewError(ErrVerify, "Input not found or already spent")
		}
		prevOuts[i] = &PrevOut{Value: coin.Value, PkScript: coin.PkScript}
	}
	merged := combineTxInputs(variants, prevOuts)
	return hex.EncodeToString(merged.Bytes()), nil
}

// SegwitScriptResult is decodescript's "segwit" object.
type SegwitScriptResult struct {
	Asm        string `json:"asm"`
	Desc       string `json:"desc"`
	Hex        string `json:"hex"`
	Address    string `json:"address,omitempty"`
	Type       string `json:"type"`
	P2SHSegwit string `json:"p2sh-segwit"`
}

// DecodeScriptResult is the decodescript result.
type DecodeScriptResult struct {
	Asm     string              `json:"asm"`
	Desc    string              `json:"desc"`
	Address string              `json:"address,omitempty"`
	Type    string              `json:"type"`
	P2SH    string              `json:"p2sh,omitempty"`
	Segwit  *SegwitScriptResult `json:"segwit,omitempty"`
}

// isOpSuccess reports the BIP342 OP_SUCCESSx opcodes.
func isOpSuccess(op byte) bool {
	return op == 80 || op == 98 || (op >= 126 && op <= 129) || (op >= 131 && op <= 134) ||
		(op >= 137 && op <= 138) || (op >= 141 && op <= 142) || (op >= 149 && op <= 153) ||
		(op >= 187 && op <= 254)
}

// hasValidOps is Core's CScript::HasValidOps: every operation parses, is at
// most OP_NOP10, and pushes at most 520 bytes.
func hasValidOps(script []byte) bool {
	for pc := 0; pc < len(script); {
		op, data, next, ok := getOp(script, pc)
		if !ok || op > 0xb9 || len(data) > 520 {
			return false
		}
		pc = next
	}
	return true
}

func handleDecodeScript(s *Server, p *Params) (any, error) {
	h, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	var script []byte
	if h != "" {
		if script, err = parseHexV(h, "argument"); err != nil {
			return nil, err
		}
	}
	net := &s.cfg.Net
	class, sols := classify(script)
	r := &DecodeScriptResult{Asm: scriptToAsm(script, false), Desc: inferDescriptor(script, net, nil), Type: class}
	if class != typePubKey {
		if a, ok := scriptAddress(script, net); ok {
			r.Address = a
		}
	}
	canWrap := false
	switch class {
	case typeMultisig, typeNonstandard, typePubKey, typePubKeyHash, typeWitnessV0KH, typeWitnessV0SH:
		canWrap = hasValidOps(script) && len(script) <= maxScriptSize
		for pc := 0; canWrap && pc < len(script); {
			op, _, next, _ := getOp(script, pc)
			if op == opCheckSigAdd || isOpSuccess(op) {
				canWrap = false
			}
			pc = next
		}
	}
	if !canWrap {
		return r, nil
	}
	sh := hash160(script)
	r.P2SH = address{kind: addrP2SH, program: sh[:]}.encode(net)
	canWrapWSH := false
	switch class {
	case typeMultisig, typePubKey:
		canWrapWSH = true
		for _, sol := range sols {
			if len(sol) != 1 && len(sol) != 33 {
				canWrapWSH = false
			}
		}
	case typeNonstandard, typePubKeyHash:
		canWrapWSH = true
	}
	if !canWrapWSH {
		return r, nil
	}
	var segwit []byte
	var inner []byte
	switch class {
	case typePubKey:
		kh := hash160(sols[0])
		segwit = address{kind: addrWitness, program: kh[:]}.script()
	case typePubKeyHash:
		segwit = address{kind: addrWitness, program: sols[0]}.script()
	default:
		wh := wshHash(script)
		segwit = address{kind: addrWitness, program: wh[:]}.script()
		inner = script
	}
	sc, _ := classify(segwit)
	sw := &SegwitScriptResult{
		Asm:  scriptToAsm(segwit, false),
		Desc: inferDescriptor(segwit, net, inner),
		Hex:  hex.EncodeToString(segwit),
		Type: sc,
	}
	sw.Address, _ = scriptAddress(segwit, net)
	ssh := hash160(segwit)
	sw.P2SHSegwit = address{kind: addrP2SH, program: ssh[:]}.encode(net)
	r.Segwit = sw
	return r, nil
}
