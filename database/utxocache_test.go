package database

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

// checkCache compares the cache (+DB behind it) with the model for every
// model coin and for the given outpoints that must be missing.
func checkCache(t *testing.T, step int, c *UtxoCache, m model, gone []wire.OutPoint) {
	t.Helper()
	ops := make([]wire.OutPoint, 0, len(m)+len(gone))
	for op := range m {
		ops = append(ops, op)
	}
	ops = append(ops, gone...)
	got, _, err := c.FetchEntries(ops, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range ops {
		want, ok := m[op]
		if !ok {
			want = UtxoEntry{Missing: true}
		}
		if !entriesEqual(got[i], want) {
			t.Fatalf("step %d: %v = %+v, want %+v", step, op, got[i], want)
		}
	}
	// Single lookups, some of which miss the cache after evictions.
	var one UtxoEntry
	for i := 0; i < len(ops); i += 97 {
		ok, err := c.FetchEntry(&ops[i], &one)
		if err != nil || ok != !got[i].Missing || (ok && !entriesEqual(one, got[i])) {
			t.Fatalf("step %d: FetchEntry(%v) = %v %v %+v, want %+v", step, ops[i], ok, err, one, got[i])
		}
	}
}

// TestUtxoCacheModel applies synthetic blocks (creating, spending, spending
// same-block outputs, sometimes disconnecting the last block with its undo
// data) through cache and LevelDB with random flushes and a tiny budget,
// and compares against a plain map after every step.
func TestUtxoCacheModel(t *testing.T) {
	dir := t.TempDir()
	cs, err := OpenChainState(dir, ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	budget := int64(1 << 20)
	if testing.Short() {
		budget = 768 << 10 // a third of the steps: evictions must still happen
	}
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: budget, MaxBatchBytes: 32 << 10})
	seed := uint64(5)
	if v, err := strconv.ParseUint(os.Getenv("DB_MODEL_SEED"), 10, 64); err == nil {
		seed = v // for soak runs: DB_MODEL_SEED=n go test -run Model
	}
	g := newGenerator(seed, 120, 80)
	r := rand.New(rand.NewPCG(seed, 9))
	type applied struct {
		b    synthBlock
		undo []UtxoEntry
		prev model
	}
	var stack []applied
	var gone []wire.OutPoint
	// A background flush in progress: its result channel, the model it
	// must have written, and the gate holding its first batch write back
	// until the next block has been applied (so that block changes,
	// spends and evicts around pinned entries).
	var pend struct {
		ch     <-chan error
		want   model
		height int32
		gate   chan struct{}
	}
	pinnedHits, asyncFlushes := 0, 0
	openGate := func() {
		if pend.gate != nil {
			close(pend.gate)
			pend.gate = nil
		}
	}
	finish := func(step int) {
		if pend.ch == nil {
			return
		}
		openGate()
		if err := <-pend.ch; err != nil {
			t.Fatal(err)
		}
		testWriteHook = nil
		pend.ch = nil
		// Exactly the snapshot, whatever changed during the write.
		compareModels(t, "db after background flush at step "+strconv.Itoa(step), dbContents(t, cs), pend.want)
		if best := cs.BestBlock(); best.Height != pend.height {
			t.Fatalf("step %d: best %d after background flush at %d", step, best.Height, pend.height)
		}
	}
	defer func() { openGate(); testWriteHook = nil }()
	steps := 300
	if testing.Short() {
		steps = 100
	}
	for step := range steps {
		pinnedBefore := c.Stats().Pinned
		if len(stack) > 0 && r.IntN(6) == 0 {
			// Disconnect the tip: remove its outputs, restore what it spent
			// (in reverse order, as a chain would), using the undo entries.
			a := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for i := len(a.b.creates) - 1; i >= 0; i-- {
				op := a.b.creates[i]
				if _, err := c.SpendEntry(&op, nil); err != nil {
					t.Fatal(err)
				}
				gone = append(gone, op)
			}
			for i := len(a.b.spends) - 1; i >= 0; i-- {
				op := a.b.spends[i]
				if _, born := a.prev[op]; !born {
					continue // created and spent in the same block
				}
				if err := c.AddEntry(&op, &a.undo[i], true); err != nil {
					t.Fatal(err)
				}
			}
			// Rewind the generator's model (its rng keeps going, which is
			// fine: the next block simply differs).
			g.model = a.prev
			g.live = g.live[:0]
			clear(g.pos)
			for op := range g.model {
				g.pos[op] = len(g.live)
				g.live = append(g.live, op)
			}
			g.height--
		} else {
			prev := g.model.clone()
			b := g.next()
			// Prefetch the block's inputs and recently spent coins while
			// it is applied, as the sync manager does from a peer's
			// goroutine, beside spends, evictions and the flush's writes.
			pops := append(slices.Clone(b.spends), gone[max(0, len(gone)-64):]...)
			prefetched := make(chan error, 1)
			go func() {
				_, err := c.Prefetch(pops, nil)
				prefetched <- err
			}()
			undo := applyBlock(t, c, &b, false)
			if err := <-prefetched; err != nil {
				t.Fatal(err)
			}
			for i, op := range b.spends {
				// Undo entries must be the coins as they were.
				want, ok := prev[op]
				if !ok {
					for j, cop := range b.creates {
						if cop == op {
							want = b.entries[j]
						}
					}
				}
				if !entriesEqual(undo[i], want) {
					t.Fatalf("step %d: undo of %v = %+v, want %+v", step, op, undo[i], want)
				}
				gone = append(gone, op)
			}
			stack = append(stack, applied{b: b, undo: undo, prev: prev})
			if len(stack) > 10 {
				stack = stack[1:]
			}
		}
		if len(gone) > 2000 {
			gone = gone[len(gone)-2000:]
		}
		// Anything "gone" that is live again in the model is checked as live.
		var missing []wire.OutPoint
		for _, op := range gone {
			if _, ok := g.model[op]; !ok {
				missing = append(missing, op)
			}
		}
		if pend.gate != nil {
			// Pinned entries changed while the write was held back.
			pinnedHits += pinnedBefore - c.Stats().Pinned
			openGate()
		}
		if r.IntN(4) == 0 || c.NeedsFlush() {
			finish(step)
			if r.IntN(2) == 0 {
				gate := make(chan struct{})
				pend.gate = gate
				testWriteHook = func() { <-gate }
				pend.want, pend.height = g.model.clone(), g.height
				pend.ch = c.FlushAsync(blockHash(g.height), g.height)
				asyncFlushes++
			} else {
				if err := c.Flush(blockHash(g.height), g.height); err != nil {
					t.Fatal(err)
				}
				st := c.Stats()
				if st.MemUsage > budget {
					t.Fatalf("step %d: after flush %d bytes in use, budget %d", step, st.MemUsage, budget)
				}
			}
		}
		if pend.gate == nil || r.IntN(2) == 0 {
			// Lookups (loading misses, evicting) while the write waits.
			checkCache(t, step, c, g.model, missing)
		}
	}
	finish(steps)
	t.Logf("%d background flushes; %d pinned entries changed during their writes", asyncFlushes, pinnedHits)
	if asyncFlushes == 0 || pinnedHits == 0 {
		t.Errorf("background path not exercised")
	}
	if err := c.Flush(blockHash(g.height), g.height); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	t.Logf("coins %d, cache %+v", len(g.model), st)
	if st.Evictions == 0 || st.Misses == 0 {
		t.Errorf("tiny budget should have caused evictions and misses: %+v", st)
	}
	compareModels(t, "db after flush", dbContents(t, cs), g.model)
	stats, err := cs.Stats()
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, e := range g.model {
		total += e.Amount
	}
	if stats.Outputs != uint64(len(g.model)) || stats.TotalAmount != total || stats.Best.Height != g.height {
		t.Fatalf("stats %+v, model %d coins %d total", stats, len(g.model), total)
	}
	cs.Close()

	// Reopen: best block and contents survive.
	cs, err = OpenChainState(dir, ChainStateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if best := cs.BestBlock(); best.Height != g.height || best.Hash != blockHash(g.height) {
		t.Fatalf("best after reopen %+v", best)
	}
	c = NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: budget})
	checkCache(t, -1, c, g.model, nil)
}

