package rpc

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"

	"github.com/btcnode/btcd/internal/psbt"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// This file is the transaction signer behind signrawtransactionwithkey
// (and the signature merging combinerawtransaction needs). It follows
// Core's ProduceSignature: solve the output script one layer at a time
// (P2SH, then P2WSH or P2WPKH), sign what the keys allow, keep the
// signatures an input already carries, and leave a partial multisig
// satisfaction in place so that another signer can complete it.

// signingKey is one private key with the public key serialization its WIF
// encoding selects (compressed or not).
type signingKey struct {
	priv *btcec.PrivateKey
	pub  []byte
}

// signingProvider holds the keys and scripts a signer may use (Core's
// FlatSigningProvider as signrawtransactionwithkey fills it).
type signingProvider struct {
	keys     map[[20]byte]*signingKey // by HASH160 of pub
	scripts  map[[20]byte][]byte      // by HASH160 of the script (P2SH)
	wscripts map[[32]byte][]byte      // by SHA256 of the script (P2WSH)
	// tapKeys maps BIP86 output keys (the key tweaked with an empty
	// script tree) to their internal key, for key path spends. It is
	// built on the first taproot input, so other spends do not pay a
	// point multiplication per key.
	tapKeys map[[32]byte]*signingKey
}

// taprootKey returns the key whose BIP86 output key is outKey.
func (p *signingProvider) taprootKey(outKey [32]byte) *signingKey {
	if p.tapKeys == nil {
		p.tapKeys = make(map[[32]byte]*signingKey, len(p.keys))
		for _, k := range p.keys {
			xonly := k.priv.PubKey().SerializeCompressed()[1:]
			if out, _, ok := txscript.ComputeTaprootOutputKey(xonly, nil); ok {
				p.tapKeys[out] = k
			}
		}
	}
	return p.tapKeys[outKey]
}

func newSigningProvider() *signingProvider {
	return &signingProvider{keys: map[[20]byte]*signingKey{}, scripts: map[[20]byte][]byte{}, wscripts: map[[32]byte][]byte{}}
}

// addKey adds a private key; compressed selects its public key form.
func (p *signingProvider) addKey(priv []byte, compressed bool) {
	k, pub := btcec.PrivKeyFromBytes(priv)
	ser := pub.SerializeUncompressed()
	if compressed {
		ser = pub.SerializeCompressed()
	}
	p.keys[hash160(ser)] = &signingKey{priv: k, pub: ser}
	p.tapKeys = nil
}

// addScript makes a redeem or witness script known.
func (p *signingProvider) addScript(s []byte) {
	c := append([]byte(nil), s...)
	p.scripts[hash160(c)] = c
	p.wscripts[sha256.Sum256(c)] = c
}

// sigData is what is known about one input's satisfaction (Core's
// SignatureData): signatures by public key, the scripts the input
// revealed, and the scriptSig and witness produced.
type sigData struct {
	complete      bool
	sigs          map[string][]byte // serialized pubkey -> signature with hash type
	tapKeySig     []byte
	redeemScript  []byte
	witnessScript []byte
	scriptSig     []byte
	witness       [][]byte
	isWitness     bool
}

func newSigData() *sigData { return &sigData{sigs: map[string][]byte{}} }

// merge adds what other knows (Core's MergeSignatureData).
func (d *sigData) merge(o *sigData) {
	if d.complete {
		return
	}
	if o.complete {
		*d = *o
		return
	}
	if d.redeemScript == nil {
		d.redeemScript = o.redeemScript
	}
	if d.witnessScript == nil {
		d.witnessScript = o.witnessScript
	}
	if d.tapKeySig == nil {
		d.tapKeySig = o.tapKeySig
	}
	for k, v := range o.sigs {
		if _, ok := d.sigs[k]; !ok {
			d.sigs[k] = v
		}
	}
}

// sig versions of the scripts being signed.
const (
	sigBase = iota
	sigWitnessV0
)

// inputSigner signs one input of tx.
type inputSigner struct {
	tx       *wire.MsgTx
	idx      int
	amount   int64
	hashes   *txscript.TxSigHashes
	hashType uint32 // 0 is SIGHASH_DEFAULT
	prov     *signingProvider
	data     *sigData
	// canSign is false when only signatures already present may be
	// used (combining partially signed transactions).
	canSign bool
}

