package node

import (
	"errors"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/rpc"
)

// testBackend serves the methods Core's functional test framework calls
// on every node: setmocktime, mockscheduler (both regtest only) and
// syncwithvalidationinterfacequeue.
func (s *server) testBackend() *rpc.TestBackend {
	regtest := s.cfg.RegressionTest
	return &rpc.TestBackend{
		SetMockTime: func(t int64) error {
			if !regtest {
				return errors.New("setmocktime is for regression testing (-regtest mode) only")
			}
			clock.SetMock(t)
			return nil
		},
		MockScheduler: func(d int64) error {
			if !regtest {
				return errors.New("mockscheduler is for regression testing (-regtest mode) only")
			}
			s.sched.mockForward(time.Duration(d) * time.Second)
			return nil
		},
		SyncNotifications: func() error {
			s.chain.SyncNotifications()
			s.waitFilterIndex(s.chain.BestSnapshot().Height, 30*time.Second)
			return nil
		},
	}
}

// waitFilterIndex waits, at most d, for the filter index to reach height.
func (s *server) waitFilterIndex(height int32, d time.Duration) {
	if s.filters == nil {
		return
	}
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if _, h := s.filters.Tip(); h >= height {
			return
		}
		s.kickFilterIndex()
		select {
		case <-s.quit:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}
