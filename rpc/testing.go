package rpc

import "strconv"

// TestBackend serves Bitcoin Core's regression-test control methods,
// which its functional test framework calls on every node: setmocktime,
// mockscheduler and syncwithvalidationinterfacequeue.
type TestBackend struct {
	// SetMockTime freezes the node's clock at a Unix time (0: real
	// time again). It refuses on networks that cannot be mocked.
	SetMockTime func(unix int64) error
	// MockScheduler runs the node's periodic tasks as if seconds had
	// passed.
	MockScheduler func(seconds int64) error
	// SyncNotifications returns once every notification queued so far
	// (chain and mempool events to indexes, ZMQ and the fee estimator)
	// has been delivered.
	SyncNotifications func() error
}

func testMethods() []*Method {
	return []*Method{
		{
			Name: "setmocktime", Category: "hidden",
			Description: "Set the local time to given timestamp (-regtest only)",
			Args:        []Arg{{Name: "timestamp", Type: ArgNum, Description: "UNIX epoch time. Pass 0 to go back to using the system time."}},
			Result:      "null    (json null)",
			Handler:     handleSetMockTime,
			Available: func(s *Server) bool {
				return s.cfg.Backend.Test != nil && s.cfg.Backend.Test.SetMockTime != nil
			},
		},
		{
			Name: "mockscheduler", Category: "hidden",
			Description: "Bump the scheduler into the future (-regtest only)",
			Args:        []Arg{{Name: "delta_time", Type: ArgNum, Description: "Number of seconds to forward the scheduler into the future."}},
			Result:      "null    (json null)",
			Handler: func(s *Server, p *Params) (any, error) {
				d, err := p.Int(0, 0)
				if err != nil {
					return nil, err
				}
				if d <= 0 || d > 3600 {
					return nil, NewError(ErrMisc, "delta_time must be between 1 and 3600 seconds (1 hr)")
				}
				return nil, s.cfg.Backend.Test.MockScheduler(d)
			},
			Available: func(s *Server) bool {
				return s.cfg.Backend.Test != nil && s.cfg.Backend.Test.MockScheduler != nil
			},
		},
		{
			Name: "syncwithvalidationinterfacequeue", Category: "hidden",
			Description: "Waits for the validation interface queue to catch up on everything that was there when we entered this function.",
			Result:      "null    (json null)",
			Handler: func(s *Server, _ *Params) (any, error) {
				return nil, s.cfg.Backend.Test.SyncNotifications()
			},
			Available: func(s *Server) bool {
				return s.cfg.Backend.Test != nil && s.cfg.Backend.Test.SyncNotifications != nil
			},
		},
	}
}

func handleSetMockTime(s *Server, p *Params) (any, error) {
	if p.Len() < 1 {
		return nil, NewError(ErrMisc, s.methods["setmocktime"].HelpText())
	}
	t, err := p.Int(0, 0)
	if err != nil {
		return nil, err
	}
	if t < 0 || t > 9223372036 {
		return nil, NewError(ErrInvalidParam, "Mocktime must be in the range [0, 9223372036], not "+strconv.FormatInt(t, 10)+".")
	}
	return nil, s.cfg.Backend.Test.SetMockTime(t)
}
