package blockfilter

import (
	"context"

	"github.com/btcnode/btcd/internal/indexdb"
	"github.com/btcnode/btcd/wire"
)

// ChainSource is how CatchUp reads the main chain. All three are required.
type ChainSource struct {
	// TipHeight returns the current main-chain height.
	TipHeight func() int32
	// HashAt returns the main-chain block hash at height (false if
	// there is none).
	HashAt func(height int32) (wire.Hash, bool)
	// Block returns the main-chain block at height and the output
	// scripts its non-coinbase inputs spend (from its undo data). The
	// scripts need stay valid only until the next call.
	Block func(height int32) (*wire.MsgBlock, [][]byte, error)
}

// CatchUp brings the index to the chain's tip: it rewinds to the last
// block the index shares with the main chain (the chain may have
// reorganised while the node was down) and indexes every block above it.
// It may run while notifications also feed the index: a block both add is
// indexed once. It returns when the index reached the tip it last read,
// or ctx's error.
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
			e, err := getHeightEntry(x.db, h)
			return e.hash, err
		},
		Rewind: x.Rewind,
		Connect: func(h int32) error {
			block, scripts, err := src.Block(h)
			if err != nil {
				return err
			}
			return x.BlockConnected(block, h, scripts)
		},
		Progress: func(h, tip int32) {
			log.Infof("Building filter index: height %d of %d", h, tip)
		},
	})
}
