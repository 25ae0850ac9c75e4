package rpc

// AddPeerAddressResult is the addpeeraddress result.
type AddPeerAddressResult struct {
	Success bool   `json:"success"`
	Error   string `json:"error,omitempty"`
}

func addPeerMethods() []*Method {
	return []*Method{{
		Name: "addpeeraddress", Category: "hidden",
		Description: "Add the address of a potential peer to an address manager table. This RPC is for testing only.",
		Args: []Arg{
			{Name: "address", Type: ArgStr, Description: "The IP address of the peer"},
			{Name: "port", Type: ArgNum, Description: "The port of the peer"},
			{Name: "tried", Type: ArgBool, Optional: true, Default: "false", Description: "If true, attempt to add the peer to the tried addresses table"},
		},
		Result: `{                        (json object)
  "success" : true|false, (boolean) whether the peer address was successfully added to the address manager table
  "error" : "str"         (string, optional) error description, if the address could not be added
}`,
		Available: netHas(func(n *NetBackend) bool { return n.AddPeerAddress != nil }),
		Handler: func(s *Server, p *Params) (any, error) {
			addr, err := p.Str(0, "")
			if err != nil {
				return nil, err
			}
			port, err := p.Int(1, 0)
			if err != nil {
				return nil, err
			}
			if port < 0 || port > 0xffff {
				return nil, NewError(ErrMisc, "JSON integer out of range")
			}
			tried, err := p.Bool(2, false)
			if err != nil {
				return nil, err
			}
			return s.net().AddPeerAddress(addr, uint16(port), tried)
		},
	}}
}
