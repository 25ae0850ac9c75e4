package rpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"sync"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/wire"
)

// UTXOScan is the outcome of ChainBackend.ScanUTXOs.
type UTXOScan struct {
	Height    int32     // the tip the set was scanned at
	BestBlock wire.Hash // its hash
	TxOuts    int64     // outputs visited
	Hits      []ScannedUTXO
}

// ScannedUTXO is one unspent output a scan matched.
type ScannedUTXO struct {
	OutPoint  wire.OutPoint
	Value     int64
	PkScript  []byte
	Height    int32 // of the block that created it
	BlockHash wire.Hash
	Coinbase  bool
}

// maxScanScripts bounds the scripts one scan looks for. The largest
// single scan object Core accepts (combo() over a million indexes) makes
// four million; the bound keeps a request with many such objects from
// taking unbounded memory and time.
const maxScanScripts = 4_000_000

// defaultScanRange is the range of a ranged descriptor given without one
// (Core's [0,1000]).
const defaultScanRange = 1000

func scanMethods() []*Method {
	return []*Method{{
		Name: "scantxoutset", Category: "blockchain",
		Description: `Scans the unspent transaction output set for entries that match certain output descriptors.
Examples of output descriptors are:
    addr(<address>)                      Outputs whose output script corresponds to the specified address (does not include P2PK)
    raw(<hex script>)                    Outputs whose output script equals the specified hex-encoded bytes
    combo(<pubkey>)                      P2PK, P2PKH, P2WPKH, and P2SH-P2WPKH outputs for the given pubkey
    pkh(<pubkey>)                        P2PKH outputs for the given pubkey
    sh(multi(<n>,<pubkey>,<pubkey>,...)) P2SH-multisig outputs for the given threshold and pubkeys
    tr(<pubkey>)                         P2TR
    tr(<pubkey>,{pk(<pubkey>)})          P2TR with single fallback pubkey in tapscript
    rawtr(<pubkey>)                      P2TR with the specified key as output key rather than inner

In the above, <pubkey> either refers to a fixed public key in hexadecimal notation, or to an xpub/xprv optionally followed by one
or more path elements separated by "/", and optionally ending in "/*" (unhardened), or "/*'" or "/*h" (hardened) to specify all
unhardened or hardened child keys.
In the latter case, a range needs to be specified by below if different from 1000.
For more information on output descriptors, see the documentation in the doc/descriptors.md file.`,
		Args: []Arg{
			{Name: "action", Type: ArgStr, Description: `The action to execute
"start" for starting a scan
"abort" for aborting the current scan (returns true when abort was successful)
"status" for progress report (in %) of the current scan`},
			{Name: "scanobjects", Type: ArgArr, Optional: true, Description: `Array of scan objects. Required for "start" action
Every scan object is either a string descriptor or an object:
  "descriptor"  (string) An output descriptor
  {             (json object) An object with output descriptor and metadata
    "desc": "str",    (string, required) An output descriptor
    "range": n or [n,n],  (numeric or array, optional, default=1000) The range of HD chain indexes to explore (either end or [begin,end])
  }`},
		},
		Result: `Result (when action=='start'; only returns after scan completes):
{                                (json object)
  "success" : true|false,        (boolean) Whether the scan was completed
  "txouts" : n,                  (numeric) The number of unspent transaction outputs scanned
  "height" : n,                  (numeric) The block height at which the scan was done
  "bestblock" : "hex",           (string) The hash of the block at the tip of the chain
  "unspents" : [                 (json array)
    {                            (json object)
      "txid" : "hex",            (string) The transaction id
      "vout" : n,                (numeric) The vout value
      "scriptPubKey" : "hex",    (string) The output script
      "desc" : "str",            (string) A specialized descriptor for the matched output script
      "amount" : n,              (numeric) The total amount in BTC of the unspent output
      "coinbase" : true|false,   (boolean) Whether this is a coinbase output
      "height" : n,              (numeric) Height of the unspent transaction output
      "blockhash" : "hex",       (string) Blockhash of the unspent transaction output
      "confirmations" : n        (numeric) Number of confirmations of the unspent transaction output when the scan was done
    },
    ...
  ],
  "total_amount" : n             (numeric) The total amount of all found unspent outputs in BTC
}

Result (when action=='abort'):
true|false    (boolean) True if scan will be aborted (not necessarily before this RPC returns), or false if there is no scan to abort

Result (when action=='status' and a scan is currently in progress):
{                    (json object)
  "progress" : n     (numeric) Approximate percent complete
}

Result (when action=='status' and no scan is in progress - possibly already completed):
null    (json null)`,
		Available: chainHas(func(c *ChainBackend) bool { return c.ScanUTXOs != nil }),
		Handler:   handleScanTxOutSet,
	}}
}

