package rpc

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestBtcdExtraMethods(t *testing.T) {
	chain := &wsChain{filter: &BlockFilter{Filter: "0142", Header: wire.Hash{0xab}.String()}}
	chain.add()
	chain.add()
	var gotLoc []wire.Hash
	var gotStop wire.Hash
	_, url := startServer(t, func(c *Config) {
		c.Backend = Backend{
			Chain: chain.backend(),
			Btcd: &BtcdBackend{
				Info: func() (*BtcdInfo, error) {
					return &BtcdInfo{Version: 1, ProtocolVersion: 70016, Blocks: 1, Connections: 3, Difficulty: 1, RelayFee: "0.00001000"}, nil
				},
				LocateHeaders: func(loc []wire.Hash, stop wire.Hash) ([]wire.BlockHeader, error) {
					gotLoc, gotStop = loc, stop
					return []wire.BlockHeader{chain.blocks[1].Header}, nil
				},
				Net: 0xdab5bffa,
			},
		}
	})

	info := mustResult(t, url, "getinfo", []any{}).(map[string]any)
	checkShape(t, "getinfo", info, shape{"version": "number", "protocolversion": "number", "blocks": "number", "timeoffset": "number",
		"connections": "number", "proxy": "string", "difficulty": "number", "testnet": "boolean", "relayfee": "number", "errors": "string"})
	if info["version"].(json.Number) != "260200" {
		t.Errorf("getinfo version %v", info["version"])
	}

	hdrs := mustResult(t, url, "getheaders", []any{[]string{chain.hashes[0].String()}, ""}).([]any)
	if len(hdrs) != 1 || hdrs[0] != hex.EncodeToString(chain.blocks[1].Header.AppendTo(nil)) {
		t.Fatalf("getheaders %v", hdrs)
	}
	if len(gotLoc) != 1 || gotLoc[0] != chain.hashes[0] || gotStop != (wire.Hash{}) {
		t.Fatalf("locator %v stop %v", gotLoc, gotStop)
	}
	mustResult(t, url, "getheaders", []any{[]string{}, chain.hashes[1].String()})
	if gotStop != chain.hashes[1] {
		t.Fatalf("stop %v", gotStop)
	}
	if e := mustError(t, url, "getheaders", []any{[]string{"xyz"}, ""}, ErrDeserialization); e.Message != `Argument must be hexadecimal string (not "xyz")` {
		t.Fatal(e.Message)
	}

	// Without the filter index, btcd's error.
	_, noIndex := startServer(t, func(c *Config) {
		cb := chain.backend()
		cb.BlockFilter = nil
		c.Backend = Backend{Chain: cb}
	})
	for _, m := range []string{"getcfilter", "getcfilterheader"} {
		if e := mustError(t, noIndex, m, []any{chain.hashes[1].String(), 0}, ErrInvalidAddress); e.Message != "The CF index must be enabled for this command" {
			t.Fatal(e.Message)
		}
	}
	if got := mustResult(t, url, "getcfilter", []any{chain.hashes[1].String(), 0}); got != "0142" {
		t.Fatalf("getcfilter %v", got)
	}
	if got := mustResult(t, url, "getcfilterheader", []any{chain.hashes[1].String(), 0}); got != chain.filter.Header {
		t.Fatalf("getcfilterheader %v", got)
	}
	if e := mustError(t, url, "getcfilter", []any{wire.Hash{1}.String(), 0}, ErrInvalidAddress); e.Message != "Block not found" {
		t.Fatal(e.Message)
	}
	mustError(t, url, "getcfilter", []any{"nothex", 0}, ErrDeserialization)

	if e := mustError(t, url, "searchrawtransactions", []any{"bcrt1qxyz"}, ErrMisc); e.Message != "Address index must be enabled (--addrindex)" {
		t.Fatal(e.Message)
	}
	bb := mustResult(t, url, "getbestblock", []any{}).(map[string]any)
	if bb["hash"] != chain.hashes[1].String() || bb["height"].(json.Number) != "1" {
		t.Fatalf("getbestblock %v", bb)
	}
	if n := mustResult(t, url, "getcurrentnet", []any{}).(json.Number); n != "3669344250" {
		t.Fatalf("getcurrentnet %v", n)
	}
	v := mustResult(t, url, "version", []any{}).(map[string]any)
	api := v["btcdjsonrpcapi"].(map[string]any)
	if api["versionstring"] != "1.3.0" || api["major"].(json.Number) != "1" || api["minor"].(json.Number) != "3" {
		t.Fatalf("version %v", v)
	}
}

func TestBtcdExtraUnavailable(t *testing.T) {
	_, url := startServer(t, nil)
	for _, m := range []string{"getinfo", "getheaders", "getcurrentnet", "getbestblock", "getcfilter"} {
		mustError(t, url, m, []any{}, ErrMethodNotFound)
	}
	// version needs nothing from the node.
	mustResult(t, url, "version", []any{})
}
