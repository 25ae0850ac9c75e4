package rpc

// regtestNetMethods are Core's hidden network methods for tests.
func regtestNetMethods() []*Method {
	return []*Method{
		{
			Name: "addconnection", Category: "hidden",
			Description: "Open an outbound connection to a specified node. This RPC is for testing only.",
			Args: []Arg{
				{Name: "address", Type: ArgStr, Description: "The IP address and port to attempt connecting to."},
				{Name: "connection_type", Type: ArgStr, Description: "Type of connection to open (\"outbound-full-relay\", \"block-relay-only\", \"addr-fetch\" or \"feeler\")."},
				{Name: "v2transport", Type: ArgBool, Description: "Attempt to connect using BIP324 v2 transport protocol"},
			},
			Result: `{
  "address" : "str",            (string) Address of newly added connection.
  "connection_type" : "str"     (string) Type of connection opened.
}`,
			Available: netHas(func(n *NetBackend) bool { return n.AddConnection != nil }),
			Handler: func(s *Server, p *Params) (any, error) {
				if p.Len() < 3 {
					return nil, NewError(ErrMisc, s.methods["addconnection"].HelpText())
				}
				addr, err := p.Str(0, "")
				if err != nil {
					return nil, err
				}
				typ, err := p.Str(1, "")
				if err != nil {
					return nil, err
				}
				v2, err := p.Bool(2, false)
				if err != nil {
					return nil, err
				}
				switch typ {
				case "outbound-full-relay", "block-relay-only", "addr-fetch", "feeler":
				default:
					return nil, NewError(ErrInvalidParam, "Error: Invalid connection type")
				}
				if err := s.net().AddConnection(addr, typ, v2); err != nil {
					return nil, err
				}
				return struct {
					Address        string `json:"address"`
					ConnectionType string `json:"connection_type"`
				}{addr, typ}, nil
			},
		},
	}
}
