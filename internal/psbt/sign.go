package psbt

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// ErrSighashMismatch is returned by Sign when an input's PSBT asks for
// another signature hash type than the one requested (Core's message).
var ErrSighashMismatch = errors.New("Specified sighash value does not match value stored in PSBT")

// tapscriptLeafVersion is BIP342's leaf version, the only one signed for.
const tapscriptLeafVersion = 0xc0

// TaprootSpend is what a signer knows about one taproot output: its
// internal key, the merkle root of its script tree (nil for none) and
// its leaves with their control blocks.
type TaprootSpend struct {
	OutputKey   [32]byte
	InternalKey []byte
	MerkleRoot  []byte
	Leaves      []TapLeafScript
}

// Signer holds the keys, scripts, key origins and taproot trees a PSBT
// updater and signer may use (what descriptors describe).
type Signer struct {
	privs    map[string]*btcec.PrivateKey // by serialized public key
	xprivs   map[[32]byte]*btcec.PrivateKey
	pubs     map[[20]byte][]byte
	origins  map[string]KeyOrigin
	xorigins map[[32]byte]KeyOrigin
	scripts  map[[20]byte][]byte
	wscripts map[[32]byte][]byte
	taproot  map[[32]byte]*TaprootSpend
	// HideOrigins leaves BIP32 derivations out of the PSBT.
	HideOrigins bool
}

// NewSigner returns a Signer that knows nothing.
func NewSigner() *Signer {
	return &Signer{
		privs: map[string]*btcec.PrivateKey{}, xprivs: map[[32]byte]*btcec.PrivateKey{},
		pubs: map[[20]byte][]byte{}, origins: map[string]KeyOrigin{}, xorigins: map[[32]byte]KeyOrigin{},
		scripts: map[[20]byte][]byte{}, wscripts: map[[32]byte][]byte{}, taproot: map[[32]byte]*TaprootSpend{},
	}
}

// AddKey records a public key (33 or 65 bytes), its origin (nil when
// unknown) and its 32-byte private key (nil when unknown). The first
// origin recorded for a key stays.
func (s *Signer) AddKey(pub []byte, origin *KeyOrigin, priv []byte) {
	if len(pub) != 33 && len(pub) != 65 {
		return
	}
	s.pubs[txscript.Hash160(pub)] = pub
	var x [32]byte
	copy(x[:], pub[1:33])
	if origin != nil {
		if _, ok := s.origins[string(pub)]; !ok {
			s.origins[string(pub)] = *origin
		}
		if _, ok := s.xorigins[x]; !ok && len(pub) == 33 {
			s.xorigins[x] = *origin
		}
	}
	if len(priv) == 32 {
		k, _ := btcec.PrivKeyFromBytes(priv)
		s.privs[string(pub)] = k
		if len(pub) == 33 {
			s.xprivs[x] = k
		}
	}
}

// AddScript records a redeem or witness script.
func (s *Signer) AddScript(script []byte) {
	s.scripts[txscript.Hash160(script)] = script
	s.wscripts[sha256.Sum256(script)] = script
}

// AddTaproot records a taproot output's spending data; the first record
// for an output key stays.
func (s *Signer) AddTaproot(t TaprootSpend) {
	if _, ok := s.taproot[t.OutputKey]; !ok {
		s.taproot[t.OutputKey] = &t
	}
}

// Sign updates every non-final input with what s knows (scripts, key
// derivations, taproot data), adds the signatures its private keys can
// make, and finalizes the inputs that are then complete when finalize is
// set (Core's SignPSBTInput for each input). hashType is the requested
// signature hash type, nil for the default of each input type. Outputs
// get what s knows of their scripts too. An input whose PSBT asks for
// another hash type is left as it is and ErrSighashMismatch returned once
// the other inputs are done.
func (p *Packet) Sign(s *Signer, hashType *uint32, finalize bool) error {
	spent, allKnown := p.spentOutputs()
	v := p.newVerifier()
	var err error
	for i := range p.Inputs {
		if p.Inputs[i].IsFinal() {
			continue
		}
		ok, e := p.signInput(i, s, hashType, v, spent[i].Value, allKnown)
		if e != nil {
			err = e
		}
		if ok && finalize {
			p.finalizeInput(i, v)
		}
	}
	for i := range p.Outputs {
		p.updateOutput(i, s)
	}
	return err
}

