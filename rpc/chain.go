package rpc

import (
	"encoding/hex"
	"encoding/json"

	"github.com/btcnode/btcd/wire"
)

// chainHas makes an Available function for a ChainBackend need.
func chainHas(need func(c *ChainBackend) bool) func(*Server) bool {
	return func(s *Server) bool {
		c := s.cfg.Backend.Chain
		return c != nil && need(c)
	}
}

func (s *Server) chain() *ChainBackend { return s.cfg.Backend.Chain }

const blockHeaderHelp = `{
  "hash" : "hex",              (string) the block hash (same as provided)
  "confirmations" : n,         (numeric) The number of confirmations, or -1 if the block is not on the main chain
  "height" : n,                (numeric) The block height or index
  "version" : n,               (numeric) The block version
  "versionHex" : "hex",        (string) The block version formatted in hexadecimal
  "merkleroot" : "hex",        (string) The merkle root
  "time" : xxx,                (numeric) The block time expressed in UNIX epoch time
  "mediantime" : xxx,          (numeric) The median block time expressed in UNIX epoch time
  "nonce" : n,                 (numeric) The nonce
  "bits" : "hex",              (string) nBits: compact representation of the block difficulty target
  "target" : "hex",            (string) The difficulty target
  "difficulty" : n,            (numeric) The difficulty
  "chainwork" : "hex",         (string) Expected number of hashes required to produce the current chain
  "nTx" : n,                   (numeric) The number of transactions in the block
  "previousblockhash" : "hex", (string, optional) The hash of the previous block (if available)
  "nextblockhash" : "hex"      (string, optional) The hash of the next block (if available)
}`

