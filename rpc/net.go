package rpc

func netHas(need func(n *NetBackend) bool) func(*Server) bool {
	return func(s *Server) bool {
		n := s.cfg.Backend.Net
		return n != nil && need(n)
	}
}

func (s *Server) net() *NetBackend { return s.cfg.Backend.Net }

// simpleNet is a network method without arguments that returns what the
// backend gives.
func simpleNet(name, desc, result string, pick func(n *NetBackend) func() (any, error), has func(n *NetBackend) bool) *Method {
	return &Method{
		Name: name, Category: "network", Description: desc, Result: result,
		Available: netHas(has),
		Handler:   func(s *Server, _ *Params) (any, error) { return pick(s.net())() },
	}
}

func netMethods() []*Method {
	return []*Method{
		{
			Name: "addnode", Category: "network",
			Description: `Attempts to add or remove a node from the addnode list.
Or try a connection to a node once.`,
			Args: []Arg{
				{Name: "node", Type: ArgStr, Description: "The address of the peer to connect to"},
				{Name: "command", Type: ArgStr, Description: "'add' to add a node to the list, 'remove' to remove a node from the list, 'onetry' to try a connection to the node once"},
				{Name: "v2transport", Type: ArgBool, Optional: true, Default: "set by -v2transport", Description: "Attempt to connect using BIP324 v2 transport protocol (ignored for 'remove' command)"},
			},
			Result:    "null    (json null)",
			Available: netHas(func(n *NetBackend) bool { return n.AddNode != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				node, _ := p.Str(0, "")
				cmd, _ := p.Str(1, "")
				n := s.net()
				v2, err := p.Bool(2, n.V2Transport != nil && n.V2Transport())
				if err != nil {
					return nil, err
				}
				if cmd != "add" && cmd != "remove" && cmd != "onetry" {
					return nil, NewError(ErrMisc, s.methods["addnode"].HelpText())
				}
				return nil, n.AddNode(node, cmd, v2)
			},
		},
		{
			Name: "clearbanned", Category: "network",
			Description: "Clear all banned IPs.",
			Result:      "null    (json null)",
			Available:   netHas(func(n *NetBackend) bool { return n.ClearBanned != nil }),
			Handler:     func(s *Server, _ *Params) (any, error) { return nil, s.net().ClearBanned() },
		},
		{
			Name: "disconnectnode", Category: "network",
			Description: `Immediately disconnects from the specified peer node.
Strictly one out of 'address' and 'nodeid' can be provided to identify the node.
To disconnect by nodeid, either set 'address' to the empty string, or call using the named 'nodeid' argument only.`,
			Args: []Arg{
				{Name: "address", Type: ArgStr, Optional: true, Default: "fallback to nodeid", Description: "The IP address/port of the node"},
				{Name: "nodeid", Type: ArgNum, Optional: true, Default: "fallback to address", Description: "The node ID (see getpeerinfo for node IDs)"},
			},
			Result:    "null    (json null)",
			Available: netHas(func(n *NetBackend) bool { return n.DisconnectNode != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				addr, err := p.Str(0, "")
				if err != nil {
					return nil, err
				}
				if addr != "" && !p.Has(1) {
					return nil, s.net().DisconnectNode(addr, 0, false)
				}
				if p.Has(1) && addr == "" {
					id, err := p.Int(1, 0)
					if err != nil {
						return nil, err
					}
					return nil, s.net().DisconnectNode("", id, true)
				}
				return nil, NewError(ErrInvalidParams, "Only one of address and nodeid should be provided.")
			},
		},
		{
			Name: "getaddednodeinfo", Category: "network",
			Description: "Returns information about the given added node, or all added nodes\n(note that onetry addnodes are not listed here)",
			Args:        []Arg{{Name: "node", Type: ArgStr, Optional: true, Default: "all nodes", Description: "If provided, return information about this specific node, otherwise all nodes are returned."}},
			Result:      `[ { "addednode" : "str", "connected" : true|false, "addresses" : [ { "address" : "str", "connected" : "str" }, ... ] }, ... ]`,
			Available:   netHas(func(n *NetBackend) bool { return n.AddedNodeInfo != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				node, err := p.Str(0, "")
				if err != nil {
					return nil, err
				}
				return s.net().AddedNodeInfo(node)
			},
		},
		simpleNet("getconnectioncount", "Returns the number of connections to other nodes.", "n    (numeric) The connection count",
			func(n *NetBackend) func() (any, error) {
				return func() (any, error) { return n.ConnectionCount() }
			}, func(n *NetBackend) bool { return n.ConnectionCount != nil }),
		simpleNet("getnettotals", "Returns information about network traffic, including bytes in, bytes out,\nand current system time.",
			`{ "totalbytesrecv", "totalbytessent", "timemillis", "uploadtarget" : { "timeframe", "target", "target_reached", "serve_historical_blocks", "bytes_left_in_cycle", "time_left_in_cycle" } }`,
			func(n *NetBackend) func() (any, error) {
				return func() (any, error) { return n.NetTotals() }
			}, func(n *NetBackend) bool { return n.NetTotals != nil }),
		simpleNet("getnetworkinfo", "Returns an object containing various state info regarding P2P networking.",
			`{ "version", "subversion", "protocolversion", "localservices", "localservicesnames", "localrelay", "timeoffset", "connections", "connections_in", "connections_out", "networkactive", "networks" : [ { "name", "limited", "reachable", "proxy", "proxy_randomize_credentials" } ], "relayfee", "incrementalfee", "localaddresses" : [ { "address", "port", "score" } ], "warnings" }
networks[].name: the network's name (ipv4, ipv6, onion, i2p, cjdns)`,
			func(n *NetBackend) func() (any, error) {
				return func() (any, error) { return n.NetworkInfo() }
			}, func(n *NetBackend) bool { return n.NetworkInfo != nil }),
		{
			Name: "getnodeaddresses", Category: "network",
			Description: "Return known addresses, after filtering for quality and recency.\nThese can potentially be used to find new peers in the network.\nThe total number of addresses known to the node may be higher.",
			Args: []Arg{
				{Name: "count", Type: ArgNum, Optional: true, Default: "1", Description: "The maximum number of addresses to return. Specify 0 to return all known addresses."},
				{Name: "network", Type: ArgStr, Optional: true, Default: "all networks", Description: "Return only addresses of the specified network. Can be one of: ipv4, ipv6, onion, i2p, cjdns."},
			},
			Result:    `[ { "time", "services", "address", "port", "network" }, ... ]`,
			Available: netHas(func(n *NetBackend) bool { return n.NodeAddresses != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				c, err := p.Int(0, 1)
				if err != nil {
					return nil, err
				}
				if c < 0 || c > 1<<31-1 {
					return nil, NewError(ErrInvalidParam, "Address count out of range")
				}
				nw, err := p.Str(1, "")
				if err != nil {
					return nil, err
				}
				switch nw {
				case "", "ipv4", "ipv6", "onion", "i2p", "cjdns":
				default:
					return nil, NewError(ErrInvalidParam, "Network not recognized: "+nw)
				}
				return s.net().NodeAddresses(int(c), nw)
			},
		},
		simpleNet("getpeerinfo", "Returns data about each connected network peer as a json array of objects.",
			`[ { "id", "addr", "addrbind", "addrlocal", "network", "mapped_as"?, "services", "servicesnames", "relaytxes", "lastsend", "lastrecv", "last_transaction", "last_block", "bytessent", "bytesrecv", "conntime", "timeoffset", "pingtime"?, "minping"?, "pingwait"?, "version", "subver", "inbound", "bip152_hb_to", "bip152_hb_from", "startingheight", "presynced_headers", "synced_headers", "synced_blocks", "inflight", "addr_relay_enabled", "addr_processed", "addr_rate_limited", "permissions", "minfeefilter", "bytessent_per_msg", "bytesrecv_per_msg", "connection_type", "transport_protocol_type", "session_id" }, ... ]
network: the network the peer is reached over (ipv4, ipv6, onion, i2p, cjdns, not_publicly_routable)
connection_type: inbound, outbound-full-relay, manual, feeler, block-relay-only or addr-fetch`,
			func(n *NetBackend) func() (any, error) {
				return func() (any, error) { return n.PeerInfo() }
			}, func(n *NetBackend) bool { return n.PeerInfo != nil }),
		simpleNet("listbanned", "List all manually banned IPs/Subnets.",
			`[ { "address", "ban_created", "banned_until", "ban_duration", "time_remaining" }, ... ]`,
			func(n *NetBackend) func() (any, error) {
				return func() (any, error) { return n.ListBanned() }
			}, func(n *NetBackend) bool { return n.ListBanned != nil }),
		simpleNet("ping", "Requests that a ping be sent to all other nodes, to measure ping time.\nResults provided in getpeerinfo, pingtime and pingwait fields are decimal seconds.\nPing command is handled in queue with all other commands, so it measures processing backlog, not just network ping.",
			"null    (json null)",
			func(n *NetBackend) func() (any, error) {
				return func() (any, error) { return nil, n.Ping() }
			}, func(n *NetBackend) bool { return n.Ping != nil }),
		{
			Name: "setban", Category: "network",
			Description: "Attempts to add or remove an IP/Subnet from the banned list.",
			Args: []Arg{
				{Name: "subnet", Type: ArgStr, Description: "The IP/Subnet (see getpeerinfo for nodes IP) with an optional netmask (default is /32 = single IP)"},
				{Name: "command", Type: ArgStr, Description: "'add' to add an IP/Subnet to the list, 'remove' to remove an IP/Subnet from the list"},
				{Name: "bantime", Type: ArgNum, Optional: true, Default: "0", Description: "time in seconds how long (or until when if [absolute] is set) the IP is banned (0 or empty means using the default time of 24h)"},
				{Name: "absolute", Type: ArgBool, Optional: true, Default: "false", Description: "If set, the bantime must be an absolute timestamp expressed in UNIX epoch time"},
			},
			Result:    "null    (json null)",
			Available: netHas(func(n *NetBackend) bool { return n.SetBan != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				subnet, _ := p.Str(0, "")
				cmd, _ := p.Str(1, "")
				if cmd != "add" && cmd != "remove" {
					return nil, NewError(ErrMisc, s.methods["setban"].HelpText())
				}
				bt, err := p.Int(2, 0)
				if err != nil {
					return nil, err
				}
				abs, err := p.Bool(3, false)
				if err != nil {
					return nil, err
				}
				return nil, s.net().SetBan(subnet, cmd, bt, abs)
			},
		},
		{
			Name: "setnetworkactive", Category: "network",
			Description: "Disable/enable all p2p network activity.",
			Args:        []Arg{{Name: "state", Type: ArgBool, Description: "true to enable networking, false to disable"}},
			Result:      "true|false    (boolean) The value that was passed in",
			Available:   netHas(func(n *NetBackend) bool { return n.SetNetworkActive != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				b, err := p.Bool(0, false)
				if err != nil {
					return nil, err
				}
				return s.net().SetNetworkActive(b)
			},
		},
	}
}