// scanState is a server's running scan.
type scanState struct {
	mu       sync.Mutex
	progress float64
	cancel   context.CancelFunc
}

// scans holds each server's running scan: bitcoind allows one at a time,
// and an entry exists exactly while it runs.
var scans sync.Map // *Server -> *scanState

// ScanResult is the scantxoutset "start" result.
type ScanResult struct {
	Success     bool          `json:"success"`
	TxOuts      int64         `json:"txouts"`
	Height      int32         `json:"height"`
	BestBlock   string        `json:"bestblock"`
	Unspents    []ScanUnspent `json:"unspents"`
	TotalAmount json.Number   `json:"total_amount"`
}

// ScanUnspent is one scantxoutset match.
type ScanUnspent struct {
	TxID          string      `json:"txid"`
	Vout          uint32      `json:"vout"`
	ScriptPubKey  string      `json:"scriptPubKey"`
	Desc          string      `json:"desc"`
	Amount        json.Number `json:"amount"`
	Coinbase      bool        `json:"coinbase"`
	Height        int32       `json:"height"`
	BlockHash     string      `json:"blockhash"`
	Confirmations int64       `json:"confirmations"`
}

func handleScanTxOutSet(s *Server, p *Params) (any, error) {
	action, err := p.Str(0, "")
	if err != nil {
		return nil, err
	}
	switch action {
	case "status":
		v, ok := scans.Load(s)
		if !ok {
			return nil, nil
		}
		st := v.(*scanState)
		st.mu.Lock()
		defer st.mu.Unlock()
		return map[string]int{"progress": int(math.Round(st.progress * 100))}, nil
	case "abort":
		v, ok := scans.Load(s)
		if !ok {
			return false, nil
		}
		v.(*scanState).cancel()
		return true, nil
	case "start":
	default:
		return nil, Errorf(ErrInvalidParam, "Invalid action '%s'", action)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &scanState{cancel: cancel}
	if _, running := scans.LoadOrStore(s, st); running {
		return nil, NewError(ErrInvalidParam, `Scan already in progress, use action "abort" or "status"`)
	}
	defer scans.Delete(s)
	if p.Len() < 2 {
		return nil, NewError(ErrMisc, "scanobjects argument is required for the start action")
	}
	// Stop with the server too.
	go func() {
		select {
		case <-s.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	needles, err := scanNeedles(ctx, p.Raw(1), &s.cfg.Net)
	if err != nil {
		return nil, err
	}
	match := func(script []byte) bool {
		_, ok := needles[string(script)]
		return ok
	}
	progress := func(done float64) {
		st.mu.Lock()
		st.progress = done
		st.mu.Unlock()
	}
	scan, err := s.chain().ScanUTXOs(ctx, match, progress)
	success := true
	if err != nil {
		if !errors.Is(err, context.Canceled) || scan == nil {
			return nil, err
		}
		success = false
	}
	hits := scan.Hits
	// bitcoind lists the matches in outpoint order: txid as stored (not
	// as displayed), then index.
	sort.Slice(hits, func(i, j int) bool {
		if c := bytes.Compare(hits[i].OutPoint.Hash[:], hits[j].OutPoint.Hash[:]); c != 0 {
			return c < 0
		}
		return hits[i].OutPoint.Index < hits[j].OutPoint.Index
	})
	r := &ScanResult{Success: success, TxOuts: scan.TxOuts, Height: scan.Height, BestBlock: scan.BestBlock.String(), Unspents: make([]ScanUnspent, 0, len(hits))}
	var total int64
	descs := map[string]string{}
	for _, h := range hits {
		total += h.Value
		d, ok := descs[string(h.PkScript)]
		if !ok {
			d = needles[string(h.PkScript)].describe()
			descs[string(h.PkScript)] = d
		}
		r.Unspents = append(r.Unspents, ScanUnspent{
			TxID: h.OutPoint.Hash.String(), Vout: h.OutPoint.Index,
			ScriptPubKey: hex.EncodeToString(h.PkScript), Desc: d,
			Amount: formatBTC(h.Value), Coinbase: h.Coinbase, Height: h.Height,
			BlockHash: h.BlockHash.String(), Confirmations: int64(scan.Height) - int64(h.Height) + 1,
		})
	}
	r.TotalAmount = formatBTC(total)
	return r, nil
}

// needle says where a scanned-for script came from, so that the
// descriptor reported for a match is inferred only for the matches.
type needle struct {
	desc  *descriptor.Descriptor
	index uint32
	out   int
}

// describe re-expands the needle's descriptor and infers the output's
// descriptor as bitcoind reports it.
func (n needle) describe() string {
	outs, err := n.desc.Expand(n.index)
	if err != nil || n.out >= len(outs) {
		return ""
	}
	return outs[n.out].Describe()
}

// scanNeedles expands the scan objects into the scripts to look for, each
// with the first descriptor that produced it.
func scanNeedles(ctx context.Context, raw json.RawMessage, net *NetParams) (map[string]needle, error) {
	var objs []json.RawMessage
	if err := json.Unmarshal(raw, &objs); err != nil {
		return nil, typeError(raw, "array")
	}
	needles := map[string]needle{}
	var work int64
	for _, o := range objs {
		str, lo, hi, err := scanObject(o)
		if err != nil {
			return nil, err
		}
		ds, err := parseDescriptors(str, net, false)
		if err != nil {
			return nil, err
		}
		if !ds[0].IsRange() {
			lo, hi = 0, 0
		}
		if err := checkDeriveWork(ds, lo, hi, &work); err != nil {
			return nil, err
		}
		for i := lo; i <= hi; i++ {
			if ctx.Err() != nil {
				return nil, NewError(ErrMisc, "Scan aborted")
			}
			for _, d := range ds {
				outs, err := d.Expand(uint32(i))
				if err != nil {
					return nil, Errorf(ErrInvalidAddress, "Cannot derive script without private keys: '%s'", str)
				}
				for k, out := range outs {
					if _, dup := needles[string(out.Script)]; dup {
						continue
					}
					if len(needles) >= maxScanScripts {
						return nil, Errorf(ErrInvalidParam, "Scan objects describe more than %d scripts", maxScanScripts)
					}
					needles[string(out.Script)] = needle{desc: d, index: uint32(i), out: k}
				}
			}
		}
	}
	return needles, nil
}

// scanObject reads one scan object: a descriptor string, or
// {"desc": ..., "range": ...} with range defaulting to [0,1000].
func scanObject(o json.RawMessage) (string, int64, int64, error) {
	var str string
	lo, hi := int64(0), int64(defaultScanRange)
	switch jsonKind(o) {
	case "string":
		if err := json.Unmarshal(o, &str); err != nil {
			return "", 0, 0, typeError(o, "string")
		}
	case "object":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(o, &m); err != nil {
			return "", 0, 0, typeError(o, "object")
		}
		d, ok := m["desc"]
		if !ok || jsonKind(d) == "null" {
			return "", 0, 0, NewError(ErrInvalidParam, "Descriptor needs to be provided in scan object")
		}
		if jsonKind(d) != "string" || json.Unmarshal(d, &str) != nil {
			return "", 0, 0, NewError(ErrMisc, "JSON value of type "+jsonKind(d)+" is not of expected type string")
		}
		if r, ok := m["range"]; ok && jsonKind(r) != "null" {
			var err error
			if lo, hi, err = parseDescriptorRange(r); err != nil {
				return "", 0, 0, err
			}
		}
	default:
		return "", 0, 0, NewError(ErrInvalidParam, "Scan object needs to be either a string or an object")
	}
	return str, lo, hi, nil
}
