package rpc

import (
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// maxPackageCount is Core's MAX_PACKAGE_COUNT, the most transactions
// submitpackage takes.
const maxPackageCount = 25

// SubmitPackageResult is the submitpackage result.
type SubmitPackageResult struct {
	// PackageMsg is "success" or the package-wide failure.
	PackageMsg string `json:"package_msg"`
	// TxResults holds a result per evaluated member, keyed by wtxid.
	TxResults map[string]*SubmitPackageTx `json:"tx-results"`
	// Replaced lists the txids the package evicted.
	Replaced []string `json:"replaced-transactions"`
}

// SubmitPackageTx is one member's submitpackage result: the fees when it
// is in the pool, the other witness's wtxid when the pool holds that one
// instead, or the error.
type SubmitPackageTx struct {
	TxID       string             `json:"txid"`
	OtherWTxID string             `json:"other-wtxid,omitempty"`
	VSize      int64              `json:"vsize,omitempty"`
	Fees       *SubmitPackageFees `json:"fees,omitempty"`
	Error      string             `json:"error,omitempty"`
}

// SubmitPackageFees is a member's fees; the effective fee rate (BTC/kvB)
// and the wtxids it covers are given only for members that entered now.
type SubmitPackageFees struct {
	Base              json.Number `json:"base"`
	EffectiveFeeRate  json.Number `json:"effective-feerate,omitempty"`
	EffectiveIncludes []string    `json:"effective-includes,omitempty"`
}

// PrioritisedTx is one getprioritisedtransactions entry; ModifiedFee is
// set when the transaction is in the pool.
type PrioritisedTx struct {
	TxID        wire.Hash
	Delta       int64
	InMempool   bool
	ModifiedFee int64
}

// OrphanTx is one orphan for getorphantxs: the transaction, when it
// arrived and expires (Unix seconds) and the peers that sent or
// announced it.
type OrphanTx struct {
	Tx         *wire.MsgTx
	Entry      int64
	Expiration int64
	From       []int64
}

func packageMethods() []*Method {
	return []*Method{
		{
			Name: "submitpackage", Category: "rawtransactions",
			Description: `Submit a package of raw transactions (serialized, hex-encoded) to local node.
The package will be validated according to consensus and mempool policy rules. If any transaction passes, it will be accepted to mempool.
This RPC is experimental and the interface may be unstable. Refer to doc/policy/packages.md for documentation on package policies.
Warning: successful submission does not mean the transactions will propagate throughout the network.`,
			Args: []Arg{
				{Name: "package", Type: ArgArr, Description: "An array of raw transactions.\nThe package must solely consist of a child transaction and all of its unconfirmed parents, if any. None of the parents may depend on each other.\nThe package must be topologically sorted, with the child being the last element in the array."},
				{Name: "maxfeerate", Type: ArgAmount, Optional: true, Default: "0.10", Description: "Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB.\nFee rates larger than 1BTC/kvB are rejected.\nSet to 0 to accept any fee rate."},
				{Name: "maxburnamount", Type: ArgAmount, Optional: true, Default: "0.00", Description: "Reject transactions with provably unspendable outputs (e.g. 'datacarrier' outputs that use the OP_RETURN opcode) greater than the specified value, expressed in BTC.\nIf burning funds through unspendable outputs is desired, increase this value.\nThis check is based on heuristics and does not guarantee spendability of outputs."},
			},
			Result: `{
  "package_msg" : "str",             (string) The transaction package result message. "success" indicates all transactions were accepted into or are already in the mempool.
  "tx-results" : {                   (json object) The transaction results keyed by wtxid.
    "wtxid" : { "txid", "other-wtxid"?, "vsize"?, "fees"? : { "base", "effective-feerate"?, "effective-includes"? }, "error"? }
  },
  "replaced-transactions" : [ "hex", ... ]   (json array) List of txids of replaced transactions
}`,
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.SubmitPackage != nil }),
			Handler:   handleSubmitPackage,
		},
		{
			Name: "prioritisetransaction", Category: "mining",
			Description: "Accepts the transaction into mined blocks at a higher (or lower) priority",
			Args: []Arg{
				{Name: "txid", Type: ArgHex, Description: "The transaction id."},
				{Name: "dummy", Type: ArgNum, Optional: true, Description: "API-Compatibility for previous API. Must be zero or null.\nDEPRECATED. For forward compatibility use named arguments and omit this parameter."},
				{Name: "fee_delta", Type: ArgNum, Description: "The fee value (in satoshis) to add (or subtract, if negative).\nNote, that this value is not a fee rate. It is a value to modify absolute fee of the TX.\nThe fee is not actually paid, only the algorithm for selecting transactions into a block\nconsiders the transaction as it would have paid a higher (or lower) fee."},
			},
			Result:    "true|false    (boolean) Returns true",
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.Prioritise != nil }),
			Handler:   handlePrioritiseTransaction,
		},
		{
			Name: "getprioritisedtransactions", Category: "mining",
			Description: "Returns a map of all user-created (see prioritisetransaction) fee deltas by txid, and whether the tx is present in mempool.",
			Result: `{
  "<transactionid>" : {        (json object)
    "fee_delta" : n,           (numeric) transaction fee delta in satoshis
    "in_mempool" : true|false, (boolean) whether this transaction is currently in mempool
    "modified_fee" : n         (numeric, optional) modified fee in satoshis. Only returned if in_mempool=true
  },
  ...
}`,
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.Prioritised != nil }),
			Handler:   handleGetPrioritisedTransactions,
		},
		{
			Name: "getorphantxs", Category: "hidden",
			Description: "Shows transactions in the tx orphanage.\n\nEXPERIMENTAL warning: this call may be changed in future releases.",
			Args: []Arg{
				{Name: "verbosity", Type: ArgAny, Optional: true, Default: "0", Description: "0 for an array of txids (may contain duplicates), 1 for an array of objects with tx details, and 2 for details from (1) and tx hex"},
			},
			Result:    `[ "hex", ... ] or (verbosity 1) [ { "txid", "wtxid", "bytes", "vsize", "weight", "entry", "expiration", "from" : [ n, ... ] }, ... ] or (verbosity 2) [ { ..., "hex" }, ... ]`,
			Available: mempoolHas(func(m *MempoolBackend) bool { return m.Orphans != nil }),
			Handler:   handleGetOrphanTxs,
		},
	}
}

