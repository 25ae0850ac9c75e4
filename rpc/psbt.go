package rpc

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"slices"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/internal/psbt"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// This file holds bitcoind's wallet-free PSBT methods (BIP174): create,
// convert, decode, combine, join, analyze, update from the UTXO set and
// finalize. The format and the roles live in internal/psbt.

func psbtMethods() []*Method {
	psbtArg := Arg{Name: "psbt", Type: ArgStr, Description: "A base64 string of a PSBT"}
	txsArg := Arg{Name: "txs", Type: ArgArr, Description: "The base64 strings of partially signed transactions"}
	return []*Method{
		{
			Name: "createpsbt", Category: "rawtransactions",
			Description: `Creates a transaction in the Partially Signed Transaction format.
Implements the Creator role.
Note that the transaction's inputs are not signed, and
it is not stored in the wallet or transmitted to the network.`,
			Args:    rawTxMethods()[1].Args,
			Result:  `"str"    (string) The resulting raw transaction (base64-encoded string)`,
			Handler: handleCreatePSBT,
		},
		{
			Name: "converttopsbt", Category: "rawtransactions",
			Description: `Converts a network serialized transaction to a PSBT. This should be used only with createrawtransaction and fundrawtransaction
createpsbt and walletcreatefundedpsbt should be used for new applications.`,
			Args: []Arg{
				{Name: "hexstring", Type: ArgStr, Description: "The hex string of a raw transaction"},
				{Name: "permitsigdata", Type: ArgBool, Optional: true, Default: "false", Description: "If true, any signatures in the input will be discarded and conversion will continue. If false, RPC will fail if any signatures are present."},
				{Name: "iswitness", Type: ArgBool, Optional: true, Default: "depends on heuristic tests", Description: "Whether the transaction hex is a serialized witness transaction."},
			},
			Result:  `"str"    (string) The resulting raw transaction (base64-encoded string)`,
			Handler: handleConvertToPSBT,
		},
		{
			Name: "decodepsbt", Category: "rawtransactions",
			Description: "Return a JSON object representing the serialized, base64-encoded partially signed Bitcoin transaction.",
			Args:        []Arg{{Name: "psbt", Type: ArgStr, Description: "The PSBT base64 string"}},
			Result:      `{ "tx", "global_xpubs", "psbt_version", "proprietary", "unknown", "inputs", "outputs", "fee"? }`,
			Handler:     handleDecodePSBT,
		},
		{
			Name: "combinepsbt", Category: "rawtransactions",
			Description: `Combine multiple partially signed Bitcoin transactions into one transaction.
Implements the Combiner role.`,
			Args:    []Arg{txsArg},
			Result:  `"str"    (string) The base64-encoded partially signed transaction`,
			Handler: handleCombinePSBT,
		},
		{
			Name: "finalizepsbt", Category: "rawtransactions",
			Description: `Finalize the inputs of a PSBT. If the transaction is fully signed, it will produce a
network serialized transaction which can be broadcast with sendrawtransaction. Otherwise a PSBT will be
created which has the final_scriptSig and final_scriptwitness fields filled for inputs that are complete.
Implements the Finalizer and Extractor roles.`,
			Args: []Arg{psbtArg,
				{Name: "extract", Type: ArgBool, Optional: true, Default: "true", Description: "If true and the transaction is complete,\nextract and return the complete transaction in normal network serialization instead of the PSBT."}},
			Result:  `{ "psbt" : "str", "hex" : "hex", "complete" : true|false }`,
			Handler: handleFinalizePSBT,
		},
		{
			Name: "utxoupdatepsbt", Category: "rawtransactions",
			Description: "Updates all segwit inputs and outputs in a PSBT with data from output descriptors, the UTXO set, txindex, or the mempool.",
			Args: []Arg{psbtArg,
				{Name: "descriptors", Type: ArgArr, Optional: true, Description: `An array of either strings or objects: "descriptor" or {"desc":"str","range":n or [n,n]}`}},
			Result:  `"str"    (string) The base64-encoded partially signed transaction with inputs updated`,
			Handler: handleUTXOUpdatePSBT,
		},
		{
			Name: "joinpsbts", Category: "rawtransactions",
			Description: `Joins multiple distinct PSBTs with different inputs and outputs into one PSBT with inputs and outputs from all of the PSBTs
No input in any of the PSBTs can be in more than one of the PSBTs.`,
			Args:    []Arg{txsArg},
			Result:  `"str"    (string) The base64-encoded partially signed transaction`,
			Handler: handleJoinPSBTs,
		},
		{
			Name: "analyzepsbt", Category: "rawtransactions",
			Description: "Analyzes and provides information about the current status of a PSBT and its inputs",
			Args:        []Arg{psbtArg},
			Result:      `{ "inputs" : [ { "has_utxo", "is_final", "missing"?, "next" } ], "estimated_vsize"?, "estimated_feerate"?, "fee"?, "next", "error"? }`,
			Handler:     handleAnalyzePSBT,
		},
	}
}