// TestUtxoCacheFreshAndOverwrite checks the flag rules directly.
func TestUtxoCacheFreshAndOverwrite(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{})
	op := wire.OutPoint{Hash: wire.Hash{1}, Index: 3}
	e := UtxoEntry{Amount: 5, PkScript: []byte{0x51}, Height: 7}
	if err := c.AddEntry(&op, &e, false); err != nil {
		t.Fatal(err)
	}
	if err := c.AddEntry(&op, &e, false); err == nil {
		t.Fatal("overwrite of unspent coin without possibleOverwrite accepted")
	}
	var got UtxoEntry
	if ok, err := c.FetchEntry(&op, &got); !ok || err != nil || !entriesEqual(got, e) {
		t.Fatalf("FetchEntry = %v %v %+v", ok, err, got)
	}
	// Created and spent between flushes: never written.
	if ok, _ := c.SpendEntry(&op, nil); !ok {
		t.Fatal("spend failed")
	}
	if ok, _ := c.SpendEntry(&op, nil); ok {
		t.Fatal("double spend succeeded")
	}
	if ok, _ := c.FetchEntry(&op, &got); ok {
		t.Fatal("FetchEntry found a spent output")
	}
	if err := c.Flush(wire.Hash{2}, 1); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.FlushedCoins != 0 || st.Entries != 0 {
		t.Fatalf("fresh spend reached the database: %+v", st)
	}
	// Unspendable outputs are not stored.
	ret := UtxoEntry{Amount: 1, PkScript: []byte{opReturn, 1, 2}}
	c.AddEntry(&op, &ret, false)
	if st := c.Stats(); st.Entries != 0 {
		t.Fatalf("OP_RETURN output stored")
	}
	// Flushed coin, spent, re-added (reorg restore), then spent again.
	c.AddEntry(&op, &e, false)
	c.Flush(wire.Hash{3}, 2)
	c.SpendEntry(&op, nil)
	c.AddEntry(&op, &e, false) // over a tombstone: not fresh
	c.SpendEntry(&op, nil)
	c.Flush(wire.Hash{4}, 3)
	if m := dbContents(t, cs); len(m) != 0 {
		t.Fatalf("coin resurrected in database: %v", m)
	}
}

