package rpc

import (
	"encoding/json"

	"github.com/btcnode/btcd/wire"
)

// DumpTxOutSetRequest is a dumptxoutset call, its target resolved.
type DumpTxOutSetRequest struct {
	// Path is the file as given; a relative path is under the network's
	// data directory.
	Path string
	// Target is the block whose UTXO set to write; nil means the tip.
	Target *wire.Hash
	// Snapshot asks for the highest block at which the network has an
	// assumeutxo snapshot ("rollback" without a rollback option).
	Snapshot bool
}

// DumpTxOutSetResult is the dumptxoutset result.
type DumpTxOutSetResult struct {
	CoinsWritten uint64 `json:"coins_written"`
	BaseHash     string `json:"base_hash"`
	BaseHeight   int32  `json:"base_height"`
	Path         string `json:"path"`
	TxOutSetHash string `json:"txoutset_hash"`
	NChainTx     int64  `json:"nchaintx"`
}

func dumpTxOutSetMethods() []*Method {
	return []*Method{{
		Name: "dumptxoutset", Category: "blockchain",
		Description: `Write the serialized UTXO set to a file, which loadtxoutset can load if the chain parameters list a snapshot at its height.

Unless "latest" is asked for, the node rolls its chain back to the requested block for the duration of the call and suspends network activity meanwhile; avoid other calls (above all those that touch block storage) until it returns.

This can take several minutes: use no RPC client timeout (btcctl/bitcoin-cli -rpcclienttimeout=0).`,
		Args: []Arg{
			{Name: "path", Type: ArgStr, Description: "Path to the output file. A relative path is taken from the data directory."},
			{Name: "type", Type: ArgStr, Optional: true, Default: `""`, Description: `The type of snapshot: "latest" for the current UTXO set, or "rollback" to roll the chain back temporarily and write the UTXO set of an earlier block. It may be left out when the "rollback" option names that block; "rollback" without the option means the latest block at which loadtxoutset accepts a snapshot.`},
			{Name: "options", Type: ArgObj, Optional: true, Description: `{ "rollback": n   (numeric or string, optional) Height or hash of the block to roll back to. The further from the tip, the longer this takes. }`},
			// bitcoind lets the options' keys be passed as named
			// arguments of the call itself.
			{Name: "rollback", Type: ArgAny, Optional: true, Hidden: true},
		},
		Result: `{
  "coins_written" : n,     (numeric) coins in the snapshot
  "base_hash" : "hex",     (string) the block whose UTXO set was written
  "base_height" : n,       (numeric) that block's height
  "path" : "str",          (string) absolute path of the snapshot file
  "txoutset_hash" : "hex", (string) hash_serialized_3 of the written set
  "nchaintx" : n           (numeric) transactions in the chain up to and including the base block
}`,
		Available: chainHas(func(c *ChainBackend) bool { return c.DumpTxOutSet != nil }),
		Handler:   handleDumpTxOutSet,
	}}
}

func handleDumpTxOutSet(s *Server, p *Params) (any, error) {
	path, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	typ, err := p.Str(1, "")
	if err != nil {
		return nil, err
	}
	var rollback json.RawMessage
	if raw := p.Raw(2); raw != nil {
		var opts map[string]json.RawMessage
		if err := json.Unmarshal(raw, &opts); err != nil {
			return nil, typeError(raw, "object")
		}
		if r, ok := opts["rollback"]; ok && !isNull(r) {
			rollback = r
		}
	}
	if raw := p.Raw(3); raw != nil {
		if rollback != nil {
			return nil, NewError(ErrInvalidParam, "Parameter rollback specified twice both as named argument and as an option")
		}
		rollback = raw
	}
	c := s.chain()
	req := DumpTxOutSetRequest{Path: path}
	switch {
	case rollback != nil:
		if typ != "" && typ != "rollback" {
			return nil, Errorf(ErrInvalidParam, `Invalid snapshot type "%s" specified with rollback option`, typ)
		}
		h, err := resolveHashOrHeight(c, rollback)
		if err != nil {
			return nil, err
		}
		req.Target = &h
	case typ == "rollback":
		req.Snapshot = true
	case typ == "latest":
	default:
		return nil, Errorf(ErrInvalidParam, `Invalid snapshot type "%s" specified. Please specify "rollback" or "latest"`, typ)
	}
	return c.DumpTxOutSet(req)
}
