package rpc

import (
	"encoding/json"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// defaultMaxFeeRate is sendrawtransaction's and testmempoolaccept's
// default fee-rate ceiling: 0.10 BTC/kvB in sat/kvB.
const defaultMaxFeeRate = 10_000_000

func mempoolHas(need func(m *MempoolBackend) bool) func(*Server) bool {
	return func(s *Server) bool {
		m := s.cfg.Backend.Mempool
		return m != nil && need(m)
	}
}

func (s *Server) mempool() *MempoolBackend { return s.cfg.Backend.Mempool }

const mempoolEntryHelp = `{
  "vsize" : n,              (numeric) virtual transaction size as defined in BIP 141
  "weight" : n,             (numeric) transaction weight as defined in BIP 141
  "time" : xxx,             (numeric) local time transaction entered pool in seconds since 1 Jan 1970 GMT
  "height" : n,             (numeric) block height when transaction entered pool
  "descendantcount" : n,    (numeric) number of in-mempool descendant transactions (including this one)
  "descendantsize" : n,     (numeric) virtual transaction size of in-mempool descendants (including this one)
  "ancestorcount" : n,      (numeric) number of in-mempool ancestor transactions (including this one)
  "ancestorsize" : n,       (numeric) virtual transaction size of in-mempool ancestors (including this one)
  "wtxid" : "hex",          (string) hash of serialized transaction, including witness data
  "fees" : { "base" : n, "modified" : n, "ancestor" : n, "descendant" : n },  (BTC)
  "depends" : [ "hex", ... ],   (json array) unconfirmed transactions used as inputs for this transaction
  "spentby" : [ "hex", ... ],   (json array) unconfirmed transactions spending outputs from this transaction
  "bip125-replaceable" : true|false,  (boolean) Whether this transaction signals BIP125 replaceability
  "unbroadcast" : true|false  (boolean) Whether this transaction is currently unbroadcast
}`

func mempoolMethods() []*Method {
	txidArg := Arg{Name: "txid", Type: ArgHex, Description: "The transaction id (must be in mempool)"}
	verboseArg := Arg{Name: "verbose", Type: ArgBool, Optional: true, Default: "false", Description: "True for a json object, false for array of transaction ids"}
	return []*Method{
		relatives("getmempoolancestors", "If txid is in the mempool, returns all in-mempool ancestors.", txidArg, verboseArg,
			func(m *MempoolBackend) func(wire.Hash) ([]wire.Hash, error) { return m.Ancestors }),
		relatives("getmempooldescendants", "If txid is in the mempool, returns all in-mempool descendants.", txidArg, verboseArg,
			func(m *MempoolBackend) func(wire.Hash) ([]wire.Hash, error) { return m.Descendants }),
		{
			Name: "getmempoolentry", Category: "blockchain",
			Description: "Returns mempool data for given transaction",
			Args:        []Arg{txidArg},
			Result:      mempoolEntryHelp,
			Available:   mempoolHas(func(m *MempoolBackend) bool { return m.Entry != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				h, err := p.Hash(0, "txid")
				if err != nil {
					return nil, err
				}
				return s.mempool().Entry(h)
			},
		},
		{
			Name: "getmempoolinfo", Category: "blockchain",
			Description: "Returns details on the active state of the TX memory pool.",
			Result:      `{ "loaded", "size", "bytes", "usage", "total_fee", "maxmempool", "mempoolminfee", "minrelaytxfee", "incrementalrelayfee", "unbroadcastcount", "fullrbf" }`,
			Available:   mempoolHas(func(m *MempoolBackend) bool { return m.Info != nil }),
			Handler:     func(s *Server, _ *Params) (any, error) { return s.mempool().Info() },
		},
		{
			Name: "getrawmempool", Category: "blockchain",
			Description: "Returns all transaction ids in memory pool as a json array of string transaction ids.\nHint: use getmempoolentry to fetch a specific transaction from the mempool.",
			Args: []Arg{
				verboseArg,
				{Name: "mempool_sequence", Type: ArgBool, Optional: true, Default: "false", Description: "If verbose=false, returns a json object with transaction list and mempool sequence number attached."},
			},
			Result:    `[ "hex", ... ] or (verbose) { "txid" : { mempool entry }, ... } or (mempool_sequence) { "txids" : [ "hex", ... ], "mempool_sequence" : n }`,
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.TxIDs != nil }),
			Handler:   handleGetRawMempool,
		},
		{
			Name: "sendrawtransaction", Category: "rawtransactions",
			Description: `Submit a raw transaction (serialized, hex-encoded) to local node and network.
The second argument may also be the legacy allowhighfees boolean (true: no fee-rate limit).`,
			Args: []Arg{
				{Name: "hexstring", Type: ArgHex, Description: "The hex string of the raw transaction"},
				{Name: "maxfeerate|allowhighfees", Type: ArgAny, Optional: true, Default: "0.10", Description: "Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB. Set to 0 to accept any fee rate."},
				{Name: "maxburnamount", Type: ArgAny, Optional: true, Default: "0", Description: "Reject transactions with provably unspendable outputs (e.g. 'datacarrier' outputs that use the OP_RETURN opcode) greater than the specified value, expressed in BTC."},
			},
			Result:    `"hex"    (string) The transaction hash in hex`,
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.Send != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				tx, err := txParam(p, 0)
				if err != nil {
					return nil, err
				}
				rate, err := maxFeeRateParam(p, 1)
				if err != nil {
					return nil, err
				}
				var maxBurn int64
				if p.Has(2) {
					if maxBurn, err = amountFromJSON(p.Raw(2)); err != nil {
						return nil, err
					}
				}
				for i := range tx.TxOut {
					if txscript.IsUnspendable(tx.TxOut[i].PkScript) && tx.TxOut[i].Value > maxBurn {
						return nil, NewError(ErrVerify, "Unspendable output exceeds maximum configured by user (maxburnamount)")
					}
				}
				h, err := s.mempool().Send(tx, rate)
				if err != nil {
					return nil, err
				}
				return h.String(), nil
			},
		},
		{
			Name: "testmempoolaccept", Category: "rawtransactions",
			Description: "Returns result of mempool acceptance tests indicating if raw transaction(s) (serialized, hex-encoded) would be accepted by mempool.",
			Args: []Arg{
				{Name: "rawtxs", Type: ArgArr, Description: "An array of hex strings of raw transactions."},
				{Name: "maxfeerate", Type: ArgAny, Optional: true, Default: "0.10", Description: "Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB"},
			},
			Result:    `[ { "txid", "wtxid", "package-error"?, "allowed"?, "vsize"?, "fees"? : { "base", "effective-feerate", "effective-includes" }, "reject-reason"? }, ... ]`,
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.TestAccept != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				var list []json.RawMessage
				if err := json.Unmarshal(p.Raw(0), &list); err != nil {
					return nil, NewError(ErrType, "rawtxs must be an array")
				}
				if len(list) == 0 || len(list) > 25 {
					return nil, NewError(ErrInvalidParam, "Array must contain between 1 and 25 transactions.")
				}
				txs := make([]*wire.MsgTx, len(list))
				for i, r := range list {
					var h string
					if jsonKind(r) != "string" || json.Unmarshal(r, &h) != nil {
						return nil, typeError(r, "string")
					}
					tx, ok := decodeTxHex(h, true, true)
					if !ok {
						return nil, Errorf(ErrDeserialization, "TX decode failed: %s Make sure the tx has at least one input.", h)
					}
					txs[i] = tx
				}
				rate, err := maxFeeRateParam(p, 1)
				if err != nil {
					return nil, err
				}
				return s.mempool().TestAccept(txs, rate)
			},
		},
		{
			Name: "estimatesmartfee", Category: "util",
			Description: "Estimates the approximate fee per kilobyte needed for a transaction to begin\nconfirmation within conf_target blocks if possible and return the number of blocks\nfor which the estimate is valid.",
			Args: []Arg{
				{Name: "conf_target", Type: ArgNum, Description: "Confirmation target in blocks (1 - 1008)"},
				{Name: "estimate_mode", Type: ArgStr, Optional: true, Default: `"economical"`, Description: "The fee estimate mode: unset, economical, conservative"},
			},
			Result:    `{ "feerate" : n (BTC/kvB, optional), "errors" : [ "str", ... ] (optional), "blocks" : n }`,
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.EstimateSmartFee != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				n, err := p.Int(0, 0)
				if err != nil {
					return nil, err
				}
				if n < 1 || n > 1008 {
					return nil, Errorf(ErrInvalidParam, "Invalid conf_target, must be between 1 and 1008")
				}
				mode, err := p.Str(1, "economical")
				if err != nil {
					return nil, err
				}
				switch mode {
				case "unset", "economical", "conservative", "UNSET", "ECONOMICAL", "CONSERVATIVE":
				default:
					return nil, NewError(ErrInvalidParam, "Invalid estimate_mode parameter, must be one of: \"unset\", \"economical\", \"conservative\"")
				}
				return s.mempool().EstimateSmartFee(n, mode)
			},
		},
	}
}

