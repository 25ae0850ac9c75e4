package coinstats

import (
	"context"
	"errors"
	"time"

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

// maxCatchUpRestarts bounds how often CatchUp starts over because the
// chain reorganised under it, so a flapping chain cannot keep it busy
// forever; the next CatchUp finishes the job.
const maxCatchUpRestarts = 100

// progressEvery is how often a long catch-up logs its progress.
const progressEvery = 10 * time.Second

// CatchUp brings the index to the chain's tip: it rewinds to the last
// block the index shares with the main chain (the chain may have
// reorganised while the index was not looking) and indexes every block
// above it. It returns when the index reached the tip it last read, or
// with ctx's error.
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
		if err := x.Rewind(fork, src.Block); err != nil {
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
			hash, ok := src.HashAt(h)
			if !ok {
				restarted = true // the chain got shorter under us
				break
			}
			block, spent, err := src.Block(hash)
			if err != nil {
				return wrapErr(ErrIO, err, "read block %v at height %d", hash, h)
			}
			if err := x.BlockConnected(block, h, spent); err != nil {
				if errors.Is(err, ErrNotContiguous) {
					restarted = true // the chain moved under us
					break
				}
				return err
			}
			if time.Since(lastLog) > progressEvery {
				lastLog = time.Now()
				log.Infof("Syncing coinstatsindex with block chain: height %d of %d", h, tip)
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
		st, err := getHeightRecord(x.db, h)
		if err != nil {
			if isKind(err, errNotFound) {
				continue // rewound concurrently
			}
			return 0, err
		}
		if ch, ok := src.HashAt(h); ok && ch == st.Hash {
			return h, nil
		}
	}
	return -1, nil
}