// handleSubmitPackage checks what needs no context (the count, the fee
// and burn arguments, the decoding and burn of every member) before the
// backend checks the topology and evaluates the package.
func handleSubmitPackage(s *Server, p *Params) (any, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(p.Raw(0), &list); err != nil {
		return nil, NewError(ErrType, "package must be an array")
	}
	if len(list) == 0 || len(list) > maxPackageCount {
		return nil, Errorf(ErrInvalidParam, "Array must contain between 1 and %d transactions.", maxPackageCount)
	}
	rate := int64(defaultMaxFeeRate)
	if raw := p.Raw(1); raw != nil {
		v, err := amountFromJSON(raw)
		if err != nil {
			return nil, err
		}
		if v >= 100_000_000 {
			return nil, NewError(ErrInvalidParam, "Fee rates larger than or equal to 1BTC/kvB are not accepted")
		}
		rate = v
	}
	var maxBurn int64
	if raw := p.Raw(2); raw != nil {
		v, err := amountFromJSON(raw)
		if err != nil {
			return nil, err
		}
		maxBurn = v
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
		for j := range tx.TxOut {
			out := &tx.TxOut[j]
			if (isUnspendableScript(out.PkScript) || !hasValidOps(out.PkScript)) && out.Value > maxBurn {
				return nil, NewError(ErrVerify, "Unspendable output exceeds maximum configured by user (maxburnamount)")
			}
		}
		txs[i] = tx
	}
	return s.mempool().SubmitPackage(txs, rate)
}

// isUnspendableScript is Core's CScript::IsUnspendable: an OP_RETURN
// script or one over the 10,000-byte script limit.
func isUnspendableScript(s []byte) bool {
	return (len(s) > 0 && s[0] == 0x6a) || len(s) > 10_000
}

