package chaingen

import (
	"testing"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// FuzzAppendSigChecks feeds arbitrary transactions and spent scripts to
// the signature benchmark's input parser: it must reject or accept them
// without panicking, and whatever it extracts must be safe to verify.
func FuzzAppendSigChecks(f *testing.F) {
	col, _ := collect(f, Config{Txs: 60, TxPerBlock: 60, Seed: 9, Keys: 16})
	for i := range col.Txs {
		tx := col.Txs[i].Tx
		f.Add(tx.AppendTo(nil, true), col.Txs[i].Prevs[0].PkScript)
	}
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, raw, pk []byte) {
		var tx wire.MsgTx
		if _, err := tx.Decode(raw); err != nil {
			return
		}
		prevs := make([]wire.TxOut, len(tx.TxIn))
		for i := range prevs {
			prevs[i] = wire.TxOut{Value: 1000, PkScript: pk}
		}
		st := SpendTx{Tx: &tx, Prevs: prevs}
		checks, _ := AppendSigChecks(nil, &st, txscript.NewTxSigHashes(&tx, prevs))
		for i := range checks {
			checks[i].Verify()
		}
	})
}
