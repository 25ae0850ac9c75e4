package rpc

import (
	"encoding/json"
	"sort"
)

// This file is bitcoind's importmempool: load a mempool.dat file (Core's
// format, which savemempool writes too) into the running pool.

// ImportMempoolOptions are importmempool's options, with bitcoind's
// defaults.
type ImportMempoolOptions struct {
	// UseCurrentTime enters the transactions at the current time instead
	// of the file's entry times (default true).
	UseCurrentTime bool
	// ApplyFeeDeltaPriority adds the file's prioritisetransaction deltas
	// to the pool's (default false).
	ApplyFeeDeltaPriority bool
	// ApplyUnbroadcastSet puts the file's unbroadcast transactions in
	// the pool's unbroadcast set (default false).
	ApplyUnbroadcastSet bool
}

func importMempoolMethods() []*Method {
	return []*Method{{
		Name: "importmempool", Category: "blockchain",
		Description: "Import a mempool.dat file and attempt to add its contents to the mempool.\n" +
			"Warning: Importing untrusted files is dangerous, especially if metadata from the file is taken over.",
		Args: []Arg{
			{Name: "filepath", Type: ArgStr, Description: "The mempool file"},
			{Name: "options", Type: ArgObj, Optional: true, Description: `{ "use_current_time": bool (default true), "apply_fee_delta_priority": bool (default false), "apply_unbroadcast_set": bool (default false) }`},
		},
		Result:    "{}    (json object)",
		Available: mempoolHas(func(m *MempoolBackend) bool { return m.Import != nil }),
		Handler: func(s *Server, p *Params) (any, error) {
			path, err := p.Str(0, "")
			if err != nil {
				return nil, err
			}
			opts := ImportMempoolOptions{UseCurrentTime: true}
			if p.Has(1) {
				var obj map[string]json.RawMessage
				if err := json.Unmarshal(p.Raw(1), &obj); err != nil {
					return nil, typeError(p.Raw(1), "object")
				}
				keys := make([]string, 0, len(obj))
				for k := range obj {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					var dst *bool
					switch k {
					case "use_current_time":
						dst = &opts.UseCurrentTime
					case "apply_fee_delta_priority":
						dst = &opts.ApplyFeeDeltaPriority
					case "apply_unbroadcast_set":
						dst = &opts.ApplyUnbroadcastSet
					default:
						return nil, Errorf(ErrType, "Unexpected key %s", k)
					}
					v := obj[k]
					if isNull(v) {
						continue
					}
					if jsonKind(v) != "boolean" || json.Unmarshal(v, dst) != nil {
						return nil, typeError(v, "bool")
					}
				}
			}
			if err := s.mempool().Import(path, opts); err != nil {
				return nil, err
			}
			return struct{}{}, nil
		},
	}}
}