func handlePrioritiseTransaction(s *Server, p *Params) (any, error) {
	txid, err := p.Hash(0, "txid")
	if err != nil {
		return nil, err
	}
	if raw := p.Raw(1); raw != nil {
		d, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
		if err != nil || d != 0 {
			return nil, NewError(ErrInvalidParam, "Priority is no longer supported, dummy argument to prioritisetransaction must be 0.")
		}
	}
	delta, err := parseJSONInt(p.Raw(2))
	if err != nil {
		return nil, err
	}
	if err := s.mempool().Prioritise(txid, delta); err != nil {
		return nil, err
	}
	return true, nil
}

// prioritisedEntry is one getprioritisedtransactions value.
type prioritisedEntry struct {
	FeeDelta    int64  `json:"fee_delta"`
	InMempool   bool   `json:"in_mempool"`
	ModifiedFee *int64 `json:"modified_fee,omitempty"`
}

func handleGetPrioritisedTransactions(s *Server, _ *Params) (any, error) {
	list, err := s.mempool().Prioritised()
	if err != nil {
		return nil, err
	}
	out := make(map[string]prioritisedEntry, len(list))
	for _, pt := range list {
		e := prioritisedEntry{FeeDelta: pt.Delta, InMempool: pt.InMempool}
		if pt.InMempool {
			fee := pt.ModifiedFee
			e.ModifiedFee = &fee
		}
		out[pt.TxID.String()] = e
	}
	return out, nil
}

// orphanEntry is a getorphantxs object (verbosity 1 and 2).
type orphanEntry struct {
	TxID       string  `json:"txid"`
	WTxID      string  `json:"wtxid"`
	Bytes      int     `json:"bytes"`
	VSize      int64   `json:"vsize"`
	Weight     int64   `json:"weight"`
	Entry      int64   `json:"entry"`
	Expiration int64   `json:"expiration"`
	From       []int64 `json:"from"`
	Hex        string  `json:"hex,omitempty"`
}

func handleGetOrphanTxs(s *Server, p *Params) (any, error) {
	verbosity := int64(0)
	switch raw := p.Raw(0); jsonKind(raw) {
	case "null":
	case "boolean":
		return nil, NewError(ErrType, "Verbosity was boolean but only integer allowed")
	default:
		v, err := parseJSONInt(raw)
		if err != nil {
			return nil, err
		}
		verbosity = v
	}
	if verbosity < 0 || verbosity > 2 {
		return nil, Errorf(ErrInvalidParam, "Invalid verbosity value %d", verbosity)
	}
	orphans, err := s.mempool().Orphans()
	if err != nil {
		return nil, err
	}
	if verbosity == 0 {
		ids := make([]string, len(orphans))
		for i, o := range orphans {
			ids[i] = o.Tx.TxHash().String()
		}
		return ids, nil
	}
	out := make([]orphanEntry, len(orphans))
	for i, o := range orphans {
		weight := o.Tx.Weight()
		from := o.From
		if from == nil {
			from = []int64{}
		}
		out[i] = orphanEntry{
			TxID: o.Tx.TxHash().String(), WTxID: o.Tx.WitnessHash().String(),
			Bytes: o.Tx.SerializeSize(), VSize: (weight + 3) / 4, Weight: weight,
			Entry: o.Entry, Expiration: o.Expiration, From: from,
		}
		if verbosity == 2 {
			out[i].Hex = hex.EncodeToString(o.Tx.Bytes())
		}
	}
	return out, nil
}

// SortTxIDs orders txids as Core's txid-keyed sets do (by their bytes in
// internal order), for results such as submitpackage's
// replaced-transactions.
func SortTxIDs(ids []wire.Hash) []string {
	sorted := append([]wire.Hash(nil), ids...)
	sort.Slice(sorted, func(i, j int) bool { return string(sorted[i][:]) < string(sorted[j][:]) })
	out := make([]string, 0, len(sorted))
	for i, h := range sorted {
		if i > 0 && h == sorted[i-1] {
			continue
		}
		out = append(out, h.String())
	}
	return out
}