func relatives(name, desc string, txid, verbose Arg, pick func(m *MempoolBackend) func(wire.Hash) ([]wire.Hash, error)) *Method {
	return &Method{
		Name: name, Category: "blockchain", Description: desc,
		Args:      []Arg{txid, verbose},
		Result:    `[ "hex", ... ] or (verbose) { "txid" : { mempool entry as getmempoolentry }, ... }`,
		Available: mempoolHas(func(m *MempoolBackend) bool { return pick(m) != nil }),
		Handler: func(s *Server, p *Params) (any, error) {
			h, err := p.Hash(0, "txid")
			if err != nil {
				return nil, err
			}
			verbose, err := p.Bool(1, false)
			if err != nil {
				return nil, err
			}
			ids, err := pick(s.mempool())(h)
			if err != nil {
				return nil, err
			}
			if !verbose {
				return hashStrings(ids), nil
			}
			return entriesOf(s, ids)
		},
	}
}

// entriesOf looks up the entries of ids (verbose mempool listings).
func entriesOf(s *Server, ids []wire.Hash) (any, error) {
	m := s.mempool()
	if m.Entry == nil {
		return nil, NewError(ErrMisc, "mempool entries are not available")
	}
	out := make(map[string]*MempoolEntry, len(ids))
	for _, id := range ids {
		e, err := m.Entry(id)
		if err != nil {
			// The transaction may have left the pool meanwhile.
			continue
		}
		out[id.String()] = e
	}
	return out, nil
}

