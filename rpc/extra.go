package rpc

import (
	"encoding/json"
	"time"

	"github.com/btcnode/btcd/wire"
)

// This file holds smaller bitcoind methods: the waitfor* family,
// gettxspendingprevout, getindexinfo, savemempool and echo/echojson.

// TipResult is the waitfornewblock/waitforblock/waitforblockheight result.
type TipResult struct {
	Hash   string `json:"hash"`
	Height int32  `json:"height"`
}

// SpendingPrevOut is one gettxspendingprevout entry.
type SpendingPrevOut struct {
	TxID         string `json:"txid"`
	Vout         uint32 `json:"vout"`
	SpendingTxID string `json:"spendingtxid,omitempty"`
}

// IndexInfo is one getindexinfo entry.
type IndexInfo struct {
	Synced          bool  `json:"synced"`
	BestBlockHeight int32 `json:"best_block_height"`
}

// waitPoll is how often the waitfor* methods look at the tip.
const waitPoll = 50 * time.Millisecond

// waitTip polls the tip until done accepts it, the timeout (milliseconds,
// 0: none, though never beyond the request time limit) passes, or the
// server stops, and returns the tip it last saw.
func waitTip(s *Server, timeoutMS int64, done func(h wire.Hash, height int32) bool) (any, error) {
	if timeoutMS < 0 {
		return nil, NewError(ErrInvalidParam, "Negative timeout")
	}
	limit := s.cfg.RequestTimeout
	if timeoutMS > 0 {
		limit = min(limit, time.Duration(timeoutMS)*time.Millisecond)
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		h, height, err := s.chain().BestBlock()
		if err != nil {
			return nil, err
		}
		if done(h, height) {
			return &TipResult{Hash: h.String(), Height: height}, nil
		}
		select {
		case <-deadline.C:
			return &TipResult{Hash: h.String(), Height: height}, nil
		case <-s.quit:
			return &TipResult{Hash: h.String(), Height: height}, nil
		case <-tick.C:
		}
	}
}

const tipResultHelp = `{
  "hash" : "hex",    (string) The blockhash
  "height" : n       (numeric) Block height
}`

