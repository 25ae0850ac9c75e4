package node

import (
	"errors"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/zmq"
)

// This file connects the bitcoind-compatible ZMQ publishers (--zmqpub*)
// to the chain and the mempool. With no publisher configured s.zmq is nil
// and every call on it is a no-op.

// newZMQ binds the configured publishers. As in bitcoind, a publisher
// whose address is malformed or cannot be bound is logged and left out;
// the node runs on without it.
func (s *server) newZMQ() error {
	n, errs := zmq.NewTolerant(s.cfg.zmqConfig())
	for _, err := range errs {
		if errors.Is(err, zmq.ErrBadHWM) {
			return err
		}
		zmqLog.Errorf("Error: ZMQ publisher not started: %v", err)
	}
	if n == nil {
		return nil
	}
	s.zmq = n
	// Until the first tip change says otherwise, assume initial block
	// download if the chain is behind: bitcoind stays silent on
	// hashblock/rawblock then.
	n.SetSyncing(!s.chain.IsCurrent())
	return nil
}

// zmqNotify is the ZMQ part of the chain notification handler. Blocks are
// published as the chain connects them (disconnections:
// zmqNotifyDisconnect); the syncing state
// is refreshed at each tip change, so the first blocks after the node
// catches up are the first hashblock messages.
func (s *server) zmqNotify(n *blockchain.Notification) {
	switch n.Type {
	case blockchain.NTBlockConnected:
		// The chain may have caught up with this very block; bitcoind
		// decides per block too, so the first current block is
		// announced.
		s.zmq.SetSyncing(!s.chain.IsCurrent())
		s.zmq.BlockConnected(n.Block)
	case blockchain.NTTipChanged:
		s.zmq.SetSyncing(!s.chain.IsCurrent())
		s.zmq.TipChanged()
	}
}

// zmqNotifyDisconnect publishes disconnected blocks; it runs before the
// mempool's handler (see the subscriptions in server.go).
func (s *server) zmqNotifyDisconnect(n *blockchain.Notification) {
	if n.Type == blockchain.NTBlockDisconnected {
		s.zmq.BlockDisconnected(n.Block)
	}
}

// closeZMQ closes the publishers and disconnects subscribers.
func (s *server) closeZMQ() {
	if s.zmq != nil {
		s.zmq.Close()
		s.zmq = nil
	}
}

// zmqEndpoints answers getzmqnotifications: the active publishers (an
// empty list when none is configured).
func (s *server) zmqEndpoints() []rpc.ZMQEndpoint {
	eps := s.zmq.Endpoints()
	out := make([]rpc.ZMQEndpoint, len(eps))
	for i, e := range eps {
		out[i] = rpc.ZMQEndpoint{Type: e.Type, Address: e.Address, HWM: e.HWM}
	}
	return out
}