// sighash computes the ECDSA signature hash of scriptCode under sv.
func (s *inputSigner) sighash(scriptCode []byte, sv int, hashType uint32) [32]byte {
	if sv == sigWitnessV0 {
		return txscript.CalcWitnessSigHash(scriptCode, s.hashes, hashType, s.idx, s.amount)
	}
	return txscript.CalcSignatureHash(scriptCode, hashType, s.tx, s.idx)
}

// checkECDSA reports whether sig (with its hash type byte) is pub's
// signature of this input under scriptCode.
func (s *inputSigner) checkECDSA(sig, pub, scriptCode []byte, sv int) bool {
	if len(sig) < 2 {
		return false
	}
	ht := uint32(sig[len(sig)-1])
	h := s.sighash(scriptCode, sv, ht)
	return txscript.VerifyECDSA(sig[:len(sig)-1], pub, &h)
}

// createSig returns pub's signature for scriptCode: one the input already
// had, or a new one when the provider has the key.
func (s *inputSigner) createSig(pub, scriptCode []byte, sv int) ([]byte, bool) {
	if sig, ok := s.data.sigs[string(pub)]; ok {
		return sig, true
	}
	if !s.canSign {
		return nil, false
	}
	k := s.prov.keys[hash160(pub)]
	if k == nil || !bytes.Equal(k.pub, pub) {
		return nil, false
	}
	// Segwit forbids uncompressed keys and commits to the amount.
	if sv == sigWitnessV0 && (len(pub) != 33 || s.amount < 0 || s.amount > maxMoney) {
		return nil, false
	}
	ht := s.hashType
	if ht == uint32(txscript.SigHashDefault) {
		ht = uint32(txscript.SigHashAll)
	}
	h := s.sighash(scriptCode, sv, ht)
	sig := append(signLowR(k.priv, h[:]), byte(ht))
	s.data.sigs[string(pub)] = sig
	return sig, true
}

// pubKeyFor finds the public key of a key hash: a provided key's, or
// one whose signature the input carries.
func (s *inputSigner) pubKeyFor(h []byte) []byte {
	if k := s.prov.keys[[20]byte(h)]; k != nil {
		return k.pub
	}
	for pub := range s.data.sigs {
		if kh := hash160([]byte(pub)); bytes.Equal(kh[:], h) {
			return []byte(pub)
		}
	}
	return nil
}

// witnessScript returns a known script with the given SHA256.
func (s *inputSigner) witnessScript(h [32]byte) []byte {
	if sc, ok := s.prov.wscripts[h]; ok {
		return sc
	}
	for _, sc := range [][]byte{s.data.redeemScript, s.data.witnessScript} {
		if sc != nil && sha256.Sum256(sc) == h {
			return sc
		}
	}
	return nil
}

// script returns a known script with the given HASH160.
func (s *inputSigner) script(h [20]byte) []byte {
	if sc, ok := s.prov.scripts[h]; ok {
		return sc
	}
	for _, sc := range [][]byte{s.data.redeemScript, s.data.witnessScript} {
		if sc != nil && hash160(sc) == h {
			return sc
		}
	}
	return nil
}

