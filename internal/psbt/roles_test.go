package psbt

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// spendFixture is a transaction spending one output of every script type
// the finalizer knows, with the keys that control them.
type spendFixture struct {
	p     *Packet
	keys  []*btcec.PrivateKey
	prev  *wire.MsgTx // funds the P2PKH input (a full previous tx)
	spent []wire.TxOut
	ws    []byte // the 2-of-2 witness script
}

func key(t *testing.T, b byte) *btcec.PrivateKey {
	k, _ := btcec.PrivKeyFromBytes(bytes.Repeat([]byte{b}, 32))
	return k
}

func pubOf(k *btcec.PrivateKey) []byte { return k.PubKey().SerializeCompressed() }

func h160(b []byte) []byte { h := txscript.Hash160(b); return h[:] }

func newFixture(t *testing.T) *spendFixture {
	f := &spendFixture{}
	for i := range 6 {
		f.keys = append(f.keys, key(t, byte(i+1)))
	}
	k := f.keys
	wpkh := txscript.PayToWitnessScript(0, h160(pubOf(k[0])))
	pkh := txscript.PayToPubKeyHashScript(h160(pubOf(k[1])))
	xonly := pubOf(k[2])[1:]
	outKey, _, _ := txscript.ComputeTaprootOutputKey(xonly, nil)
	tr := txscript.PayToWitnessScript(1, outKey[:])
	f.ws, _ = txscript.MultiSigScript(2, [][]byte{pubOf(k[3]), pubOf(k[4])})
	wsh := sha256.Sum256(f.ws)
	p2wsh := txscript.PayToWitnessScript(0, wsh[:])
	nested := txscript.PayToWitnessScript(0, h160(pubOf(k[5])))
	shwpkh := txscript.PayToScriptHashScript(h160(nested))

	f.prev = &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{Sequence: 0xffffffff, SignatureScript: []byte{0x51}}},
		TxOut: []wire.TxOut{{Value: 1, PkScript: []byte{0x51}}, {Value: 20_000, PkScript: pkh}}}
	f.spent = []wire.TxOut{{Value: 10_000, PkScript: wpkh}, f.prev.TxOut[1], {Value: 30_000, PkScript: tr}, {Value: 40_000, PkScript: p2wsh}, {Value: 50_000, PkScript: shwpkh}}
	tx := &wire.MsgTx{Version: 2, TxOut: []wire.TxOut{{Value: 149_000, PkScript: wpkh}}}
	for i := range f.spent {
		op := wire.OutPoint{Hash: wire.Hash{byte(i + 1)}, Index: 0}
		if i == 1 {
			op = wire.OutPoint{Hash: f.prev.TxHash(), Index: 1}
		}
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: op, Sequence: 0xfffffffd})
	}
	f.p = New(tx)
	for i := range f.spent {
		if i == 1 {
			f.p.Inputs[i].NonWitnessUTXO = f.prev
			continue
		}
		o := f.spent[i]
		f.p.Inputs[i].WitnessUTXO = &o
	}
	f.p.Inputs[3].WitnessScript = f.ws
	f.p.Inputs[4].RedeemScript = nested
	return f
}

func ecdsaSig(k *btcec.PrivateKey, h [32]byte) []byte {
	return append(ecdsa.Sign(k, h[:]).Serialize(), byte(txscript.SigHashAll))
}

