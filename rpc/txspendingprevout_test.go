package rpc

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestTxSpendingPrevOutObjectCheck: each output is checked as Core's
// RPCTypeCheckObj in strict mode does: txid then vout required with their
// types, and any other key refused by name.
func TestTxSpendingPrevOutObjectCheck(t *testing.T) {
	spender := wire.Hash{9}
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mempool = &MempoolBackend{
			SpentBy: func(op wire.OutPoint) (wire.Hash, bool, error) { return spender, op.Index == 1, nil },
		}
	})
	txid := (wire.Hash{1}).String()
	for _, tc := range []struct {
		out  map[string]any
		code ErrorCode
		msg  string
	}{
		{map[string]any{"txid": txid, "vout": 1, "unknown": 42}, ErrType, "Unexpected key unknown"},
		{map[string]any{"txid": 42, "vout": 0}, ErrType, "JSON value of type number for field txid is not of expected type string"},
		{map[string]any{"txid": txid, "vout": "0"}, ErrType, "JSON value of type string for field vout is not of expected type number"},
		{map[string]any{"txid": txid}, ErrType, "Missing vout"},
		{map[string]any{"vout": 3}, ErrType, "Missing txid"},
		{map[string]any{"txid": txid, "vout": -1}, ErrInvalidParam, "Invalid parameter, vout cannot be negative"},
	} {
		e := mustError(t, url, "gettxspendingprevout", []any{[]any{tc.out}}, tc.code)
		if e.Message != tc.msg {
			t.Errorf("%v: message %q, want %q", tc.out, e.Message, tc.msg)
		}
	}
	got := mustResult(t, url, "gettxspendingprevout", []any{[]any{map[string]any{"txid": txid, "vout": 1}}}).([]any)
	if len(got) != 1 || got[0].(map[string]any)["spendingtxid"] != spender.String() {
		t.Fatalf("result %v", got)
	}
}