// signStep solves one script layer (Core's SignStep): for P2SH and P2WSH
// the stack is the inner script, for P2WPKH the key hash, otherwise the
// satisfaction. A multisig that lacks signatures still returns what it
// has, padded with empty pushes.
func (s *inputSigner) signStep(script []byte, sv int) ([][]byte, txscript.ScriptClass, bool) {
	class := txscript.GetScriptClass(script)
	switch class {
	case txscript.PubKeyTy:
		sig, ok := s.createSig(script[1:len(script)-1], script, sv)
		if !ok {
			return nil, class, false
		}
		return [][]byte{sig}, class, true
	case txscript.PubKeyHashTy:
		pub := s.pubKeyFor(script[3:23])
		if pub == nil {
			return nil, class, false
		}
		sig, ok := s.createSig(pub, script, sv)
		if !ok {
			return nil, class, false
		}
		return [][]byte{sig, pub}, class, true
	case txscript.ScriptHashTy:
		sc := s.script([20]byte(script[2:22]))
		if sc == nil {
			return nil, class, false
		}
		return [][]byte{sc}, class, true
	case txscript.MultiSigTy:
		required, keys, _ := txscript.MultiSigInfo(script)
		ret := [][]byte{{}} // the CHECKMULTISIG dummy element
		for _, pub := range keys {
			// Every key is tried, so the signature data holds all the
			// signatures that can be made.
			if sig, ok := s.createSig(pub, script, sv); ok && len(ret) < required+1 {
				ret = append(ret, sig)
			}
		}
		ok := len(ret) == required+1
		for len(ret) < required+1 {
			ret = append(ret, []byte{})
		}
		return ret, class, ok
	case txscript.WitnessV0PubKeyHashTy:
		return [][]byte{append([]byte(nil), script[2:22]...)}, class, true
	case txscript.WitnessV0ScriptHashTy:
		sc := s.witnessScript([32]byte(script[2:34]))
		if sc == nil {
			return nil, class, false
		}
		return [][]byte{sc}, class, true
	case txscript.WitnessV1TaprootTy:
		sig, ok := s.taprootKeySig(script[2:34])
		if !ok {
			return nil, class, false
		}
		return [][]byte{sig}, class, true
	case txscript.AnchorTy:
		return nil, class, true
	}
	return nil, class, false
}

// taprootKeySig signs a key path spend of a BIP86 output.
func (s *inputSigner) taprootKeySig(outKey []byte) ([]byte, bool) {
	if s.data.tapKeySig != nil {
		return s.data.tapKeySig, true
	}
	if !s.canSign {
		return nil, false
	}
	k := s.prov.taprootKey([32]byte(outKey))
	if k == nil {
		return nil, false
	}
	ht := byte(s.hashType)
	h, err := txscript.CalcTaprootSigHash(s.hashes, ht, s.idx, nil)
	if err != nil {
		return nil, false
	}
	tweaked := tweakTaprootKey(k.priv)
	var aux [32]byte
	if _, err := rand.Read(aux[:]); err != nil {
		return nil, false
	}
	sig, err := schnorr.Sign(tweaked, h[:], schnorr.CustomNonce(aux))
	if err != nil {
		return nil, false
	}
	out := sig.Serialize()
	if ht != byte(txscript.SigHashDefault) {
		out = append(out, ht)
	}
	s.data.tapKeySig = out
	return out, true
}

// tweakTaprootKey returns the BIP341 output key's private key for an
// internal key with no script tree: the even-Y form of the key plus the
// tap tweak.
func tweakTaprootKey(priv *btcec.PrivateKey) *btcec.PrivateKey {
	pub := priv.PubKey().SerializeCompressed()
	d := priv.Key
	if pub[0] == 0x03 {
		d.Negate()
	}
	t := txscript.TapTweakHash(pub[1:], nil)
	var tweak btcec.ModNScalar
	tweak.SetBytes(&t)
	d.Add(&tweak)
	return btcec.PrivKeyFromScalar(&d)
}

// produce builds the input's satisfaction of pkScript (Core's
// ProduceSignature) into s.data and reports whether it is complete.
func (s *inputSigner) produce(pkScript []byte) bool {
	d := s.data
	if d.complete {
		return true
	}
	result, class, solved := s.signStep(pkScript, sigBase)
	p2sh := false
	var subscript []byte
	if solved && class == txscript.ScriptHashTy {
		subscript = result[0]
		d.redeemScript = subscript
		result, class, solved = s.signStep(subscript, sigBase)
		solved = solved && class != txscript.ScriptHashTy
		p2sh = true
	}
	switch {
	case solved && class == txscript.WitnessV0PubKeyHashTy:
		code := txscript.PayToPubKeyHashScript(result[0])
		result, _, solved = s.signStep(code, sigWitnessV0)
		d.witness, d.isWitness = result, true
		result = nil
	case solved && class == txscript.WitnessV0ScriptHashTy:
		ws := result[0]
		d.witnessScript = ws
		var sub txscript.ScriptClass
		result, sub, solved = s.signStep(ws, sigWitnessV0)
		solved = solved && sub != txscript.ScriptHashTy && sub != txscript.WitnessV0ScriptHashTy &&
			sub != txscript.WitnessV0PubKeyHashTy
		d.witness = append(result, ws)
		d.isWitness = true
		result = nil
	case class == txscript.WitnessV1TaprootTy && !p2sh:
		d.isWitness = true
		if solved {
			d.witness = result
		}
		result = nil
	case solved && class == txscript.WitnessUnknownTy:
		d.isWitness = true
	}
	if !d.isWitness {
		d.witness = nil
	}
	if p2sh {
		result = append(result, subscript)
	}
	d.scriptSig = pushAll(result)
	d.complete = solved && s.verifies(pkScript, d.scriptSig, d.witness) == nil
	return d.complete
}

