package node

import (
	"errors"

	"github.com/btcnode/btcd/peer/netsync"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// fetchBlock serves getblockfrompeer with Core's checks, in Core's order:
// the header must be known; a pruning node only fetches blocks at or
// below its tip (so block files stay prunable); a block already stored is
// not fetched again; the peer must exist, serve witness data and have
// finished its handshake.
func (s *server) fetchBlock(hash wire.Hash, peerID int64) error {
	st, ok := s.chain.LookupBlock(&hash)
	if !ok {
		return rpc.NewError(rpc.ErrMisc, "Block header missing")
	}
	if s.chain.Pruned() && st.Height > s.chain.BestSnapshot().Height {
		return rpc.NewError(rpc.ErrMisc, "In prune mode, only blocks that the node has already synced previously can be fetched from a peer")
	}
	if st.HaveData {
		return rpc.NewError(rpc.ErrMisc, "Block already downloaded")
	}
	var target *serverPeer
	for _, p := range s.peerList() {
		if int64(p.ID()) == peerID {
			target = p
			break
		}
	}
	if target == nil {
		return rpc.NewError(rpc.ErrMisc, "Peer does not exist")
	}
	if target.Services()&wire.SFNodeWitness == 0 {
		return rpc.NewError(rpc.ErrMisc, "Pre-SegWit peer")
	}
	err := s.sync.FetchBlock(target.Peer, hash)
	switch {
	case errors.Is(err, netsync.ErrPeerNotReady):
		return rpc.NewError(rpc.ErrMisc, "Peer not fully connected")
	case err != nil:
		return rpc.NewError(rpc.ErrMisc, err.Error())
	}
	return nil
}
