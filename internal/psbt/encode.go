package psbt

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// Encode serializes the PSBT in Core's canonical order: by key type,
// records of one type sorted as Core's maps sort them, the signing data of
// a finalized input left out.
func (p *Packet) Encode() []byte {
	b := append([]byte(nil), magic...)
	b = appendRecord(b, []byte{globalUnsignedTx}, legacyTxBytes(p.Tx))
	for _, x := range p.SortedXPubs() {
		b = appendRecord(b, append([]byte{globalXPub}, x.Key...), originBytes(x.Origin))
	}
	if p.Version > 0 {
		b = appendRecord(b, []byte{globalVersion}, binary.LittleEndian.AppendUint32(nil, p.Version))
	}
	b = appendProprietary(b, p.Proprietary)
	b = appendUnknown(b, p.Unknown)
	b = append(b, 0)
	for i := range p.Inputs {
		b = p.Inputs[i].appendTo(b)
	}
	for i := range p.Outputs {
		b = p.Outputs[i].appendTo(b)
	}
	return b
}

func legacyTxBytes(tx *wire.MsgTx) []byte {
	b := binary.LittleEndian.AppendUint32(nil, tx.Version)
	b = wire.AppendVarInt(b, uint64(len(tx.TxIn)))
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		b = append(b, in.PreviousOutPoint.Hash[:]...)
		b = binary.LittleEndian.AppendUint32(b, in.PreviousOutPoint.Index)
		b = wire.AppendVarBytes(b, in.SignatureScript)
		b = binary.LittleEndian.AppendUint32(b, in.Sequence)
	}
	b = wire.AppendVarInt(b, uint64(len(tx.TxOut)))
	for i := range tx.TxOut {
		b = appendTxOut(b, &tx.TxOut[i])
	}
	return binary.LittleEndian.AppendUint32(b, tx.LockTime)
}

func appendTxOut(b []byte, o *wire.TxOut) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(o.Value))
	return wire.AppendVarBytes(b, o.PkScript)
}

func appendRecord(b, key, value []byte) []byte {
	b = wire.AppendVarBytes(b, key)
	return wire.AppendVarBytes(b, value)
}

