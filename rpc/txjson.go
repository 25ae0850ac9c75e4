package rpc

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"

	"github.com/btcnode/btcd/wire"
)

// ScriptSig is a decoded input script.
type ScriptSig struct {
	Asm string `json:"asm"`
	Hex string `json:"hex"`
}

// VinPrevOut is the spent output shown by getblock verbosity 3 and
// getrawtransaction verbosity 2.
type VinPrevOut struct {
	Generated    bool         `json:"generated"`
	Height       int32        `json:"height"`
	Value        json.Number  `json:"value"`
	ScriptPubKey ScriptPubKey `json:"scriptPubKey"`
}

// Vin is one decoded input: Coinbase is set for a coinbase input, TxID,
// Vout and ScriptSig otherwise.
type Vin struct {
	Coinbase  string      `json:"coinbase,omitempty"`
	TxID      string      `json:"txid,omitempty"`
	Vout      *uint32     `json:"vout,omitempty"`
	ScriptSig *ScriptSig  `json:"scriptSig,omitempty"`
	Witness   []string    `json:"txinwitness,omitempty"`
	PrevOut   *VinPrevOut `json:"prevout,omitempty"`
	Sequence  uint32      `json:"sequence"`
}

// Vout is one decoded output.
type Vout struct {
	Value        json.Number  `json:"value"`
	N            int          `json:"n"`
	ScriptPubKey ScriptPubKey `json:"scriptPubKey"`
}

// TxResult is a decoded transaction as decoderawtransaction, verbose
// getrawtransaction and getblock verbosity 2/3 show it.
type TxResult struct {
	InActiveChain *bool       `json:"in_active_chain,omitempty"`
	TxID          string      `json:"txid"`
	Hash          string      `json:"hash"`
	Version       uint32      `json:"version"`
	Size          int         `json:"size"`
	VSize         int64       `json:"vsize"`
	Weight        int64       `json:"weight"`
	LockTime      uint32      `json:"locktime"`
	Vin           []Vin       `json:"vin"`
	Vout          []Vout      `json:"vout"`
	Fee           json.Number `json:"fee,omitempty"`
	Hex           string      `json:"hex,omitempty"`
	BlockHash     string      `json:"blockhash,omitempty"`
	Confirmations *int64      `json:"confirmations,omitempty"`
	Time          int64       `json:"time,omitempty"`
	BlockTime     int64       `json:"blocktime,omitempty"`
}

// decodeScriptPubKey describes an output script.
func decodeScriptPubKey(script []byte, net *NetParams) ScriptPubKey {
	class, _ := classify(script)
	sp := ScriptPubKey{
		Asm:  scriptToAsm(script, false),
		Desc: inferDescriptor(script, net, nil),
		Hex:  hex.EncodeToString(script),
		Type: class,
	}
	if class != typePubKey {
		if a, ok := scriptAddress(script, net); ok {
			sp.Address = a
		}
	}
	return sp
}

// txToResult builds the decoded form of tx. prevOuts, when it has one entry
// per input, adds the fee and (withPrevOut) each input's spent output;
// withHex adds the serialization.
func txToResult(tx *wire.MsgTx, net *NetParams, withHex bool, prevOuts []PrevOut, withPrevOut bool) *TxResult {
	r := &TxResult{
		TxID:     tx.TxHash().String(),
		Hash:     tx.WitnessHash().String(),
		Version:  tx.Version,
		Size:     tx.SerializeSize(),
		VSize:    tx.VirtualSize(),
		Weight:   tx.Weight(),
		LockTime: tx.LockTime,
		Vin:      make([]Vin, len(tx.TxIn)),
		Vout:     make([]Vout, len(tx.TxOut)),
	}
	coinbase := tx.IsCoinBase()
	havePrev := !coinbase && len(prevOuts) == len(tx.TxIn)
	var in int64
	for i := range tx.TxIn {
		ti := &tx.TxIn[i]
		v := &r.Vin[i]
		if coinbase {
			v.Coinbase = hex.EncodeToString(ti.SignatureScript)
		} else {
			v.TxID = ti.PreviousOutPoint.Hash.String()
			idx := ti.PreviousOutPoint.Index
			v.Vout = &idx
			v.ScriptSig = &ScriptSig{Asm: scriptToAsm(ti.SignatureScript, true), Hex: hex.EncodeToString(ti.SignatureScript)}
		}
		if len(ti.Witness) > 0 {
			v.Witness = make([]string, len(ti.Witness))
			for j, w := range ti.Witness {
				v.Witness[j] = hex.EncodeToString(w)
			}
		}
		if havePrev {
			po := &prevOuts[i]
			in += po.Value
			if withPrevOut {
				v.PrevOut = &VinPrevOut{Generated: po.Generated, Height: po.Height, Value: formatBTC(po.Value), ScriptPubKey: decodeScriptPubKey(po.PkScript, net)}
			}
		}
		v.Sequence = ti.Sequence
	}
	var out int64
	for i := range tx.TxOut {
		o := &tx.TxOut[i]
		out += o.Value
		r.Vout[i] = Vout{Value: formatBTC(o.Value), N: i, ScriptPubKey: decodeScriptPubKey(o.PkScript, net)}
	}
	if havePrev {
		r.Fee = formatBTC(in - out)
	}
	if withHex {
		r.Hex = hex.EncodeToString(tx.Bytes())
	}
	return r
}

// decodeTxHex decodes a hex transaction as bitcoind's DecodeHexTx: the
// extended (BIP144) form unless witness is false, falling back to the
// legacy form, which differs only for transactions without inputs. All
// bytes must be used.
func decodeTxHex(s string, tryWitness, tryLegacy bool) (*wire.MsgTx, bool) {
	if !isHex(s) {
		return nil, false
	}
	b := decodeHex(s)
	if tryWitness {
		var tx wire.MsgTx
		if n, err := tx.Decode(b); err == nil && n == len(b) {
			return &tx, true
		}
	}
	if tryLegacy {
		if tx, ok := decodeLegacyNoInputs(b); ok {
			return tx, true
		}
		if !tryWitness {
			var tx wire.MsgTx
			if n, err := tx.Decode(b); err == nil && n == len(b) && !tx.HasWitness() && len(tx.TxIn) > 0 {
				return &tx, true
			}
		}
	}
	return nil, false
}

// decodeLegacyNoInputs decodes a non-witness transaction with zero inputs,
// which the extended decoder reads as a marker byte.
func decodeLegacyNoInputs(b []byte) (*wire.MsgTx, bool) {
	if len(b) < wire.MinTxSize || b[4] != 0 {
		return nil, false
	}
	tx := &wire.MsgTx{Version: binary.LittleEndian.Uint32(b)}
	r := b[5:]
	nOut, n, err := wire.ReadVarInt(r)
	if err != nil || nOut > uint64(len(r))/wire.MinTxOutSize {
		return nil, false
	}
	r = r[n:]
	tx.TxOut = make([]wire.TxOut, nOut)
	for i := range tx.TxOut {
		if len(r) < 8 {
			return nil, false
		}
		v := int64(binary.LittleEndian.Uint64(r))
		l, n, err := wire.ReadVarInt(r[8:])
		if err != nil || l > uint64(len(r)-8-n) {
			return nil, false
		}
		tx.TxOut[i] = wire.TxOut{Value: v, PkScript: bytes.Clone(r[8+n : 8+n+int(l)])}
		r = r[8+n+int(l):]
	}
	if len(r) != 4 {
		return nil, false
	}
	tx.LockTime = binary.LittleEndian.Uint32(r)
	return tx, true
}