func chainMethods() []*Method {
	hashArg := Arg{Name: "blockhash", Type: ArgHex, Description: "The block hash"}
	return []*Method{
		{
			Name: "getbestblockhash", Category: "blockchain",
			Description: "Returns the hash of the best (tip) block in the most-work fully-validated chain.",
			Result:      `"hex"    (string) the block hash, hex-encoded`,
			Available:   chainHas(func(c *ChainBackend) bool { return c.BestBlock != nil }),
			Handler: func(s *Server, _ *Params) (any, error) {
				h, _, err := s.chain().BestBlock()
				if err != nil {
					return nil, err
				}
				return h.String(), nil
			},
		},
		{
			Name: "getblockcount", Category: "blockchain",
			Description: "Returns the height of the most-work fully-validated chain.\nThe genesis block has height 0.",
			Result:      "n    (numeric) The current block count",
			Available:   chainHas(func(c *ChainBackend) bool { return c.BestBlock != nil }),
			Handler: func(s *Server, _ *Params) (any, error) {
				_, n, err := s.chain().BestBlock()
				return n, err
			},
		},
		{
			Name: "getblockhash", Category: "blockchain",
			Description: "Returns hash of block in best-block-chain at height provided.",
			Args:        []Arg{{Name: "height", Type: ArgNum, Description: "The height index"}},
			Result:      `"hex"    (string) The block hash`,
			Available:   chainHas(func(c *ChainBackend) bool { return c.BlockHash != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				n, err := p.Int(0, 0)
				if err != nil {
					return nil, err
				}
				if n < 0 || n > 1<<31-1 {
					return nil, ErrBlockHeightOutOfRange
				}
				h, err := s.chain().BlockHash(int32(n))
				if err != nil {
					return nil, err
				}
				return h.String(), nil
			},
		},
		{
			Name: "getblockheader", Category: "blockchain",
			Description: "If verbose is false, returns a string that is serialized, hex-encoded data for blockheader 'hash'.\nIf verbose is true, returns an Object with information about blockheader <hash>.",
			Args:        []Arg{hashArg, {Name: "verbose", Type: ArgBool, Optional: true, Default: "true", Description: "true for a json object, false for the hex-encoded data"}},
			Result:      blockHeaderHelp,
			Available:   chainHas(func(c *ChainBackend) bool { return c.BlockHeader != nil }),
			Handler:     handleGetBlockHeader,
		},
		{
			Name: "getblock", Category: "blockchain",
			Description: `If verbosity is 0, returns a string that is serialized, hex-encoded data for block 'hash'.
If verbosity is 1, returns an Object with information about block <hash>.
If verbosity is 2, returns an Object with information about block <hash> and information about each transaction.
If verbosity is 3, returns an Object with information about block <hash> and information about each transaction, including prevout information for inputs.
A boolean verbosity is accepted as in older versions (false = 0, true = 1).`,
			Args:      []Arg{hashArg, {Name: "verbosity|verbose", Type: ArgAny, Optional: true, Default: "1", Description: "0 for hex-encoded data, 1 for a JSON object, 2 for JSON object with transaction data, and 3 for JSON object with transaction data including prevout information for inputs"}},
			Result:    `"hex" for verbosity 0; for 1 the getblockheader fields plus "strippedsize", "size", "weight" and "tx" (txids); for 2 and 3 "tx" holds decoded transactions (as decoderawtransaction, plus "fee" and "hex", and for 3 each input's "prevout")`,
			Available: chainHas(func(c *ChainBackend) bool { return c.BlockHeader != nil && c.Block != nil }),
			Handler:   handleGetBlock,
		},
		{
			Name: "getblockchaininfo", Category: "blockchain",
			Description: "Returns an object containing various state info regarding blockchain processing.",
			Result:      `{ "chain", "blocks", "headers", "bestblockhash", "bits", "target", "difficulty", "time", "mediantime", "verificationprogress", "initialblockdownload", "chainwork", "size_on_disk", "pruned", "pruneheight"?, "automatic_pruning"?, "prune_target_size"?, "signet_challenge"?, "warnings" }`,
			Available:   chainHas(func(c *ChainBackend) bool { return c.BlockchainInfo != nil }),
			Handler:     func(s *Server, _ *Params) (any, error) { return s.chain().BlockchainInfo() },
		},
		{
			Name: "getblockfilter", Category: "blockchain",
			Description: "Retrieve a BIP 157 content filter for a particular block.",
			Args:        []Arg{hashArg, {Name: "filtertype", Type: ArgStr, Optional: true, Default: `"basic"`, Description: "The type name of the filter"}},
			Result:      `{ "filter" : "hex", "header" : "hex" }`,
			Available:   chainHas(func(*ChainBackend) bool { return true }),
			Handler: func(s *Server, p *Params) (any, error) {
				h, err := p.Hash(0, "blockhash")
				if err != nil {
					return nil, err
				}
				ft, err := p.Str(1, "basic")
				if err != nil {
					return nil, err
				}
				if ft != "basic" {
					return nil, NewError(ErrInvalidAddress, "Unknown filtertype")
				}
				if s.chain().BlockFilter == nil {
					return nil, NewError(ErrMisc, "Index is not enabled for filtertype "+ft)
				}
				return s.chain().BlockFilter(h, ft)
			},
		},
		{
			Name: "getblockstats", Category: "blockchain",
			Description: "Compute per block statistics for a given window. All amounts are in satoshis.",
			Args: []Arg{
				{Name: "hash_or_height", Type: ArgAny, Description: "The block hash or height of the target block"},
				{Name: "stats", Type: ArgArr, Optional: true, Default: "all values", Description: "Values to plot (see result below)"},
			},
			Result:    "{ avgfee, avgfeerate, avgtxsize, blockhash, feerate_percentiles, height, ins, maxfee, maxfeerate, maxtxsize, medianfee, mediantime, mediantxsize, minfee, minfeerate, mintxsize, outs, subsidy, swtotal_size, swtotal_weight, swtxs, time, total_out, total_size, total_weight, totalfee, txs, utxo_increase, utxo_size_inc, utxo_increase_actual, utxo_size_inc_actual }",
			Available: chainHas(func(c *ChainBackend) bool { return c.BlockStats != nil && c.BlockHash != nil && c.BestBlock != nil }),
			Handler:   handleGetBlockStats,
		},
		{
			Name: "getchaintips", Category: "blockchain",
			Description: "Return information about all known tips in the block tree, including the main chain as well as orphaned branches.",
			Result:      `[ { "height" : n, "hash" : "hex", "branchlen" : n, "status" : "str" }, ... ]`,
			Available:   chainHas(func(c *ChainBackend) bool { return c.ChainTips != nil }),
			Handler:     func(s *Server, _ *Params) (any, error) { return s.chain().ChainTips() },
		},
		{
			Name: "getchaintxstats", Category: "blockchain",
			Description: "Compute statistics about the total number and rate of transactions in the chain.",
			Args: []Arg{
				{Name: "nblocks", Type: ArgNum, Optional: true, Default: "one month", Description: "Size of the window in number of blocks"},
				{Name: "blockhash", Type: ArgHex, Optional: true, Default: "chain tip", Description: "The hash of the block that ends the window."},
			},
			Result:    `{ "time", "txcount", "window_final_block_hash", "window_final_block_height", "window_block_count", "window_interval", "window_tx_count", "txrate" }`,
			Available: chainHas(func(c *ChainBackend) bool { return c.ChainTxStats != nil && c.BestBlock != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				// -1 asks the backend for its default window: an
				// explicit 0 is a valid, empty window.
				n, err := p.Int(0, -1)
				if err != nil {
					return nil, err
				}
				if p.Has(0) && n < 0 || n > 1<<31-1 {
					return nil, NewError(ErrInvalidParam, "Invalid block count: should be between 0 and the block's height - 1")
				}
				var h wire.Hash
				if p.Has(1) {
					if h, err = p.Hash(1, "blockhash"); err != nil {
						return nil, err
					}
				} else if h, _, err = s.chain().BestBlock(); err != nil {
					return nil, err
				}
				return s.chain().ChainTxStats(int32(n), h)
			},
		},
		{
			Name: "getdifficulty", Category: "blockchain",
			Description: "Returns the proof-of-work difficulty as a multiple of the minimum difficulty.",
			Result:      "n    (numeric) the proof-of-work difficulty as a multiple of the minimum difficulty.",
			Available:   chainHas(func(c *ChainBackend) bool { return c.BestBlock != nil && c.BlockHeader != nil }),
			Handler: func(s *Server, _ *Params) (any, error) {
				h, _, err := s.chain().BestBlock()
				if err != nil {
					return nil, err
				}
				hdr, _, err := s.chain().BlockHeader(h)
				if err != nil {
					return nil, err
				}
				return GetDifficulty(hdr.Bits), nil
			},
		},
		{
			Name: "gettxout", Category: "blockchain",
			Description: "Returns details about an unspent transaction output.",
			Args: []Arg{
				{Name: "txid", Type: ArgHex, Description: "The transaction id"},
				{Name: "n", Type: ArgNum, Description: "vout number"},
				{Name: "include_mempool", Type: ArgBool, Optional: true, Default: "true", Description: "Whether to include the mempool."},
			},
			Result:    `null if the output is spent or unknown, else { "bestblock", "confirmations", "value", "scriptPubKey" : { "asm", "desc", "hex", "address"?, "type" }, "coinbase" }`,
			Available: chainHas(func(c *ChainBackend) bool { return c.TxOut != nil }),
			Handler:   handleGetTxOut,
		},
		{
			Name: "gettxoutproof", Category: "blockchain",
			Description: "Returns a hex-encoded proof that \"txid\" was included in a block.",
			Args: []Arg{
				{Name: "txids", Type: ArgArr, Description: "The txids to filter"},
				{Name: "blockhash", Type: ArgHex, Optional: true, Description: "If specified, looks for txid in the block with this hash"},
			},
			Result:    `"str"    (string) A string that is a serialized, hex-encoded data for the proof.`,
			Available: chainHas(func(c *ChainBackend) bool { return c.TxOutProof != nil }),
			Handler:   handleGetTxOutProof,
		},
		{
			Name: "verifytxoutproof", Category: "blockchain",
			Description: "Verifies that a proof points to a transaction in a block, returning the transaction it commits to\nand throwing an RPC error if the block is not in our best chain",
			Args:        []Arg{{Name: "proof", Type: ArgHex, Description: "The hex-encoded proof generated by gettxoutproof"}},
			Result:      `[ "hex", ... ]    (json array of string) The txid(s) which the proof commits to, or empty array if the proof cannot be validated.`,
			Available:   chainHas(func(c *ChainBackend) bool { return c.VerifyTxOutProof != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				b, err := p.HexBytes(0, "proof")
				if err != nil {
					return nil, err
				}
				ids, err := s.chain().VerifyTxOutProof(b)
				if err != nil {
					return nil, err
				}
				return hashStrings(ids), nil
			},
		},
		{
			Name: "gettxoutsetinfo", Category: "blockchain",
			Description: "Returns statistics about the unspent transaction output set.\nWithout coinstatsindex this scans the whole set and may take a while.",
			Args: []Arg{
				{Name: "hash_type", Type: ArgStr, Optional: true, Default: `"hash_serialized_3"`, Description: "Which UTXO set hash should be calculated. Options: 'hash_serialized_3' (the legacy algorithm), 'muhash', 'none'."},
				{Name: "hash_or_height", Type: ArgAny, Optional: true, Default: "the current best block", Description: "Hash or height of the block whose UTXO set to describe (needs coinstatsindex)."},
				{Name: "use_index", Type: ArgBool, Optional: true, Default: "true", Description: "Answer from coinstatsindex when the node has it (false: scan the current set)."},
			},
			Result: `{
  "height" : n,                                 (numeric) The block height (index) of the returned statistics
  "bestblock" : "hex",                          (string) The hash of the block at which these statistics are calculated
  "txouts" : n,                                 (numeric) The number of unspent transaction outputs
  "bogosize" : n,                               (numeric) Database-independent, meaningless metric indicating the UTXO set size
  "hash_serialized_3" : "hex",                  (string, optional) The serialized hash (only present if 'hash_serialized_3' hash_type is chosen)
  "muhash" : "hex",                             (string, optional) The serialized hash (only present if 'muhash' hash_type is chosen)
  "transactions" : n,                           (numeric, optional) Transactions with unspent outputs (scans only, not from coinstatsindex)
  "disk_size" : n,                              (numeric, optional) Approximate size of the chainstate on disk (scans only)
  "total_amount" : n,                           (numeric) The value of all unspent outputs
  "total_unspendable_amount" : n,               (numeric, optional) Value that left circulation for good up to this block (coinstatsindex only)
  "block_info" : {                              (json object, optional) What this block changed (coinstatsindex only)
    "prevout_spent" : n,                        (numeric) Value of the coins the block spent
    "coinbase" : n,                             (numeric) Value of the coinbase's spendable outputs
    "new_outputs_ex_coinbase" : n,              (numeric) Value of the other transactions' spendable outputs
    "unspendable" : n,                          (numeric) Value the block took out of circulation, all causes
    "unspendables" : {                          (json object) That value by cause
      "genesis_block" : n,                      (numeric) The genesis coinbase, never spendable
      "bip30" : n,                              (numeric) Coinbases overwritten by a later duplicate (before BIP30)
      "scripts" : n,                            (numeric) Outputs to provably unspendable scripts (OP_RETURN, oversized)
      "unclaimed_rewards" : n                   (numeric) Subsidy and fees the coinbase did not claim
    }
  }
}`,
			Available: chainHas(func(c *ChainBackend) bool { return c.TxOutSetInfo != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				ht, err := p.Str(0, "hash_serialized_3")
				if err != nil {
					return nil, err
				}
				switch ht {
				case "hash_serialized_3", "muhash", "none":
				default:
					return nil, NewError(ErrInvalidParam, ht+" is not a valid hash_type")
				}
				useIndex, err := p.Bool(2, true)
				if err != nil {
					return nil, err
				}
				c := s.chain()
				q := TxOutSetQuery{HashType: ht, UseIndex: useIndex}
				if raw := p.Raw(1); raw != nil {
					q.ForBlock = func() (wire.Hash, error) { return resolveHashOrHeight(c, raw) }
				}
				return c.TxOutSetInfo(q)
			},
		},
		blockAction("preciousblock", "Treats a block as if it were received before others with the same work.", func(c *ChainBackend) func(wire.Hash) error { return c.PreciousBlock }),
		blockAction("invalidateblock", "Permanently marks a block as invalid, as if it violated a consensus rule.", func(c *ChainBackend) func(wire.Hash) error { return c.InvalidateBlock }),
		blockAction("reconsiderblock", "Removes invalidity status of a block, its ancestors and its descendants, reconsider them for activation.", func(c *ChainBackend) func(wire.Hash) error { return c.ReconsiderBlock }),
		{
			Name: "pruneblockchain", Category: "blockchain",
			Description: "Prune the blockchain up to a specified height or timestamp.",
			Args:        []Arg{{Name: "height", Type: ArgNum, Description: "The block height to prune up to."}},
			Result:      "n    (numeric) Height of the last block pruned",
			Available:   chainHas(func(c *ChainBackend) bool { return c.PruneBlockchain != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				n, err := p.Int(0, 0)
				if err != nil {
					return nil, err
				}
				if n < 0 {
					return nil, NewError(ErrInvalidParam, "Negative block height.")
				}
				return s.chain().PruneBlockchain(n)
			},
		},
		{
			Name: "verifychain", Category: "blockchain",
			Description: "Verifies blockchain database.",
			Args: []Arg{
				{Name: "checklevel", Type: ArgNum, Optional: true, Default: "3", Description: "How thorough the block verification is (range 0-4):\n" +
					"       - level 0 reads the blocks from disk\n" +
					"       - level 1 verifies block validity\n" +
					"       - level 2 verifies undo data\n" +
					"       - level 3 checks the UTXO set against the top blocks (at most 1000 below the tip)\n" +
					"       - level 4 validates those blocks again against the coins they spent (scripts included)\n" +
					"       - each level includes the checks of the previous levels"},
				{Name: "nblocks", Type: ArgNum, Optional: true, Default: "6", Description: "The number of blocks to check (0=all)"},
			},
			Result:    "true|false    (boolean) Verification finished successfully. If false, check the log for the reason.",
			Available: chainHas(func(c *ChainBackend) bool { return c.VerifyChain != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				lvl, err := p.Int(0, 3)
				if err != nil {
					return nil, err
				}
				n, err := p.Int(1, 6)
				if err != nil {
					return nil, err
				}
				lvl = min(max(lvl, 0), 4)
				n = min(max(n, 0), 1<<31-1)
				return s.chain().VerifyChain(int32(lvl), int32(n))
			},
		},
		{
			Name: "getrawtransaction", Category: "rawtransactions",
			Description: `By default, this call only returns a transaction if it is in the mempool. If -txindex is enabled
and no blockhash argument is passed, it will return the transaction if it is in any block.
If verbosity is 0 or false, returns the hex-encoded transaction; 1 or true a JSON object; 2 a JSON
object with fee and prevout information where available.`,
			Args: []Arg{
				{Name: "txid", Type: ArgHex, Description: "The transaction id"},
				{Name: "verbosity|verbose", Type: ArgAny, Optional: true, Default: "0", Description: "0 for hex-encoded data, 1 for a JSON object, and 2 for JSON object with fee and prevout"},
				{Name: "blockhash", Type: ArgHex, Optional: true, Description: "The block in which to look for the transaction"},
			},
			Result:    `"str" for verbosity 0; otherwise the decoderawtransaction fields with "in_active_chain"? first and "hex", "blockhash", "confirmations", "time", "blocktime" after "vout"`,
			Available: chainHas(func(c *ChainBackend) bool { return c.Transaction != nil }),
			Handler:   handleGetRawTransaction,
		},
	}
}

func blockAction(name, desc string, pick func(c *ChainBackend) func(wire.Hash) error) *Method {
	return &Method{
		Name: name, Category: "blockchain", Description: desc,
		Args:      []Arg{{Name: "blockhash", Type: ArgHex, Description: "the hash of the block"}},
		Result:    "null    (json null)",
		Available: chainHas(func(c *ChainBackend) bool { return pick(c) != nil }),
		Handler: func(s *Server, p *Params) (any, error) {
			h, err := p.Hash(0, "blockhash")
			if err != nil {
				return nil, err
			}
			return nil, pick(s.chain())(h)
		},
	}
}

func hashStrings(hs []wire.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

// verbosityParam reads a legacy bool-or-int verbosity argument.
func verbosityParam(p *Params, i int, def int64) (int64, error) {
	raw := p.Raw(i)
	switch jsonKind(raw) {
	case "null":
		return def, nil
	case "boolean":
		b, _ := p.Bool(i, false)
		if b {
			return 1, nil
		}
		return 0, nil
	case "number":
		return parseJSONInt(raw)
	}
	return 0, typeError(raw, "number")
}

func headerResult(hash wire.Hash, h *wire.BlockHeader, info *BlockHeaderInfo) *BlockHeaderResult {
	r := &BlockHeaderResult{
		Hash:          hash.String(),
		Confirmations: info.Confirmations,
		Height:        info.Height,
		Version:       h.Version,
		VersionHex:    hex.EncodeToString([]byte{byte(uint32(h.Version) >> 24), byte(uint32(h.Version) >> 16), byte(uint32(h.Version) >> 8), byte(h.Version)}),
		MerkleRoot:    h.MerkleRoot.String(),
		Time:          h.Timestamp,
		MedianTime:    info.MedianTime,
		Nonce:         h.Nonce,
		Bits:          BitsHex(h.Bits),
		Target:        TargetHex(h.Bits),
		Difficulty:    GetDifficulty(h.Bits),
		ChainWork:     info.ChainWork,
		NTx:           info.NTx,
		NextBlockHash: info.NextHash,
	}
	if info.Height > 0 {
		r.PreviousBlockHash = h.PrevBlock.String()
	}
	return r
}

func handleGetBlockHeader(s *Server, p *Params) (any, error) {
	h, err := p.Hash(0, "blockhash")
	if err != nil {
		return nil, err
	}
	verbose, err := p.Bool(1, true)
	if err != nil {
		return nil, err
	}
	hdr, info, err := s.chain().BlockHeader(h)
	if err != nil {
		return nil, err
	}
	if !verbose {
		return hex.EncodeToString(hdr.AppendTo(nil)), nil
	}
	return headerResult(h, hdr, info), nil
}

func handleGetBlock(s *Server, p *Params) (any, error) {
	h, err := p.Hash(0, "blockhash")
	if err != nil {
		return nil, err
	}
	verbosity, err := verbosityParam(p, 1, 1)
	if err != nil {
		return nil, err
	}
	c := s.chain()
	hdr, info, err := c.BlockHeader(h)
	if err != nil {
		return nil, err
	}
	blk, err := c.Block(h)
	if err != nil {
		return nil, err
	}
	if verbosity <= 0 {
		return hex.EncodeToString(blk.Bytes()), nil
	}
	hr := headerResult(h, hdr, info)
	r := &BlockResult{
		Hash: hr.Hash, Confirmations: hr.Confirmations, Height: hr.Height, Version: hr.Version,
		VersionHex: hr.VersionHex, MerkleRoot: hr.MerkleRoot, Time: hr.Time, MedianTime: hr.MedianTime,
		Nonce: hr.Nonce, Bits: hr.Bits, Target: hr.Target, Difficulty: hr.Difficulty, ChainWork: hr.ChainWork,
		NTx: len(blk.Transactions), PreviousBlockHash: hr.PreviousBlockHash, NextBlockHash: hr.NextBlockHash,
		StrippedSize: blk.SerializeSizeStripped(), Size: blk.SerializeSize(), Weight: blk.Weight(),
		Tx: make([]any, len(blk.Transactions)),
	}
	if verbosity == 1 {
		for i, id := range blk.TxHashes() {
			r.Tx[i] = id.String()
		}
		return r, nil
	}
	var prev [][]PrevOut
	if c.BlockPrevOuts != nil {
		if prev, err = c.BlockPrevOuts(h); err != nil {
			return nil, err
		}
		if len(prev) != len(blk.Transactions)-1 {
			prev = nil // a record of another block: report no prevouts
		}
	}
	j := 0 // index into prev, which skips the coinbase
	for i, tx := range blk.Transactions {
		var po []PrevOut
		if !tx.IsCoinBase() && prev != nil {
			if j < len(prev) {
				po = prev[j]
			}
			j++
		}
		r.Tx[i] = txToResult(tx, &s.cfg.Net, true, po, verbosity >= 3)
	}
	return r, nil
}

// blockStatNames lists getblockstats' statistics, for validation.
var blockStatNames = map[string]bool{
	"avgfee": true, "avgfeerate": true, "avgtxsize": true, "blockhash": true, "feerate_percentiles": true,
	"height": true, "ins": true, "maxfee": true, "maxfeerate": true, "maxtxsize": true, "medianfee": true,
	"mediantime": true, "mediantxsize": true, "minfee": true, "minfeerate": true, "mintxsize": true,
	"outs": true, "subsidy": true, "swtotal_size": true, "swtotal_weight": true, "swtxs": true, "time": true,
	"total_out": true, "total_size": true, "total_weight": true, "totalfee": true, "txs": true,
	"utxo_increase": true, "utxo_size_inc": true, "utxo_increase_actual": true, "utxo_size_inc_actual": true,
}

// resolveHashOrHeight reads a hash_or_height argument (getblockstats,
// gettxoutsetinfo): a main-chain height or a block hash.
func resolveHashOrHeight(c *ChainBackend, raw json.RawMessage) (wire.Hash, error) {
	var h wire.Hash
	switch jsonKind(raw) {
	case "number":
		n, err := parseJSONInt(raw)
		if err != nil {
			return h, err
		}
		_, tip, err := c.BestBlock()
		if err != nil {
			return h, err
		}
		if n < 0 {
			return h, Errorf(ErrInvalidParam, "Target block height %d is negative", n)
		}
		if n > int64(tip) {
			return h, Errorf(ErrInvalidParam, "Target block height %d after current tip %d", n, tip)
		}
		return c.BlockHash(int32(n))
	case "string":
		var str string
		json.Unmarshal(raw, &str)
		return parseHashV(str, "hash_or_height")
	}
	return h, typeError(raw, "number")
}

func handleGetBlockStats(s *Server, p *Params) (any, error) {
	c := s.chain()
	h, err := resolveHashOrHeight(c, p.Raw(0))
	if err != nil {
		return nil, err
	}
	var want []string
	if r := p.Raw(1); r != nil {
		if err := json.Unmarshal(r, &want); err != nil {
			return nil, NewError(ErrType, "stats must be an array of strings")
		}
		for _, w := range want {
			if !blockStatNames[w] {
				return nil, Errorf(ErrInvalidParam, "Invalid selected statistic '%s'", w)
			}
		}
	}
	st, err := c.BlockStats(h)
	if err != nil {
		return nil, err
	}
	if len(want) == 0 {
		return st, nil
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(want))
	for _, w := range want {
		out[w] = all[w]
	}
	return out, nil
}

func handleGetTxOut(s *Server, p *Params) (any, error) {
	h, err := p.Hash(0, "txid")
	if err != nil {
		return nil, err
	}
	n, err := p.Int(1, 0)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > 0xffffffff {
		return nil, NewError(ErrInvalidParam, "Invalid parameter, vout cannot be negative")
	}
	mem, err := p.Bool(2, true)
	if err != nil {
		return nil, err
	}
	o, err := s.chain().TxOut(wire.OutPoint{Hash: h, Index: uint32(n)}, mem)
	if err != nil || o == nil {
		return nil, err
	}
	return &TxOutResult{
		BestBlock:     o.BestBlock.String(),
		Confirmations: o.Confirmations,
		Value:         formatBTC(o.Value),
		ScriptPubKey:  decodeScriptPubKey(o.PkScript, &s.cfg.Net),
		Coinbase:      o.Coinbase,
	}, nil
}

func handleGetTxOutProof(s *Server, p *Params) (any, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(p.Raw(0), &list); err != nil {
		return nil, NewError(ErrType, "txids must be an array")
	}
	seen := map[wire.Hash]bool{}
	ids := make([]wire.Hash, 0, len(list))
	for _, r := range list {
		var str string
		if jsonKind(r) != "string" || json.Unmarshal(r, &str) != nil {
			return nil, typeError(r, "string")
		}
		h, err := parseHashV(str, "txid")
		if err != nil {
			return nil, err
		}
		if seen[h] {
			return nil, NewError(ErrInvalidParam, "Invalid parameter, duplicated txid: "+str)
		}
		seen[h] = true
		ids = append(ids, h)
	}
	var bh *wire.Hash
	if p.Has(1) {
		h, err := p.Hash(1, "blockhash")
		if err != nil {
			return nil, err
		}
		bh = &h
	}
	proof, err := s.chain().TxOutProof(ids, bh)
	if err != nil {
		return nil, err
	}
	return hex.EncodeToString(proof), nil
}

func handleGetRawTransaction(s *Server, p *Params) (any, error) {
	h, err := p.Hash(0, "txid")
	if err != nil {
		return nil, err
	}
	verbosity, err := verbosityParam(p, 1, 0)
	if err != nil {
		return nil, err
	}
	var bh *wire.Hash
	if p.Has(2) {
		b, err := p.Hash(2, "blockhash")
		if err != nil {
			return nil, err
		}
		bh = &b
	}
	lk, err := s.chain().Transaction(h, bh)
	if err != nil {
		return nil, err
	}
	if verbosity <= 0 {
		return hex.EncodeToString(lk.Tx.Bytes()), nil
	}
	var prev []PrevOut
	if verbosity >= 2 {
		prev = lk.PrevOuts
		if c := s.chain(); prev == nil && lk.BlockHash != nil && c.TxPrevOuts != nil {
			// Errors only mean no undo data: the result then lacks
			// fee and prevouts, as bitcoind's.
			prev, _ = c.TxPrevOuts(lk.Tx, *lk.BlockHash)
		}
	}
	r := txToResult(lk.Tx, &s.cfg.Net, true, prev, verbosity >= 2)
	r.InActiveChain = lk.InActiveChain
	if lk.BlockHash != nil {
		r.BlockHash = lk.BlockHash.String()
		conf := lk.Confirmations
		r.Confirmations = &conf
		if conf > 0 {
			r.Time, r.BlockTime = lk.BlockTime, lk.BlockTime
		}
	}
	return r, nil
}
