package rpc

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"

	"github.com/btcnode/btcd/wire"
)

func miningHas(need func(m *MiningBackend) bool) func(*Server) bool {
	return func(s *Server) bool {
		m := s.cfg.Backend.Mining
		return m != nil && need(m)
	}
}

func (s *Server) mining() *MiningBackend { return s.cfg.Backend.Mining }

const defaultMaxTries = 1000000

func miningMethods() []*Method {
	maxTries := Arg{Name: "maxtries", Type: ArgNum, Optional: true, Default: "1000000", Description: "How many iterations to try."}
	return []*Method{
		{
			Name: "getblocktemplate", Category: "mining",
			Description: `If the request parameters include a 'mode' key, that is used to explicitly select between the default 'template' request or a 'proposal'.
It returns data needed to construct a block to work on.
For full specification, see BIPs 22, 23, 9, and 145.`,
			Args:      []Arg{{Name: "template_request", Type: ArgObj, Optional: true, Default: "{}", Description: `Format of the template: {"mode":"str","capabilities":["str",...],"rules":["segwit",...],"longpollid":"str","data":"hex"}`}},
			Result:    `{ "version", "rules", "vbavailable", "capabilities", "vbrequired", "previousblockhash", "transactions" : [ { "data", "txid", "hash", "depends", "fee", "sigops", "weight" }, ... ], "coinbaseaux", "coinbasevalue", "longpollid", "target", "mintime", "mutable", "noncerange", "sigoplimit", "sizelimit", "weightlimit", "curtime", "bits", "height", "signet_challenge"?, "default_witness_commitment"? }`,
			Available: miningHas(func(m *MiningBackend) bool { return m.BlockTemplate != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				req, err := ParseTemplateRequest(p.Raw(0))
				if err != nil {
					return nil, err
				}
				switch req.Mode {
				case "", "template":
					if !req.HasRule("segwit") {
						return nil, NewError(ErrInvalidParam, `getblocktemplate must be called with the segwit rule set (call with {"rules": ["segwit"]})`)
					}
				case "proposal":
				default:
					return nil, NewError(ErrInvalidParam, "Invalid mode")
				}
				return s.mining().BlockTemplate(req)
			},
		},
		{
			Name: "getmininginfo", Category: "mining",
			Description: "Returns a json object containing mining-related information.",
			Result:      `{ "blocks", "currentblockweight"?, "currentblocktx"?, "bits", "difficulty", "target", "networkhashps", "pooledtx", "chain", "warnings" }`,
			Available:   miningHas(func(m *MiningBackend) bool { return m.MiningInfo != nil }),
			Handler:     func(s *Server, _ *Params) (any, error) { return s.mining().MiningInfo() },
		},
		{
			Name: "getnetworkhashps", Category: "mining",
			Description: "Returns the estimated network hashes per second based on the last n blocks.\nPass in [nblocks] to override # of blocks, -1 specifies since last difficulty change.\nPass in [height] to estimate the network speed at the time when a certain block was found.",
			Args: []Arg{
				{Name: "nblocks", Type: ArgNum, Optional: true, Default: "120", Description: "The number of previous blocks to calculate estimate from, or -1 for blocks since last difficulty change."},
				{Name: "height", Type: ArgNum, Optional: true, Default: "-1", Description: "To estimate at the time of the given height."},
			},
			Result:    "n    (numeric) Hashes per second estimated",
			Available: miningHas(func(m *MiningBackend) bool { return m.NetworkHashPS != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				n, err := p.Int(0, 120)
				if err != nil {
					return nil, err
				}
				h, err := p.Int(1, -1)
				if err != nil {
					return nil, err
				}
				v, err := s.mining().NetworkHashPS(n, h)
				if err != nil {
					return nil, err
				}
				return Float(v), nil
			},
		},
		{
			Name: "submitblock", Category: "mining",
			Description: "Attempts to submit new block to network.\nSee https://en.bitcoin.it/wiki/BIP_0022 for full specification.",
			Args: []Arg{
				{Name: "hexdata", Type: ArgHex, Description: "the hex-encoded block data to submit"},
				{Name: "dummy", Type: ArgStr, Optional: true, Default: "ignored", Description: "dummy value, for compatibility with BIP22. This value is ignored."},
			},
			Result:    `null when accepted, otherwise "str" (string) the reason: duplicate, duplicate-invalid, inconclusive, or a rejection reason`,
			Available: miningHas(func(m *MiningBackend) bool { return m.SubmitBlock != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				h, err := p.Str(0, "")
				if err != nil {
					return nil, err
				}
				var blk wire.MsgBlock
				if !isHex(h) {
					return nil, NewError(ErrDeserialization, "Block decode failed")
				}
				b := decodeHex(h)
				// As bitcoind's DecodeHexBlk, bytes after the block are
				// ignored.
				if _, err := blk.Decode(b); err != nil {
					return nil, NewError(ErrDeserialization, "Block decode failed")
				}
				// As Core 30, a block without a leading coinbase is
				// rejected by validation (bad-blk-length, bad-cb-missing),
				// not by decoding.
				reason, err := s.mining().SubmitBlock(&blk)
				if err != nil || reason == "" {
					return nil, err
				}
				return reason, nil
			},
		},
		{
			Name: "submitheader", Category: "mining",
			Description: "Decode the given hexdata as a header and submit it as a candidate chain tip if valid.\nThrows when the header is invalid.",
			Args:        []Arg{{Name: "hexdata", Type: ArgHex, Description: "the hex-encoded block header data"}},
			Result:      "null    (json null) None",
			Available:   miningHas(func(m *MiningBackend) bool { return m.SubmitHeader != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				h, err := p.Str(0, "")
				if err != nil {
					return nil, err
				}
				// As bitcoind, only the first 80 bytes are read, so the hex
				// of a whole block submits its header.
				var hdr wire.BlockHeader
				if !isHex(h) || len(h) < 2*wire.BlockHeaderSize || hdr.Decode(decodeHex(h[:2*wire.BlockHeaderSize])) != nil {
					return nil, NewError(ErrDeserialization, "Block header decode failed")
				}
				return nil, s.mining().SubmitHeader(&hdr)
			},
		},
		{
			Name: "generatetoaddress", Category: "generating",
			Description: "Mine to a specified address and return the block hashes.",
			Args: []Arg{
				{Name: "nblocks", Type: ArgNum, Description: "How many blocks are generated."},
				{Name: "address", Type: ArgStr, Description: "The address to send the newly generated bitcoin to."},
				maxTries,
			},
			Result:    `[ "hex", ... ]    (json array) hashes of blocks generated`,
			Available: miningHas(func(m *MiningBackend) bool { return m.Generate != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				addr, err := p.Str(1, "")
				if err != nil {
					return nil, err
				}
				a, msg := decodeAddress(addr, &s.cfg.Net)
				if msg != "" {
					return nil, NewError(ErrInvalidAddress, "Error: Invalid address")
				}
				return generate(s, p, a.script())
			},
		},
		{
			Name: "generatetodescriptor", Category: "generating",
			Description: "Mine to a specified descriptor and return the block hashes.",
			Args: []Arg{
				{Name: "num_blocks", Type: ArgNum, Description: "How many blocks are generated."},
				{Name: "descriptor", Type: ArgStr, Description: "The descriptor to send the newly generated bitcoin to."},
				maxTries,
			},
			Result:    `[ "hex", ... ]    (json array) hashes of blocks generated`,
			Available: miningHas(func(m *MiningBackend) bool { return m.Generate != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				ds, err := p.Str(1, "")
				if err != nil {
					return nil, err
				}
				d, err := parseDescriptor(ds, &s.cfg.Net)
				if err != nil {
					return nil, err
				}
				return generate(s, p, d.script)
			},
		},
		{
			Name: "generateblock", Category: "generating",
			Description: "Mine a set of ordered transactions to a specified address or descriptor and return the block hash.",
			Args: []Arg{
				{Name: "output", Type: ArgStr, Description: "The address or descriptor to send the newly generated bitcoin to."},
				{Name: "transactions", Type: ArgArr, Description: "An array of hex strings which are either txids or raw transactions.\nTxids must reference transactions currently in the mempool.\nAll transactions must be valid and in valid order, otherwise the block will be rejected."},
				{Name: "submit", Type: ArgBool, Optional: true, Default: "true", Description: "Whether to submit the block before the RPC call returns or to return it as hex."},
			},
			Result:    `{ "hash" : "hex", "hex" : "str" (if submit=false) }`,
			Available: miningHas(func(m *MiningBackend) bool { return m.GenerateBlock != nil }),
			Handler:   handleGenerateBlock,
		},
	}
}

// TemplateRequest is getblocktemplate's template_request object (BIP22,
// BIP23). As in bitcoind, members of the wrong JSON type count as absent
// (a mode that is not a string is template mode, rules that are not
// strings are not listed).
type TemplateRequest struct {
	// Mode is "", "template" or "proposal" (the handler refuses others).
	Mode string
	// Capabilities and Rules are the client's lists.
	Capabilities []string
	Rules        []string
	// LongPollID is the longpollid of a template the client holds; empty
	// when not given.
	LongPollID string
	// Data is the hex block of a proposal; HasData tells an empty string
	// from a missing one.
	Data    string
	HasData bool
}

// HasRule reports whether the client listed rule.
func (r *TemplateRequest) HasRule(rule string) bool { return slices.Contains(r.Rules, rule) }

// ParseTemplateRequest reads getblocktemplate's first argument (nil or
// JSON null: an empty request). Anything but an object is a type error.
func ParseTemplateRequest(raw json.RawMessage) (*TemplateRequest, error) {
	req := &TemplateRequest{}
	if raw == nil {
		return req, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, typeError(raw, "object")
	}
	str := func(key string) (string, bool) {
		var v string
		r, ok := obj[key]
		if !ok || jsonKind(r) != "string" || json.Unmarshal(r, &v) != nil {
			return "", false
		}
		return v, true
	}
	strs := func(key string) []string {
		var list []json.RawMessage
		r, ok := obj[key]
		if !ok || jsonKind(r) != "array" || json.Unmarshal(r, &list) != nil {
			return nil
		}
		out := make([]string, 0, len(list))
		for _, e := range list {
			var v string
			if jsonKind(e) == "string" && json.Unmarshal(e, &v) == nil {
				out = append(out, v)
			}
		}
		return out
	}
	req.Mode, _ = str("mode")
	req.LongPollID, _ = str("longpollid")
	req.Data, req.HasData = str("data")
	req.Capabilities = strs("capabilities")
	req.Rules = strs("rules")
	return req, nil
}

func generate(s *Server, p *Params, script []byte) (any, error) {
	n, err := p.Int(0, 0)
	if err != nil {
		return nil, err
	}
	tries, err := p.Int(2, defaultMaxTries)
	if err != nil {
		return nil, err
	}
	if n < 0 || tries < 0 || n > math.MaxInt32 {
		return nil, NewError(ErrInvalidParam, "Invalid parameter, nblocks and maxtries must not be negative")
	}
	hs, err := s.mining().Generate(n, script, uint64(tries))
	if err != nil {
		return nil, err
	}
	return hashStrings(hs), nil
}

func handleGenerateBlock(s *Server, p *Params) (any, error) {
	out, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	var script []byte
	if a, msg := decodeAddress(out, &s.cfg.Net); msg == "" {
		script = a.script()
	} else {
		d, err := parseDescriptor(out, &s.cfg.Net)
		if isDescriptorSyntaxError(err) {
			return nil, NewError(ErrInvalidAddress, "Error: Invalid address or descriptor")
		} else if err != nil {
			return nil, err
		}
		script = d.script
	}
	var list []json.RawMessage
	if err := json.Unmarshal(p.Raw(1), &list); err != nil {
		return nil, NewError(ErrType, "transactions must be an array")
	}
	txs := make([]*wire.MsgTx, 0, len(list))
	for _, r := range list {
		var h string
		if jsonKind(r) != "string" || json.Unmarshal(r, &h) != nil {
			return nil, typeError(r, "string")
		}
		// A txid names a mempool transaction; anything else must be a
		// raw transaction.
		if len(h) == 64 && isHex(h) {
			id, _ := parseHashV(h, "txid")
			c := s.chain()
			if c == nil || c.Transaction == nil {
				return nil, Errorf(ErrInvalidAddress, "Transaction %s not in mempool.", h)
			}
			lk, err := c.Transaction(id, nil)
			if err != nil || lk.BlockHash != nil {
				return nil, Errorf(ErrInvalidAddress, "Transaction %s not in mempool.", h)
			}
			txs = append(txs, lk.Tx)
			continue
		}
		tx, ok := decodeTxHex(h, true, true)
		if !ok {
			return nil, Errorf(ErrDeserialization, "Transaction decode failed for %s. Make sure the tx has at least one input.", h)
		}
		txs = append(txs, tx)
	}
	submit, err := p.Bool(2, true)
	if err != nil {
		return nil, err
	}
	h, raw, err := s.mining().GenerateBlock(script, txs, submit)
	if err != nil {
		return nil, err
	}
	r := &GenerateBlockResult{Hash: h.String()}
	if !submit {
		r.Hex = hex.EncodeToString(raw)
	}
	return r, nil
}