// TestEmptyChainStateShortcut checks the "no coins on disk yet" answer
// for misses: true only until a flush writes coins, and read back from
// the database on reopen, so an evicted or reopened coin is still found.
func TestEmptyChainStateShortcut(t *testing.T) {
	dir := t.TempDir()
	cs, err := OpenChainState(dir, ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	if cs.mayHaveCoins.Load() {
		t.Fatal("fresh chainstate claims coins")
	}
	c := NewUtxoCache(cs, UtxoCacheOptions{})
	op := wire.OutPoint{Hash: wire.Hash{7}, Index: 1}
	var got UtxoEntry
	if ok, err := c.FetchEntry(&op, &got); ok || err != nil {
		t.Fatalf("miss on an empty chainstate: %v %v", ok, err)
	}
	e := UtxoEntry{Amount: 9, PkScript: []byte{0x51}, Height: 3}
	if err := c.AddEntry(&op, &e, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(wire.Hash{1}, 3); err != nil {
		t.Fatal(err)
	}
	if !cs.mayHaveCoins.Load() {
		t.Fatal("flush of a coin left the shortcut on")
	}
	// Evict everything: the coin must come back from LevelDB.
	c2 := NewUtxoCache(cs, UtxoCacheOptions{})
	if ok, err := c2.FetchEntry(&op, &got); !ok || err != nil || !entriesEqual(got, e) {
		t.Fatalf("flushed coin not found: %v %v %+v", ok, err, got)
	}
	cs.Close()
	cs, err = OpenChainState(dir, ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if !cs.mayHaveCoins.Load() {
		t.Fatal("reopened chainstate with a coin claims none")
	}
	c3 := NewUtxoCache(cs, UtxoCacheOptions{})
	if ok, err := c3.FetchEntry(&op, &got); !ok || err != nil {
		t.Fatalf("coin after reopen: %v %v", ok, err)
	}
}

// TestFetchEntriesExcept checks that skipped outpoints come back Missing
// without a lookup (no miss counted, nothing read), that the others are
// found as by FetchEntries, and that MayReadDisk follows the chainstate.
func TestFetchEntriesExcept(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{})
	if c.MayReadDisk() {
		t.Fatal("empty chainstate: MayReadDisk")
	}
	on := wire.OutPoint{Hash: wire.Hash{1}, Index: 0}
	e := UtxoEntry{Amount: 5, PkScript: []byte{0x51}, Height: 2}
	if err := c.AddEntry(&on, &e, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(wire.Hash{9}, 2); err != nil {
		t.Fatal(err)
	}
	if !c.MayReadDisk() {
		t.Fatal("after flushing a coin: !MayReadDisk")
	}
	c = NewUtxoCache(cs, UtxoCacheOptions{}) // the coin is on disk only
	ops := []wire.OutPoint{on, {Hash: wire.Hash{2}, Index: 1}, on}
	got, _, err := c.FetchEntriesExcept(ops, []bool{false, true, true}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Missing || !entriesEqual(got[0], e) || !got[1].Missing || !got[2].Missing {
		t.Fatalf("got %+v", got)
	}
	if st := c.Stats(); st.Misses != 1 {
		t.Fatalf("misses %d, want 1 (the skipped outpoints are not looked up)", st.Misses)
	}
}

// TestNeedsFlushThreeQuartersDirty: a cache asks for a flush once it is
// three quarters full and three quarters dirty, before it reaches its
// budget, so the clean quarter can absorb the blocks connected during the
// write; a cache that is full but mostly clean does not.
func TestNeedsFlushThreeQuartersDirty(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const budget = 16 << 20
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: budget})
	e := UtxoEntry{Amount: 1000, PkScript: benchScript, Height: 1}
	i := 0
	for ; c.Stats().MemUsage <= budget*3/4; i++ {
		op := benchOutPoint(i)
		if err := c.AddEntry(&op, &e, false); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.MemUsage > budget || !c.NeedsFlush() {
		t.Fatalf("all dirty at %d of %d bytes: NeedsFlush %v", st.MemUsage, int64(budget), c.NeedsFlush())
	}
	if err := c.Flush(wire.Hash{1}, 1); err != nil {
		t.Fatal(err)
	}
	// Mostly clean now: a few new coins do not ask for another flush.
	for j := 0; j < 100; j++ {
		op := benchOutPoint(i + j)
		if err := c.AddEntry(&op, &e, false); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); c.NeedsFlush() {
		t.Fatalf("after a flush, %d dirty of %d: NeedsFlush", st.Dirty, st.Entries)
	}
}

// TestSnapshotKeyOrder: the flush sorts its records by a 4-byte key
// prefix and orders runs of equal prefixes by the whole key as it writes
// them, so keys sharing their first bytes (a transaction's outputs, or
// different txids alike in 4 bytes) still reach LevelDB in txid, then
// index order.
func TestSnapshotKeyOrder(t *testing.T) {
	_, c := benchCache(t, 16<<20)
	r := rand.New(rand.NewPCG(7, 7))
	e := UtxoEntry{Amount: 1, PkScript: benchScript, Height: 1}
	for i := range 5000 {
		var op wire.OutPoint
		for j := range op.Hash {
			op.Hash[j] = byte(r.Uint32())
		}
		switch i % 3 {
		case 0: // alike in the first 4 bytes, different after them
			copy(op.Hash[:4], []byte{0xab, 0xcd, 0xef, 0x01})
		case 1: // alike in 7 bytes
			copy(op.Hash[:7], []byte{0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70})
		}
		op.Index = uint32(r.IntN(4))
		if err := c.AddEntry(&op, &e, true); err != nil {
			t.Fatal(err)
		}
	}
	var keys batchKeys
	testBatchHook = func(b *leveldb.Batch) {
		if err := b.Replay(&keys); err != nil {
			t.Error(err)
		}
	}
	defer func() { testBatchHook = nil }()
	if err := c.Flush(wire.Hash{1}, 1); err != nil {
		t.Fatal(err)
	}
	if len(keys.coins) < 4000 {
		t.Fatalf("flush of %d coins, want the 5000 added less duplicates", len(keys.coins))
	}
	for i := 1; i < len(keys.coins); i++ {
		if a, b := keys.coins[i-1], keys.coins[i]; bytes.Compare(a, b) >= 0 {
			t.Fatalf("record %d: key %x not after %x", i, b, a)
		}
	}
}

// TestFlushAsyncSortsInBackground: FlushAsync returns once the snapshot is
// taken; the sort of its records (a second or more for millions) runs in
// the background write, not on the caller's block connection.
func TestFlushAsyncSortsInBackground(t *testing.T) {
	_, c := benchCache(t, 16<<20)
	e := UtxoEntry{Amount: 1, PkScript: benchScript, Height: 1}
	for i := range 1000 {
		op := benchOutPoint(i)
		if err := c.AddEntry(&op, &e, false); err != nil {
			t.Fatal(err)
		}
	}
	gate := make(chan struct{})
	testSortHook = func() { <-gate }
	defer func() { testSortHook = nil }()
	returned := make(chan (<-chan error), 1)
	go func() { returned <- c.FlushAsync(wire.Hash{1}, 1) }()
	var ch <-chan error
	select {
	case ch = <-returned:
	case <-time.After(10 * time.Second):
		close(gate)
		t.Fatal("FlushAsync waited for the sort of its records")
	}
	close(gate)
	if err := <-ch; err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Dirty != 0 || st.Flushes != 1 {
		t.Fatalf("after the flush: %+v", st)
	}
}
