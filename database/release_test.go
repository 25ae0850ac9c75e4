package database

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestReleaseChunksWhileChanging releases slab chunks after a flush while
// the cache is changed between the releases, as block connection does:
// new coins take free slots (some of them stale, in chunks already
// released), and coins moved down by earlier releases are spent or
// changed. The next flush must write every change, every lookup must
// still answer, and the free list must end with no stale slot and every
// slot live or free.
func TestReleaseChunksWhileChanging(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 1 << 20, MaxBatchBytes: 16 << 10})
	want := make(model)
	var gone []wire.OutPoint
	next := 0
	add := func(n int) {
		for range n {
			op := wire.OutPoint{Hash: wire.Hash{0xcd, byte(next >> 16), byte(next >> 8), byte(next)}, Index: uint32(next % 3)}
			e := UtxoEntry{Amount: int64(next), PkScript: benchScript, Height: int32(next)}
			if err := c.AddEntry(&op, &e, false); err != nil {
				t.Fatal(err)
			}
			want[op] = e
			next++
		}
	}
	spend := func(n int) {
		for op := range want {
			if n == 0 {
				return
			}
			if ok, err := c.SpendEntry(&op, nil); err != nil || !ok {
				t.Fatalf("spend %v: %v %v", op, ok, err)
			}
			delete(want, op)
			gone = append(gone, op)
			n--
		}
	}
	add(24000)
	releases := 0
	testReleaseHook = func() {
		releases++
		add(40)
		spend(25)
	}
	defer func() { testReleaseHook = nil }()
	chunksBefore := len(c.slabs.chunks)
	if err := c.Flush(wire.Hash{1}, 1); err != nil {
		t.Fatal(err)
	}
	testReleaseHook = nil
	if releases < 3 {
		t.Fatalf("%d chunk releases (of %d chunks), want several", releases, chunksBefore)
	}
	c.mu.Lock()
	stale, free, capacity, live := c.slabs.stale, len(c.slabs.free), c.slabs.capacity(), c.table.count
	seen := make(map[uint32]bool, free)
	for _, i := range c.slabs.free {
		if int(i) >= capacity || seen[i] || c.slabs.at(i).flags&flagLive != 0 {
			c.mu.Unlock()
			t.Fatalf("free slot %d: capacity %d, repeated %v, live %v", i, capacity, seen[i], c.slabs.at(i).flags&flagLive != 0)
		}
		seen[i] = true
	}
	c.mu.Unlock()
	if stale != 0 || live+free != capacity {
		t.Fatalf("after release: %d stale, %d live + %d free != %d slots", stale, live, free, capacity)
	}
	checkCache(t, 1, c, want, gone)
	add(500)
	spend(300)
	if err := c.Flush(wire.Hash{2}, 2); err != nil {
		t.Fatal(err)
	}
	compareModels(t, "after releases with changes between them", dbContents(t, cs), want)
	checkCache(t, 2, c, want, gone)
	t.Logf("%d chunks before, %d after, %d releases", chunksBefore, len(c.slabs.chunks), releases)
}
