package database

import (
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

const crashEnv = "BTCNODE_DB_CRASH_CHILD"

// Parameters of the synthetic chain shared by parent and child.
const (
	crashSeed   = 42
	crashOut    = 60
	crashSpend  = 40
	crashBatch  = 2 << 10 // tiny batches: every flush is split
	crashBudget = 2 << 20
)

// recoverChainState opens the chainstate under dir the way the chain would:
// if a flush was interrupted it replays the synthetic blocks from the old
// head to the new one and flushes. It returns the open state, a cache and a
// generator positioned at the best block.
func recoverChainState(t testing.TB, dir string) (*ChainState, *UtxoCache, *generator, bool) {
	cs, err := OpenChainState(dir, ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: crashBudget, MaxBatchBytes: crashBatch})
	g := newGenerator(crashSeed, crashOut, crashSpend)
	head, replay := cs.HeadBlocks()
	if !replay {
		for g.height < cs.BestBlock().Height {
			g.next()
		}
		return cs, c, g, false
	}
	for g.height < head.Old.Height {
		g.next()
	}
	if err := c.Flush(blockHash(head.Old.Height+1), head.Old.Height+1); !errors.Is(err, ErrReplayNeeded) {
		t.Fatalf("flush before replay: err = %v", err)
	}
	if err := <-c.FlushAsync(blockHash(head.Old.Height+1), head.Old.Height+1); !errors.Is(err, ErrReplayNeeded) {
		t.Fatalf("background flush before replay: err = %v", err)
	}
	if err := c.WaitFlush(); !errors.Is(err, ErrReplayNeeded) {
		t.Fatalf("WaitFlush after refused background flush: err = %v", err)
	}
	for g.height < head.New.Height {
		b := g.next()
		applyBlock(t, c, &b, true)
	}
	if blockHash(g.height) != head.New.Hash {
		t.Fatalf("head marker %v does not match synthetic block %d", head.New, g.height)
	}
	if err := c.Flush(head.New.Hash, head.New.Height); err != nil {
		t.Fatal(err)
	}
	return cs, c, g, true
}

// TestCrashChild is the child process of TestCrashRecovery: it extends the
// synthetic chain and flushes every few blocks until it is killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("only run as the child of TestCrashRecovery")
	}
	cs, c, g, _ := recoverChainState(t, dir)
	defer cs.Close()
	deadline := time.Now().Add(20 * time.Second)
	var pend <-chan error
	for time.Now().Before(deadline) {
		b := g.next()
		applyBlock(t, c, &b, false)
		if b.height%3 != 0 {
			continue
		}
		if pend != nil {
			if err := <-pend; err != nil {
				t.Fatal(err)
			}
			pend = nil
		}
		// Every other flush writes in the background while the next
		// blocks are applied (spending pinned coins, evicting).
		if b.height%6 == 0 {
			pend = c.FlushAsync(blockHash(b.height), b.height)
		} else if err := c.Flush(blockHash(b.height), b.height); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCrashRecovery kills a child process with SIGKILL at random moments
// while it flushes (in split batches), then checks that reopening yields
// either the exact UTXO set of the recorded best block or an interrupted
// flush marker from which replaying blocks yields the exact set.
func TestCrashRecovery(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no test executable")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	replays := 0
	start := time.Now()
	for iter := range 5 {
		cmd := exec.Command(exe, "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(200+r.IntN(800)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.Success() {
			t.Fatalf("child ended before the kill (err %v); did it fail?", err)
		}
		cs, c, g, replayed := recoverChainState(t, dir)
		if replayed {
			replays++
		}
		compareModels(t, "after crash", dbContents(t, cs), g.model)
		st, err := cs.Stats()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("iteration %d: best height %d, %d coins, replayed %v", iter, cs.BestBlock().Height, st.Outputs, replayed)
		_ = c
		cs.Close()
	}
	t.Logf("%d of 5 crashes hit a split flush; %v total", replays, time.Since(start))
}

// TestInterruptedFlushReplay stops a split flush (synchronous and in the
// background) after its first batch, as a crash would, and checks the
// head-blocks marker and replay.
func TestInterruptedFlushReplay(t *testing.T) {
	for _, async := range []bool{false, true} {
		t.Run(map[bool]string{false: "sync", true: "async"}[async], func(t *testing.T) {
			testInterruptedFlushReplay(t, async)
		})
	}
}

func testInterruptedFlushReplay(t *testing.T, async bool) {
	dir := t.TempDir()
	cs, c, g, _ := recoverChainState(t, dir)
	for range 4 {
		b := g.next()
		applyBlock(t, c, &b, false)
	}
	if err := c.Flush(blockHash(g.height), g.height); err != nil {
		t.Fatal(err)
	}
	oldHeight := g.height
	for range 5 {
		b := g.next()
		applyBlock(t, c, &b, false)
	}
	testFlushHook = func() error { return errors.New("simulated crash") }
	var err error
	if async {
		err = <-c.FlushAsync(blockHash(g.height), g.height)
		if werr := c.WaitFlush(); werr != err {
			t.Fatalf("WaitFlush = %v, write returned %v", werr, err)
		}
	} else {
		err = c.Flush(blockHash(g.height), g.height)
	}
	testFlushHook = nil
	if err == nil {
		t.Fatal("flush was not split")
	}
	cs.Close()

	cs, _, g2, replayed := recoverChainState(t, dir)
	defer cs.Close()
	if !replayed {
		t.Fatal("no head-blocks marker after interrupted flush")
	}
	if g2.height != g.height || cs.BestBlock().Height != g.height {
		t.Fatalf("replayed to %d, best %d, want %d (old %d)", g2.height, cs.BestBlock().Height, g.height, oldHeight)
	}
	compareModels(t, "after replay", dbContents(t, cs), g.model)
}
