package rpc

import (
	"encoding/hex"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestSendRawTransactionMaxBurn: an OP_RETURN output carrying value is
// refused unless maxburnamount allows it, as in Core.
func TestSendRawTransactionMaxBurn(t *testing.T) {
	sent := 0
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mempool = &MempoolBackend{Send: func(m *wire.MsgTx, rate int64) (wire.Hash, error) {
			sent++
			return m.TxHash(), nil
		}}
	})
	tx := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{1}}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: 100_000, PkScript: []byte{0x6a, 0x01, 0x01}}}}
	raw := hex.EncodeToString(tx.Bytes())
	e := mustError(t, url, "sendrawtransaction", []any{raw}, ErrVerify)
	if e.Message != "Unspendable output exceeds maximum configured by user (maxburnamount)" {
		t.Errorf("%q", e.Message)
	}
	mustError(t, url, "sendrawtransaction", []any{raw, 0, 0.00099999}, ErrVerify)
	mustResult(t, url, "sendrawtransaction", []any{raw, 0, 0.001})
	if sent != 1 {
		t.Fatalf("sent %d transactions, want 1", sent)
	}
}
