package rpc

import (
	"encoding/hex"
	"encoding/json"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/internal/psbt"
	"github.com/btcnode/btcd/wire"
)

// descriptorprocesspsbt: update a PSBT from the UTXO set and descriptors,
// sign it with the descriptors' private keys, and finalize it.

func psbtProcessMethods() []*Method {
	return []*Method{{
		Name: "descriptorprocesspsbt", Category: "rawtransactions",
		Description: `Update all segwit inputs in a PSBT with information from output descriptors, the UTXO set or the mempool.
Then, sign the inputs we are able to with information from the output descriptors.`,
		Args: []Arg{
			{Name: "psbt", Type: ArgStr, Description: "The transaction base64 string"},
			{Name: "descriptors", Type: ArgArr, Description: `An array of either strings or objects: "descriptor" or {"desc":"str","range":n or [n,n]}`},
			{Name: "sighashtype", Type: ArgStr, Optional: true, Default: "DEFAULT for Taproot, ALL otherwise", Description: `The signature hash type to sign with if not specified by the PSBT. Must be one of
"DEFAULT"
"ALL"
"NONE"
"SINGLE"
"ALL|ANYONECANPAY"
"NONE|ANYONECANPAY"
"SINGLE|ANYONECANPAY"`},
			{Name: "bip32derivs", Type: ArgBool, Optional: true, Default: "true", Description: "Include BIP 32 derivation paths for public keys if we know them"},
			{Name: "finalize", Type: ArgBool, Optional: true, Default: "true", Description: "Also finalize inputs if possible"},
		},
		Result:  `{ "psbt" : "str", "complete" : true|false, "hex" : "hex" }`,
		Handler: handleDescriptorProcessPSBT,
	}}
}

// ProcessPSBTResult is the descriptorprocesspsbt result; Hex is the
// network transaction, present only when complete.
type ProcessPSBTResult struct {
	PSBT     string `json:"psbt"`
	Complete bool   `json:"complete"`
	Hex      string `json:"hex,omitempty"`
}

// evalDescriptors expands each descriptor (a string or a {"desc",
// "range"} object) over its range and calls f for every output, as Core's
// EvalDescriptorStringOrObject.
func evalDescriptors(raw json.RawMessage, net *NetParams, f func(descriptor.Output)) error {
	var objs []json.RawMessage
	if err := json.Unmarshal(raw, &objs); err != nil {
		return typeError(raw, "array")
	}
	var work int64
	for _, o := range objs {
		desc, lo, hi, err := scanObject(o)
		if err != nil {
			return err
		}
		ds, err := parseDescriptors(desc, net, false)
		if err != nil {
			return err
		}
		if !ds[0].IsRange() {
			lo, hi = 0, 0
		}
		if err := checkDeriveWork(ds, lo, hi, &work); err != nil {
			return err
		}
		for i := lo; i <= hi; i++ {
			for _, d := range ds {
				outs, err := d.Expand(uint32(i))
				if err != nil {
					return Errorf(ErrInvalidAddress, "Cannot derive script without private keys: '%s'", desc)
				}
				for _, out := range outs {
					f(out)
				}
			}
		}
	}
	return nil
}

// addSigningInfo gives a PSBT signer what one expansion knows.
func addSigningInfo(sg *psbt.Signer, si *descriptor.SigningInfo) {
	for _, k := range si.Keys {
		origin := &psbt.KeyOrigin{Fingerprint: k.Fingerprint, Path: k.Path}
		sg.AddKey(k.PubKey, origin, k.PrivKey)
	}
	for _, s := range si.Scripts {
		sg.AddScript(s)
	}
	for _, t := range si.Taproot {
		ts := psbt.TaprootSpend{OutputKey: t.OutputKey, InternalKey: t.InternalKey, MerkleRoot: t.MerkleRoot}
		for _, l := range t.Leaves {
			ts.Leaves = append(ts.Leaves, psbt.TapLeafScript{ControlBlock: l.ControlBlock, Script: l.Script, LeafVersion: l.LeafVersion})
		}
		sg.AddTaproot(ts)
	}
}

func handleDescriptorProcessPSBT(s *Server, p *Params) (any, error) {
	str, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	sg := psbt.NewSigner()
	err = evalDescriptors(p.Raw(1), &s.cfg.Net, func(out descriptor.Output) { addSigningInfo(sg, out.SigningInfo()) })
	if err != nil {
		return nil, err
	}
	var hashType *uint32
	if ht, set, err := sighashParam(p, 2); err != nil {
		return nil, err
	} else if set {
		hashType = &ht
	}
	derivs, err := p.Bool(3, true)
	if err != nil {
		return nil, err
	}
	finalize, err := p.Bool(4, true)
	if err != nil {
		return nil, err
	}
	sg.HideOrigins = !derivs
	pk, err := decodePSBTArg(str)
	if err != nil {
		return nil, err
	}
	if n := int64(len(pk.Tx.TxIn)) * int64(pk.Tx.SerializeSize()); n > maxSignHashBytes {
		return nil, NewError(ErrInvalidParam, "Transaction too large to sign")
	}
	if err := s.addPrevTxs(pk, sg); err != nil {
		return nil, err
	}
	if err := pk.Sign(sg, hashType, finalize); err != nil {
		return nil, NewError(ErrDeserialization, err.Error())
	}
	dropUnneededTxs(pk)
	r := &ProcessPSBTResult{PSBT: pk.Base64(), Complete: true}
	for i := range pk.Inputs {
		r.Complete = r.Complete && pk.Inputs[i].IsFinal()
	}
	if r.Complete {
		tx, _ := pk.Extract()
		r.Hex = hex.EncodeToString(tx.Bytes())
	}
	return r, nil
}

// addPrevTxs gives each input its previous transaction from the txindex
// or the mempool, and failing that a segwit input its spent output from
// the UTXO set (Core's ProcessPSBT lookups).
func (s *Server) addPrevTxs(pk *psbt.Packet, sg *psbt.Signer) error {
	missing := &wire.MsgTx{}
	var idx []int
	c := s.chain()
	for i := range pk.Inputs {
		in := &pk.Inputs[i]
		if in.NonWitnessUTXO != nil {
			continue
		}
		op := pk.Tx.TxIn[i].PreviousOutPoint
		if c != nil && c.Transaction != nil {
			// Not found is no error here: the UTXO set may still
			// have the coin.
			if lk, err := c.Transaction(op.Hash, nil); err == nil && lk != nil && lk.Tx != nil && lk.Tx.TxHash() == op.Hash {
				in.NonWitnessUTXO = lk.Tx
				continue
			}
		}
		missing.TxIn = append(missing.TxIn, pk.Tx.TxIn[i])
		idx = append(idx, i)
	}
	if len(idx) == 0 {
		return nil
	}
	coins, err := s.findCoins(missing)
	if err != nil {
		return err
	}
	for _, i := range idx {
		in := &pk.Inputs[i]
		if in.WitnessUTXO != nil {
			continue
		}
		if c := coins[pk.Tx.TxIn[i].PreviousOutPoint]; c != nil && sg.IsSegwit(c.PkScript) {
			in.WitnessUTXO = &wire.TxOut{Value: c.Value, PkScript: c.PkScript}
		}
	}
	return nil
}
