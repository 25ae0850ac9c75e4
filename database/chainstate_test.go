package database

import (
	"testing"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// TestChainStateMetadataResident: by default the chainstate runs without a
// block cache, so each open table keeps its index and filter blocks, and a
// lookup reads one data block instead of re-reading the metadata a shared
// cache has evicted; and without the buffer pool, whose large buffers the
// open tables would keep (database/doc.go, "Lookups past the block
// cache").
func TestChainStateMetadataResident(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true, CacheBudget: 450 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v, err := cs.db.GetProperty("leveldb.cachedblock"); err != nil || v != "<nil>" {
		t.Fatalf("chainstate block cache = %q (%v), want none", v, err)
	}
	// Without the buffer pool, goleveldb reports no pool statistics.
	if v, err := cs.db.GetProperty("leveldb.blockpool"); err != nil || v != "<nil>" {
		t.Fatalf("chainstate buffer pool = %q (%v), want none", v, err)
	}
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 64 << 20})
	const n = 50_000
	e := UtxoEntry{Amount: 1000, PkScript: benchScript, Height: 1}
	for i := range n {
		op := benchOutPoint(i)
		if err := c.AddEntry(&op, &e, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(wire.Hash{1}, 1); err != nil {
		t.Fatal(err)
	}
	if err := cs.db.CompactRange(util.Range{}); err != nil {
		t.Fatal(err)
	}
	var before, after leveldb.DBStats
	cs.db.Stats(&before)
	const lookups = 2000
	c = NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 64 << 20})
	for i := range lookups { // distinct coins: every lookup misses
		op := benchOutPoint(i * 37 % n)
		var got UtxoEntry
		found, err := c.FetchEntry(&op, &got)
		if err != nil || !found {
			t.Fatalf("lookup %v: found %v, %v", op, found, err)
		}
	}
	cs.db.Stats(&after)
	// One 4 KiB data block per lookup, plus slack for a block that spans
	// a little more.
	per := float64(after.IORead-before.IORead) / lookups
	t.Logf("%.0f bytes read per lookup", per)
	if per == 0 || per > 8<<10 {
		t.Fatalf("LevelDB read %.0f bytes per lookup, want one data block", per)
	}
}