// decodePSBTArg decodes a base64 PSBT with Core's "TX decode failed"
// error (-22).
func decodePSBTArg(s string) (*psbt.Packet, error) {
	p, err := psbt.DecodeBase64(s)
	if err != nil {
		return nil, Errorf(ErrDeserialization, "TX decode failed %s", err.Error())
	}
	return p, nil
}

// psbtList reads an array of base64 PSBTs.
func psbtList(raw json.RawMessage) ([]*psbt.Packet, error) {
	var list []json.RawMessage
	if jsonKind(raw) != "array" || json.Unmarshal(raw, &list) != nil {
		return nil, typeError(raw, "array")
	}
	out := make([]*psbt.Packet, 0, len(list))
	for _, e := range list {
		var s string
		if jsonKind(e) != "string" || json.Unmarshal(e, &s) != nil {
			return nil, typeError(e, "string")
		}
		p, err := decodePSBTArg(s)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func handleCreatePSBT(s *Server, p *Params) (any, error) {
	h, err := handleCreateRawTransaction(s, p)
	if err != nil {
		return nil, err
	}
	tx, ok := decodeTxHex(h.(string), false, true)
	if !ok {
		return nil, NewError(ErrInternal, "created transaction does not decode")
	}
	return psbt.New(tx).Base64(), nil
}

func handleConvertToPSBT(s *Server, p *Params) (any, error) {
	h, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	permit, err := p.Bool(1, false)
	if err != nil {
		return nil, err
	}
	tryWitness, tryLegacy := true, true
	if p.Has(2) {
		w, err := p.Bool(2, false)
		if err != nil {
			return nil, err
		}
		tryWitness, tryLegacy = w, !w
	}
	tx, ok := decodeTxHex(h, tryWitness, tryLegacy)
	if !ok {
		return nil, NewError(ErrDeserialization, "TX decode failed")
	}
	for i := range tx.TxIn {
		if (len(tx.TxIn[i].SignatureScript) > 0 || len(tx.TxIn[i].Witness) > 0) && !permit {
			return nil, NewError(ErrDeserialization, "Inputs must not have scriptSigs and scriptWitnesses")
		}
	}
	return psbt.New(tx).Base64(), nil
}

func handleCombinePSBT(s *Server, p *Params) (any, error) {
	list, err := psbtList(p.Raw(0))
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, NewError(ErrInvalidParam, "Parameter 'txs' cannot be empty")
	}
	if err := list[0].Combine(list[1:]...); err != nil {
		return nil, NewError(ErrInvalidParam, err.Error())
	}
	return list[0].Base64(), nil
}

// FinalizePSBTResult is the finalizepsbt result: the PSBT, or the network
// transaction when complete and extracted.
type FinalizePSBTResult struct {
	PSBT     string `json:"psbt,omitempty"`
	Hex      string `json:"hex,omitempty"`
	Complete bool   `json:"complete"`
}

func handleFinalizePSBT(s *Server, p *Params) (any, error) {
	str, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	pk, err := decodePSBTArg(str)
	if err != nil {
		return nil, err
	}
	extract, err := p.Bool(1, true)
	if err != nil {
		return nil, err
	}
	complete := pk.Finalize()
	if complete && extract {
		tx, _ := pk.Extract()
		return &FinalizePSBTResult{Hex: hex.EncodeToString(tx.Bytes()), Complete: true}, nil
	}
	return &FinalizePSBTResult{PSBT: pk.Base64(), Complete: complete}, nil
}

func handleJoinPSBTs(s *Server, p *Params) (any, error) {
	var raw []json.RawMessage
	if json.Unmarshal(p.Raw(0), &raw) == nil && len(raw) <= 1 {
		return nil, NewError(ErrInvalidParam, "At least two PSBTs are required to join PSBTs.")
	}
	list, err := psbtList(p.Raw(0))
	if err != nil {
		return nil, err
	}
	version, lockTime := uint32(1), uint32(0xffffffff)
	for _, pk := range list {
		version = max(version, pk.Tx.Version)
		lockTime = min(lockTime, pk.Tx.LockTime)
	}
	type joinedIn struct {
		txin wire.TxIn
		in   psbt.Input
	}
	type joinedOut struct {
		txout wire.TxOut
		out   psbt.Output
	}
	var ins []joinedIn
	var outs []joinedOut
	var unknown []psbt.Record
	for _, pk := range list {
		for i, txin := range pk.Tx.TxIn {
			for _, e := range ins {
				if e.txin.PreviousOutPoint == txin.PreviousOutPoint && e.txin.Sequence == txin.Sequence {
					return nil, Errorf(ErrInvalidParam, "Input %s:%d exists in multiple PSBTs", txin.PreviousOutPoint.Hash, txin.PreviousOutPoint.Index)
				}
			}
			in := pk.Inputs[i]
			// A joined input's signatures no longer commit to the
			// transaction, so they are dropped.
			in.PartialSigs, in.FinalScriptSig, in.FinalScriptWitness = nil, nil, nil
			ins = append(ins, joinedIn{txin, in})
		}
		for i, txout := range pk.Tx.TxOut {
			outs = append(outs, joinedOut{txout, pk.Outputs[i]})
		}
		for _, u := range pk.Unknown {
			if !slices.ContainsFunc(unknown, func(x psbt.Record) bool { return bytes.Equal(x.Key, u.Key) }) {
				unknown = append(unknown, u)
			}
		}
	}
	// Shuffle so that the joined transaction does not reveal which
	// inputs and outputs came from which participant.
	rand.Shuffle(len(ins), func(i, j int) { ins[i], ins[j] = ins[j], ins[i] })
	rand.Shuffle(len(outs), func(i, j int) { outs[i], outs[j] = outs[j], outs[i] })
	tx := &wire.MsgTx{Version: version, LockTime: lockTime}
	joined := &psbt.Packet{Tx: tx, Unknown: unknown}
	for _, e := range ins {
		tx.TxIn = append(tx.TxIn, e.txin)
		joined.Inputs = append(joined.Inputs, e.in)
	}
	for _, e := range outs {
		tx.TxOut = append(tx.TxOut, e.txout)
		joined.Outputs = append(joined.Outputs, e.out)
	}
	return joined.Base64(), nil
}

// AnalyzePSBTMissing is what one input of analyzepsbt lacks.
type AnalyzePSBTMissing struct {
	PubKeys       []string `json:"pubkeys,omitempty"`
	Signatures    []string `json:"signatures,omitempty"`
	RedeemScript  string   `json:"redeemscript,omitempty"`
	WitnessScript string   `json:"witnessscript,omitempty"`
}

// AnalyzePSBTInput is one input of analyzepsbt.
type AnalyzePSBTInput struct {
	HasUTXO bool                `json:"has_utxo"`
	IsFinal bool                `json:"is_final"`
	Missing *AnalyzePSBTMissing `json:"missing,omitempty"`
	Next    string              `json:"next"`
}

// AnalyzePSBTResult is the analyzepsbt result.
type AnalyzePSBTResult struct {
	Inputs           []AnalyzePSBTInput `json:"inputs,omitempty"`
	EstimatedVSize   int64              `json:"estimated_vsize,omitempty"`
	EstimatedFeeRate json.Number        `json:"estimated_feerate,omitempty"`
	Fee              json.Number        `json:"fee,omitempty"`
	Next             string             `json:"next"`
	Error            string             `json:"error,omitempty"`
}

func handleAnalyzePSBT(s *Server, p *Params) (any, error) {
	str, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	pk, err := decodePSBTArg(str)
	if err != nil {
		return nil, err
	}
	a := pk.Analyze()
	r := &AnalyzePSBTResult{Next: a.Next.String(), Error: a.Error}
	for _, ia := range a.Inputs {
		in := AnalyzePSBTInput{HasUTXO: ia.HasUTXO, IsFinal: ia.IsFinal, Next: ia.Next.String()}
		m := &AnalyzePSBTMissing{}
		for _, h := range ia.MissingPubKeys {
			m.PubKeys = append(m.PubKeys, hex.EncodeToString(h[:]))
		}
		for _, h := range ia.MissingSigs {
			m.Signatures = append(m.Signatures, hex.EncodeToString(h[:]))
		}
		m.RedeemScript = hex.EncodeToString(ia.MissingRedeemScript)
		m.WitnessScript = hex.EncodeToString(ia.MissingWitnessScript)
		if m.PubKeys != nil || m.Signatures != nil || m.RedeemScript != "" || m.WitnessScript != "" {
			in.Missing = m
		}
		r.Inputs = append(r.Inputs, in)
	}
	if a.VSize > 0 {
		r.EstimatedVSize = a.VSize
		r.EstimatedFeeRate = formatBTC(a.Fee * 1000 / a.VSize)
	}
	if a.HasFee {
		r.Fee = formatBTC(a.Fee)
	}
	return r, nil
}

func handleUTXOUpdatePSBT(s *Server, p *Params) (any, error) {
	str, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	// The same update descriptorprocesspsbt makes, without the private
	// keys and without finalizing.
	sg := psbt.NewSigner()
	if p.Has(1) {
		err := evalDescriptors(p.Raw(1), &s.cfg.Net, func(out descriptor.Output) {
			si := out.SigningInfo()
			for i := range si.Keys {
				si.Keys[i].PrivKey = nil
			}
			addSigningInfo(sg, si)
		})
		if err != nil {
			return nil, err
		}
	}
	pk, err := decodePSBTArg(str)
	if err != nil {
		return nil, err
	}
	if err := s.addPrevTxs(pk, sg); err != nil {
		return nil, err
	}
	// With no keys nothing is signed, so an input asking for another
	// hash type than its default only misses its update.
	_ = pk.Sign(sg, nil, false)
	dropUnneededTxs(pk)
	return pk.Base64(), nil
}

// dropUnneededTxs removes full previous transactions when every input is
// a segwit v1+ spend signing all inputs' amounts (Core's
// RemoveUnnecessaryTransactions).
func dropUnneededTxs(pk *psbt.Packet) {
	for i := range pk.Inputs {
		in := &pk.Inputs[i]
		if in.WitnessUTXO == nil {
			return
		}
		v, _, ok := txscript.IsWitnessProgram(in.WitnessUTXO.PkScript)
		if !ok || v == 0 {
			return
		}
		if in.SighashType != nil && *in.SighashType&0x80 != 0 {
			return
		}
	}
	for i := range pk.Inputs {
		pk.Inputs[i].NonWitnessUTXO = nil
	}
}
