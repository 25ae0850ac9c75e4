package rpc

import (
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestGetTxOutSetInfoQuery checks what the gettxoutsetinfo handler passes
// to the backend: the hash type, use_index, and a block resolver only when
// hash_or_height is given, resolving heights and hashes with bitcoind's
// errors.
func TestGetTxOutSetInfoQuery(t *testing.T) {
	f := newFakeChain()
	var got TxOutSetQuery
	var resolved wire.Hash
	var resolveErr error
	_, url := startServer(t, func(c *Config) {
		c.Backend.Chain = f.backend()
		c.Backend.Chain.TxOutSetInfo = func(q TxOutSetQuery) (*TxOutSetInfo, error) {
			got = q
			if q.ForBlock != nil {
				resolved, resolveErr = q.ForBlock()
				if resolveErr != nil {
					return nil, resolveErr
				}
			}
			return &TxOutSetInfo{TotalAmount: FormatBTC(0)}, nil
		}
	})
	mustResult(t, url, "gettxoutsetinfo", []any{})
	if got.HashType != "hash_serialized_3" || !got.UseIndex || got.ForBlock != nil {
		t.Fatalf("defaults: %+v", got)
	}
	mustResult(t, url, "gettxoutsetinfo", []any{"muhash", nil, false})
	if got.HashType != "muhash" || got.UseIndex || got.ForBlock != nil {
		t.Fatalf("muhash, no block, use_index false: %+v", got)
	}
	mustResult(t, url, "gettxoutsetinfo", []any{"none", 0})
	if resolved != f.hashes[0] {
		t.Fatalf("height 0 resolved to %v", resolved)
	}
	mustResult(t, url, "gettxoutsetinfo", []any{"none", f.hashes[1].String()})
	if resolved != f.hashes[1] {
		t.Fatalf("hash resolved to %v", resolved)
	}
	if e := mustError(t, url, "gettxoutsetinfo", []any{"none", 5}, ErrInvalidParam); e.Message != "Target block height 5 after current tip 1" {
		t.Errorf("height past the tip: %s", e.Message)
	}
	if e := mustError(t, url, "gettxoutsetinfo", []any{"sha1"}, ErrInvalidParam); e.Message != "sha1 is not a valid hash_type" {
		t.Errorf("bad hash type: %s", e.Message)
	}
	mustError(t, url, "gettxoutsetinfo", []any{"none", nil, "yes"}, ErrType)
}

// TestDumpTxOutSetArgs checks how dumptxoutset's type, options object
// and named rollback argument become the backend request.
func TestDumpTxOutSetArgs(t *testing.T) {
	f := newFakeChain()
	var got DumpTxOutSetRequest
	_, url := startServer(t, func(c *Config) {
		c.Backend.Chain = f.backend()
		c.Backend.Chain.DumpTxOutSet = func(req DumpTxOutSetRequest) (*DumpTxOutSetResult, error) {
			got = req
			return &DumpTxOutSetResult{Path: req.Path}, nil
		}
	})
	mustResult(t, url, "dumptxoutset", []any{"a.dat", "latest"})
	if got.Path != "a.dat" || got.Target != nil || got.Snapshot {
		t.Fatalf("latest: %+v", got)
	}
	mustResult(t, url, "dumptxoutset", []any{"a.dat", "rollback"})
	if got.Target != nil || !got.Snapshot {
		t.Fatalf("rollback without a height: %+v", got)
	}
	for _, params := range []any{
		[]any{"a.dat", "rollback", map[string]any{"rollback": 0}},
		[]any{"a.dat", "", map[string]any{"rollback": 0}},
		[]any{"a.dat", nil, map[string]any{"rollback": f.hashes[0].String()}},
		map[string]any{"path": "a.dat", "rollback": 0},
		map[string]any{"args": []any{"a.dat"}, "rollback": 0},
	} {
		got = DumpTxOutSetRequest{}
		mustResult(t, url, "dumptxoutset", params)
		if got.Target == nil || *got.Target != f.hashes[0] || got.Snapshot {
			t.Fatalf("%v: %+v", params, got)
		}
	}
	for _, c := range []struct {
		params any
		code   ErrorCode
		msg    string
	}{
		{[]any{"a.dat", "bogus"}, ErrInvalidParam, `Invalid snapshot type "bogus" specified. Please specify "rollback" or "latest"`},
		{[]any{"a.dat", "latest", map[string]any{"rollback": 0}}, ErrInvalidParam, `Invalid snapshot type "latest" specified with rollback option`},
		{[]any{"a.dat", "", map[string]any{"rollback": 9}}, ErrInvalidParam, "Target block height 9 after current tip 1"},
		{[]any{"a.dat", "", map[string]any{"rollback": "zz"}}, ErrInvalidParam, "hash_or_height must be of length 64 (not 2, for 'zz')"},
		{map[string]any{"path": "a.dat", "options": map[string]any{"rollback": 0}, "rollback": 1}, ErrInvalidParam, "Parameter rollback specified twice"},
		{[]any{"a.dat", "latest", "x"}, ErrType, ""},
	} {
		e := mustError(t, url, "dumptxoutset", c.params, c.code)
		if !strings.HasPrefix(e.Message, c.msg) {
			t.Errorf("%v: %q, want %q", c.params, e.Message, c.msg)
		}
	}
}
