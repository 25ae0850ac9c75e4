package rpc

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/wire"
)

// scanChain is the fake two-block chain with a filter index.
func scanChain(f *fakeChain) *ChainBackend {
	c := f.backend()
	c.BlockFilters = func(ctx context.Context, _ string, start, stop int32, visit func(wire.Hash, []byte) error) error {
		for h := start; h <= stop; h++ {
			var prev [][]byte
			if h == 1 {
				prev = [][]byte{f.blocks[0].Transactions[0].TxOut[0].PkScript}
			}
			if err := visit(f.hashes[h], blockfilter.BuildBasic(f.blocks[h], prev).Bytes()); err != nil {
				return err
			}
		}
		return nil
	}
	return c
}

func TestScanBlocks(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend.Chain = scanChain(f) })
	genesisSPK := hex.EncodeToString(f.blocks[0].Transactions[0].TxOut[0].PkScript)
	cbSPK := hex.EncodeToString(f.blocks[1].Transactions[0].TxOut[0].PkScript)

	v := mustResult(t, url, "scanblocks", []any{"start", []string{"raw(" + genesisSPK + ")"}})
	checkShape(t, "scanblocks", v, shape{"from_height": "number", "to_height": "number", "relevant_blocks": "array", "completed": "boolean"})
	r := v.(map[string]any)
	got := r["relevant_blocks"].([]any)
	// Created in the genesis block, spent in block 1.
	if len(got) != 2 || got[0] != f.hashes[0].String() || got[1] != f.hashes[1].String() || r["to_height"] != json.Number("1") || r["completed"] != true {
		t.Fatalf("scan: %v", r)
	}
	r = mustResult(t, url, "scanblocks", []any{"start", []any{map[string]any{"desc": "raw(" + cbSPK + ")"}}, 1, 1, "basic",
		map[string]any{"filter_false_positives": true}}).(map[string]any)
	if got := r["relevant_blocks"].([]any); len(got) != 1 || got[0] != f.hashes[1].String() || r["from_height"] != json.Number("1") {
		t.Fatalf("scan of block 1: %v", r)
	}
	r = mustResult(t, url, "scanblocks", []any{"start", []string{"raw(" + cbSPK + ")"}, 0, 0}).(map[string]any)
	if got := r["relevant_blocks"].([]any); len(got) != 0 {
		t.Fatalf("scan of genesis for block 1's script: %v", r)
	}
	if v := mustResult(t, url, "scanblocks", []any{"status"}); v != nil {
		t.Errorf("status without a scan: %v", v)
	}
	if v := mustResult(t, url, "scanblocks", []any{"abort"}); v != false {
		t.Errorf("abort without a scan: %v", v)
	}
	for _, c := range []struct {
		params []any
		code   ErrorCode
		msg    string
	}{
		{[]any{"foobar"}, ErrInvalidParam, "Invalid action 'foobar'"},
		{[]any{"start", []string{"raw(51)"}, 0, 10, "extended"}, ErrInvalidAddress, "Unknown filtertype"},
		{[]any{"start", []string{"raw(51)"}, 100000000}, ErrMisc, "Invalid start_height"},
		{[]any{"start", []string{"raw(51)"}, 1, 0}, ErrMisc, "Invalid stop_height"},
		{[]any{"start", []string{"raw(51)"}, 0, 2}, ErrMisc, "Invalid stop_height"},
		{[]any{"start", []string{"addrx(x)"}}, ErrInvalidAddress, "is not a valid descriptor"},
		{[]any{"start", []string{"raw(51)"}, 0, 1, "basic", map[string]any{"filter_false_positives": 1}}, ErrType, "not of expected type bool"},
	} {
		if e := mustError(t, url, "scanblocks", c.params, c.code); !strings.Contains(e.Message, c.msg) {
			t.Errorf("%v: %q, want %q", c.params, e.Message, c.msg)
		}
	}

	// Without the index the method answers, with Core's error.
	_, url2 := startServer(t, func(c *Config) { c.Backend.Chain = f.backend() })
	if e := mustError(t, url2, "scanblocks", []any{"start", []string{"raw(51)"}}, ErrMisc); e.Message != "Index is not enabled for filtertype basic" {
		t.Errorf("no index: %q", e.Message)
	}
}

