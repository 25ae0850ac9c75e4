package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/wire"
)

// scanBlocksChunk is how many blocks' filters one backend call visits;
// progress is updated and an abort noticed between chunks.
const scanBlocksChunk = 1000

// blockScanState is a server's running scanblocks.
type blockScanState struct {
	mu       sync.Mutex
	progress int
	height   int32
	cancel   context.CancelFunc
}

// blockScans holds each server's running scanblocks (one at a time, as
// bitcoind): an entry exists exactly while a scan runs.
var blockScans sync.Map // *Server -> *blockScanState

const scanObjectsHelp = `Array of scan objects. Required for "start" action
Every scan object is either a string descriptor or an object:
  "descriptor"  (string) An output descriptor
  {             (json object) An object with output descriptor and metadata
    "desc": "str",    (string, required) An output descriptor
    "range": n or [n,n],  (numeric or array, optional, default=1000) The range of HD chain indexes to explore (either end or [begin,end])
  }`

func scanBlocksMethods() []*Method {
	return []*Method{
		{
			Name: "scanblocks", Category: "blockchain",
			Description: `Return relevant blockhashes for given descriptors (requires blockfilterindex).
This call may take several minutes. Make sure to use no RPC timeout (bitcoin-cli -rpcclienttimeout=0)`,
			Args: []Arg{
				{Name: "action", Type: ArgStr, Description: `The action to execute
"start" for starting a scan
"abort" for aborting the current scan (returns true when abort was successful)
"status" for progress report (in %) of the current scan`},
				{Name: "scanobjects", Type: ArgArr, Optional: true, Description: scanObjectsHelp},
				{Name: "start_height", Type: ArgNum, Optional: true, Default: "0", Description: "Height to start to scan from"},
				{Name: "stop_height", Type: ArgNum, Optional: true, Default: "chain tip", Description: "Height to stop to scan"},
				{Name: "filtertype", Type: ArgStr, Optional: true, Default: "basic", Description: "The type name of the filter"},
				{Name: "options", Type: ArgObj, Optional: true, Description: `{"filter_false_positives": bool} Filter false positives (slower and may fail on pruned nodes). Otherwise they may occur at a rate of 1/M`},
			},
			Result: `When action=='start'; only returns after scan completes
{                              (json object)
  "from_height" : n,           (numeric) The height we started the scan from
  "to_height" : n,             (numeric) The height we ended the scan at
  "relevant_blocks" : [        (json array) Blocks that may have matched a scanobject.
    "hex",                     (string) A relevant blockhash
    ...
  ],
  "completed" : true|false     (boolean) true if the scan process was not aborted
}

When action=='status' and a scan is currently in progress
{                              (json object)
  "progress" : n,              (numeric) Approximate percent complete
  "current_height" : n         (numeric) Height of the block currently being scanned
}

When action=='abort'
true|false                     (boolean) True if scan will be aborted (not necessarily before this RPC returns), or false if there is no scan to abort`,
			Available: chainHas(func(c *ChainBackend) bool { return c.BlockHash != nil && c.BestBlock != nil }),
			Handler:   handleScanBlocks,
		},
		{
			Name: "getdescriptoractivity", Category: "blockchain",
			Description: "Get spend and receive activity associated with a set of descriptors for a set of blocks. This command pairs well with the `relevant_blocks` output of `scanblocks()`.\n" +
				"This call may take several minutes. If you encounter timeouts, try specifying no RPC timeout (bitcoin-cli -rpcclienttimeout=0)",
			Args: []Arg{
				{Name: "blockhashes", Type: ArgArr, Description: "The list of blockhashes to examine for activity. Order doesn't matter. Must be along main chain or an error is thrown."},
				{Name: "scanobjects", Type: ArgArr, Description: scanObjectsHelp},
				{Name: "include_mempool", Type: ArgBool, Optional: true, Default: "true", Description: "Whether to include unconfirmed activity"},
			},
			Result: `{                            (json object)
  "activity" : [              (json array) events
    {                         (json object)
      "type" : "str",         (string) always 'spend'
      "amount" : n,           (numeric) The total amount in BTC of the spent output
      "blockhash" : "hex",    (string, optional) The blockhash this spend appears in (omitted if unconfirmed)
      "height" : n,           (numeric, optional) Height of the spend (omitted if unconfirmed)
      "spend_txid" : "hex",   (string) The txid of the spending transaction
      "spend_vin" : n,        (numeric) The input index of the spend
      "prevout_txid" : "hex", (string) The txid of the prevout
      "prevout_vout" : n,     (numeric) The vout of the prevout
      "prevout_spk" : {...}   (json object) the spent output script
    },
    {                         (json object)
      "type" : "str",         (string) always 'receive'
      "amount" : n,           (numeric) The total amount in BTC of the new output
      "blockhash" : "hex",    (string, optional) The block that this receive is in (omitted if unconfirmed)
      "height" : n,           (numeric, optional) The height of the receive (omitted if unconfirmed)
      "txid" : "hex",         (string) The txid of the receiving transaction
      "vout" : n,             (numeric) The vout of the receiving output
      "output_spk" : {...}    (json object) the output script
    },
    ...
  ]
}`,
			Available: chainHas(func(c *ChainBackend) bool { return c.BlockHeader != nil && c.Block != nil }),
			Handler:   handleGetDescriptorActivity,
		},
	}
}

