package psbt

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// TestSignStandardScripts signs the fixture's P2WPKH, P2PKH, BIP86 key
// path, P2WSH multisig and P2SH-P2WPKH inputs with a Signer holding the
// keys and scripts (none of the fixture's signatures), finalizes, and
// checks the extracted transaction verifies.
func TestSignStandardScripts(t *testing.T) {
	f := newFixture(t)
	f.p.Inputs[3].WitnessScript, f.p.Inputs[4].RedeemScript = nil, nil
	s := NewSigner()
	for i, k := range f.keys {
		s.AddKey(pubOf(k), &KeyOrigin{Fingerprint: [4]byte{0xde, 0xad, 0xbe, byte(i)}, Path: []uint32{0x80000000, uint32(i)}}, k.Serialize())
	}
	s.AddScript(f.ws)
	s.AddScript(txscript.PayToWitnessScript(0, h160(pubOf(f.keys[5]))))
	xonly := pubOf(f.keys[2])[1:]
	outKey, _, _ := txscript.ComputeTaprootOutputKey(xonly, nil)
	s.AddTaproot(TaprootSpend{OutputKey: outKey, InternalKey: xonly})

	c := f.p.Copy()
	c.Sign(s, nil, false)
	if c.Inputs[3].WitnessScript == nil || c.Inputs[4].RedeemScript == nil {
		t.Fatal("scripts not filled in")
	}
	if len(c.Inputs[3].PartialSigs) != 2 || len(c.Inputs[3].Bip32) != 2 || len(c.Inputs[0].Bip32) != 1 {
		t.Fatalf("multisig input: %+v", c.Inputs[3])
	}
	if len(c.Inputs[2].TapKeySig) != 64 || len(c.Inputs[2].TapBip32) != 1 {
		t.Fatalf("taproot input: %+v", c.Inputs[2])
	}
	for i := range c.Inputs {
		if c.Inputs[i].IsFinal() {
			t.Fatalf("input %d finalized without finalize", i)
		}
	}
	if len(c.Outputs[0].Bip32) != 1 {
		t.Errorf("output derivations: %+v", c.Outputs[0].Bip32)
	}

	f.p.Sign(s, nil, true)
	tx, ok := f.p.Extract()
	if !ok {
		t.Fatal("not complete")
	}
	hashes := txscript.NewTxSigHashes(tx, f.spent)
	for i := range tx.TxIn {
		if err := txscript.VerifyInput(tx, i, &f.spent[i], txscript.StandardVerifyFlags, nil, hashes); err != nil {
			t.Errorf("input %d: %v", i, err)
		}
	}

	// Without the origins no derivations are written.
	c = newFixture(t).p
	s.HideOrigins = true
	c.Sign(s, nil, false)
	if len(c.Inputs[0].Bip32) != 0 || len(c.Inputs[2].TapBip32) != 0 || len(c.Inputs[0].PartialSigs) != 1 {
		t.Errorf("hidden origins: %+v", c.Inputs[0])
	}

	// A legacy input known only by its witness UTXO is not signed.
	c = newFixture(t).p
	o := f.spent[1]
	c.Inputs[1].NonWitnessUTXO, c.Inputs[1].WitnessUTXO = nil, &o
	c.Sign(s, nil, true)
	if len(c.Inputs[1].PartialSigs) != 0 || c.Inputs[1].IsFinal() || !c.Inputs[0].IsFinal() {
		t.Errorf("legacy input on a witness UTXO: %+v", c.Inputs[1])
	}

	// A PSBT asking for another hash type than requested is not signed.
	c = newFixture(t).p
	single := uint32(txscript.SigHashSingle)
	c.Inputs[0].SighashType = &single
	if err := c.Sign(s, nil, false); !errors.Is(err, ErrSighashMismatch) {
		t.Errorf("mismatch: %v", err)
	}
	if len(c.Inputs[0].PartialSigs) != 0 || len(c.Inputs[1].PartialSigs) != 1 {
		t.Errorf("sighash mismatch signed: %+v", c.Inputs[0])
	}
}

