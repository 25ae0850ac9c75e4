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

// TestUpgradeVersion1: a version 1 chainstate (best block under 'B') opens
// as version 2 with its best block, coins and any interrupted-flush marker
// kept, and the old key gone.
func TestUpgradeVersion1(t *testing.T) {
	for _, interrupted := range []bool{false, true} {
		dir := t.TempDir()
		cs, err := OpenChainState(dir, ChainStateOptions{NoSyncOnFlush: true})
		if err != nil {
			t.Fatal(err)
		}
		c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 1 << 20})
		op := benchOutPoint(1)
		e := UtxoEntry{Amount: 5, PkScript: benchScript, Height: 3}
		if err := c.AddEntry(&op, &e, false); err != nil {
			t.Fatal(err)
		}
		if err := c.Flush(blockHash(3), 3); err != nil {
			t.Fatal(err)
		}
		// Rewrite the markers as version 1 kept them.
		var b leveldb.Batch
		best, err := cs.db.Get([]byte{keyBestBlock}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b.Delete([]byte{keyBestBlock})
		if interrupted {
			b.Put([]byte{keyHeadBlocks}, append(appendMarker(nil, BlockMarker{Hash: blockHash(4), Height: 4}), best...))
		} else {
			b.Put([]byte{keyBestBlockV1}, best)
		}
		b.Put([]byte{keyVersion}, []byte{1, 0, 0, 0})
		if err := cs.db.Write(&b, nil); err != nil {
			t.Fatal(err)
		}
		cs.Close()

		cs, err = OpenChainState(dir, ChainStateOptions{NoSyncOnFlush: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.BestBlock(); got.Height != 3 || got.Hash != blockHash(3) {
			t.Errorf("interrupted %v: best block %+v after the upgrade", interrupted, got)
		}
		if head, ok := cs.HeadBlocks(); ok != interrupted || (ok && head.New.Height != 4) {
			t.Errorf("interrupted %v: head blocks %+v %v", interrupted, head, ok)
		}
		if ok, _ := cs.db.Has([]byte{keyBestBlockV1}, nil); ok {
			t.Error("version 1 best-block key left")
		}
		if v, _ := cs.db.Get([]byte{keyVersion}, nil); string(v) != string([]byte{ChainStateVersion, 0, 0, 0}) {
			t.Errorf("version %x", v)
		}
		var got UtxoEntry
		if ok, err := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 1 << 20}).FetchEntry(&op, &got); !ok || err != nil || got.Amount != 5 {
			t.Errorf("coin after the upgrade: %v %v %+v", ok, err, got)
		}
		cs.Close()
	}
}

// TestChainStateL0Triggers: the chainstate lets level 0 hold the tables
// of a flush burst (two per batch, narrow since batches are in key
// order) before slowing writes, instead of goleveldb's 8 and 12, which
// stalled block connection past 1 s at a 100 MiB cache.
func TestChainStateL0Triggers(t *testing.T) {
	o := chainStateLevelOptions(ChainStateOptions{})
	if o.GetWriteL0SlowdownTrigger() < 16 || o.GetWriteL0PauseTrigger() < 24 {
		t.Fatalf("level 0 triggers %d and %d", o.GetWriteL0SlowdownTrigger(), o.GetWriteL0PauseTrigger())
	}
	if o.GetCompactionL0Trigger() >= o.GetWriteL0SlowdownTrigger() {
		t.Fatalf("compaction starts at %d level 0 tables, writes slow at %d", o.GetCompactionL0Trigger(), o.GetWriteL0SlowdownTrigger())
	}
}