func originBytes(o KeyOrigin) []byte {
	b := append([]byte(nil), o.Fingerprint[:]...)
	for _, x := range o.Path {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// compareOrigin orders origins as Core's KeyOriginInfo: by fingerprint,
// then shorter paths first, then by path.
func compareOrigin(a, b KeyOrigin) int {
	if c := bytes.Compare(a.Fingerprint[:], b.Fingerprint[:]); c != 0 {
		return c
	}
	if c := len(a.Path) - len(b.Path); c != 0 {
		return c
	}
	return slices.Compare(a.Path, b.Path)
}

// xpubID is what tells global xpubs apart in Core (its CExtPubKey
// order): the public key, then the chain code.
func xpubID(key []byte) string { return string(key[45:78]) + string(key[13:45]) }

// SortedXPubs returns the global xpubs in Core's order, the order they
// are serialized and decodepsbt lists them: by origin, then by xpubID.
func (p *Packet) SortedXPubs() []XPub {
	xp := slices.Clone(p.XPubs)
	sort.SliceStable(xp, func(i, j int) bool {
		if c := compareOrigin(xp[i].Origin, xp[j].Origin); c != 0 {
			return c < 0
		}
		return xpubID(xp[i].Key) < xpubID(xp[j].Key)
	})
	return xp
}

func appendProprietary(b []byte, list []Proprietary) []byte {
	l := slices.Clone(list)
	sort.SliceStable(l, func(i, j int) bool { return bytes.Compare(l[i].Key, l[j].Key) < 0 })
	for _, p := range l {
		b = appendRecord(b, p.Key, p.Value)
	}
	return b
}

func appendUnknown(b []byte, list []Record) []byte {
	l := slices.Clone(list)
	sort.SliceStable(l, func(i, j int) bool { return bytes.Compare(l[i].Key, l[j].Key) < 0 })
	for _, u := range l {
		b = appendRecord(b, u.Key, u.Value)
	}
	return b
}

func appendDerivations(b []byte, typ byte, list []Derivation) []byte {
	l := slices.Clone(list)
	sort.SliceStable(l, func(i, j int) bool { return bytes.Compare(l[i].PubKey, l[j].PubKey) < 0 })
	for _, d := range l {
		b = appendRecord(b, append([]byte{typ}, d.PubKey...), originBytes(d.Origin))
	}
	return b
}

func appendTapDerivations(b []byte, typ byte, list []TapDerivation) []byte {
	l := slices.Clone(list)
	sort.SliceStable(l, func(i, j int) bool { return bytes.Compare(l[i].XOnly, l[j].XOnly) < 0 })
	for _, d := range l {
		v := wire.AppendVarInt(nil, uint64(len(d.LeafHashes)))
		for _, h := range d.LeafHashes {
			v = append(v, h[:]...)
		}
		v = append(v, originBytes(d.Origin)...)
		b = appendRecord(b, append([]byte{typ}, d.XOnly...), v)
	}
	return b
}

func appendPreimages(b []byte, typ byte, list []Preimage) []byte {
	l := slices.Clone(list)
	sort.SliceStable(l, func(i, j int) bool { return bytes.Compare(l[i].Hash, l[j].Hash) < 0 })
	for _, p := range l {
		b = appendRecord(b, append([]byte{typ}, p.Hash...), p.Preimage)
	}
	return b
}

// muSigOrder sorts BIP373 records as Core's maps do: by type, then the
// aggregate key and leaf hash, then the participant key.
func muSigOrder(list []Record) []Record {
	l := slices.Clone(list)
	sk := func(k []byte) []byte {
		if len(k) >= 67 && (k[0] == inMuSigPubNonce || k[0] == inMuSigPartialSig) {
			return slices.Concat(k[:1], k[34:], k[1:34])
		}
		return k
	}
	sort.SliceStable(l, func(i, j int) bool { return bytes.Compare(sk(l[i].Key), sk(l[j].Key)) < 0 })
	return l
}

func (in *Input) appendTo(b []byte) []byte {
	if in.NonWitnessUTXO != nil {
		b = appendRecord(b, []byte{inNonWitnessUTXO}, in.NonWitnessUTXO.AppendTo(nil, true))
	}
	if in.WitnessUTXO != nil {
		b = appendRecord(b, []byte{inWitnessUTXO}, appendTxOut(nil, in.WitnessUTXO))
	}
	if !in.IsFinal() {
		sigs := slices.Clone(in.PartialSigs)
		sort.SliceStable(sigs, func(i, j int) bool {
			a, c := txscript.Hash160(sigs[i].PubKey), txscript.Hash160(sigs[j].PubKey)
			return bytes.Compare(a[:], c[:]) < 0
		})
		for _, s := range sigs {
			b = appendRecord(b, append([]byte{inPartialSig}, s.PubKey...), s.Sig)
		}
		if in.SighashType != nil {
			b = appendRecord(b, []byte{inSighash}, binary.LittleEndian.AppendUint32(nil, *in.SighashType))
		}
		if len(in.RedeemScript) > 0 {
			b = appendRecord(b, []byte{inRedeemScript}, in.RedeemScript)
		}
		if len(in.WitnessScript) > 0 {
			b = appendRecord(b, []byte{inWitnessScript}, in.WitnessScript)
		}
		b = appendDerivations(b, inBip32, in.Bip32)
		b = appendPreimages(b, inRipemd160, in.Ripemd160)
		b = appendPreimages(b, inSha256, in.Sha256)
		b = appendPreimages(b, inHash160, in.Hash160)
		b = appendPreimages(b, inHash256, in.Hash256)
		if len(in.TapKeySig) > 0 {
			b = appendRecord(b, []byte{inTapKeySig}, in.TapKeySig)
		}
		ss := slices.Clone(in.TapScriptSigs)
		sort.SliceStable(ss, func(i, j int) bool {
			if c := bytes.Compare(ss[i].XOnly, ss[j].XOnly); c != 0 {
				return c < 0
			}
			return bytes.Compare(ss[i].LeafHash[:], ss[j].LeafHash[:]) < 0
		})
		for _, s := range ss {
			b = appendRecord(b, slices.Concat([]byte{inTapScriptSig}, s.XOnly, s.LeafHash[:]), s.Sig)
		}
		ls := slices.Clone(in.TapLeafScripts)
		sort.SliceStable(ls, func(i, j int) bool {
			if c := bytes.Compare(ls[i].Script, ls[j].Script); c != 0 {
				return c < 0
			}
			if ls[i].LeafVersion != ls[j].LeafVersion {
				return ls[i].LeafVersion < ls[j].LeafVersion
			}
			if len(ls[i].ControlBlock) != len(ls[j].ControlBlock) {
				return len(ls[i].ControlBlock) < len(ls[j].ControlBlock)
			}
			return bytes.Compare(ls[i].ControlBlock, ls[j].ControlBlock) < 0
		})
		for _, l := range ls {
			b = appendRecord(b, append([]byte{inTapLeafScript}, l.ControlBlock...), append(slices.Clone(l.Script), l.LeafVersion))
		}
		b = appendTapDerivations(b, inTapBip32, in.TapBip32)
		if len(in.TapInternalKey) > 0 {
			b = appendRecord(b, []byte{inTapInternalKey}, in.TapInternalKey)
		}
		if len(in.TapMerkleRoot) > 0 {
			b = appendRecord(b, []byte{inTapMerkleRoot}, in.TapMerkleRoot)
		}
		for _, m := range muSigOrder(in.MuSig) {
			b = appendRecord(b, m.Key, m.Value)
		}
	}
	if len(in.FinalScriptSig) > 0 {
		b = appendRecord(b, []byte{inFinalScriptSig}, in.FinalScriptSig)
	}
	if len(in.FinalScriptWitness) > 0 {
		v := wire.AppendVarInt(nil, uint64(len(in.FinalScriptWitness)))
		for _, it := range in.FinalScriptWitness {
			v = wire.AppendVarBytes(v, it)
		}
		b = appendRecord(b, []byte{inFinalWitness}, v)
	}
	b = appendProprietary(b, in.Proprietary)
	b = appendUnknown(b, in.Unknown)
	return append(b, 0)
}

func (out *Output) appendTo(b []byte) []byte {
	if len(out.RedeemScript) > 0 {
		b = appendRecord(b, []byte{outRedeemScript}, out.RedeemScript)
	}
	if len(out.WitnessScript) > 0 {
		b = appendRecord(b, []byte{outWitnessScript}, out.WitnessScript)
	}
	b = appendDerivations(b, outBip32, out.Bip32)
	if len(out.TapInternalKey) > 0 {
		b = appendRecord(b, []byte{outTapInternalKey}, out.TapInternalKey)
	}
	if len(out.TapTree) > 0 {
		var v []byte
		for _, l := range out.TapTree {
			v = append(v, l.Depth, l.LeafVersion)
			v = wire.AppendVarBytes(v, l.Script)
		}
		b = appendRecord(b, []byte{outTapTree}, v)
	}
	b = appendTapDerivations(b, outTapBip32, out.TapBip32)
	for _, m := range muSigOrder(out.MuSig) {
		b = appendRecord(b, m.Key, m.Value)
	}
	b = appendProprietary(b, out.Proprietary)
	b = appendUnknown(b, out.Unknown)
	return append(b, 0)
}
