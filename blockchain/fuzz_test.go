package blockchain

import (
	"testing"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// FuzzSignetSolution feeds arbitrary bytes to the BIP325 solution parser.
func FuzzSignetSolution(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0})
	f.Add([]byte{1, 0x51, 1, 2, 0xaa, 0xbb})
	f.Add([]byte{0xfd, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		sig, wit, ok := parseSignetSolution(b)
		if !ok {
			return
		}
		// A successful parse re-serializes to the input.
		out := wire.AppendVarInt(nil, uint64(len(sig)))
		out = append(out, sig...)
		out = wire.AppendVarInt(out, uint64(len(wit)))
		for _, w := range wit {
			out = wire.AppendVarInt(out, uint64(len(w)))
			out = append(out, w...)
		}
		if string(out) != string(b) {
			t.Fatalf("round trip %x -> %x", b, out)
		}
	})
}

// FuzzTransactionChecks decodes a transaction and runs the context-free
// checks and the sigop counters on it, which must never panic.
func FuzzTransactionChecks(f *testing.F) {
	tx := validTx()
	f.Add(tx.Bytes())
	tx.TxIn[0].SignatureScript = []byte{0x4d, 0xff}
	tx.TxOut[0].PkScript = []byte{0x52, 0xae, 0x4e, 1, 0, 0}
	f.Add(tx.Bytes())
	f.Add([]byte{1, 0, 0, 0, 0, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var tx wire.MsgTx
		if _, err := tx.Decode(b); err != nil {
			return
		}
		_ = CheckTransaction(&tx)
		coins := make([]database.UtxoEntry, len(tx.TxIn))
		for i := range coins {
			if len(tx.TxOut) > 0 {
				coins[i].PkScript = tx.TxOut[0].PkScript
			}
		}
		_ = TxSigOpCost(&tx, coins, true, true)
		_, _ = CheckTxInputs(&tx, coins, 1000, 100)
		_ = IsFinalTx(&tx, 1000, 1000)
	})
}
