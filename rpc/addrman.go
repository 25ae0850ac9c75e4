package rpc

// RawAddrManEntry is one getrawaddrman table position.
type RawAddrManEntry struct {
	Address        string `json:"address"`
	MappedAS       *int64 `json:"mapped_as,omitempty"`
	Port           uint16 `json:"port"`
	Network        string `json:"network"`
	Services       uint64 `json:"services"`
	Time           int64  `json:"time"`
	Source         string `json:"source"`
	SourceNetwork  string `json:"source_network"`
	SourceMappedAS *int64 `json:"source_mapped_as,omitempty"`
}

// AddrManCounts is one network's getaddrmaninfo entry.
type AddrManCounts struct {
	New   int `json:"new"`
	Tried int `json:"tried"`
	Total int `json:"total"`
}

func addrManMethods() []*Method {
	return []*Method{
		{
			Name: "getrawaddrman", Category: "hidden",
			Description: "EXPERIMENTAL warning: this call may be changed in future releases.\n\nReturns information on all address manager entries for the new and tried tables.",
			Result: `{                                  (json object)
  "table" : {                      (json object) buckets with addresses in the address manager table ( new, tried )
    "bucket/position" : {          (json object) the location in the address manager table (<bucket>/<position>)
      "address" : "str",           (string) The address of the node
      "mapped_as" : n,             (numeric, optional) Mapped AS (Autonomous System) number at the end of the BGP route to the peer, used for diversifying peer selection (only displayed if the -asmap config option is set)
      "port" : n,                  (numeric) The port number of the node
      "network" : "str",           (string) The network (ipv4, ipv6, onion, i2p, cjdns) of the address
      "services" : n,              (numeric) The services offered by the node
      "time" : xxx,                (numeric) The UNIX epoch time when the node was last seen
      "source" : "str",            (string) The address that relayed the address to us
      "source_network" : "str",    (string) The network (ipv4, ipv6, onion, i2p, cjdns) of the source address
      "source_mapped_as" : n       (numeric, optional) Mapped AS (Autonomous System) number at the end of the BGP route to the source, used for diversifying peer selection (only displayed if the -asmap config option is set)
    },
    ...
  },
  ...
}`,
			Available: netHas(func(n *NetBackend) bool { return n.RawAddrMan != nil }),
			Handler: func(s *Server, _ *Params) (any, error) {
				return s.net().RawAddrMan()
			},
		},
		{
			Name: "getaddrmaninfo", Category: "network",
			Description: "Provides information about the node's address manager by returning the number of addresses in the `new` and `tried` tables and their sum for all networks.",
			Result: `{                   (json object) json object with network type as keys
  "network" : {     (json object) the network (ipv4, ipv6, onion, i2p, cjdns, all_networks)
    "new" : n,      (numeric) number of addresses in the new table, which represent potential peers the node has discovered but hasn't yet successfully connected to.
    "tried" : n,    (numeric) number of addresses in the tried table, which represent peers the node has successfully connected to in the past.
    "total" : n     (numeric) total number of addresses in both new/tried tables
  },
  ...
}`,
			Available: netHas(func(n *NetBackend) bool { return n.AddrManInfo != nil }),
			Handler: func(s *Server, _ *Params) (any, error) {
				return s.net().AddrManInfo()
			},
		},
	}
}