// ScanBlocksResult is the scanblocks "start" result.
type ScanBlocksResult struct {
	FromHeight     int32    `json:"from_height"`
	ToHeight       int32    `json:"to_height"`
	RelevantBlocks []string `json:"relevant_blocks"`
	Completed      bool     `json:"completed"`
}

func handleScanBlocks(s *Server, p *Params) (any, error) {
	action, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	switch action {
	case "status":
		v, ok := blockScans.Load(s)
		if !ok {
			return nil, nil
		}
		st := v.(*blockScanState)
		st.mu.Lock()
		defer st.mu.Unlock()
		return struct {
			Progress      int   `json:"progress"`
			CurrentHeight int32 `json:"current_height"`
		}{st.progress, st.height}, nil
	case "abort":
		v, ok := blockScans.Load(s)
		if !ok {
			return false, nil
		}
		v.(*blockScanState).cancel()
		return true, nil
	case "start":
	default:
		return nil, Errorf(ErrInvalidParam, "Invalid action '%s'", action)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &blockScanState{cancel: cancel}
	if _, running := blockScans.LoadOrStore(s, st); running {
		return nil, NewError(ErrInvalidParam, `Scan already in progress, use action "abort" or "status"`)
	}
	defer blockScans.Delete(s)
	go func() {
		select {
		case <-s.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	return runScanBlocks(ctx, s, p, st)
}

func runScanBlocks(ctx context.Context, s *Server, p *Params, st *blockScanState) (any, error) {
	filterType, err := p.Str(4, "basic")
	if err != nil {
		return nil, err
	}
	if filterType != "basic" {
		return nil, NewError(ErrInvalidAddress, "Unknown filtertype")
	}
	falsePositives := false
	if raw := p.Raw(5); raw != nil {
		var opts map[string]json.RawMessage
		if err := json.Unmarshal(raw, &opts); err != nil {
			return nil, typeError(raw, "object")
		}
		if v, ok := opts["filter_false_positives"]; ok && jsonKind(v) != "null" {
			if jsonKind(v) != "boolean" {
				return nil, typeError(v, "bool")
			}
			falsePositives = string(v) == "true"
		}
	}
	c := s.chain()
	if c.BlockFilters == nil {
		return nil, NewError(ErrMisc, "Index is not enabled for filtertype "+filterType)
	}
	_, tip, err := c.BestBlock()
	if err != nil {
		return nil, err
	}
	start, stop := int64(0), int64(tip)
	if p.Has(2) {
		if start, err = p.Int(2, 0); err != nil {
			return nil, err
		}
		if start < 0 || start > int64(tip) {
			return nil, NewError(ErrMisc, "Invalid start_height")
		}
	}
	if p.Has(3) {
		if stop, err = p.Int(3, 0); err != nil {
			return nil, err
		}
		if stop < 0 || stop > int64(tip) || stop < start {
			return nil, NewError(ErrMisc, "Invalid stop_height")
		}
	}
	if !p.Has(1) {
		return nil, NewError(ErrMisc, "JSON value of type null is not of expected type array")
	}
	needles, err := scanNeedles(ctx, p.Raw(1), &s.cfg.Net)
	if err != nil {
		return nil, err
	}
	items := make([][]byte, 0, len(needles))
	for k := range needles {
		items = append(items, []byte(k))
	}
	st.mu.Lock()
	st.height = int32(start)
	st.mu.Unlock()
	r := &ScanBlocksResult{FromHeight: int32(start), ToHeight: int32(start), RelevantBlocks: []string{}, Completed: true}
	total := stop - start
	for lo := start; lo <= stop; lo += scanBlocksChunk {
		if ctx.Err() != nil {
			r.Completed = false
			break
		}
		hi := min(lo+scanBlocksChunk-1, stop)
		err := c.BlockFilters(ctx, filterType, int32(lo), int32(hi), func(hash wire.Hash, raw []byte) error {
			f, err := blockfilter.FromBytes(blockfilter.BasicParams, blockfilter.KeyFromHash(&hash), raw)
			if err != nil || !f.MatchAny(items) {
				return nil
			}
			if falsePositives {
				ok, err := blockMatches(c, hash, needles)
				if err != nil {
					return err
				}
				if !ok {
					return nil
				}
			}
			r.RelevantBlocks = append(r.RelevantBlocks, hash.String())
			return nil
		})
		if err != nil {
			if errors.Is(err, context.Canceled) {
				r.Completed = false
				break
			}
			return nil, err
		}
		r.ToHeight = int32(hi)
		st.mu.Lock()
		st.height = int32(hi)
		st.progress = 100
		if total > 0 {
			st.progress = int(100 * float64(hi-start) / float64(total))
		}
		st.mu.Unlock()
	}
	return r, nil
}

// blockMatches checks a filter match against the block itself: an output
// or a spent output with one of the needle scripts.
func blockMatches(c *ChainBackend, hash wire.Hash, needles map[string]needle) (bool, error) {
	blk, err := c.Block(hash)
	if err != nil {
		return false, err
	}
	for _, tx := range blk.Transactions {
		for _, out := range tx.TxOut {
			if _, ok := needles[string(out.PkScript)]; ok {
				return true, nil
			}
		}
	}
	if c.BlockPrevOuts == nil {
		return false, nil
	}
	prev, err := c.BlockPrevOuts(hash)
	if err != nil {
		return false, err
	}
	for _, ins := range prev {
		for _, po := range ins {
			if _, ok := needles[string(po.PkScript)]; ok {
				return true, nil
			}
		}
	}
	return false, nil
}
