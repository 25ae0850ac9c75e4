package indexdb

import (
	"context"
	"errors"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// fakeChain is a main chain of made-up hashes: branch b's block at height
// h is {h, b}.
type fakeChain struct{ hashes []wire.Hash }

func blockHash(h int32, branch byte) wire.Hash {
	return wire.Hash{byte(h), byte(h >> 8), branch}
}

func (c *fakeChain) set(n int32, fork int32, branch byte) {
	c.hashes = c.hashes[:min(int(fork)+1, len(c.hashes))]
	for h := int32(len(c.hashes)); h < n; h++ {
		c.hashes = append(c.hashes, blockHash(h, branch))
	}
}

func (c *fakeChain) chain() Chain {
	return Chain{
		TipHeight: func() int32 { return int32(len(c.hashes)) - 1 },
		HashAt: func(h int32) (wire.Hash, bool) {
			if h < 0 || int(h) >= len(c.hashes) {
				return wire.Hash{}, false
			}
			return c.hashes[h], true
		},
	}
}

// fakeIndex records hashes by height and counts what CatchUp asked of it.
type fakeIndex struct {
	chain     *fakeChain
	recorded  []wire.Hash
	connects  int
	rewinds   []int32
	onConnect func(h int32) error // runs before a connect, may fail it
}

func (x *fakeIndex) follower() Follower {
	return Follower{
		Kinds: &testKinds,
		Tip:   func() int32 { return int32(len(x.recorded)) - 1 },
		HashAt: func(h int32) (wire.Hash, error) {
			if int(h) >= len(x.recorded) {
				return wire.Hash{}, testKinds.New(testKinds.NotFound, "height %d", h)
			}
			return x.recorded[h], nil
		},
		Rewind: func(h int32) error {
			x.rewinds = append(x.rewinds, h)
			x.recorded = x.recorded[:min(int(h)+1, len(x.recorded))]
			return nil
		},
		Connect: func(h int32) error {
			if x.onConnect != nil {
				if err := x.onConnect(h); err != nil {
					return err
				}
			}
			hash, ok := x.chain.chain().HashAt(h)
			if !ok || int(h) != len(x.recorded) {
				return testKinds.New(testKinds.NotContiguous, "height %d", h)
			}
			x.recorded = append(x.recorded, hash)
			x.connects++
			return nil
		},
	}
}

func (x *fakeIndex) check(t *testing.T) {
	t.Helper()
	if len(x.recorded) != len(x.chain.hashes) {
		t.Fatalf("index at height %d, chain at %d", len(x.recorded)-1, len(x.chain.hashes)-1)
	}
	for h := range x.recorded {
		if x.recorded[h] != x.chain.hashes[h] {
			t.Fatalf("height %d: index holds %v, chain %v", h, x.recorded[h], x.chain.hashes[h])
		}
	}
}

func TestCatchUpFollowsReorgs(t *testing.T) {
	ctx := context.Background()
	c := &fakeChain{}
	c.set(20, -1, 0)
	x := &fakeIndex{chain: c}
	if err := CatchUp(ctx, c.chain(), x.follower()); err != nil {
		t.Fatal(err)
	}
	x.check(t)
	if x.connects != 20 {
		t.Fatalf("%d connects from empty", x.connects)
	}

	// A reorganisation below the tip: rewind to the fork, connect the
	// new branch only.
	c.set(25, 11, 1)
	x.connects = 0
	if err := CatchUp(ctx, c.chain(), x.follower()); err != nil {
		t.Fatal(err)
	}
	x.check(t)
	if last := x.rewinds[len(x.rewinds)-1]; last != 11 || x.connects != 13 {
		t.Fatalf("rewound to %d, %d connects; want 11 and 13", last, x.connects)
	}

	// Nothing to do at the tip.
	x.connects = 0
	if err := CatchUp(ctx, c.chain(), x.follower()); err != nil || x.connects != 0 {
		t.Fatalf("at tip: %v, %d connects", err, x.connects)
	}

	// A chain that shrank to below the index.
	c.set(5, 2, 2)
	if err := CatchUp(ctx, c.chain(), x.follower()); err != nil {
		t.Fatal(err)
	}
	x.check(t)
}

// TestCatchUpRestartsWhenChainMoves checks that a reorganisation during
// the walk (Connect reports NotContiguous) starts the walk over, and that
// a tip that grew meanwhile is followed.
func TestCatchUpRestartsWhenChainMoves(t *testing.T) {
	c := &fakeChain{}
	c.set(10, -1, 0)
	x := &fakeIndex{chain: c}
	moved := false
	x.onConnect = func(h int32) error {
		if h == 6 && !moved {
			moved = true
			c.set(15, 3, 1) // reorg at height 4 and longer
			return testKinds.New(testKinds.NotContiguous, "moved")
		}
		return nil
	}
	if err := CatchUp(context.Background(), c.chain(), x.follower()); err != nil {
		t.Fatal(err)
	}
	x.check(t)

	// The tip grows during the walk, without a reorganisation.
	c.set(30, 14, 1)
	x.onConnect = func(h int32) error {
		if h == 20 && len(c.hashes) == 30 {
			c.set(35, 29, 1)
		}
		return nil
	}
	if err := CatchUp(context.Background(), c.chain(), x.follower()); err != nil {
		t.Fatal(err)
	}
	x.check(t)
}

// TestCatchUpBounded checks that a chain that never holds still ends the
// walk after MaxRestarts attempts, without error.
func TestCatchUpBounded(t *testing.T) {
	c := &fakeChain{}
	c.set(3, -1, 0)
	x := &fakeIndex{chain: c}
	attempts := 0
	x.onConnect = func(int32) error {
		attempts++
		return testKinds.New(testKinds.NotContiguous, "always")
	}
	if err := CatchUp(context.Background(), c.chain(), x.follower()); err != nil {
		t.Fatal(err)
	}
	if attempts != MaxRestarts {
		t.Fatalf("%d attempts, want %d", attempts, MaxRestarts)
	}
}

func TestCatchUpErrors(t *testing.T) {
	c := &fakeChain{}
	c.set(5, -1, 0)
	x := &fakeIndex{chain: c}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CatchUp(ctx, c.chain(), x.follower()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	boom := errors.New("boom")
	x.onConnect = func(int32) error { return boom }
	if err := CatchUp(context.Background(), c.chain(), x.follower()); !errors.Is(err, boom) {
		t.Fatalf("connect error: %v", err)
	}
	x.onConnect = nil
	if err := CatchUp(context.Background(), c.chain(), x.follower()); err != nil {
		t.Fatal(err)
	}
	f := x.follower()
	f.HashAt = func(int32) (wire.Hash, error) { return wire.Hash{}, testKinds.New(testKinds.Corrupt, "bad") }
	if err := CatchUp(context.Background(), c.chain(), f); !errors.Is(err, testKinds.Corrupt) {
		t.Fatalf("index read error: %v", err)
	}
}

// TestForkPointSkipsMissing checks that heights the index no longer
// records (rewound while the walk looked) are passed over.
func TestForkPointSkipsMissing(t *testing.T) {
	c := &fakeChain{}
	c.set(10, -1, 0)
	x := &fakeIndex{chain: c, recorded: append([]wire.Hash(nil), c.hashes...)}
	f := x.follower()
	f.Tip = func() int32 { return 15 } // stale: heights 10-15 are gone
	fork, err := forkPoint(c.chain(), &f)
	if err != nil || fork != 9 {
		t.Fatalf("fork %d, %v; want 9", fork, err)
	}
}
