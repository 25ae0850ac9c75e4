package psbt

import (
	"bytes"
	"crypto/sha256"
	"errors"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// ErrDifferentTx is returned by Combine for PSBTs of different
// transactions (Core's message).
var ErrDifferentTx = errors.New("PSBTs not compatible (different transactions)")

// Combine merges others into p (BIP174's combiner): every record p lacks
// is taken from the others, the first value of a key wins.
func (p *Packet) Combine(others ...*Packet) error {
	id := p.Tx.TxHash()
	for _, o := range others {
		if o.Tx.TxHash() != id {
			return ErrDifferentTx
		}
	}
	for _, o := range others {
		for i := range p.Inputs {
			p.Inputs[i].merge(&o.Inputs[i])
		}
		for i := range p.Outputs {
			p.Outputs[i].merge(&o.Outputs[i])
		}
		for _, x := range o.XPubs {
			if !containsBy(p.XPubs, func(y XPub) bool { return xpubID(x.Key) == xpubID(y.Key) && compareOrigin(x.Origin, y.Origin) == 0 }) {
				p.XPubs = append(p.XPubs, x)
			}
		}
		p.Proprietary = mergeProprietary(p.Proprietary, o.Proprietary)
		p.Unknown = mergeRecords(p.Unknown, o.Unknown)
	}
	return nil
}

func containsBy[T any](list []T, eq func(T) bool) bool {
	for _, x := range list {
		if eq(x) {
			return true
		}
	}
	return false
}

func mergeRecords(a, b []Record) []Record {
	for _, r := range b {
		if !containsBy(a, func(x Record) bool { return bytes.Equal(x.Key, r.Key) }) {
			a = append(a, r)
		}
	}
	return a
}

func mergeProprietary(a, b []Proprietary) []Proprietary {
	for _, r := range b {
		if !containsBy(a, func(x Proprietary) bool { return bytes.Equal(x.Key, r.Key) }) {
			a = append(a, r)
		}
	}
	return a
}

func mergeDerivations(a, b []Derivation) []Derivation {
	for _, d := range b {
		if !containsBy(a, func(x Derivation) bool { return bytes.Equal(x.PubKey, d.PubKey) }) {
			a = append(a, d)
		}
	}
	return a
}

func mergeTapDerivations(a, b []TapDerivation) []TapDerivation {
	for _, d := range b {
		if !containsBy(a, func(x TapDerivation) bool { return bytes.Equal(x.XOnly, d.XOnly) }) {
			a = append(a, d)
		}
	}
	return a
}

func mergePreimages(a, b []Preimage) []Preimage {
	for _, d := range b {
		if !containsBy(a, func(x Preimage) bool { return bytes.Equal(x.Hash, d.Hash) }) {
			a = append(a, d)
		}
	}
	return a
}

func (in *Input) merge(o *Input) {
	if in.NonWitnessUTXO == nil {
		in.NonWitnessUTXO = o.NonWitnessUTXO
	}
	if in.WitnessUTXO == nil {
		in.WitnessUTXO = o.WitnessUTXO
	}
	for _, s := range o.PartialSigs {
		if !containsBy(in.PartialSigs, func(x PartialSig) bool { return bytes.Equal(x.PubKey, s.PubKey) }) {
			in.PartialSigs = append(in.PartialSigs, s)
		}
	}
	if in.SighashType == nil {
		in.SighashType = o.SighashType
	}
	in.Ripemd160 = mergePreimages(in.Ripemd160, o.Ripemd160)
	in.Sha256 = mergePreimages(in.Sha256, o.Sha256)
	in.Hash160 = mergePreimages(in.Hash160, o.Hash160)
	in.Hash256 = mergePreimages(in.Hash256, o.Hash256)
	in.Bip32 = mergeDerivations(in.Bip32, o.Bip32)
	for _, s := range o.TapScriptSigs {
		if !containsBy(in.TapScriptSigs, func(x TapScriptSig) bool { return bytes.Equal(x.XOnly, s.XOnly) && x.LeafHash == s.LeafHash }) {
			in.TapScriptSigs = append(in.TapScriptSigs, s)
		}
	}
	for _, l := range o.TapLeafScripts {
		if !containsBy(in.TapLeafScripts, func(x TapLeafScript) bool { return bytes.Equal(x.ControlBlock, l.ControlBlock) }) {
			in.TapLeafScripts = append(in.TapLeafScripts, l)
		}
	}
	in.TapBip32 = mergeTapDerivations(in.TapBip32, o.TapBip32)
	in.MuSig = mergeRecords(in.MuSig, o.MuSig)
	in.Proprietary = mergeProprietary(in.Proprietary, o.Proprietary)
	in.Unknown = mergeRecords(in.Unknown, o.Unknown)
	if len(in.RedeemScript) == 0 {
		in.RedeemScript = o.RedeemScript
	}
	if len(in.WitnessScript) == 0 {
		in.WitnessScript = o.WitnessScript
	}
	if len(in.FinalScriptSig) == 0 {
		in.FinalScriptSig = o.FinalScriptSig
	}
	if len(in.FinalScriptWitness) == 0 {
		in.FinalScriptWitness = o.FinalScriptWitness
	}
	if len(in.TapKeySig) == 0 {
		in.TapKeySig = o.TapKeySig
	}
	if len(in.TapInternalKey) == 0 {
		in.TapInternalKey = o.TapInternalKey
	}
	if len(in.TapMerkleRoot) == 0 {
		in.TapMerkleRoot = o.TapMerkleRoot
	}
}

func (out *Output) merge(o *Output) {
	out.Bip32 = mergeDerivations(out.Bip32, o.Bip32)
	out.TapBip32 = mergeTapDerivations(out.TapBip32, o.TapBip32)
	out.MuSig = mergeRecords(out.MuSig, o.MuSig)
	out.Proprietary = mergeProprietary(out.Proprietary, o.Proprietary)
	out.Unknown = mergeRecords(out.Unknown, o.Unknown)
	if len(out.RedeemScript) == 0 {
		out.RedeemScript = o.RedeemScript
	}
	if len(out.WitnessScript) == 0 {
		out.WitnessScript = o.WitnessScript
	}
	if len(out.TapInternalKey) == 0 {
		out.TapInternalKey = o.TapInternalKey
	}
	if len(out.TapTree) == 0 {
		out.TapTree = o.TapTree
	}
}

// solution is what solving an input's script from its PSBT data found:
// the scripts when complete, what is missing otherwise.
type solution struct {
	scriptSig      []byte
	witness        [][]byte
	isWitness      bool
	complete       bool
	missingPubKeys [][20]byte
	missingSigs    [][20]byte
	missingRedeem  []byte
	missingWitness []byte
}

// pubKeyFor returns a public key hashing to h that the input names (in a
// partial signature or a derivation).
func (in *Input) pubKeyFor(h []byte) []byte {
	for _, s := range in.PartialSigs {
		if k := txscript.Hash160(s.PubKey); bytes.Equal(k[:], h) {
			return s.PubKey
		}
	}
	for _, d := range in.Bip32 {
		if k := txscript.Hash160(d.PubKey); bytes.Equal(k[:], h) {
			return d.PubKey
		}
	}
	return nil
}

func (in *Input) sigFor(pub []byte, sol *solution) []byte {
	for _, s := range in.PartialSigs {
		if bytes.Equal(s.PubKey, pub) {
			return s.Sig
		}
	}
	sol.missingSigs = append(sol.missingSigs, txscript.Hash160(pub))
	return nil
}

// step satisfies one non-wrapping script from the input's signatures
// (Core's SignStep with no keys): the stack items, or false.
func (in *Input) step(script []byte, sol *solution) ([][]byte, txscript.ScriptClass, bool) {
	class := txscript.GetScriptClass(script)
	switch class {
	case txscript.PubKeyTy:
		pub := txscript.PushedData(script)[0]
		if sig := in.sigFor(pub, sol); sig != nil {
			return [][]byte{sig}, class, true
		}
	case txscript.PubKeyHashTy, txscript.WitnessV0PubKeyHashTy:
		// A P2WPKH script is 22 bytes: slicing it as P2PKH would read
		// past its end.
		var h []byte
		if class == txscript.WitnessV0PubKeyHashTy {
			h = script[2:22]
		} else {
			h = script[3:23]
		}
		pub := in.pubKeyFor(h)
		if pub == nil {
			sol.missingPubKeys = append(sol.missingPubKeys, [20]byte(h))
			return nil, class, false
		}
		if sig := in.sigFor(pub, sol); sig != nil {
			return [][]byte{sig, pub}, class, true
		}
	case txscript.MultiSigTy:
		req, keys, _ := txscript.MultiSigInfo(script)
		stack := [][]byte{{}}
		for _, k := range keys {
			if sig := in.sigFor(k, sol); sig != nil && len(stack) < req+1 {
				stack = append(stack, sig)
			}
		}
		return stack, class, len(stack) == req+1
	case txscript.ScriptHashTy, txscript.WitnessV0ScriptHashTy, txscript.WitnessV1TaprootTy:
		return nil, class, true
	}
	return nil, class, false
}

// solve builds the input's final scripts from its PSBT data for an
// output script (Core's ProduceSignature with a dummy signer): P2PK,
// P2PKH, multisig, P2SH and P2WSH of those, P2WPKH (also in P2SH), and
// taproot key path and script path spends, and P2WSH witness scripts
// and tapscript leaves that are miniscript; ctx is the spend, for
// timelocks.
func (in *Input) solve(pkScript []byte, ctx spendContext) *solution {
	sol := &solution{}
	stack, class, ok := in.step(pkScript, sol)
	if !ok {
		return sol
	}
	script := pkScript
	var sigItems [][]byte
	switch class {
	case txscript.ScriptHashTy:
		h := pkScript[2:22]
		if len(in.RedeemScript) == 0 || !bytes.Equal(hashOf160(in.RedeemScript), h) {
			sol.missingRedeem = bytes.Clone(h)
			return sol
		}
		script = in.RedeemScript
		sub, subClass, ok := in.step(script, sol)
		if subClass == txscript.ScriptHashTy {
			return sol
		}
		if !ok {
			return sol
		}
		class = subClass
		if !isWitnessClass(class) {
			sol.scriptSig = pushAll(append(sub, in.RedeemScript))
			sol.complete = true
			return sol
		}
		sigItems = [][]byte{in.RedeemScript}
		stack = sub
	default:
		if !isWitnessClass(class) {
			sol.scriptSig = pushAll(stack)
			sol.complete = true
			return sol
		}
	}
	if len(sigItems) > 0 {
		sol.scriptSig = pushAll(sigItems)
	}
	sol.isWitness = true
	switch class {
	case txscript.WitnessV0PubKeyHashTy:
		sol.witness = stack
		sol.complete = true
	case txscript.WitnessV0ScriptHashTy:
		prog := script[2:34]
		sum := sha256.Sum256(in.WitnessScript)
		if len(in.WitnessScript) == 0 || !bytes.Equal(sum[:], prog) {
			sol.missingWitness = bytes.Clone(prog)
			return sol
		}
		sub, subClass, ok := in.step(in.WitnessScript, sol)
		if !ok || subClass == txscript.ScriptHashTy || isWitnessClass(subClass) {
			// As Core, miniscript is tried when no template gave even
			// a partial stack (a multisig one is kept for combining).
			if len(sub) > 0 {
				return sol
			}
			if sub = in.satisfyWitnessScript(in.WitnessScript, ctx, sol); sub == nil {
				return sol
			}
		}
		sol.witness = append(sub, in.WitnessScript)
		sol.complete = true
	case txscript.WitnessV1TaprootTy:
		if len(in.TapKeySig) > 0 {
			sol.witness = [][]byte{in.TapKeySig}
			sol.complete = true
		} else if w := in.tapScriptWitness(ctx); w != nil {
			sol.witness = w
			sol.complete = true
		}
	}
	return sol
}

func isWitnessClass(c txscript.ScriptClass) bool {
	return c == txscript.WitnessV0PubKeyHashTy || c == txscript.WitnessV0ScriptHashTy || c == txscript.WitnessV1TaprootTy
}

func hashOf160(b []byte) []byte { h := txscript.Hash160(b); return h[:] }

// pushAll serializes items as minimal pushes (a scriptSig).
func pushAll(items [][]byte) []byte {
	var s []byte
	for _, it := range items {
		s = appendPush(s, it)
	}
	return s
}

func appendPush(s, data []byte) []byte {
	n := len(data)
	switch {
	case n == 0:
		return append(s, 0)
	case n == 1 && data[0] >= 1 && data[0] <= 16:
		return append(s, 0x50+data[0])
	case n == 1 && data[0] == 0x81:
		return append(s, 0x4f)
	case n < 0x4c:
		s = append(s, byte(n))
	case n <= 0xff:
		s = append(s, 0x4c, byte(n))
	case n <= 0xffff:
		s = append(s, 0x4d, byte(n), byte(n>>8))
	default:
		s = append(s, 0x4e, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	return append(s, data...)
}

// spentOutputs returns every input's spent output (zero where unknown)
// and whether all are known.
func (p *Packet) spentOutputs() ([]wire.TxOut, bool) {
	outs := make([]wire.TxOut, len(p.Tx.TxIn))
	all := true
	for i := range outs {
		o, ok := p.UTXO(i)
		outs[i] = o
		all = all && ok
	}
	return outs, all
}

// verifier checks inputs' scripts on one scratch copy of the unsigned
// transaction, whose signature-hash midstates are computed once (the
// engine only uses precomputed midstates of the very transaction it
// checks, and no midstate covers the scriptSigs or witnesses).
type verifier struct {
	tx     *wire.MsgTx
	spent  []wire.TxOut
	hashes *txscript.TxSigHashes
}

func (p *Packet) newVerifier() *verifier {
	spent, _ := p.spentOutputs()
	tx := p.Tx.Copy()
	return &verifier{tx: tx, spent: spent, hashes: txscript.NewTxSigHashes(tx, spent)}
}

// verify reports whether scriptSig and witness satisfy input i's UTXO
// under the standard flags.
func (v *verifier) verify(i int, scriptSig []byte, witness [][]byte) bool {
	in := &v.tx.TxIn[i]
	in.SignatureScript, in.Witness = scriptSig, witness
	err := txscript.VerifyInput(v.tx, i, &v.spent[i], txscript.StandardVerifyFlags, nil, v.hashes)
	in.SignatureScript, in.Witness = nil, nil
	return err == nil
}

// finalizeInput finalizes input i if its data allow (the scripts must
// verify under standard flags) and reports whether it is final.
func (p *Packet) finalizeInput(i int, v *verifier) bool {
	in := &p.Inputs[i]
	if in.IsFinal() {
		return true
	}
	utxo, ok := p.UTXO(i)
	if !ok {
		return false
	}
	if in.NonWitnessUTXO != nil && in.NonWitnessUTXO.TxHash() != p.Tx.TxIn[i].PreviousOutPoint.Hash {
		return false
	}
	sol := in.solve(utxo.PkScript, spendContext{p.Tx, i})
	if !sol.complete {
		return false
	}
	if !v.verify(i, sol.scriptSig, sol.witness) {
		return false
	}
	if sol.isWitness && in.WitnessUTXO == nil {
		w := utxo
		in.WitnessUTXO = &w
	}
	*in = Input{
		NonWitnessUTXO: in.NonWitnessUTXO, WitnessUTXO: in.WitnessUTXO,
		FinalScriptSig: sol.scriptSig, FinalScriptWitness: sol.witness,
		Proprietary: in.Proprietary, Unknown: in.Unknown,
	}
	return true
}

// Finalize builds the final scriptSig and witness of every input whose
// signatures suffice (BIP174's input finalizer) and reports whether all
// inputs are final.
func (p *Packet) Finalize() bool {
	v := p.newVerifier()
	complete := true
	for i := range p.Inputs {
		if !p.finalizeInput(i, v) {
			complete = false
		}
	}
	return complete
}

// Extract returns the network transaction of a finalized PSBT (BIP174's
// extractor), or false when some input is not final.
func (p *Packet) Extract() (*wire.MsgTx, bool) {
	tx := p.Tx.Copy()
	for i := range p.Inputs {
		in := &p.Inputs[i]
		if !in.IsFinal() {
			return nil, false
		}
		tx.TxIn[i].SignatureScript = bytes.Clone(in.FinalScriptSig)
		tx.TxIn[i].Witness = in.FinalScriptWitness
	}
	return tx, true
}