// tapFixture is one taproot output with two leaves, pk(B) and
// multi_a(2,C,D), spent by a one-input transaction; the internal key A
// is the fixture's too.
type tapFixture struct {
	p      *Packet
	spent  []wire.TxOut
	keys   [4][]byte // A, B, C, D private keys
	xs     [4][]byte
	leaves []TapLeafScript
	outKey [32]byte
	root   []byte
}

func newTapFixture(t *testing.T) *tapFixture {
	f := &tapFixture{}
	for i := range 4 {
		k := key(t, byte(0x40+i))
		f.keys[i] = k.Serialize()
		f.xs[i] = pubOf(k)[1:]
	}
	pkB := append(append([]byte{32}, f.xs[1]...), txscript.OP_CHECKSIG)
	multi := append(append([]byte{32}, f.xs[2]...), txscript.OP_CHECKSIG, 32)
	multi = append(append(multi, f.xs[3]...), txscript.OP_CHECKSIGADD, txscript.OP_2, txscript.OP_NUMEQUAL)
	hB, hM := txscript.TapLeafHash(0xc0, pkB), txscript.TapLeafHash(0xc0, multi)
	r := txscript.TapBranchHash(hB[:], hM[:])
	f.root = r[:]
	var odd bool
	f.outKey, odd, _ = txscript.ComputeTaprootOutputKey(f.xs[0], f.root)
	cb := func(sibling [32]byte) []byte {
		b := byte(0xc0)
		if odd {
			b |= 1
		}
		return append(append([]byte{b}, f.xs[0]...), sibling[:]...)
	}
	f.leaves = []TapLeafScript{{ControlBlock: cb(hM), Script: pkB, LeafVersion: 0xc0}, {ControlBlock: cb(hB), Script: multi, LeafVersion: 0xc0}}
	f.spent = []wire.TxOut{{Value: 70_000, PkScript: txscript.PayToWitnessScript(1, f.outKey[:])}}
	tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{9}}, Sequence: 0xfffffffd}},
		TxOut: []wire.TxOut{{Value: 69_000, PkScript: f.spent[0].PkScript}}}
	f.p = New(tx)
	f.p.Inputs[0].WitnessUTXO = &f.spent[0]
	return f
}

// signer knows the tree and the private keys of the listed key indices.
func (f *tapFixture) signer(priv ...int) *Signer {
	s := NewSigner()
	for i := range 4 {
		var k []byte
		for _, j := range priv {
			if j == i {
				k = f.keys[i]
			}
		}
		s.AddKey(append([]byte{2}, f.xs[i]...), &KeyOrigin{Fingerprint: [4]byte{byte(i)}, Path: []uint32{uint32(i)}}, k)
	}
	s.AddTaproot(TaprootSpend{OutputKey: f.outKey, InternalKey: f.xs[0], MerkleRoot: f.root, Leaves: f.leaves})
	return s
}

// verify checks the finalized input against its output.
func (f *tapFixture) verify(t *testing.T) [][]byte {
	t.Helper()
	tx, ok := f.p.Extract()
	if !ok {
		t.Fatal("not complete")
	}
	hashes := txscript.NewTxSigHashes(tx, f.spent)
	if err := txscript.VerifyInput(tx, 0, &f.spent[0], txscript.StandardVerifyFlags, nil, hashes); err != nil {
		t.Fatalf("verify: %v", err)
	}
	return tx.TxIn[0].Witness
}

