package indexdb

import (
	"context"
	"errors"
	"time"

	"github.com/btcnode/btcd/wire"
)

// MaxRestarts bounds how often CatchUp starts over because the chain
// reorganised under it, so a flapping chain cannot keep it busy forever;
// the next CatchUp (or notifications) finish the job.
const MaxRestarts = 100

// ProgressEvery is how often a long catch-up reports its progress.
const ProgressEvery = 10 * time.Second

// Chain is the main chain as CatchUp reads it. Both are required.
type Chain struct {
	// TipHeight returns the current main-chain height.
	TipHeight func() int32
	// HashAt returns the main-chain block hash at height (false if
	// there is none).
	HashAt func(height int32) (wire.Hash, bool)
}

// Follower is an index as CatchUp drives it. All but Progress are
// required.
type Follower struct {
	// Kinds are the index's error kinds: NotFound from HashAt and
	// NotContiguous from Connect steer the walk.
	Kinds *Kinds
	// Tip returns the height the index has reached (-1 when empty).
	Tip func() int32
	// HashAt returns the block the index records at height. An error of
	// kind NotFound means it records none there (it was rewound
	// meanwhile).
	HashAt func(height int32) (wire.Hash, error)
	// Rewind drops what the index records above height (-1 empties it).
	Rewind func(height int32) error
	// Connect reads the main chain's block at height and indexes it. An
	// error of kind NotContiguous means the chain moved under the walk,
	// which then starts over from the new fork point.
	Connect func(height int32) error
	// Progress, when set, is told about every ProgressEvery how far a
	// long walk has come.
	Progress func(height, tip int32)
}

// CatchUp brings the index to the chain's tip: it rewinds to the last
// block the index shares with the main chain (the chain may have
// reorganised while the index was not looking) and connects every block
// above it. It returns when the index reached the tip it last read, or
// with ctx's error.
func CatchUp(ctx context.Context, chain Chain, f Follower) error {
	lastLog := time.Now()
	for range MaxRestarts {
		fork, err := forkPoint(chain, &f)
		if err != nil {
			return err
		}
		if err := f.Rewind(fork); err != nil {
			return err
		}
		tip := chain.TipHeight()
		if fork >= tip {
			return nil
		}
		restarted := false
		for h := fork + 1; h <= tip; h++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := f.Connect(h); err != nil {
				if errors.Is(err, f.Kinds.NotContiguous) {
					restarted = true // the chain moved under us
					break
				}
				return err
			}
			if f.Progress != nil && time.Since(lastLog) > ProgressEvery {
				lastLog = time.Now()
				f.Progress(h, tip)
			}
		}
		if !restarted && chain.TipHeight() <= tip {
			return nil
		}
	}
	return nil
}

// forkPoint returns the highest height at which the index and the main
// chain hold the same block (-1 if none).
func forkPoint(chain Chain, f *Follower) (int32, error) {
	for h := f.Tip(); h >= 0; h-- {
		hash, err := f.HashAt(h)
		if err != nil {
			if errors.Is(err, f.Kinds.NotFound) {
				continue // rewound concurrently
			}
			return 0, err
		}
		if ch, ok := chain.HashAt(h); ok && ch == hash {
			return h, nil
		}
	}
	return -1, nil
}
