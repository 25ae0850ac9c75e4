package coinstats

import (
	"context"

	"github.com/btcnode/btcd/internal/indexdb"
	"github.com/btcnode/btcd/wire"
)

// ChainSource is how CatchUp reads the chain. All three are required.
type ChainSource struct {
	// TipHeight returns the current main-chain height.
	TipHeight func() int32
	// HashAt returns the main-chain block hash at height (false if
	// there is none).
	HashAt func(height int32) (wire.Hash, bool)
	// Block returns any stored block by hash, main chain or not: CatchUp
	// indexes main-chain blocks and takes back blocks a reorganisation
	// left behind.
	Block BlockFunc
}

// CatchUp brings the index to the chain's tip: it rewinds to the last
// block the index shares with the main chain (the chain may have
// reorganised while the index was not looking) and indexes every block
// above it. It returns when the index reached the tip it last read, or
// with ctx's error.
func (x *Index) CatchUp(ctx context.Context, src ChainSource) error {
	if src.TipHeight == nil || src.HashAt == nil || src.Block == nil {
		return kinds.New(ErrInvalidArg, "incomplete ChainSource")
	}
	return indexdb.CatchUp(ctx, indexdb.Chain{TipHeight: src.TipHeight, HashAt: src.HashAt}, indexdb.Follower{
		Kinds: &kinds,
		Tip: func() int32 {
			_, h := x.Tip()
			return h
		},
		HashAt: func(h int32) (wire.Hash, error) {
			st, err := getHeightRecord(x.db, h)
			return st.Hash, err
		},
		Rewind: func(h int32) error { return x.Rewind(h, src.Block) },
		Connect: func(h int32) error {
			hash, ok := src.HashAt(h)
			if !ok {
				// The chain got shorter under us: start over.
				return kinds.New(ErrNotContiguous, "no main-chain block at height %d", h)
			}
			block, spent, err := src.Block(hash)
			if err != nil {
				return kinds.Wrap(ErrIO, err, "read block %v at height %d", hash, h)
			}
			return x.BlockConnected(block, h, spent)
		},
		Progress: func(h, tip int32) {
			log.Infof("Syncing coinstatsindex with block chain: height %d of %d", h, tip)
		},
	})
}
