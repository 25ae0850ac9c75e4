package rpc

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestSubmitPackage(t *testing.T) {
	tx := decodeTxMust(firstSpendHex)
	var gotRate atomic.Int64
	var gotCount atomic.Int64
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mempool = &MempoolBackend{
			SubmitPackage: func(txs []*wire.MsgTx, rate int64) (*SubmitPackageResult, error) {
				gotRate.Store(rate)
				gotCount.Store(int64(len(txs)))
				w := txs[0].WitnessHash().String()
				return &SubmitPackageResult{
					PackageMsg: "success",
					TxResults: map[string]*SubmitPackageTx{w: {TxID: txs[0].TxHash().String(), VSize: 100,
						Fees: &SubmitPackageFees{Base: FormatBTC(1000), EffectiveFeeRate: FormatBTC(10000), EffectiveIncludes: []string{w}}}},
					Replaced: SortTxIDs([]wire.Hash{{2}, {1}, {2}}),
				}, nil
			},
		}
	})
	v := mustResult(t, url, "submitpackage", []any{[]string{firstSpendHex}}).(map[string]any)
	if v["package_msg"] != "success" || gotRate.Load() != 10_000_000 || gotCount.Load() != 1 {
		t.Fatalf("%v rate %d", v, gotRate.Load())
	}
	res := v["tx-results"].(map[string]any)[tx.WitnessHash().String()].(map[string]any)
	fees := res["fees"].(map[string]any)
	if res["vsize"] != json.Number("100") || fees["base"] != json.Number("0.00001000") || len(fees["effective-includes"].([]any)) != 1 {
		t.Fatalf("%v", res)
	}
	if _, ok := res["error"]; ok {
		t.Fatal("error on success")
	}
	rep := v["replaced-transactions"].([]any)
	if len(rep) != 2 || rep[0] != (wire.Hash{1}).String() {
		t.Fatalf("replaced %v", rep)
	}
	mustResult(t, url, "submitpackage", []any{[]string{firstSpendHex}, 0})
	if gotRate.Load() != 0 {
		t.Fatal("maxfeerate 0 is no limit")
	}

	mustError(t, url, "submitpackage", []any{[]string{}}, ErrInvalidParam)
	many := make([]string, maxPackageCount+1)
	for i := range many {
		many[i] = firstSpendHex
	}
	if e := mustError(t, url, "submitpackage", []any{many}, ErrInvalidParam); e.Message != "Array must contain between 1 and 25 transactions." {
		t.Fatal(e.Message)
	}
	if e := mustError(t, url, "submitpackage", []any{[]string{"00zz"}}, ErrDeserialization); e.Message != "TX decode failed: 00zz Make sure the tx has at least one input." {
		t.Fatal(e.Message)
	}
	mustError(t, url, "submitpackage", []any{[]any{1}}, ErrType)
	mustError(t, url, "submitpackage", []any{[]string{firstSpendHex}, 1}, ErrInvalidParam)
	mustError(t, url, "submitpackage", []any{[]string{firstSpendHex}, true}, ErrType)

	// An OP_RETURN output with value exceeds the default burn limit of
	// zero, but not a raised one.
	burn := tx.Copy()
	burn.TxOut = append(burn.TxOut, wire.TxOut{Value: 5, PkScript: []byte{0x6a}})
	burnHex := hex.EncodeToString(burn.Bytes())
	if e := mustError(t, url, "submitpackage", []any{[]string{burnHex}}, ErrVerify); !strings.Contains(e.Message, "maxburnamount") {
		t.Fatal(e.Message)
	}
	mustResult(t, url, "submitpackage", []any{[]string{burnHex}, nil, 0.00000005})
}

