package rpc

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/internal/psbt"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// This file builds decodepsbt's result in Core's shape and field order.

// jsonObject is a JSON object that keeps its members in insertion order
// (Core's UniValue objects do).
type jsonObject []jsonMember

type jsonMember struct {
	Key   string
	Value any
}

func (o *jsonObject) add(k string, v any) { *o = append(*o, jsonMember{k, v}) }

// MarshalJSON writes the members in order.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// PSBTScript is a redeem or witness script as decodepsbt shows it.
type PSBTScript struct {
	Asm  string `json:"asm"`
	Desc string `json:"desc"`
	Hex  string `json:"hex"`
	Type string `json:"type"`
}

func psbtScript(s []byte, net *NetParams) PSBTScript {
	class, _ := classify(s)
	return PSBTScript{Asm: scriptToAsm(s, false), Desc: inferDescriptor(s, net, nil), Hex: hex.EncodeToString(s), Type: class}
}

// formatKeyPath renders a BIP32 path as Core's WriteHDKeypath, whose
// hardened marker is "h" (since Core 25).
func formatKeyPath(path []uint32) string {
	var b strings.Builder
	b.WriteString("m")
	for _, x := range path {
		b.WriteByte('/')
		b.WriteString(strconv.FormatUint(uint64(x&0x7fffffff), 10))
		if x&0x80000000 != 0 {
			b.WriteByte('h')
		}
	}
	return b.String()
}

func derivationJSON(pub []byte, o psbt.KeyOrigin) jsonObject {
	var j jsonObject
	j.add("pubkey", hex.EncodeToString(pub))
	j.add("master_fingerprint", hex.EncodeToString(o.Fingerprint[:]))
	j.add("path", formatKeyPath(o.Path))
	return j
}

func tapDerivationsJSON(list []psbt.TapDerivation) []jsonObject {
	out := []jsonObject{}
	for _, d := range list {
		j := derivationJSON(d.XOnly, d.Origin)
		hs := []string{}
		for _, h := range d.LeafHashes {
			hs = append(hs, hex.EncodeToString(h[:]))
		}
		j.add("leaf_hashes", hs)
		out = append(out, j)
	}
	return out
}

func proprietaryJSON(list []psbt.Proprietary) []jsonObject {
	out := []jsonObject{}
	for _, p := range list {
		var j jsonObject
		j.add("identifier", hex.EncodeToString(p.Identifier))
		j.add("subtype", p.Subtype)
		j.add("key", hex.EncodeToString(p.KeyData))
		j.add("value", hex.EncodeToString(p.Value))
		out = append(out, j)
	}
	return out
}

func unknownJSON(list []psbt.Record) jsonObject {
	j := jsonObject{}
	for _, u := range list {
		j.add(hex.EncodeToString(u.Key), hex.EncodeToString(u.Value))
	}
	return j
}

func preimagesJSON(list []psbt.Preimage) jsonObject {
	j := jsonObject{}
	for _, p := range list {
		j.add(hex.EncodeToString(p.Hash), hex.EncodeToString(p.Preimage))
	}
	return j
}

// sighashName is Core's SighashToStr ("" for an undefined type).
func sighashName(v uint32) string {
	for name, t := range sighashTypes {
		if t == v {
			return name
		}
	}
	return ""
}

// encodeXPub renders a 78-byte BIP32 serialization in base58check with
// the version bytes it carries, as decodepsbt shows global xpubs (not
// with the node's network version).
func encodeXPub(key []byte) string {
	data := append(bytes.Clone(key), wire.DoubleHashB(key)[:4]...)
	return txscript.Base58Encode(data)
}

// muSigJSON renders the BIP373 records of a map.
func muSigJSON(recs []psbt.Record, into *jsonObject) {
	var parts, nonces, sigs []jsonObject
	for _, r := range recs {
		switch r.Key[0] {
		case 0x1a, 0x08:
			if len(r.Key) != 34 {
				continue
			}
			var j jsonObject
			j.add("aggregate_pubkey", hex.EncodeToString(r.Key[1:]))
			ps := []string{}
			for i := 0; i+33 <= len(r.Value); i += 33 {
				ps = append(ps, hex.EncodeToString(r.Value[i:i+33]))
			}
			j.add("participant_pubkeys", ps)
			parts = append(parts, j)
		case 0x1b, 0x1c:
			var j jsonObject
			j.add("participant_pubkey", hex.EncodeToString(r.Key[1:34]))
			j.add("aggregate_pubkey", hex.EncodeToString(r.Key[34:67]))
			if len(r.Key) == 99 {
				j.add("leaf_hash", hex.EncodeToString(r.Key[67:]))
			}
			if r.Key[0] == 0x1b {
				j.add("pubnonce", hex.EncodeToString(r.Value))
				nonces = append(nonces, j)
			} else {
				j.add("partial_sig", hex.EncodeToString(r.Value))
				sigs = append(sigs, j)
			}
		}
	}
	if parts != nil {
		into.add("musig2_participant_pubkeys", parts)
	}
	if nonces != nil {
		into.add("musig2_pubnonces", nonces)
	}
	if sigs != nil {
		into.add("musig2_partial_sigs", sigs)
	}
}

