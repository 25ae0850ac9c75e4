package blockchain

import (
	"errors"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/chaintest"
)

// pruneParams is regtest allowed to prune from the first block.
func pruneParams(t *testing.T) *chaincfg.Params {
	p := *regtest(t)
	p.PruneAfterHeight = 0
	return &p
}

// tinyFiles rolls block files every 8 KiB (about 30 small regtest
// blocks).
var tinyFiles = database.BlockDBOptions{MaxFileSize: 8 << 10}

// checkPruned checks that main-chain blocks below the prune height are
// gone with a typed error and every block within MinBlocksToKeep of the
// tip is still readable.
func checkPruned(t *testing.T, tc *testChain, tip *chaintest.Entry) int32 {
	t.Helper()
	ph := tc.chain.PruneHeight()
	if ph <= 0 {
		t.Fatalf("nothing pruned (prune height %d, %d KiB used)", ph, tc.db.DiskUsage()>>10)
	}
	if ph > tip.Height-MinBlocksToKeep+1 {
		t.Fatalf("prune height %d within %d blocks of tip %d", ph, MinBlocksToKeep, tip.Height)
	}
	for _, e := range chaintest.Chain(tip) {
		blk, err := tc.chain.BlockByHash(&e.Hash)
		switch {
		case e.Height < ph:
			if !errors.Is(err, ErrBlockPruned) {
				t.Fatalf("block %d below prune height %d: %v", e.Height, ph, err)
			}
			if tc.chain.HaveBlock(&e.Hash) {
				t.Fatalf("HaveBlock(%d) after pruning", e.Height)
			}
			if st, _ := tc.chain.LookupBlock(&e.Hash); st.HaveData || !st.MainChain {
				t.Fatalf("block %d status %+v", e.Height, st)
			}
		case e.Height >= tip.Height-MinBlocksToKeep:
			if err != nil || blk.BlockHash() != e.Hash {
				t.Fatalf("block %d (tip %d, prune height %d): %v", e.Height, tip.Height, ph, err)
			}
		}
	}
	return ph
}

// TestPruneAutomatic keeps the block files near the target, never below
// the last MinBlocksToKeep blocks, across restarts and a reorganization.
func TestPruneAutomatic(t *testing.T) {
	const target = 48 << 10
	tc := newTestChainOpts(t, pruneParams(t), tinyFiles, func(c *Config) { c.PruneTarget = target })
	tc.mine(650)
	tip := tc.b.Tip
	ph := checkPruned(t, tc, tip)
	// The 288 blocks kept need more than the target, so pruning stops at
	// the limit, plus at most the file being written and a partial one.
	used := tc.db.DiskUsage()
	t.Logf("prune height %d, %d KiB in block files (target %d KiB)", ph, used>>10, target>>10)
	if used > 2*int64(MinBlocksToKeep)*400+3*(8<<10) {
		t.Errorf("%d bytes still used", used)
	}
	if !tc.chain.Pruned() || tc.chain.PruneTarget() != target {
		t.Error("prune mode not reported")
	}

	// The state survives a restart and the chain goes on.
	tc.reopen()
	tc.tipIs(tip.Hash)
	// (Closing flushes, which may prune a little further.)
	if got := tc.chain.PruneHeight(); got < ph {
		t.Fatalf("prune height %d after restart, was %d", got, ph)
	}
	checkPruned(t, tc, tip)
	tc.mine(40)

	// A reorganization a few blocks deep still finds its undo data.
	fork := tc.b.Tip.Parent.Parent.Parent
	var last *chaintest.Entry
	for range 4 {
		last = tc.b.NextBlock(fork, nil, nil)
		fork = last
		if _, err := tc.chain.ProcessBlock(last.Block); err != nil {
			t.Fatal(err)
		}
	}
	tc.tipIs(last.Hash)
	checkPruned(t, tc, last)
	tc.reopen()
	tc.tipIs(last.Hash)
}

// TestPruneBlockchain prunes by hand (pruneblockchain) and refuses to
// when pruning is off.
func TestPruneBlockchain(t *testing.T) {
	tc := newTestChainOpts(t, pruneParams(t), tinyFiles, func(c *Config) { c.PruneTarget = 1 << 40 })
	tc.mine(400)
	if ph := tc.chain.PruneHeight(); ph != 0 {
		t.Fatalf("pruned %d below a huge target", ph)
	}
	got, err := tc.chain.PruneBlockchain(100)
	if err != nil || got < 50 || got > 100 {
		t.Fatalf("PruneBlockchain(100) = %d, %v", got, err)
	}
	checkPruned(t, tc, tc.b.Tip)
	got, err = tc.chain.PruneBlockchain(400)
	if err != nil || got > 400-MinBlocksToKeep || got < 50 {
		t.Fatalf("PruneBlockchain(400) = %d, %v", got, err)
	}
	checkPruned(t, tc, tc.b.Tip)
	if _, err := tc.chain.PruneBlockchain(401); err == nil {
		t.Error("pruning above the tip accepted")
	}

	off := newTestChain(t, regtest(t), nil)
	off.mine(3)
	if _, err := off.chain.PruneBlockchain(1); !errors.Is(err, ErrPruneDisabled) {
		t.Errorf("not in prune mode: %v", err)
	}
	if off.chain.Pruned() || off.chain.PruneHeight() != 0 {
		t.Error("prune state reported without pruning")
	}
}

// TestPruneLocks: a prune lock keeps pruning pruneLockBuffer+1 blocks
// below it, and disconnecting blocks moves it back below them.
func TestPruneLocks(t *testing.T) {
	tc := newTestChainOpts(t, pruneParams(t), tinyFiles, func(c *Config) { c.PruneTarget = 1 << 40 })
	tc.mine(400)
	tc.chain.UpdatePruneLock("test index", 60)
	got, err := tc.chain.PruneBlockchain(100)
	if err != nil {
		t.Fatal(err)
	}
	if got < 0 || got > 60-pruneLockBuffer-1 {
		t.Fatalf("PruneBlockchain(100) with a lock at 60 pruned to %d", got)
	}
	tc.chain.mu.Lock()
	tc.chain.movePruneLocksBelow(50)
	h := tc.chain.prune.locks["test index"]
	tc.chain.mu.Unlock()
	if h != 49 {
		t.Fatalf("lock after disconnecting block 50: %d, want 49", h)
	}
	// A disconnection above the lock leaves it.
	tip := tc.b.Tip
	if err := tc.chain.InvalidateBlock(&tip.Hash); err != nil {
		t.Fatal(err)
	}
	tc.chain.mu.Lock()
	h = tc.chain.prune.locks["test index"]
	tc.chain.mu.Unlock()
	if h != 49 {
		t.Fatalf("lock moved by a disconnection above it: %d", h)
	}
}