func TestPrioritiseTransactionRPC(t *testing.T) {
	var gotDelta atomic.Int64
	var gotTxID atomic.Value
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mempool = &MempoolBackend{
			Prioritise: func(txid wire.Hash, delta int64) error {
				gotTxID.Store(txid)
				gotDelta.Store(delta)
				if delta == 7 {
					return NewError(ErrInvalidParam, "Priority is not supported for transactions with dust outputs.")
				}
				return nil
			},
			Prioritised: func() ([]PrioritisedTx, error) {
				return []PrioritisedTx{{TxID: wire.Hash{1}, Delta: 100}, {TxID: wire.Hash{2}, Delta: -5, InMempool: true, ModifiedFee: 995}}, nil
			},
		}
	})
	id := "1d1d4e24ed99057e84c3f80fd8fbec79ed9e1acee37da269356ecea000000000"
	if v := mustResult(t, url, "prioritisetransaction", []any{id, 0, 1000}); v != true {
		t.Fatalf("%v", v)
	}
	if gotDelta.Load() != 1000 || gotTxID.Load().(wire.Hash).String() != id {
		t.Fatal("arguments")
	}
	mustResult(t, url, "prioritisetransaction", map[string]any{"txid": id, "fee_delta": -3})
	if gotDelta.Load() != -3 {
		t.Fatal("named fee_delta")
	}
	if e := mustError(t, url, "prioritisetransaction", []any{id, 1, 0}, ErrInvalidParam); !strings.HasPrefix(e.Message, "Priority is no longer supported") {
		t.Fatal(e.Message)
	}
	mustError(t, url, "prioritisetransaction", []any{id, "foo", 0}, ErrType)
	mustError(t, url, "prioritisetransaction", map[string]any{"txid": id, "fee_delta": "foo"}, ErrType)
	mustError(t, url, "prioritisetransaction", []any{"foo", 0, 0}, ErrInvalidParam)
	mustError(t, url, "prioritisetransaction", []any{id, 0, 0, 0}, ErrMisc)
	mustError(t, url, "prioritisetransaction", []any{id, 0}, ErrMisc)
	mustError(t, url, "prioritisetransaction", []any{id, 0, 7}, ErrInvalidParam)

	v := mustResult(t, url, "getprioritisedtransactions", nil).(map[string]any)
	one := v[(wire.Hash{1}).String()].(map[string]any)
	two := v[(wire.Hash{2}).String()].(map[string]any)
	if one["fee_delta"] != json.Number("100") || one["in_mempool"] != false {
		t.Fatalf("%v", one)
	}
	if _, ok := one["modified_fee"]; ok {
		t.Fatal("modified_fee out of the pool")
	}
	if two["modified_fee"] != json.Number("995") || two["in_mempool"] != true {
		t.Fatalf("%v", two)
	}
	mustError(t, url, "getprioritisedtransactions", []any{true}, ErrMisc)
}

func TestGetOrphanTxs(t *testing.T) {
	tx := decodeTxMust(firstSpendHex)
	_, url := startServer(t, func(c *Config) {
		c.Backend.Mempool = &MempoolBackend{
			Orphans: func() ([]OrphanTx, error) {
				return []OrphanTx{{Tx: tx, Entry: 100, Expiration: 1300, From: []int64{0, 3}}}, nil
			},
		}
	})
	ids := mustResult(t, url, "getorphantxs", nil).([]any)
	if len(ids) != 1 || ids[0] != tx.TxHash().String() {
		t.Fatalf("%v", ids)
	}
	one := mustResult(t, url, "getorphantxs", []any{1}).([]any)[0].(map[string]any)
	checkShape(t, "orphan", one, shape{"txid": "string", "wtxid": "string", "bytes": "number", "vsize": "number",
		"weight": "number", "entry": "number", "expiration": "number", "from": "array"})
	if one["bytes"] != json.Number(itoa(tx.SerializeSize())) || one["weight"] != json.Number(itoa(int(tx.Weight()))) {
		t.Fatalf("%v", one)
	}
	if _, ok := one["hex"]; ok {
		t.Fatal("hex at verbosity 1")
	}
	two := mustResult(t, url, "getorphantxs", []any{2}).([]any)[0].(map[string]any)
	if two["hex"] != firstSpendHex {
		t.Fatalf("%v", two["hex"])
	}
	if e := mustError(t, url, "getorphantxs", []any{true}, ErrType); e.Message != "Verbosity was boolean but only integer allowed" {
		t.Fatal(e.Message)
	}
	for _, bad := range []int{-1, 3} {
		if e := mustError(t, url, "getorphantxs", []any{bad}, ErrInvalidParam); e.Message != "Invalid verbosity value "+itoa(bad) {
			t.Fatal(e.Message)
		}
	}
}
