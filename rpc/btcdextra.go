package rpc

import (
	"encoding/hex"
	"encoding/json"

	"github.com/btcnode/btcd/wire"
)

// This file holds the btcd extension methods that btcd's clients call
// over HTTP and websockets alike: getinfo, getheaders, getcfilter,
// getcfilterheader, searchrawtransactions, getbestblock, getcurrentnet and
// version, with btcd v0.26.2's shapes and errors. They are left out of the
// bitcoind-style "help" listing ("help <name>" still describes them).

// BtcdAPIVersion is the btcd release whose RPC API the server answers,
// in btcd's getinfo encoding (1000000*major + 10000*minor + 100*patch of
// v0.26.2). rpcclient's BackendVersion reads it to decide which methods a
// btcd backend has (0.24.1 and later: testmempoolaccept and
// gettxspendingprevout).
const BtcdAPIVersion = 260200

// btcdJSONRPCAPI is btcd's JSON-RPC API semantic version (version).
const (
	btcdAPIMajor = 1
	btcdAPIMinor = 3
	btcdAPIPatch = 0
)

// BtcdInfo is btcd's getinfo result.
type BtcdInfo struct {
	Version         int32       `json:"version"`
	ProtocolVersion int32       `json:"protocolversion"`
	Blocks          int32       `json:"blocks"`
	TimeOffset      int64       `json:"timeoffset"`
	Connections     int32       `json:"connections"`
	Proxy           string      `json:"proxy"`
	Difficulty      Float       `json:"difficulty"`
	TestNet         bool        `json:"testnet"`
	RelayFee        json.Number `json:"relayfee"`
	Errors          string      `json:"errors"`
}

// BestBlockResult is btcd's getbestblock result.
type BestBlockResult struct {
	Hash   string `json:"hash"`
	Height int32  `json:"height"`
}

// APIVersion is one entry of btcd's version result.
type APIVersion struct {
	VersionString string `json:"versionstring"`
	Major         uint32 `json:"major"`
	Minor         uint32 `json:"minor"`
	Patch         uint32 `json:"patch"`
	Prerelease    string `json:"prerelease"`
	BuildMetadata string `json:"buildmetadata"`
}

// btcdHas makes an Available function for a BtcdBackend need.
func btcdHas(need func(b *BtcdBackend) bool) func(*Server) bool {
	return func(s *Server) bool {
		b := s.cfg.Backend.Btcd
		return b != nil && need(b)
	}
}

// jsonUnmarshalArg decodes an argument the method declared with a JSON
// type already checked, turning a mismatch inside it into -3.
func jsonUnmarshalArg(raw json.RawMessage, v any) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return NewError(ErrType, "Wrong type passed: "+err.Error())
	}
	return nil
}

// btcdHexError is btcd's error for a hash argument that does not parse.
func btcdHexError(s string) *Error {
	return Errorf(ErrDeserialization, "Argument must be hexadecimal string (not %q)", s)
}

// errNoCFIndex is btcd's answer to the filter methods without the index.
var errNoCFIndex = NewError(ErrInvalidAddress, "The CF index must be enabled for this command")