// signInput is Sign for input i; it reports whether the input may be
// finalized (its UTXO is known and its hash type is the one requested).
func (p *Packet) signInput(i int, s *Signer, req *uint32, v *verifier, amount int64, allKnown bool) (bool, error) {
	in := &p.Inputs[i]
	utxo, ok := p.UTXO(i)
	if !ok {
		return false, nil
	}
	if in.NonWitnessUTXO != nil && in.NonWitnessUTXO.TxHash() != p.Tx.TxIn[i].PreviousOutPoint.Hash {
		return false, nil
	}
	isTaproot := txscript.GetScriptClass(utxo.PkScript) == txscript.WitnessV1TaprootTy
	var ht uint32
	switch {
	case req != nil:
		ht = *req
	case isTaproot:
		ht = uint32(txscript.SigHashDefault)
	default:
		ht = uint32(txscript.SigHashAll)
	}
	if in.SighashType != nil && *in.SighashType != ht {
		return false, ErrSighashMismatch
	}
	if (!isTaproot && ht != uint32(txscript.SigHashAll) && ht != uint32(txscript.SigHashDefault)) || (isTaproot && ht != uint32(txscript.SigHashDefault)) {
		t := ht
		in.SighashType = &t
	}
	if isTaproot {
		p.addWitnessUTXO(i, utxo)
		if allKnown {
			p.signTaproot(i, s, byte(ht), utxo.PkScript[2:34], v)
		}
		return true, nil
	}
	if ht == uint32(txscript.SigHashDefault) {
		ht = uint32(txscript.SigHashAll)
	}
	sg := &ecdsaSigner{p: p, i: i, s: s, ht: ht, v: v, amount: amount}
	script := utxo.PkScript
	if txscript.IsPayToScriptHash(script) {
		if len(in.RedeemScript) == 0 {
			in.RedeemScript = s.scripts[[20]byte(script[2:22])]
		}
		if len(in.RedeemScript) == 0 || !bytes.Equal(hashOf160(in.RedeemScript), script[2:22]) {
			return true, nil
		}
		script = in.RedeemScript
	}
	switch txscript.GetScriptClass(script) {
	case txscript.WitnessV0PubKeyHashTy:
		p.addWitnessUTXO(i, utxo)
		sg.witness = true
		sg.signKeyHash(script[2:22], txscript.PayToPubKeyHashScript(script[2:22]))
	case txscript.WitnessV0ScriptHashTy:
		prog := [32]byte(script[2:34])
		if len(in.WitnessScript) == 0 {
			in.WitnessScript = s.wscripts[prog]
		}
		if sum := sha256.Sum256(in.WitnessScript); len(in.WitnessScript) == 0 || sum != prog {
			return true, nil
		}
		p.addWitnessUTXO(i, utxo)
		sg.witness = true
		sg.signScript(in.WitnessScript)
		sg.signMiniscript(in.WitnessScript)
	default:
		// A legacy signature commits to no amount: the spent output
		// must come from its full previous transaction (Core signs
		// nothing on a witness UTXO alone then).
		if in.NonWitnessUTXO == nil {
			return false, nil
		}
		sg.signScript(script)
	}
	return true, nil
}

// addWitnessUTXO records the spent output of a segwit input whose PSBT
// has only the previous transaction, as Core's signer does for every
// input it solves as segwit.
func (p *Packet) addWitnessUTXO(i int, utxo wire.TxOut) {
	if p.Inputs[i].WitnessUTXO == nil {
		p.Inputs[i].WitnessUTXO = &utxo
	}
}

// ecdsaSigner signs one legacy or segwit v0 input.
type ecdsaSigner struct {
	p       *Packet
	i       int
	s       *Signer
	ht      uint32
	v       *verifier
	amount  int64
	witness bool
}

// signScript signs the keys of a P2PK, P2PKH or multisig script.
func (e *ecdsaSigner) signScript(script []byte) {
	switch txscript.GetScriptClass(script) {
	case txscript.PubKeyTy:
		e.sign(txscript.PushedData(script)[0], script)
	case txscript.PubKeyHashTy:
		e.signKeyHash(script[3:23], script)
	case txscript.MultiSigTy:
		_, keys, _ := txscript.MultiSigInfo(script)
		for _, k := range keys {
			e.sign(k, script)
		}
	}
}