// sign adds every signature the fixture's inputs need.
func (f *spendFixture) sign(t *testing.T) {
	tx, k := f.p.Tx, f.keys
	hashes := txscript.NewTxSigHashes(tx, f.spent)
	in := f.p.Inputs
	code := func(pub []byte) []byte { return txscript.PayToPubKeyHashScript(h160(pub)) }
	in[0].PartialSigs = []PartialSig{{pubOf(k[0]), ecdsaSig(k[0], txscript.CalcWitnessSigHash(code(pubOf(k[0])), hashes, 1, 0, 10_000))}}
	in[1].PartialSigs = []PartialSig{{pubOf(k[1]), ecdsaSig(k[1], txscript.CalcSignatureHash(f.spent[1].PkScript, 1, tx, 1))}}
	h, err := txscript.CalcTaprootSigHash(hashes, 0, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := k[2].Key
	if pubOf(k[2])[0] == 3 {
		d.Negate()
	}
	tw := txscript.TapTweakHash(pubOf(k[2])[1:], nil)
	var s btcec.ModNScalar
	s.SetBytes(&tw)
	d.Add(&s)
	sig, err := schnorr.Sign(btcec.PrivKeyFromScalar(&d), h[:])
	if err != nil {
		t.Fatal(err)
	}
	in[2].TapKeySig = sig.Serialize()
	// Multisig signatures given in the opposite order to the script's keys.
	wh := txscript.CalcWitnessSigHash(f.ws, hashes, 1, 3, 40_000)
	in[3].PartialSigs = []PartialSig{{pubOf(k[4]), ecdsaSig(k[4], wh)}, {pubOf(k[3]), ecdsaSig(k[3], wh)}}
	in[4].PartialSigs = []PartialSig{{pubOf(k[5]), ecdsaSig(k[5], txscript.CalcWitnessSigHash(code(pubOf(k[5])), hashes, 1, 4, 50_000))}}
}

// TestFinalizeStandardScripts finalizes P2WPKH, P2PKH, taproot key path,
// P2WSH multisig and P2SH-P2WPKH inputs and checks that the extracted
// transaction verifies.
func TestFinalizeStandardScripts(t *testing.T) {
	f := newFixture(t)
	a := f.p.Analyze()
	if a.Next != RoleUpdater || !a.HasFee || a.Fee != 1_000 || a.VSize != 0 {
		t.Fatalf("unsigned analysis: %+v", a)
	}
	// The P2WPKH input lacks its key; the multisig its two signatures.
	if a.Inputs[0].Next != RoleUpdater || len(a.Inputs[0].MissingPubKeys) != 1 {
		t.Errorf("input 0: %+v", a.Inputs[0])
	}
	if a.Inputs[3].Next != RoleSigner || len(a.Inputs[3].MissingSigs) != 2 {
		t.Errorf("input 3: %+v", a.Inputs[3])
	}
	if f.p.Copy().Finalize() {
		t.Fatal("unsigned PSBT finalized")
	}
	f.sign(t)
	c := f.p.Copy()
	c.Finalize()
	for i := range c.Inputs {
		if !c.Inputs[i].IsFinal() {
			t.Logf("input %d does not finalize", i)
		}
	}
	a = f.p.Analyze()
	if a.Next != RoleFinalizer || a.VSize == 0 {
		t.Fatalf("signed analysis: %+v", a)
	}
	if !f.p.Finalize() {
		for i := range f.p.Inputs {
			t.Logf("input %d final: %v", i, f.p.Inputs[i].IsFinal())
		}
		t.Fatal("not complete")
	}
	if len(f.p.Inputs[0].PartialSigs) != 0 || f.p.Inputs[4].RedeemScript != nil {
		t.Error("finalized inputs keep their signing data")
	}
	tx, ok := f.p.Extract()
	if !ok {
		t.Fatal("extract")
	}
	hashes := txscript.NewTxSigHashes(tx, f.spent)
	for i := range tx.TxIn {
		if err := txscript.VerifyInput(tx, i, &f.spent[i], txscript.StandardVerifyFlags, nil, hashes); err != nil {
			t.Errorf("input %d: %v", i, err)
		}
	}
	if a = f.p.Analyze(); a.Next != RoleExtractor || a.VSize != tx.VirtualSize() {
		t.Fatalf("final analysis: %+v (vsize %d)", a, tx.VirtualSize())
	}
	// A finalized PSBT round-trips without the signing data.
	p2, err := Decode(f.p.Encode())
	if err != nil || !bytes.Equal(p2.Encode(), f.p.Encode()) {
		t.Fatalf("round trip: %v", err)
	}
}

// TestFinalizeRejectsBadSignature checks that a signature over the wrong
// hash does not finalize and leaves the input as it was.
func TestFinalizeRejectsBadSignature(t *testing.T) {
	f := newFixture(t)
	f.sign(t)
	f.p.Inputs[0].PartialSigs[0].Sig = f.p.Inputs[4].PartialSigs[0].Sig
	if f.p.Finalize() {
		t.Fatal("finalized with a bad signature")
	}
	if f.p.Inputs[0].IsFinal() || len(f.p.Inputs[0].PartialSigs) != 1 {
		t.Fatal("bad input changed")
	}
	if !f.p.Inputs[1].IsFinal() {
		t.Fatal("good input not finalized")
	}
}

// TestAnalyzeMissingScripts checks the redeem and witness script hashes
// analysis reports, and its invalid-PSBT errors.
func TestAnalyzeMissingScripts(t *testing.T) {
	f := newFixture(t)
	f.p.Inputs[3].WitnessScript = nil
	f.p.Inputs[4].RedeemScript = nil
	a := f.p.Analyze()
	ws := sha256.Sum256(f.ws)
	if !bytes.Equal(a.Inputs[3].MissingWitnessScript, ws[:]) || a.Inputs[3].Next != RoleUpdater {
		t.Errorf("input 3: %+v", a.Inputs[3])
	}
	if !bytes.Equal(a.Inputs[4].MissingRedeemScript, f.spent[4].PkScript[2:22]) {
		t.Errorf("input 4: %+v", a.Inputs[4])
	}
	f.p.Inputs[0].WitnessUTXO.Value = maxMoney + 1
	if a = f.p.Analyze(); a.Error != "PSBT is not valid. Input 0 has invalid value" || a.Next != RoleCreator || a.Inputs != nil {
		t.Errorf("invalid value: %+v", a)
	}
}