func TestGetDescriptorActivity(t *testing.T) {
	f := newFakeChain()
	genesisSPK := f.blocks[0].Transactions[0].TxOut[0].PkScript
	memTx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: f.blocks[1].Transactions[0].TxHash()}}},
		TxOut: []wire.TxOut{{Value: 77, PkScript: genesisSPK}}}
	_, url := startServer(t, func(c *Config) {
		c.Backend.Chain = scanChain(f)
		c.Backend.Chain.Coins = func(ops []wire.OutPoint, _ bool) ([]*PrevOut, error) {
			out := make([]*PrevOut, len(ops))
			for i, op := range ops {
				if op.Hash == f.blocks[1].Transactions[0].TxHash() {
					out[i] = &PrevOut{Value: 5000000000, PkScript: f.blocks[1].Transactions[0].TxOut[0].PkScript}
				}
			}
			return out, nil
		}
		c.Backend.Mempool = &MempoolBackend{Transactions: func() ([]*wire.MsgTx, error) { return []*wire.MsgTx{memTx}, nil }}
	})
	desc := "raw(" + hex.EncodeToString(genesisSPK) + ")"
	// Block order does not matter, duplicates count once.
	r := mustResult(t, url, "getdescriptoractivity", []any{[]string{f.hashes[1].String(), f.hashes[0].String(), f.hashes[1].String()}, []string{desc}, false}).(map[string]any)
	acts := r["activity"].([]any)
	if len(acts) != 2 {
		t.Fatalf("activity %v", r)
	}
	recv, spend := acts[0].(map[string]any), acts[1].(map[string]any)
	spkShape := shape{"asm": "string", "desc": "string", "hex": "string", "address": "string?", "type": "string"}
	checkShape(t, "receive", recv, shape{"type": "string", "amount": "number", "blockhash": "string", "height": "number", "txid": "string", "vout": "number", "output_spk": "object"})
	checkShape(t, "output_spk", recv["output_spk"], spkShape)
	checkShape(t, "spend", spend, shape{"type": "string", "amount": "number", "blockhash": "string", "height": "number", "spend_txid": "string",
		"spend_vin": "number", "prevout_txid": "string", "prevout_vout": "number", "prevout_spk": "object"})
	if recv["type"] != "receive" || recv["height"] != json.Number("0") || recv["amount"] != json.Number("50.00000000") ||
		spend["type"] != "spend" || spend["blockhash"] != f.hashes[1].String() || spend["spend_txid"] != f.blocks[1].Transactions[1].TxHash().String() {
		t.Fatalf("activity %v", acts)
	}
	// The mempool adds an unconfirmed receive, without block fields.
	r = mustResult(t, url, "getdescriptoractivity", []any{[]string{}, []string{desc}}).(map[string]any)
	acts = r["activity"].([]any)
	if len(acts) != 1 || acts[0].(map[string]any)["blockhash"] != nil || acts[0].(map[string]any)["txid"] != memTx.TxHash().String() {
		t.Fatalf("mempool activity %v", acts)
	}
	cbDesc := "raw(" + hex.EncodeToString(f.blocks[1].Transactions[0].TxOut[0].PkScript) + ")"
	r = mustResult(t, url, "getdescriptoractivity", []any{[]string{}, []string{cbDesc}, true}).(map[string]any)
	if acts = r["activity"].([]any); len(acts) != 1 || acts[0].(map[string]any)["type"] != "spend" || acts[0].(map[string]any)["height"] != nil {
		t.Fatalf("mempool spend %v", acts)
	}
	e := mustError(t, url, "getdescriptoractivity", []any{[]string{strings.Repeat("00", 32)}, []string{desc}}, ErrInvalidAddress)
	if e.Message != "Block not found" {
		t.Errorf("%q", e.Message)
	}
	mustError(t, url, "getdescriptoractivity", []any{[]string{f.hashes[0].String()}, []string{"addrx(1)"}}, ErrInvalidAddress)
	mustError(t, url, "getdescriptoractivity", []any{[]string{"12"}, []string{desc}}, ErrInvalidParam)
}
