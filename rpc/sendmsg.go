package rpc

import "encoding/hex"

// sendMsgMethods is regtest's sendmsgtopeer: a message of any type and
// payload, framed by the node, for tests of how peers react.
func sendMsgMethods() []*Method {
	return []*Method{{
		Name: "sendmsgtopeer", Category: "hidden",
		Description: "Send a p2p message to a peer specified by id.\nThe message type and body must be provided, the message header will be generated.\nThis RPC is for testing only.",
		Args: []Arg{
			{Name: "peer_id", Type: ArgNum, Description: "The peer to send the message to."},
			{Name: "msg_type", Type: ArgStr, Description: "The message type (maximum length 12)"},
			{Name: "msg", Type: ArgStr, Description: "The serialized message body to send, in hex, without a message header"},
		},
		Result:    "{ }    (json object)",
		Available: netHas(func(n *NetBackend) bool { return n.SendMsgToPeer != nil }),
		Handler: func(s *Server, p *Params) (any, error) {
			id, err := p.Int(0, 0)
			if err != nil {
				return nil, err
			}
			cmd, err := p.Str(1, "")
			if err != nil {
				return nil, err
			}
			if len(cmd) > 12 {
				return nil, NewError(ErrInvalidParam, "Error: msg_type too long, max length is 12")
			}
			h, err := p.Str(2, "")
			if err != nil {
				return nil, err
			}
			msg, err := hex.DecodeString(h)
			if err != nil {
				return nil, NewError(ErrInvalidParam, "Error parsing input for msg")
			}
			if err := s.net().SendMsgToPeer(id, cmd, msg); err != nil {
				return nil, NewError(ErrMisc, "Error: Could not send message to peer")
			}
			return struct{}{}, nil
		},
	}}
}
