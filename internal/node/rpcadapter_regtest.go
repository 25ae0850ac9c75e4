package node

import (
	"errors"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
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

// Outbound slots of each type addconnection may fill, as Core's
// MAX_OUTBOUND_FULL_RELAY_CONNECTIONS and MAX_BLOCK_RELAY_ONLY_CONNECTIONS.
const (
	maxFullRelayConns  = 8
	maxBlockRelayConns = 2
)

// addConnection answers addconnection: a one-shot outbound connection of
// the given type, refused when that type's slots are taken.
func (s *server) addConnection(addr, typ string, v2 bool) error {
	if !s.cfg.RegressionTest {
		return errors.New("addconnection is for regression testing (-regtest mode) only.")
	}
	if err := s.checkV2Request(v2); err != nil {
		return err
	}
	ct := peer.ConnType(typ)
	limit := -1
	switch ct {
	case peer.ConnFullRelay:
		limit = min(maxFullRelayConns, s.cfg.MaxPeers)
	case peer.ConnBlockRelay:
		limit = min(maxBlockRelayConns, max(s.cfg.MaxPeers-maxFullRelayConns, 0))
	}
	if limit >= 0 {
		n := 0
		for _, p := range s.peerList() {
			if p.ConnType() == ct {
				n++
			}
		}
		// Pending dials count too; failed ones have left the
		// connection manager and are forgotten here.
		live := map[uint64]bool{}
		for _, r := range s.cm.Requests() {
			live[r.ID] = true
		}
		s.mu.Lock()
		for id, t := range s.oneShot {
			if !live[id] {
				delete(s.oneShot, id)
			} else if t == ct {
				n++
			}
		}
		s.mu.Unlock()
		if n >= limit {
			return rpc.NewError(rpc.ErrClientNodeCapacityReached, "Error: Already at capacity for specified connection type.")
		}
	}
	// The type is recorded before the dial starts, so onConnection
	// always finds it.
	s.mu.Lock()
	defer s.mu.Unlock()
	req, err := s.cm.ConnectOneShot(addr)
	if err != nil {
		return err
	}
	s.oneShot[req.ID] = ct
	s.setV2Choice(req.ID, v2) // v2transport.go
	return nil
}
