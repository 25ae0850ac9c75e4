package rpc

// ZMQEndpoint is one active ZMQ publisher, as getzmqnotifications lists it.
type ZMQEndpoint struct {
	Type    string `json:"type"`    // notification type, e.g. "pubhashblock"
	Address string `json:"address"` // address as configured
	HWM     int    `json:"hwm"`     // outbound high-water mark
}

func zmqMethods() []*Method {
	return []*Method{{
		Name: "getzmqnotifications", Category: "zmq",
		Description: "Returns information about the active ZeroMQ notifications.",
		Result:      `[ { "type" : "str", "address" : "str", "hwm" : n }, ... ]`,
		Handler: func(s *Server, _ *Params) (any, error) {
			if f := s.cfg.Backend.ZMQNotifications; f != nil {
				return f(), nil
			}
			return []ZMQEndpoint{}, nil
		},
	}}
}
