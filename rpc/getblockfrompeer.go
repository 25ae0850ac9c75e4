package rpc

func blockFromPeerMethods() []*Method {
	return []*Method{{
		Name: "getblockfrompeer", Category: "blockchain",
		Description: `Attempt to fetch block from a given peer.

We must have the header for this block, e.g. using submitheader.
The block will not have any undo data which can limit the usage of the block data in a context where the undo data is needed.
Subsequent calls for the same block may cause the response from the previous peer to be ignored.
Peers generally ignore requests for a stale block that they never fully verified, or one that is more than a month old.
When a peer does not respond with a block, we will disconnect.
Note: The block could be re-pruned as soon as it is received.

Returns an empty JSON object if the request was successfully scheduled.`,
		Args: []Arg{
			{Name: "blockhash", Type: ArgStr, Description: "The block hash to try to fetch"},
			{Name: "peer_id", Type: ArgNum, Description: "The peer to fetch it from (see getpeerinfo for peer IDs)"},
		},
		Result:    "{}    (json object)",
		Available: netHas(func(n *NetBackend) bool { return n.FetchBlock != nil }),
		Handler: func(s *Server, p *Params) (any, error) {
			h, err := p.Hash(0, "blockhash")
			if err != nil {
				return nil, err
			}
			id, err := p.Int(1, 0)
			if err != nil {
				return nil, err
			}
			if err := s.net().FetchBlock(h, id); err != nil {
				return nil, err
			}
			return struct{}{}, nil
		},
	}}
}