// signKeyHash signs for the key hashing to h that the signer or the
// input knows.
func (e *ecdsaSigner) signKeyHash(h, scriptCode []byte) {
	pub := e.s.pubs[[20]byte(h)]
	if pub == nil {
		pub = e.p.Inputs[e.i].pubKeyFor(h)
	}
	if pub != nil {
		e.sign(pub, scriptCode)
	}
}

// sign records pub's derivation and, with its private key, its
// signature, unless the input has one already.
func (e *ecdsaSigner) sign(pub, scriptCode []byte) {
	in := &e.p.Inputs[e.i]
	if o, ok := e.s.origins[string(pub)]; ok && !e.s.HideOrigins {
		in.Bip32 = mergeDerivations(in.Bip32, []Derivation{{PubKey: bytes.Clone(pub), Origin: o}})
	}
	priv := e.s.privs[string(pub)]
	if priv == nil || containsBy(in.PartialSigs, func(x PartialSig) bool { return bytes.Equal(x.PubKey, pub) }) {
		return
	}
	var h [32]byte
	if e.witness {
		h = txscript.CalcWitnessSigHash(scriptCode, e.v.hashes, e.ht, e.i, e.amount)
	} else {
		h = txscript.CalcSignatureHash(scriptCode, e.ht, e.p.Tx, e.i)
	}
	sig := append(SignLowR(priv, h[:]), byte(e.ht))
	in.PartialSigs = append(in.PartialSigs, PartialSig{PubKey: bytes.Clone(pub), Sig: sig})
}

// signTaproot fills a taproot input's internal key, merkle root, leaves
// and derivations from s and signs the key path and every leaf it holds
// keys for.
func (p *Packet) signTaproot(i int, s *Signer, ht byte, outKey []byte, v *verifier) {
	in := &p.Inputs[i]
	if ts := s.taproot[[32]byte(outKey)]; ts != nil {
		if len(in.TapInternalKey) == 0 {
			in.TapInternalKey = bytes.Clone(ts.InternalKey)
		}
		if len(in.TapMerkleRoot) == 0 && len(ts.MerkleRoot) > 0 {
			in.TapMerkleRoot = bytes.Clone(ts.MerkleRoot)
		}
		for _, l := range ts.Leaves {
			if !containsBy(in.TapLeafScripts, func(x TapLeafScript) bool { return bytes.Equal(x.ControlBlock, l.ControlBlock) }) {
				in.TapLeafScripts = append(in.TapLeafScripts, l)
			}
		}
	}
	if !s.HideOrigins {
		p.addTapDerivations(in, s)
	}
	sign := func(priv *btcec.PrivateKey, opts *txscript.TaprootSigHashOpts) []byte {
		h, err := txscript.CalcTaprootSigHash(v.hashes, ht, i, opts)
		if err != nil {
			return nil
		}
		var aux [32]byte
		if _, err := rand.Read(aux[:]); err != nil {
			return nil
		}
		sig, err := schnorr.Sign(priv, h[:], schnorr.CustomNonce(aux))
		if err != nil {
			return nil
		}
		out := sig.Serialize()
		if ht != byte(txscript.SigHashDefault) {
			out = append(out, ht)
		}
		return out
	}
	if len(in.TapKeySig) == 0 && len(in.TapInternalKey) == 32 {
		if priv := s.xprivs[[32]byte(in.TapInternalKey)]; priv != nil {
			tweaked := tweakPrivKey(priv, in.TapMerkleRoot)
			if bytes.Equal(tweaked.PubKey().SerializeCompressed()[1:], outKey) {
				in.TapKeySig = sign(tweaked, nil)
			}
		}
	}
	for _, l := range in.TapLeafScripts {
		if l.LeafVersion != tapscriptLeafVersion {
			continue
		}
		leaf := txscript.TapLeafHash(l.LeafVersion, l.Script)
		signKey := func(x [32]byte) {
			priv := s.xprivs[x]
			if priv == nil || containsBy(in.TapScriptSigs, func(y TapScriptSig) bool { return bytes.Equal(y.XOnly, x[:]) && y.LeafHash == leaf }) {
				return
			}
			if sig := sign(priv, &txscript.TaprootSigHashOpts{LeafHash: &leaf, CodeSepPos: 0xffffffff}); sig != nil {
				in.TapScriptSigs = append(in.TapScriptSigs, TapScriptSig{XOnly: bytes.Clone(x[:]), LeafHash: leaf, Sig: sig})
			}
		}
		for _, x := range xOnlyPushes(l.Script) {
			signKey(x)
		}
		// Keys a miniscript leaf names by hash (pk_h).
		descriptor.SatisfyScript(l.Script, true, tapSigningSatisfier{s: s, in: in, sign: signKey})
	}
}