func btcdMethods() []*Method {
	hashArg := Arg{Name: "hash", Type: ArgStr, Description: "The block hash"}
	typeArg := Arg{Name: "filtertype", Type: ArgNum, Optional: true, Default: "0", Description: "The type of filter (0: regular, BIP158 basic)"}
	// blockFilter looks the block's basic filter up with btcd's errors.
	blockFilter := func(s *Server, p *Params) (*BlockFilter, error) {
		str, err := p.Str(0, "")
		if err != nil {
			return nil, err
		}
		h, err := parseHashV(str, "hash")
		if err != nil {
			return nil, btcdHexError(str)
		}
		ft, err := p.Int(1, 0)
		if err != nil {
			return nil, err
		}
		if s.chain().BlockFilter == nil {
			return nil, errNoCFIndex
		}
		if ft != 0 {
			return nil, ErrBlockNotFound
		}
		f, err := s.chain().BlockFilter(h, "basic")
		if err != nil {
			log.Debugf("Could not find committed filter for %v: %v", h, err)
			return nil, ErrBlockNotFound
		}
		return f, nil
	}
	return []*Method{
		{
			Name: "getinfo", Category: "hidden",
			Description: "Returns a JSON object containing various state info (btcd).",
			Result:      `{ "version": n, "protocolversion": n, "blocks": n, "timeoffset": n, "connections": n, "proxy": "str", "difficulty": n, "testnet": bool, "relayfee": n, "errors": "str" }`,
			Available:   btcdHas(func(b *BtcdBackend) bool { return b.Info != nil }),
			Handler: func(s *Server, _ *Params) (any, error) {
				info, err := s.cfg.Backend.Btcd.Info()
				if err != nil {
					return nil, err
				}
				out := *info
				out.Version = BtcdAPIVersion
				return &out, nil
			},
		},
		{
			Name: "getheaders", Category: "hidden",
			Description: "Returns block headers starting with the first known block hash from the request (btcd).",
			Args: []Arg{{Name: "blocklocators", Type: ArgArr, Description: "JSON array of hex-encoded hashes of blocks.  Headers are returned starting from the first known hash in this list"},
				{Name: "hashstop", Type: ArgStr, Description: "Block hash to stop including block headers for; if not found, all headers to the latest known block are returned."}},
			Result:    `[ "hex", ... ]   (serialized block headers)`,
			Available: btcdHas(func(b *BtcdBackend) bool { return b.LocateHeaders != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				var strs []string
				if err := jsonUnmarshalArg(p.Raw(0), &strs); err != nil {
					return nil, err
				}
				// A locator longer than a P2P one is of no use; bound it
				// before decoding.
				if len(strs) > 500 {
					strs = strs[:500]
				}
				loc := make([]wire.Hash, 0, len(strs))
				for _, str := range strs {
					h, err := parseHashV(str, "blocklocator")
					if err != nil {
						return nil, btcdHexError(str)
					}
					loc = append(loc, h)
				}
				var stop wire.Hash
				if str, _ := p.Str(1, ""); str != "" {
					h, err := parseHashV(str, "hashstop")
					if err != nil {
						return nil, btcdHexError(str)
					}
					stop = h
				}
				hdrs, err := s.cfg.Backend.Btcd.LocateHeaders(loc, stop)
				if err != nil {
					return nil, err
				}
				out := make([]string, len(hdrs))
				for i := range hdrs {
					out[i] = hex.EncodeToString(hdrs[i].AppendTo(nil))
				}
				return out, nil
			},
		},
		{
			Name: "getcfilter", Category: "hidden",
			Description: "Returns a block's committed filter given its hash (btcd).",
			Args:        []Arg{hashArg, typeArg},
			Result:      `"hex"   (string) The filter's serialization`,
			Available:   chainHas(func(*ChainBackend) bool { return true }),
			Handler: func(s *Server, p *Params) (any, error) {
				f, err := blockFilter(s, p)
				if err != nil {
					return nil, err
				}
				return f.Filter, nil
			},
		},
		{
			Name: "getcfilterheader", Category: "hidden",
			Description: "Returns a block's compact filter header given its hash (btcd).",
			Args:        []Arg{hashArg, typeArg},
			Result:      `"hex"   (string) The filter header, as a hash`,
			Available:   chainHas(func(*ChainBackend) bool { return true }),
			Handler: func(s *Server, p *Params) (any, error) {
				f, err := blockFilter(s, p)
				if err != nil {
					return nil, err
				}
				return f.Header, nil
			},
		},
		{
			Name: "searchrawtransactions", Category: "hidden",
			Description: "Returns raw data for transactions involving the passed address (btcd). It needs an address index, which this node does not keep.",
			Args: []Arg{{Name: "address", Type: ArgStr, Description: "The Bitcoin address to search for"},
				{Name: "verbose", Type: ArgNum, Optional: true, Default: "1", Description: "Specifies the transaction is returned as a JSON object instead of hex-encoded string"},
				{Name: "skip", Type: ArgNum, Optional: true, Default: "0", Description: "The number of leading transactions to leave out of the final response"},
				{Name: "count", Type: ArgNum, Optional: true, Default: "100", Description: "The maximum number of transactions to return"},
				{Name: "vinextra", Type: ArgNum, Optional: true, Default: "0", Description: "Specify that extra data from previous output will be returned in vin"},
				{Name: "reverse", Type: ArgBool, Optional: true, Default: "false", Description: "Specifies that the transactions should be returned in reverse chronological order"},
				{Name: "filteraddrs", Type: ArgArr, Optional: true, Description: "Address list.  Only inputs or outputs with matching address will be returned"}},
			Handler: func(*Server, *Params) (any, error) {
				return nil, NewError(ErrMisc, "Address index must be enabled (--addrindex)")
			},
		},
		{
			Name: "getbestblock", Category: "hidden",
			Description: "Get block height and hash of best block in the main chain (btcd).",
			Result:      `{ "hash": "hex", "height": n }`,
			Available:   chainHas(func(c *ChainBackend) bool { return c.BestBlock != nil }),
			Handler: func(s *Server, _ *Params) (any, error) {
				h, height, err := s.chain().BestBlock()
				if err != nil {
					return nil, err
				}
				return BestBlockResult{Hash: h.String(), Height: height}, nil
			},
		},
		{
			Name: "getcurrentnet", Category: "hidden",
			Description: "Get bitcoin network the server is running on (btcd).",
			Result:      "n   (numeric) The network's P2P message magic",
			Available:   btcdHas(func(b *BtcdBackend) bool { return b.Net != 0 }),
			Handler: func(s *Server, _ *Params) (any, error) {
				return s.cfg.Backend.Btcd.Net, nil
			},
		},
		{
			Name: "version", Category: "hidden",
			Description: "Returns the JSON-RPC API version (semver) (btcd).",
			Result:      `{ "btcdjsonrpcapi": { "versionstring": "x.y.z", "major": n, "minor": n, "patch": n, "prerelease": "", "buildmetadata": "" } }`,
			Handler: func(*Server, *Params) (any, error) {
				return map[string]APIVersion{"btcdjsonrpcapi": {
					VersionString: itoa(btcdAPIMajor) + "." + itoa(btcdAPIMinor) + "." + itoa(btcdAPIPatch),
					Major:         btcdAPIMajor, Minor: btcdAPIMinor, Patch: btcdAPIPatch,
				}}, nil
			},
		},
	}
}
