package netsync

import (
	"errors"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// ErrPeerNotReady is returned by FetchBlock for a peer the manager does
// not (or no longer) track: its handshake has not finished or it left.
var ErrPeerNotReady = errors.New("netsync: peer not fully connected")

// FetchBlock asks p for the block hash (Core's getblockfrompeer): any
// earlier request for it is forgotten and the block is marked in flight
// from p, so that it is accepted as requested (stored even off the best
// chain) when it arrives, and p is held to the usual request time-out.
func (m *Manager) FetchBlock(p *peer.Peer, hash wire.Hash) error {
	res := make(chan error, 1)
	m.runOnLoop(func() {
		ps := m.peers[p]
		if ps == nil || !p.Connected() {
			res <- ErrPeerNotReady
			return
		}
		if owner, ok := m.requested[hash]; ok {
			delete(owner.inflight, hash)
		}
		now := clock.Now()
		if len(ps.inflight) == 0 {
			ps.lastRecv = now
		}
		ps.inflight[hash] = now
		m.requested[hash] = ps
		p.QueueMessage(&wire.MsgGetData{InvList: []wire.InvVect{{Type: wire.InvTypeWitnessBlock, Hash: hash}}}, nil)
		m.log.Debugf("Requesting block %v from peer=%d", hash, p.ID())
		res <- nil
	})
	// The result is read without waiting: runOnLoop also returns when the
	// manager stops, before or while the request ran.
	select {
	case err := <-res:
		return err
	default:
		return ErrStopped
	}
}