// verifies checks a candidate satisfaction under the standard flags. A
// pay-to-anchor output needs nothing, as Core's interpreter has it.
func (s *inputSigner) verifies(pkScript, scriptSig []byte, witness [][]byte) error {
	in := &s.tx.TxIn[s.idx]
	saveSig, saveWit := in.SignatureScript, in.Witness
	in.SignatureScript, in.Witness = scriptSig, witness
	defer func() { in.SignatureScript, in.Witness = saveSig, saveWit }()
	if txscript.GetScriptClass(pkScript) == txscript.AnchorTy {
		if len(scriptSig) != 0 {
			return txscript.ErrWitnessMalleated
		}
		return nil
	}
	prev := wire.TxOut{Value: s.amount, PkScript: pkScript}
	return txscript.VerifyInput(s.tx, s.idx, &prev, txscript.StandardVerifyFlags, nil, s.hashes)
}

// extract reads the satisfaction the input already has (Core's
// DataFromTransaction): complete when it verifies, otherwise its
// redeem and witness scripts and the multisig signatures that check.
func (s *inputSigner) extract(pkScript []byte) *sigData {
	in := &s.tx.TxIn[s.idx]
	d := newSigData()
	d.scriptSig = in.SignatureScript
	d.witness = in.Witness
	if s.verifies(pkScript, in.SignatureScript, in.Witness) == nil {
		d.complete = true
		d.isWitness = len(in.Witness) > 0
		return d
	}
	stack := txscript.PushedData(in.SignatureScript)
	if !txscript.IsPushOnly(in.SignatureScript) {
		stack = nil
	}
	witness := in.Witness
	next := pkScript
	class := txscript.GetScriptClass(pkScript)
	sv := sigBase
	if class == txscript.ScriptHashTy && len(stack) > 0 && len(stack[len(stack)-1]) > 0 {
		next = stack[len(stack)-1]
		d.redeemScript = next
		class = txscript.GetScriptClass(next)
		stack = stack[:len(stack)-1]
	}
	if class == txscript.WitnessV0ScriptHashTy && len(witness) > 0 && len(witness[len(witness)-1]) > 0 {
		next = witness[len(witness)-1]
		d.witnessScript = next
		class = txscript.GetScriptClass(next)
		stack = witness[:len(witness)-1]
		sv = sigWitnessV0
	}
	if class == txscript.MultiSigTy && len(stack) > 0 {
		_, keys, _ := txscript.MultiSigInfo(next)
		// A satisfaction has at most one item per key after the dummy;
		// more only cost signature checks.
		if len(stack) > len(keys)+1 {
			stack = stack[:len(keys)+1]
		}
		last := 0
		for _, sig := range stack {
			for i := last; i < len(keys); i++ {
				if _, have := d.sigs[string(keys[i])]; have || s.checkECDSA(sig, keys[i], next, sv) {
					if !have {
						d.sigs[string(keys[i])] = sig
					}
					last = i + 1
					break
				}
			}
		}
	}
	return d
}

// pushAll encodes stack elements as a push-only script (Core's PushAll):
// small numbers as their opcodes, the rest as minimal pushes.
func pushAll(items [][]byte) []byte {
	b := txscript.NewScriptBuilder(0)
	for _, it := range items {
		b.AddData(it)
	}
	out, _ := b.Script()
	if out == nil {
		// Only an element over 520 bytes fails, and no script this
		// signer solves pushes one; keep the bytes anyway.
		var raw []byte
		for _, it := range items {
			raw = txscript.AppendPush(raw, it)
		}
		return raw
	}
	return out
}

// signLowR makes Core's low-R, low-S deterministic ECDSA signature.
func signLowR(priv *btcec.PrivateKey, hash []byte) []byte { return psbt.SignLowR(priv, hash) }