// addTapDerivations records the origins s knows of the internal key and
// of the keys in the input's leaves, with the leaves each appears in.
func (p *Packet) addTapDerivations(in *Input, s *Signer) {
	leaves := map[[32]byte][][32]byte{}
	var order [][32]byte
	note := func(x [32]byte) {
		if _, ok := leaves[x]; !ok {
			leaves[x] = nil
			order = append(order, x)
		}
	}
	if len(in.TapInternalKey) == 32 {
		note([32]byte(in.TapInternalKey))
	}
	for _, l := range in.TapLeafScripts {
		h := txscript.TapLeafHash(l.LeafVersion, l.Script)
		for _, x := range xOnlyPushes(l.Script) {
			note(x)
			if !containsBy(leaves[x], func(y [32]byte) bool { return y == h }) {
				leaves[x] = append(leaves[x], h)
			}
		}
	}
	for _, x := range order {
		o, ok := s.xorigins[x]
		if !ok {
			continue
		}
		in.TapBip32 = mergeTapDerivations(in.TapBip32, []TapDerivation{{XOnly: bytes.Clone(x[:]), LeafHashes: leaves[x], Origin: o}})
	}
}

// updateOutput adds what s knows about output i: its redeem and witness
// scripts, key derivations, and a taproot output's internal key and tree
// (Core's UpdatePSBTOutput).
func (p *Packet) updateOutput(i int, s *Signer) {
	out := &p.Outputs[i]
	script := p.Tx.TxOut[i].PkScript
	if txscript.IsPayToScriptHash(script) {
		r := s.scripts[[20]byte(script[2:22])]
		if r == nil {
			return
		}
		if len(out.RedeemScript) == 0 {
			out.RedeemScript = r
		}
		script = r
	}
	var keys [][]byte
	switch txscript.GetScriptClass(script) {
	case txscript.WitnessV0ScriptHashTy:
		ws := s.wscripts[[32]byte(script[2:34])]
		if ws == nil {
			return
		}
		if len(out.WitnessScript) == 0 {
			out.WitnessScript = ws
		}
		keys = scriptKeys(ws, s)
	case txscript.WitnessV1TaprootTy:
		ts := s.taproot[[32]byte(script[2:34])]
		if ts == nil {
			return
		}
		if len(out.TapInternalKey) == 0 {
			out.TapInternalKey = bytes.Clone(ts.InternalKey)
		}
		if len(out.TapTree) == 0 {
			out.TapTree = leavesToTree(ts.Leaves)
		}
		if !s.HideOrigins {
			in := Input{TapInternalKey: out.TapInternalKey, TapLeafScripts: ts.Leaves}
			p.addTapDerivations(&in, s)
			out.TapBip32 = mergeTapDerivations(out.TapBip32, in.TapBip32)
		}
		return
	default:
		keys = scriptKeys(script, s)
	}
	if s.HideOrigins {
		return
	}
	for _, k := range keys {
		if o, ok := s.origins[string(k)]; ok {
			out.Bip32 = mergeDerivations(out.Bip32, []Derivation{{PubKey: bytes.Clone(k), Origin: o}})
		}
	}
}