// TestTapscriptPathFinalize signs and finalizes script path spends: the
// smaller pk() leaf wins when both leaves are satisfiable, the 2-of-2
// leaf is used when only its keys sign, and one of its keys alone does
// not complete the input.
func TestTapscriptPathFinalize(t *testing.T) {
	f := newTapFixture(t)
	f.p.Sign(f.signer(1, 2, 3), nil, true)
	w := f.verify(t)
	if len(w) != 3 || !bytes.Equal(w[1], f.leaves[0].Script) || !bytes.Equal(w[2], f.leaves[0].ControlBlock) {
		t.Fatalf("witness %x, want the pk() leaf", w)
	}

	f = newTapFixture(t)
	f.p.Sign(f.signer(2, 3), nil, true)
	w = f.verify(t)
	if len(w) != 4 || !bytes.Equal(w[2], f.leaves[1].Script) {
		t.Fatalf("witness %x, want the multi_a leaf", w)
	}

	f = newTapFixture(t)
	f.p.Sign(f.signer(3), nil, true)
	if f.p.Inputs[0].IsFinal() || len(f.p.Inputs[0].TapScriptSigs) != 1 {
		t.Fatalf("one of two keys: %+v", f.p.Inputs[0])
	}
	// The missing signature, added by a second signer, completes it.
	f.p.Sign(f.signer(2), nil, true)
	f.verify(t)

	// With the internal key the key path is used.
	f = newTapFixture(t)
	f.p.Sign(f.signer(0, 1), nil, true)
	if w := f.verify(t); len(w) != 1 || len(w[0]) != 64 {
		t.Fatalf("key path witness %x", w)
	}

	// A non-default hash type is recorded and signed with.
	f = newTapFixture(t)
	all := uint32(txscript.SigHashAll)
	f.p.Sign(f.signer(1), &all, true)
	if w := f.verify(t); len(w[0]) != 65 || w[0][64] != 1 {
		t.Fatalf("SIGHASH_ALL witness %x", w)
	}
}

// TestTaprootFieldsRoundTrip checks that the BIP371 fields a signer
// writes (internal key, merkle root, leaf scripts, script signatures,
// x-only derivations with leaf hashes, the output's tree) survive
// encoding and decoding.
func TestTaprootFieldsRoundTrip(t *testing.T) {
	f := newTapFixture(t)
	f.p.Sign(f.signer(1, 2), nil, false)
	in := f.p.Inputs[0]
	if len(in.TapInternalKey) != 32 || len(in.TapMerkleRoot) != 32 || len(in.TapLeafScripts) != 2 || len(in.TapScriptSigs) != 2 || len(in.TapBip32) != 4 {
		t.Fatalf("taproot fields: %+v", in)
	}
	for _, d := range in.TapBip32 {
		want := 1
		if bytes.Equal(d.XOnly, f.xs[0]) {
			want = 0
		}
		if len(d.LeafHashes) != want {
			t.Errorf("key %x: %d leaf hashes", d.XOnly, len(d.LeafHashes))
		}
	}
	out := f.p.Outputs[0]
	if len(out.TapInternalKey) != 32 || len(out.TapTree) != 2 || out.TapTree[0].Depth != 1 || len(out.TapBip32) != 4 {
		t.Fatalf("output taproot fields: %+v", out)
	}
	enc := f.p.Encode()
	p2, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p2.Encode(), enc) {
		t.Fatal("encoding not stable")
	}
	// The encoding orders records by key; compare in that order.
	sortTap := func(in *Input) {
		slices.SortFunc(in.TapLeafScripts, func(a, b TapLeafScript) int { return bytes.Compare(a.ControlBlock, b.ControlBlock) })
		slices.SortFunc(in.TapScriptSigs, func(a, b TapScriptSig) int { return bytes.Compare(a.XOnly, b.XOnly) })
	}
	sortTap(&in)
	sortTap(&p2.Inputs[0])
	if !reflect.DeepEqual(p2.Inputs[0].TapLeafScripts, in.TapLeafScripts) || !reflect.DeepEqual(p2.Inputs[0].TapScriptSigs, in.TapScriptSigs) ||
		!reflect.DeepEqual(p2.Outputs[0].TapTree, out.TapTree) || !bytes.Equal(p2.Inputs[0].TapMerkleRoot, in.TapMerkleRoot) {
		t.Fatalf("decoded fields differ:\n%+v\n%+v", p2.Inputs[0], in)
	}
	// The decoded PSBT finalizes through the script path.
	p2.Finalize()
	f.p = p2
	f.verify(t)
}

// TestFinalizeP2WPKHExactScript finalizes and analyzes a P2WPKH input
// whose script has no spare capacity, which slicing it as a 25-byte
// P2PKH script would run past.
func TestFinalizeP2WPKHExactScript(t *testing.T) {
	f := newFixture(t)
	w := *f.p.Inputs[0].WitnessUTXO
	w.PkScript = slices.Clip(bytes.Clone(w.PkScript))
	f.p.Inputs[0].WitnessUTXO = &w
	f.p.Analyze()
	if f.p.Finalize() {
		t.Fatal("unsigned PSBT finalized")
	}
}