func extraMethods() []*Method {
	timeoutArg := Arg{Name: "timeout", Type: ArgNum, Optional: true, Default: "0", Description: "Time in milliseconds to wait for a response. 0 indicates no timeout."}
	hasBest := chainHas(func(c *ChainBackend) bool { return c.BestBlock != nil })
	echo := func(name string) *Method {
		args := make([]Arg, 10)
		for i := range args {
			args[i] = Arg{Name: "arg" + string(rune('0'+i)), Type: ArgAny, Optional: true}
		}
		return &Method{
			Name: name, Category: "hidden",
			Description: "Simply echo back the input arguments. This command is for testing.\nIt will return an internal bug report when arg9='trigger_internal_bug' is passed.\nThe difference between echo and echojson is that echojson has argument conversion enabled in the client-side table in bitcoin-cli and the GUI. There is no server-side difference.",
			Args:        args,
			Result:      "any    (any) Returns whatever was passed in",
			Handler: func(_ *Server, p *Params) (any, error) {
				if r := p.Raw(9); r != nil && string(r) == `"trigger_internal_bug"` {
					return nil, NewError(ErrMisc, "Internal bug detected: request.params[9].get_str() != \"trigger_internal_bug\"")
				}
				out := make([]json.RawMessage, 0, 10)
				for i := 0; i < 10 && i < p.Len(); i++ {
					r := p.Raw(i)
					if r == nil {
						r = json.RawMessage("null")
					}
					out = append(out, r)
				}
				return out, nil
			},
		}
	}
	return []*Method{
		echo("echo"), echo("echojson"),
		{
			// Core passes the argument through a spawned process in a
			// multiprocess build; this node is one process, so it is
			// returned as it came.
			Name: "echoipc", Category: "hidden",
			Description: "Echo back the input argument, passing it through a spawned process in a multiprocess build.\nThis command is for testing.",
			Args:        []Arg{{Name: "arg", Type: ArgStr, Description: "The string to echo"}},
			Result:      `"str"    (string) The echoed string.`,
			Handler: func(_ *Server, p *Params) (any, error) {
				return p.Str(0, "")
			},
		},
		{
			Name: "waitfornewblock", Category: "blockchain",
			Description: "Waits for any new block and returns useful info about it.\n\nReturns the current block on timeout or exit.\n\nMake sure to use no RPC timeout (bitcoin-cli -rpcclienttimeout=0)",
			Args:        []Arg{timeoutArg},
			Result:      tipResultHelp,
			Available:   hasBest,
			Handler: func(s *Server, p *Params) (any, error) {
				ms, err := p.Int(0, 0)
				if err != nil {
					return nil, err
				}
				start, _, err := s.chain().BestBlock()
				if err != nil {
					return nil, err
				}
				return waitTip(s, ms, func(h wire.Hash, _ int32) bool { return h != start })
			},
		},
		{
			Name: "waitforblock", Category: "blockchain",
			Description: "Waits for a specific new block and returns useful info about it.\n\nReturns the current block on timeout or exit.\n\nMake sure to use no RPC timeout (bitcoin-cli -rpcclienttimeout=0)",
			Args:        []Arg{{Name: "blockhash", Type: ArgHex, Description: "Block hash to wait for."}, timeoutArg},
			Result:      tipResultHelp,
			Available:   hasBest,
			Handler: func(s *Server, p *Params) (any, error) {
				want, err := p.Hash(0, "blockhash")
				if err != nil {
					return nil, err
				}
				ms, err := p.Int(1, 0)
				if err != nil {
					return nil, err
				}
				return waitTip(s, ms, func(h wire.Hash, _ int32) bool { return h == want })
			},
		},
		{
			Name: "waitforblockheight", Category: "blockchain",
			Description: "Waits for (at least) block height and returns the height and hash\nof the current tip.\n\nReturns the current block on timeout or exit.\n\nMake sure to use no RPC timeout (bitcoin-cli -rpcclienttimeout=0)",
			Args:        []Arg{{Name: "height", Type: ArgNum, Description: "Block height to wait for."}, timeoutArg},
			Result:      tipResultHelp,
			Available:   hasBest,
			Handler: func(s *Server, p *Params) (any, error) {
				want, err := p.Int(0, 0)
				if err != nil {
					return nil, err
				}
				ms, err := p.Int(1, 0)
				if err != nil {
					return nil, err
				}
				return waitTip(s, ms, func(_ wire.Hash, h int32) bool { return int64(h) >= want })
			},
		},
		{
			Name: "gettxspendingprevout", Category: "blockchain",
			Description: "Scans the mempool to find transactions spending any of the given outputs",
			Args:        []Arg{{Name: "outputs", Type: ArgArr, Description: `The transaction outputs that we want to check, and within each, the txid (string) vout (numeric).`}},
			Result:      `[ { "txid" : "hex", "vout" : n, "spendingtxid" : "hex" (optional: the transaction id of the mempool transaction spending this output, omitted if unspent) }, ... ]`,
			Available:   mempoolHas(func(m *MempoolBackend) bool { return m.SpentBy != nil }),
			Handler:     handleTxSpendingPrevOut,
		},
		{
			Name: "getindexinfo", Category: "util",
			Description: "Returns the status of one or all available indices currently running in the node.",
			Args:        []Arg{{Name: "index_name", Type: ArgStr, Optional: true, Description: "Filter results for an index with a specific name."}},
			Result:      `{ "name" : { "synced" : true|false, "best_block_height" : n }, ... }`,
			Available:   chainHas(func(c *ChainBackend) bool { return c.IndexInfo != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				name, err := p.Str(0, "")
				if err != nil {
					return nil, err
				}
				all, err := s.chain().IndexInfo()
				if err != nil {
					return nil, err
				}
				if name == "" {
					return all, nil
				}
				out := map[string]IndexInfo{}
				if e, ok := all[name]; ok {
					out[name] = e
				}
				return out, nil
			},
		},
		{
			Name: "savemempool", Category: "blockchain",
			Description: "Dumps the mempool to disk. It will fail until the previous dump is fully loaded.",
			Result:      `{ "filename" : "str" }    (string) the directory and file where the mempool was saved`,
			Available:   mempoolHas(func(m *MempoolBackend) bool { return m.Save != nil }),
			Handler: func(s *Server, _ *Params) (any, error) {
				path, err := s.mempool().Save()
				if err != nil {
					return nil, err
				}
				return map[string]string{"filename": path}, nil
			},
		},
	}
}

func handleTxSpendingPrevOut(s *Server, p *Params) (any, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(p.Raw(0), &list); err != nil {
		return nil, NewError(ErrType, "outputs must be an array")
	}
	if len(list) == 0 {
		return nil, NewError(ErrInvalidParam, "Invalid parameter, outputs are missing")
	}
	out := make([]SpendingPrevOut, 0, len(list))
	for _, r := range list {
		txid, vout, err := spendingPrevOutParam(r)
		if err != nil {
			return nil, err
		}
		h, err := parseHashV(txid, "txid")
		if err != nil {
			return nil, err
		}
		if vout < 0 || vout > 0xffffffff {
			return nil, NewError(ErrInvalidParam, "Invalid parameter, vout cannot be negative")
		}
		e := SpendingPrevOut{TxID: h.String(), Vout: uint32(vout)}
		by, ok, err := s.mempool().SpentBy(wire.OutPoint{Hash: h, Index: uint32(vout)})
		if err != nil {
			return nil, err
		}
		if ok {
			e.SpendingTxID = by.String()
		}
		out = append(out, e)
	}
	return out, nil
}

// spendingPrevOutParam reads one gettxspendingprevout output with Core's
// strict object check: txid (string) and vout (number) are required, in
// that order, and any other key is refused.
func spendingPrevOutParam(r json.RawMessage) (txid string, vout int64, err error) {
	var o map[string]json.RawMessage
	if jsonKind(r) == "object" {
		if err := json.Unmarshal(r, &o); err != nil {
			return "", 0, NewError(ErrType, "Invalid parameter, each output must be an object")
		}
	}
	t, err := prevTxField(o, "txid", "string", false)
	if err != nil {
		return "", 0, err
	}
	v, err := prevTxField(o, "vout", "number", false)
	if err != nil {
		return "", 0, err
	}
	members, _ := orderedObject(r)
	for _, kv := range members {
		if kv.Key != "txid" && kv.Key != "vout" {
			return "", 0, Errorf(ErrType, "Unexpected key %s", kv.Key)
		}
	}
	if err := json.Unmarshal(v, &vout); err != nil {
		return "", 0, NewError(ErrType, "JSON integer out of range")
	}
	return rawString(t), vout, nil
}