func handleGetRawMempool(s *Server, p *Params) (any, error) {
	verbose, err := p.Bool(0, false)
	if err != nil {
		return nil, err
	}
	seq, err := p.Bool(1, false)
	if err != nil {
		return nil, err
	}
	if verbose && seq {
		return nil, NewError(ErrInvalidParam, "Verbose results cannot contain mempool sequence values.")
	}
	ids, n, err := s.mempool().TxIDs()
	if err != nil {
		return nil, err
	}
	if verbose {
		return entriesOf(s, ids)
	}
	if seq {
		return struct {
			TxIDs []string `json:"txids"`
			Seq   uint64   `json:"mempool_sequence"`
		}{hashStrings(ids), n}, nil
	}
	return hashStrings(ids), nil
}

// txParam decodes a hex transaction argument with bitcoind's message.
func txParam(p *Params, i int) (*wire.MsgTx, error) {
	h, err := p.Str(i, "")
	if err != nil {
		return nil, err
	}
	tx, ok := decodeTxHex(h, true, true)
	if !ok {
		return nil, NewError(ErrDeserialization, "TX decode failed. Make sure the tx has at least one input.")
	}
	return tx, nil
}

// maxFeeRateParam reads a maxfeerate (BTC/kvB) or the legacy allowhighfees
// boolean and returns sat/kvB (0: no limit).
func maxFeeRateParam(p *Params, i int) (int64, error) {
	raw := p.Raw(i)
	switch jsonKind(raw) {
	case "null":
		return defaultMaxFeeRate, nil
	case "boolean":
		if b, _ := p.Bool(i, false); b {
			return 0, nil
		}
		return defaultMaxFeeRate, nil
	}
	v, err := amountFromJSON(raw)
	if err != nil {
		return 0, err
	}
	if v >= 100_000_000 {
		return 0, NewError(ErrInvalidParam, "Fee rates larger than or equal to 1BTC/kvB are not accepted")
	}
	return v, nil
}
