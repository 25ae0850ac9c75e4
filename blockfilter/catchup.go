package blockfilter

import (
	"context"
	"errors"
	"time"

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

// maxCatchUpRestarts bounds how often CatchUp starts over because the
// chain reorganised under it, so a flapping chain cannot keep it busy
// forever; notifications and the next CatchUp finish the job.
const maxCatchUpRestarts = 100

// CatchUp brings the index to the chain's tip: it rewinds to the last
// block the index shares with the main chain (the chain may have
// reorganised while the node was down) and indexes every block above it.
// It may run while notifications also feed the index: a block both add is
// indexed once. It returns when the index reached the tip it last read,
// or ctx's error.
func (x *Index) CatchUp(ctx context.Context, src ChainSource) error {
	if src.TipHeight == nil || src.HashAt == nil || src.Block == nil {
		return newErr(ErrInvalidArg, "incomplete ChainSource")
	}
	lastLog := time.Now()
	for range maxCatchUpRestarts {
		fork, err := x.forkPoint(src)
		if err != nil {
			return err
		}
		if err := x.Rewind(fork); err != nil {
			return err
		}
		tip := src.TipHeight()
		if fork >= tip {
			return nil
		}
		restarted := false
		for h := fork + 1; h <= tip; h++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			block, scripts, err := src.Block(h)
			if err != nil {
				return err
			}
			if err := x.BlockConnected(block, h, scripts); err != nil {
				if errors.Is(err, ErrNotContiguous) {
					restarted = true // the chain moved under us
					break
				}
				return err
			}
			if time.Since(lastLog) > 10*time.Second {
				lastLog = time.Now()
				log.Infof("Building filter index: height %d of %d", h, tip)
			}
		}
		if !restarted && src.TipHeight() <= tip {
			return nil
		}
	}
	return nil
}

// forkPoint returns the highest height at which the index and the main
// chain hold the same block (-1 if none).
func (x *Index) forkPoint(src ChainSource) (int32, error) {
	_, h := x.Tip()
	for ; h >= 0; h-- {
		e, err := getHeightEntry(x.db, h)
		if err != nil {
			if isKind(err, ErrNotFound) {
				continue // rewound concurrently
			}
			return 0, err
		}
		if ch, ok := src.HashAt(h); ok && ch == e.hash {
			return h, nil
		}
	}
	return -1, nil
}