// scriptKeys returns the public keys a P2PK, P2PKH, P2WPKH or multisig
// script names that s can resolve.
func scriptKeys(script []byte, s *Signer) [][]byte {
	switch txscript.GetScriptClass(script) {
	case txscript.PubKeyTy:
		return [][]byte{txscript.PushedData(script)[0]}
	case txscript.PubKeyHashTy:
		if k := s.pubs[[20]byte(script[3:23])]; k != nil {
			return [][]byte{k}
		}
	case txscript.WitnessV0PubKeyHashTy:
		if k := s.pubs[[20]byte(script[2:22])]; k != nil {
			return [][]byte{k}
		}
	case txscript.MultiSigTy:
		_, keys, _ := txscript.MultiSigInfo(script)
		return keys
	}
	return nil
}

// leavesToTree gives the PSBT_OUT_TAP_TREE leaf list of leaves listed
// in their tree's depth-first order (as a descriptor expansion lists
// them): each leaf's depth is the length of its control block's path.
func leavesToTree(leaves []TapLeafScript) []TapLeaf {
	out := make([]TapLeaf, 0, len(leaves))
	for _, l := range leaves {
		n := len(l.ControlBlock) - 33
		if n < 0 || n%32 != 0 || n/32 > 128 {
			return nil
		}
		out = append(out, TapLeaf{Depth: byte(n / 32), LeafVersion: l.LeafVersion, Script: l.Script})
	}
	return out
}

// xOnlyPushes returns the 32-byte pushes of a tapscript, the keys it may
// check signatures for.
func xOnlyPushes(script []byte) [][32]byte {
	var out [][32]byte
	tok := txscript.MakeScriptTokenizer(script)
	for tok.Next() {
		if d := tok.Data(); len(d) == 32 {
			out = append(out, [32]byte(d))
		}
	}
	return out
}

// tweakPrivKey returns the private key of the BIP341 output key for an
// internal key and merkle root (nil for none): the even-Y form of the key
// plus the tap tweak.
func tweakPrivKey(priv *btcec.PrivateKey, root []byte) *btcec.PrivateKey {
	pub := priv.PubKey().SerializeCompressed()
	d := priv.Key
	if pub[0] == 0x03 {
		d.Negate()
	}
	t := txscript.TapTweakHash(pub[1:], root)
	var tweak btcec.ModNScalar
	tweak.SetBytes(&t)
	d.Add(&tweak)
	return btcec.PrivKeyFromScalar(&d)
}

// SignLowR makes a deterministic (RFC 6979) ECDSA signature with a low S
// and, as Core, grinds extra nonce data until R is below 2^255 too, so
// that signatures are 71 bytes or shorter. The result is DER without the
// hash type byte.
func SignLowR(priv *btcec.PrivateKey, hash []byte) []byte {
	key := priv.Key.Bytes()
	var e btcec.ModNScalar
	e.SetByteSlice(hash)
	var extra [32]byte
	for counter := uint32(0); ; counter++ {
		var ndata []byte
		if counter > 0 {
			binary.LittleEndian.PutUint32(extra[:], counter)
			ndata = extra[:]
		}
		for iter := uint32(0); ; iter++ {
			k := btcec.NonceRFC6979(key[:], hash, ndata, nil, iter)
			var R btcec.JacobianPoint
			btcec.ScalarBaseMultNonConst(k, &R)
			R.ToAffine()
			xb := R.X.Bytes()
			var r btcec.ModNScalar
			r.SetBytes(xb)
			if r.IsZero() {
				continue
			}
			// s = k^-1 (e + r*d)
			var sv btcec.ModNScalar
			sv.Mul2(&r, &priv.Key).Add(&e)
			kinv := *k
			kinv.InverseNonConst()
			sv.Mul(&kinv)
			k.Zero()
			if sv.IsZero() {
				continue
			}
			if sv.IsOverHalfOrder() {
				sv.Negate()
			}
			rb := r.Bytes()
			if rb[0] >= 0x80 {
				break // high R: grind with the next counter
			}
			return ecdsa.NewSignature(&r, &sv).Serialize()
		}
	}
}

// IsSegwit reports whether script is a witness program or P2SH of one
// whose redeem script s knows (Core's IsSegWitOutput).
func (s *Signer) IsSegwit(script []byte) bool {
	if _, _, ok := txscript.IsWitnessProgram(script); ok {
		return true
	}
	if txscript.IsPayToScriptHash(script) {
		if r, ok := s.scripts[[20]byte(script[2:22])]; ok {
			_, _, w := txscript.IsWitnessProgram(r)
			return w
		}
	}
	return false
}