func handleDecodePSBT(s *Server, p *Params) (any, error) {
	str, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	pk, err := decodePSBTArg(str)
	if err != nil {
		return nil, err
	}
	net := &s.cfg.Net
	var r jsonObject
	r.add("tx", txToResult(pk.Tx, net, false, nil, false))
	xpubs := []jsonObject{}
	for _, x := range pk.SortedXPubs() {
		var j jsonObject
		j.add("xpub", encodeXPub(x.Key))
		j.add("master_fingerprint", hex.EncodeToString(x.Origin.Fingerprint[:]))
		j.add("path", formatKeyPath(x.Origin.Path))
		xpubs = append(xpubs, j)
	}
	r.add("global_xpubs", xpubs)
	r.add("psbt_version", pk.Version)
	r.add("proprietary", proprietaryJSON(pk.Proprietary))
	r.add("unknown", unknownJSON(pk.Unknown))

	var totalIn int64
	haveAll := true
	inputs := []jsonObject{}
	for i := range pk.Inputs {
		in := &pk.Inputs[i]
		var j jsonObject
		var txout *wire.TxOut
		if in.WitnessUTXO != nil {
			txout = in.WitnessUTXO
			var w jsonObject
			w.add("amount", formatBTC(txout.Value))
			w.add("scriptPubKey", decodeScriptPubKey(txout.PkScript, net))
			j.add("witness_utxo", w)
		}
		if in.NonWitnessUTXO != nil {
			txout = &in.NonWitnessUTXO.TxOut[pk.Tx.TxIn[i].PreviousOutPoint.Index]
			j.add("non_witness_utxo", txToResult(in.NonWitnessUTXO, net, false, nil, false))
		}
		if txout != nil && moneyRange(txout.Value) && moneyRange(totalIn+txout.Value) {
			totalIn += txout.Value
		} else {
			haveAll = false
		}
		if len(in.PartialSigs) > 0 {
			sigs := jsonObject{}
			for _, ps := range in.PartialSigs {
				sigs.add(hex.EncodeToString(ps.PubKey), hex.EncodeToString(ps.Sig))
			}
			j.add("partial_signatures", sigs)
		}
		if in.SighashType != nil {
			j.add("sighash", sighashName(*in.SighashType))
		}
		if len(in.RedeemScript) > 0 {
			j.add("redeem_script", psbtScript(in.RedeemScript, net))
		}
		if len(in.WitnessScript) > 0 {
			j.add("witness_script", psbtScript(in.WitnessScript, net))
		}
		if len(in.Bip32) > 0 {
			ds := []jsonObject{}
			for _, d := range in.Bip32 {
				ds = append(ds, derivationJSON(d.PubKey, d.Origin))
			}
			j.add("bip32_derivs", ds)
		}
		if len(in.FinalScriptSig) > 0 {
			j.add("final_scriptSig", ScriptSig{Asm: scriptToAsm(in.FinalScriptSig, true), Hex: hex.EncodeToString(in.FinalScriptSig)})
		}
		if len(in.FinalScriptWitness) > 0 {
			w := []string{}
			for _, it := range in.FinalScriptWitness {
				w = append(w, hex.EncodeToString(it))
			}
			j.add("final_scriptwitness", w)
		}
		for _, pre := range []struct {
			name string
			list []psbt.Preimage
		}{{"ripemd160_preimages", in.Ripemd160}, {"sha256_preimages", in.Sha256}, {"hash160_preimages", in.Hash160}, {"hash256_preimages", in.Hash256}} {
			if len(pre.list) > 0 {
				j.add(pre.name, preimagesJSON(pre.list))
			}
		}
		if len(in.TapKeySig) > 0 {
			j.add("taproot_key_path_sig", hex.EncodeToString(in.TapKeySig))
		}
		if len(in.TapScriptSigs) > 0 {
			ss := []jsonObject{}
			for _, sig := range in.TapScriptSigs {
				var o jsonObject
				o.add("pubkey", hex.EncodeToString(sig.XOnly))
				o.add("leaf_hash", hex.EncodeToString(sig.LeafHash[:]))
				o.add("sig", hex.EncodeToString(sig.Sig))
				ss = append(ss, o)
			}
			j.add("taproot_script_path_sigs", ss)
		}
		if len(in.TapLeafScripts) > 0 {
			j.add("taproot_scripts", tapScriptsJSON(in.TapLeafScripts))
		}
		if len(in.TapBip32) > 0 {
			j.add("taproot_bip32_derivs", tapDerivationsJSON(in.TapBip32))
		}
		if len(in.TapInternalKey) > 0 {
			j.add("taproot_internal_key", hex.EncodeToString(in.TapInternalKey))
		}
		if len(in.TapMerkleRoot) > 0 {
			j.add("taproot_merkle_root", hex.EncodeToString(in.TapMerkleRoot))
		}
		muSigJSON(in.MuSig, &j)
		if len(in.Proprietary) > 0 {
			j.add("proprietary", proprietaryJSON(in.Proprietary))
		}
		if len(in.Unknown) > 0 {
			j.add("unknown", unknownJSON(in.Unknown))
		}
		if j == nil {
			j = jsonObject{}
		}
		inputs = append(inputs, j)
	}
	r.add("inputs", inputs)

	var outValue int64
	outputs := []jsonObject{}
	for i := range pk.Outputs {
		out := &pk.Outputs[i]
		var j jsonObject
		if len(out.RedeemScript) > 0 {
			j.add("redeem_script", psbtScript(out.RedeemScript, net))
		}
		if len(out.WitnessScript) > 0 {
			j.add("witness_script", psbtScript(out.WitnessScript, net))
		}
		if len(out.Bip32) > 0 {
			ds := []jsonObject{}
			for _, d := range out.Bip32 {
				ds = append(ds, derivationJSON(d.PubKey, d.Origin))
			}
			j.add("bip32_derivs", ds)
		}
		if len(out.TapInternalKey) > 0 {
			j.add("taproot_internal_key", hex.EncodeToString(out.TapInternalKey))
		}
		if len(out.TapTree) > 0 {
			tree := []jsonObject{}
			for _, l := range out.TapTree {
				var o jsonObject
				o.add("depth", l.Depth)
				o.add("leaf_ver", l.LeafVersion)
				o.add("script", hex.EncodeToString(l.Script))
				tree = append(tree, o)
			}
			j.add("taproot_tree", tree)
		}
		if len(out.TapBip32) > 0 {
			j.add("taproot_bip32_derivs", tapDerivationsJSON(out.TapBip32))
		}
		muSigJSON(out.MuSig, &j)
		if len(out.Proprietary) > 0 {
			j.add("proprietary", proprietaryJSON(out.Proprietary))
		}
		if len(out.Unknown) > 0 {
			j.add("unknown", unknownJSON(out.Unknown))
		}
		if j == nil {
			j = jsonObject{}
		}
		outputs = append(outputs, j)
		v := pk.Tx.TxOut[i].Value
		if moneyRange(v) && moneyRange(outValue+v) {
			outValue += v
		} else {
			haveAll = false
		}
	}
	r.add("outputs", outputs)
	if haveAll {
		r.add("fee", formatBTC(totalIn-outValue))
	}
	return r, nil
}

// tapScriptsJSON groups leaf scripts by script and leaf version, each
// with its control blocks.
func tapScriptsJSON(list []psbt.TapLeafScript) []jsonObject {
	type group struct {
		script []byte
		ver    byte
		cbs    []string
	}
	var groups []*group
	for _, l := range list {
		var g *group
		for _, x := range groups {
			if x.ver == l.LeafVersion && bytes.Equal(x.script, l.Script) {
				g = x
			}
		}
		if g == nil {
			g = &group{script: l.Script, ver: l.LeafVersion}
			groups = append(groups, g)
		}
		g.cbs = append(g.cbs, hex.EncodeToString(l.ControlBlock))
	}
	out := []jsonObject{}
	for _, g := range groups {
		var o jsonObject
		o.add("script", hex.EncodeToString(g.script))
		o.add("leaf_ver", g.ver)
		o.add("control_blocks", g.cbs)
		out = append(out, o)
	}
	return out
}

// moneyRange is Core's MoneyRange.
func moneyRange(v int64) bool { return v >= 0 && v <= 21_000_000*100_000_000 }
