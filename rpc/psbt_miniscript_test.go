package rpc

import (
	"testing"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/internal/psbt"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// processOne runs descriptorprocesspsbt on a PSBT spending one coin of
// desc (with the given sequence), from a node whose UTXO view holds it.
func processOne(t *testing.T, desc string, seq uint32, options ...any) (map[string]any, wire.TxOut) {
	t.Helper()
	ds, err := descriptor.Parse(desc, descriptor.RegTest, false)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := ds[0].Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	spent := wire.TxOut{Value: 5000, PkScript: outs[0].Script}
	op := wire.OutPoint{Hash: wire.Hash{0x51}}
	_, url := startServer(t, func(c *Config) {
		c.Backend.Chain = &ChainBackend{Coins: func(ops []wire.OutPoint, mempool bool) ([]*PrevOut, error) {
			out := make([]*PrevOut, len(ops))
			for i := range ops {
				if ops[i] == op {
					out[i] = &PrevOut{Value: spent.Value, PkScript: spent.PkScript}
				}
			}
			return out, nil
		}}
	})
	tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: op, Sequence: seq}},
		TxOut: []wire.TxOut{{Value: 4000, PkScript: []byte{txscript.OP_TRUE}}}}
	params := append([]any{psbt.New(tx).Base64(), []any{desc}}, options...)
	return mustResult(t, url, "descriptorprocesspsbt", params).(map[string]any), spent
}

// TestDescriptorProcessPSBTMiniscript signs and finalizes a P2WSH
// miniscript spend with a relative timelock through
// descriptorprocesspsbt: complete with the sequence the timelock needs,
// signed but not complete with a smaller one.
func TestDescriptorProcessPSBTMiniscript(t *testing.T) {
	k := newTestKey("miniscript", true)
	desc := "wsh(and_v(v:pk(" + k.wif + "),older(10)))"
	r, spent := processOne(t, desc, 10)
	if r["complete"] != true {
		t.Fatalf("sequence 10: %v", r)
	}
	tx := decodeTxMust(r["hex"].(string))
	if err := txscript.VerifyInput(tx, 0, &spent, txscript.StandardVerifyFlags, nil, txscript.NewTxSigHashes(tx, []wire.TxOut{spent})); err != nil {
		t.Fatalf("verify: %v", err)
	}
	r, _ = processOne(t, desc, 9)
	p, err := psbt.DecodeBase64(r["psbt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if r["complete"] != false || len(p.Inputs[0].PartialSigs) != 1 || p.Inputs[0].IsFinal() {
		t.Fatalf("sequence 9: %v %+v", r, p.Inputs[0])
	}
}

// TestDescriptorProcessPSBTNoGlobalXPubs checks that, as Core's,
// descriptorprocesspsbt does not add the descriptor's extended keys to
// the PSBT's global xpubs, even with bip32derivs: only the per-key
// derivations.
func TestDescriptorProcessPSBTNoGlobalXPubs(t *testing.T) {
	const tprv = "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK"
	r, _ := processOne(t, "wpkh("+tprv+"/84h/1h/0h/0/0)", 0xfffffffd, "ALL", true, false)
	p, err := psbt.DecodeBase64(r["psbt"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Inputs[0].Bip32) != 1 || len(p.Inputs[0].PartialSigs) != 1 || len(p.XPubs) != 0 {
		t.Fatalf("input %+v, global xpubs %+v", p.Inputs[0], p.XPubs)
	}
}

// TestAnalyzePSBTTaproot checks analyzepsbt on an unsigned taproot key
// path input as Core reports it: no "missing" object (Core's taproot
// signing records no missing signature) and the updater next.
func TestAnalyzePSBTTaproot(t *testing.T) {
	k := newTestKey("taproot analyze", true)
	out, _, ok := txscript.ComputeTaprootOutputKey(k.pub[1:], nil)
	if !ok {
		t.Fatal("no output key")
	}
	spent := wire.TxOut{Value: 5000, PkScript: txscript.PayToWitnessScript(1, out[:])}
	tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{0x52}}, Sequence: 0xfffffffd}},
		TxOut: []wire.TxOut{{Value: 4000, PkScript: []byte{txscript.OP_TRUE}}}}
	p := psbt.New(tx)
	p.Inputs[0].WitnessUTXO = &spent
	p.Inputs[0].TapInternalKey = k.pub[1:]
	_, url := startServer(t, nil)
	r := mustResult(t, url, "analyzepsbt", []any{p.Base64()}).(map[string]any)
	in := r["inputs"].([]any)[0].(map[string]any)
	if _, ok := in["missing"]; ok || in["next"] != "updater" || r["next"] != "updater" || in["has_utxo"] != true {
		t.Fatalf("analysis %v", r)
	}
}
