package rpc

import (
	"encoding/hex"
	"testing"

	"github.com/btcnode/btcd/internal/psbt"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// TestDescriptorProcessPSBT signs P2WPKH, P2SH-P2WPKH, P2WSH multisig and
// P2PKH inputs with WIF keys given in descriptors, with coins from the
// node's UTXO view and, for the P2PKH coin, its previous transaction from
// the txindex or mempool, and checks the result fields,
// derivations, the finalize and bip32derivs options, and the signed
// transaction's scripts.
func TestDescriptorProcessPSBT(t *testing.T) {
	k1, k2, k3, k4 := newTestKey("dpp 1", true), newTestKey("dpp 2", true), newTestKey("dpp 3", true), newTestKey("dpp 4", false)
	wpkh := txscript.PayToWitnessScript(0, k1.hash())
	nested := txscript.PayToWitnessScript(0, k2.hash())
	nh := txscript.Hash160(nested)
	shwpkh := txscript.PayToScriptHashScript(nh[:])
	ms := multisigRedeemScript(1, [][]byte{k3.pub, k1.pub})
	msh := wshHash(ms)
	p2wsh := txscript.PayToWitnessScript(0, msh[:])
	pkh := txscript.PayToPubKeyHashScript(k4.hash())
	prev := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{Sequence: 0xffffffff, SignatureScript: []byte{0x51}}},
		TxOut: []wire.TxOut{{Value: 4000, PkScript: pkh}}}
	spent := []wire.TxOut{{Value: 1000, PkScript: wpkh}, {Value: 2000, PkScript: shwpkh}, {Value: 3000, PkScript: p2wsh}, prev.TxOut[0]}
	coins := map[wire.OutPoint]*PrevOut{}
	tx := &wire.MsgTx{Version: 2, TxOut: []wire.TxOut{{Value: 9000, PkScript: wpkh}}}
	for i := range spent {
		op := wire.OutPoint{Hash: wire.Hash{byte(i + 1)}}
		if i == 3 {
			op = wire.OutPoint{Hash: prev.TxHash()}
		}
		coins[op] = &PrevOut{Value: spent[i].Value, PkScript: spent[i].PkScript}
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: op, Sequence: 0xffffffff})
	}
	s, url := startServer(t, func(c *Config) {
		c.Backend.Chain = &ChainBackend{Coins: func(ops []wire.OutPoint, mempool bool) ([]*PrevOut, error) {
			out := make([]*PrevOut, len(ops))
			for i, op := range ops {
				out[i] = coins[op]
			}
			return out, nil
		}, Transaction: func(txid wire.Hash, _ *wire.Hash) (*TxLookup, error) {
			if txid == prev.TxHash() {
				return &TxLookup{Tx: prev}, nil
			}
			return nil, NewError(ErrInvalidAddress, "No such mempool or blockchain transaction")
		}}
	})
	b64 := psbt.New(tx).Base64()
	descs := []any{
		"wpkh([d34db33f/84h/1h/0h]" + k1.wif + ")",
		map[string]any{"desc": "sh(wpkh(" + k2.wif + "))"},
		"wsh(multi(1," + k3.wif + "," + hex.EncodeToString(k1.pub) + "))",
		"pkh(" + k4.wif + ")",
	}

	r := mustResult(t, url, "descriptorprocesspsbt", []any{b64, descs}).(map[string]any)
	checkShape(t, "descriptorprocesspsbt", r, shape{"psbt": "string", "complete": "boolean", "hex": "string"})
	if r["complete"] != true {
		t.Fatalf("not complete: %v", r)
	}
	signed := decodeTxMust(r["hex"].(string))
	hashes := txscript.NewTxSigHashes(signed, spent)
	for i := range signed.TxIn {
		if err := txscript.VerifyInput(signed, i, &spent[i], txscript.StandardVerifyFlags, nil, hashes); err != nil {
			t.Errorf("input %d: %v", i, err)
		}
	}
	// Signatures are low-R, as Core's: 71 bytes or shorter with the hash
	// type.
	if n := len(signed.TxIn[0].Witness[0]); n > 71 {
		t.Errorf("signature of %d bytes", n)
	}

	// Without finalizing: signatures and derivations, no hex.
	r = mustResult(t, url, "descriptorprocesspsbt", []any{b64, descs, "ALL", true, false}).(map[string]any)
	if r["complete"] != false || r["hex"] != nil {
		t.Fatalf("finalize=false: %v", r)
	}
	p, err := psbt.DecodeBase64(r["psbt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	in := p.Inputs[0]
	if len(in.PartialSigs) != 1 || len(in.Bip32) != 1 || hex.EncodeToString(in.Bip32[0].Origin.Fingerprint[:]) != "d34db33f" || len(in.Bip32[0].Origin.Path) != 3 {
		t.Fatalf("P2WPKH input: %+v", in)
	}
	if p.Inputs[3].NonWitnessUTXO == nil || p.Inputs[0].NonWitnessUTXO != nil {
		t.Fatalf("previous transactions: %+v", p.Inputs)
	}
	if len(p.Inputs[1].RedeemScript) == 0 || p.Inputs[1].WitnessUTXO == nil || len(p.Inputs[2].WitnessScript) == 0 || len(p.Inputs[3].PartialSigs) != 1 {
		t.Fatalf("inputs: %+v", p.Inputs[1:])
	}
	if len(p.Outputs[0].Bip32) != 1 {
		t.Errorf("output derivation: %+v", p.Outputs[0])
	}
	if p.Inputs[0].SighashType != nil {
		t.Error("SIGHASH_ALL recorded for a segwit v0 input")
	}

	// bip32derivs=false leaves the derivations out.
	r = mustResult(t, url, "descriptorprocesspsbt", []any{b64, descs, nil, false, false}).(map[string]any)
	if p, err = psbt.DecodeBase64(r["psbt"].(string)); err != nil {
		t.Fatal(err)
	}
	if len(p.Inputs[0].Bip32) != 0 || len(p.Inputs[0].PartialSigs) != 1 || len(p.Outputs[0].Bip32) != 0 {
		t.Fatalf("bip32derivs=false: %+v", p.Inputs[0])
	}

	// A requested hash type is recorded; an input asking for another is
	// left unsigned.
	r = mustResult(t, url, "descriptorprocesspsbt", []any{b64, descs, "SINGLE|ANYONECANPAY", true, false}).(map[string]any)
	p, _ = psbt.DecodeBase64(r["psbt"].(string))
	if ht := p.Inputs[0].SighashType; ht == nil || *ht != 0x83 || p.Inputs[0].PartialSigs[0].Sig[len(p.Inputs[0].PartialSigs[0].Sig)-1] != 0x83 {
		t.Fatalf("SINGLE|ANYONECANPAY: %+v", p.Inputs[0])
	}
	for _, ht := range []any{nil, "DEFAULT", "ALL", "SINGLE"} {
		e := mustError(t, url, "descriptorprocesspsbt", []any{r["psbt"], descs, ht}, ErrDeserialization)
		if e.Message != "Specified sighash value does not match value stored in PSBT" {
			t.Errorf("%v: %q", ht, e.Message)
		}
	}
	if r = mustResult(t, url, "descriptorprocesspsbt", []any{r["psbt"], descs, "SINGLE|ANYONECANPAY"}).(map[string]any); r["complete"] != true {
		t.Fatalf("matching hash type: %v", r)
	}

	// Without keys nothing is signed, but the UTXOs are added.
	r = mustResult(t, url, "descriptorprocesspsbt", []any{b64, []any{"addr(" + p2wshAddr(ms, &s.cfg.Net) + ")"}}).(map[string]any)
	if r["complete"] != false {
		t.Fatalf("no keys: %v", r)
	}

	e := mustError(t, url, "descriptorprocesspsbt", []any{b64, []any{"wpkh(nonsense)"}}, ErrInvalidAddress)
	if e.Message == "" {
		t.Error("empty message")
	}
	e = mustError(t, url, "descriptorprocesspsbt", []any{b64, descs, "ALLL"}, ErrInvalidParam)
	if e.Message != "'ALLL' is not a valid sighash parameter." {
		t.Errorf("%q", e.Message)
	}
	mustError(t, url, "descriptorprocesspsbt", []any{"AAAA", descs}, ErrDeserialization)
	mustError(t, url, "descriptorprocesspsbt", []any{b64, []any{true}}, ErrInvalidParam)
	mustError(t, url, "descriptorprocesspsbt", []any{b64}, ErrMisc)
}
