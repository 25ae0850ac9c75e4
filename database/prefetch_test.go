package database

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// prefetchFixture is a chainstate holding n coins (benchOutPoint 0..n-1,
// amount i+1) and an empty cache over it.
func prefetchFixture(t *testing.T, n int) *UtxoCache {
	t.Helper()
	cs, c := benchCache(t, 16<<20)
	for i := range n {
		op := benchOutPoint(i)
		e := UtxoEntry{Amount: int64(i + 1), PkScript: benchScript, Height: 1}
		if err := c.AddEntry(&op, &e, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(wire.Hash{1}, 1); err != nil {
		t.Fatal(err)
	}
	return NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 16 << 20})
}

// Prefetch reads each missing coin once (duplicates and absent ones
// included), after which fetching them costs no read.
func TestPrefetchLoadsMisses(t *testing.T) {
	c := prefetchFixture(t, 100)
	ops := []wire.OutPoint{benchOutPoint(3), benchOutPoint(7), benchOutPoint(3), benchOutPoint(500)}
	if _, err := c.Prefetch(ops, nil); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Misses != 3 || st.Entries != 2 {
		t.Fatalf("after prefetch: %d misses, %d entries; want 3 reads, 2 coins", st.Misses, st.Entries)
	}
	got, _, err := c.FetchEntries(ops[:2], nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Amount != 4 || got[1].Amount != 8 {
		t.Fatalf("fetched %+v", got)
	}
	if st := c.Stats(); st.Misses != 3 || st.Hits != 2 {
		t.Fatalf("fetch after prefetch: %d misses, %d hits", st.Misses, st.Hits)
	}
}

// A block's many misses, absent and duplicate outpoints among them, come
// back from LevelDB with their values, each distinct one read once.
func TestFetchEntriesManyMisses(t *testing.T) {
	c := prefetchFixture(t, 1000)
	var ops []wire.OutPoint
	for i := 0; i < 1200; i += 3 {
		ops = append(ops, benchOutPoint(i)) // from 1000 on: absent
	}
	ops = append(ops, benchOutPoint(3), benchOutPoint(2000))
	got, _, err := c.FetchEntries(ops, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j, op := range ops {
		i := 0
		for ; i < 2000 && benchOutPoint(i) != op; i++ {
		}
		if i >= 1000 {
			if !got[j].Missing {
				t.Fatalf("absent coin %d found: %+v", i, got[j])
			}
			continue
		}
		if got[j].Missing || got[j].Amount != int64(i+1) {
			t.Fatalf("coin %d: %+v", i, got[j])
		}
	}
	if st := c.Stats(); st.Misses != uint64(len(ops)-1) {
		t.Fatalf("%d misses for %d distinct outpoints", st.Misses, len(ops)-1)
	}
}
