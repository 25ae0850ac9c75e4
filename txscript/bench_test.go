package txscript

import (
	"crypto/sha256"
	"testing"

	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

type signedInput struct {
	name  string
	tx    *wire.MsgTx
	prev  wire.TxOut
	flags ScriptFlags
}

func testKey(i byte) *btcec.PrivateKey {
	var b [32]byte
	b[31] = i
	b[0] = 0x11
	k, _ := btcec.PrivKeyFromBytes(b[:])
	return k
}

func spendTx(prev wire.TxOut) *wire.MsgTx {
	return &wire.MsgTx{
		Version: 2,
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{1, 2, 3}, Index: 1},
			Sequence:         0xfffffffe,
		}},
		TxOut: []wire.TxOut{{Value: prev.Value - 1000, PkScript: PayToWitnessScript(0, make([]byte, 20))}},
	}
}

func ecdsaSig(k *btcec.PrivateKey, h [32]byte) []byte {
	return append(ecdsa.Sign(k, h[:]).Serialize(), byte(SigHashAll))
}

// makeSignedInputs builds one really signed input of each common type.
func makeSignedInputs(t testing.TB) []signedInput {
	flags := StandardVerifyFlags
	var out []signedInput

	k := testKey(1)
	pub := k.PubKey().SerializeCompressed()
	h160 := Hash160(pub)

	// P2PKH.
	prev := wire.TxOut{Value: 100000, PkScript: PayToPubKeyHashScript(h160[:])}
	tx := spendTx(prev)
	sh := CalcSignatureHash(prev.PkScript, uint32(SigHashAll), tx, 0)
	tx.TxIn[0].SignatureScript, _ = NewScriptBuilder(110).AddData(ecdsaSig(k, sh)).AddData(pub).Script()
	out = append(out, signedInput{"P2PKH", tx, prev, flags})

	// P2WPKH.
	prev = wire.TxOut{Value: 100000, PkScript: PayToWitnessScript(0, h160[:])}
	tx = spendTx(prev)
	hs := NewTxSigHashes(tx, []wire.TxOut{prev})
	sh = CalcWitnessSigHash(PayToPubKeyHashScript(h160[:]), hs, uint32(SigHashAll), 0, prev.Value)
	tx.TxIn[0].Witness = [][]byte{ecdsaSig(k, sh), pub}
	out = append(out, signedInput{"P2WPKH", tx, prev, flags})

	// P2WSH 2-of-3.
	keys := []*btcec.PrivateKey{testKey(2), testKey(3), testKey(4)}
	var pubs [][]byte
	for _, kk := range keys {
		pubs = append(pubs, kk.PubKey().SerializeCompressed())
	}
	ws, err := MultiSigScript(2, pubs)
	if err != nil {
		t.Fatal(err)
	}
	wsh := sha256.Sum256(ws)
	prev = wire.TxOut{Value: 100000, PkScript: PayToWitnessScript(0, wsh[:])}
	tx = spendTx(prev)
	hs = NewTxSigHashes(tx, []wire.TxOut{prev})
	sh = CalcWitnessSigHash(ws, hs, uint32(SigHashAll), 0, prev.Value)
	tx.TxIn[0].Witness = [][]byte{{}, ecdsaSig(keys[0], sh), ecdsaSig(keys[2], sh), ws}
	out = append(out, signedInput{"P2WSH-2of3", tx, prev, flags})

	// P2TR key path.
	kt := testKey(5)
	internal := schnorr.SerializePubKey(kt.PubKey())
	outKey, _, _ := ComputeTaprootOutputKey(internal, nil)
	prev = wire.TxOut{Value: 100000, PkScript: PayToWitnessScript(1, outKey[:])}
	tx = spendTx(prev)
	hs = NewTxSigHashes(tx, []wire.TxOut{prev})
	sh, err = CalcTaprootSigHash(hs, byte(SigHashDefault), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := kt.Key
	if kt.PubKey().SerializeCompressed()[0] == 0x03 {
		d.Negate()
	}
	tw := TapTweakHash(internal, nil)
	var tws btcec.ModNScalar
	tws.SetBytes(&tw)
	d.Add(&tws)
	sig, err := schnorr.Sign(btcec.PrivKeyFromScalar(&d), sh[:])
	if err != nil {
		t.Fatal(err)
	}
	tx.TxIn[0].Witness = [][]byte{sig.Serialize()}
	out = append(out, signedInput{"P2TR-keypath", tx, prev, flags})
	return out
}

// TestRealSignatures checks that real signatures verify and that a
// corrupted one does not, so the vector suites cannot pass vacuously.
func TestRealSignatures(t *testing.T) {
	cache := NewSigCache(100)
	for _, in := range makeSignedInputs(t) {
		hs := NewTxSigHashes(in.tx, []wire.TxOut{in.prev})
		if err := VerifyInput(in.tx, 0, &in.prev, in.flags, cache, hs); err != nil {
			t.Errorf("%s: %v", in.name, err)
		}
		// Again through the cache.
		if err := VerifyInput(in.tx, 0, &in.prev, in.flags, cache, hs); err != nil {
			t.Errorf("%s (cached): %v", in.name, err)
		}
		bad := *in.tx
		bad.TxOut = []wire.TxOut{{Value: in.tx.TxOut[0].Value - 1, PkScript: in.tx.TxOut[0].PkScript}}
		hs = NewTxSigHashes(&bad, []wire.TxOut{in.prev})
		if err := VerifyInput(&bad, 0, &in.prev, in.flags, cache, hs); err == nil {
			t.Errorf("%s: altered tx verified", in.name)
		}
	}
	if cache.Len() == 0 {
		t.Error("signature cache unused")
	}
	if hits, misses := cache.Stats(); hits == 0 || misses == 0 {
		t.Errorf("cache stats: %d hits, %d misses", hits, misses)
	}
}

func BenchmarkVerifyInput(b *testing.B) {
	for _, in := range makeSignedInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			hs := NewTxSigHashes(in.tx, []wire.TxOut{in.prev})
			e := NewEngine()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := e.Verify(in.tx, 0, &in.prev, in.flags, nil, hs); err != nil {
					b.Fatal(err)
				}
			}
		})
		// With a warm signature cache the check itself is skipped, which
		// shows what the engine costs on its own.
		b.Run(in.name+"-cached", func(b *testing.B) {
			hs := NewTxSigHashes(in.tx, []wire.TxOut{in.prev})
			cache := NewSigCache(10)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := VerifyInput(in.tx, 0, &in.prev, in.flags, cache, hs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func bigTx(n int) (*wire.MsgTx, []wire.TxOut) {
	tx := &wire.MsgTx{Version: 2}
	prevs := make([]wire.TxOut, n)
	for i := 0; i < n; i++ {
		tx.TxIn = append(tx.TxIn, wire.TxIn{
			PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{byte(i), byte(i >> 8)}, Index: uint32(i)},
			Sequence:         0xffffffff,
		})
		tx.TxOut = append(tx.TxOut, wire.TxOut{Value: int64(1000 + i), PkScript: PayToWitnessScript(0, make([]byte, 20))})
		prevs[i] = wire.TxOut{Value: 5000, PkScript: PayToWitnessScript(1, make([]byte, 32))}
	}
	return tx, prevs
}

// BenchmarkSigHash100 computes one signature hash per input of a
// 100-input transaction, including building the shared midstates.
func BenchmarkSigHash100(b *testing.B) {
	tx, prevs := bigTx(100)
	code := PayToPubKeyHashScript(make([]byte, 20))
	b.Run("BIP143", func(b *testing.B) {
		b.ReportAllocs()
		w := newHashWriter()
		var out [32]byte
		for i := 0; i < b.N; i++ {
			hs := NewTxSigHashes(tx, prevs)
			for j := range tx.TxIn {
				witnessV0SigHash(w, code, hs, j, 5000, uint32(SigHashAll), &out)
			}
		}
	})
	b.Run("BIP341", func(b *testing.B) {
		b.ReportAllocs()
		w := newHashWriter()
		var out [32]byte
		opts := TaprootSigHashOpts{CodeSepPos: 0xffffffff}
		for i := 0; i < b.N; i++ {
			hs := NewTxSigHashes(tx, prevs)
			for j := range tx.TxIn {
				if err := taprootSigHash(w, hs, j, byte(SigHashDefault), &opts, &out); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
