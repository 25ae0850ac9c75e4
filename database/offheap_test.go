package database

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/btcnode/btcd/wire"
)

func offheapOp(i int) wire.OutPoint {
	var op wire.OutPoint
	binary.LittleEndian.PutUint64(op.Hash[:], uint64(i)*0x9e3779b97f4a7c15)
	op.Index = uint32(i % 3)
	return op
}

func inRegion(region []byte, chunk []cacheEntry) bool {
	if len(region) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(region)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(chunk)))
	return p >= lo && p+chunkBytes <= lo+uintptr(len(region))
}

// TestOffheapSlabRegion fills a small cache past its mapped slab region
// (every entry dirty, so nothing may be evicted): chunks beyond the region
// come from the heap. A flush then shrinks the cache, releasing chunks
// from the top, and released region memory reads as zeros when reused.
func TestOffheapSlabRegion(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const budget = 1 << 20
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: budget})
	regionChunks := 0
	if offheapOK {
		if len(c.slabs.region) != slabRegionBytes(budget) {
			t.Fatalf("slab region %d bytes, want %d", len(c.slabs.region), slabRegionBytes(budget))
		}
		regionChunks = len(c.slabs.region) / chunkBytes
	} else {
		t.Log("no off-heap memory on this platform: checking the heap path only")
	}
	n := (regionChunks + 5) * slabLen
	for i := range n {
		op := offheapOp(i)
		e := UtxoEntry{Amount: int64(i), PkScript: []byte{0x51, byte(i)}, Height: int32(i)}
		if err := c.AddEntry(&op, &e, false); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.slabs.chunks) <= regionChunks {
		t.Fatalf("%d chunks for %d entries, region holds %d", len(c.slabs.chunks), n, regionChunks)
	}
	for i, ch := range c.slabs.chunks {
		if got, want := inRegion(c.slabs.region, ch), i < regionChunks; got != want {
			t.Fatalf("chunk %d in region: %v, want %v", i, got, want)
		}
	}
	if err := c.Flush(wire.Hash{1}, 1); err != nil {
		t.Fatal(err)
	}
	left := len(c.slabs.chunks)
	if left >= regionChunks || c.memUsage() > budget {
		t.Fatalf("after flush: %d chunks, %d bytes (budget %d)", left, c.memUsage(), budget)
	}
	if offheapOK {
		for _, b := range c.slabs.region[left*chunkBytes : (left+1)*chunkBytes] {
			if b != 0 {
				t.Fatal("released region chunk does not read as zero")
			}
		}
	}
	check := func() {
		t.Helper()
		var got UtxoEntry
		for i := range n {
			op := offheapOp(i)
			if ok, err := c.FetchEntry(&op, &got); !ok || err != nil || got.Amount != int64(i) || got.PkScript[1] != byte(i) {
				t.Fatalf("entry %d: %v %v %+v", i, ok, err, got)
			}
		}
	}
	check()
	// Reused chunks (loaded back from LevelDB) hold correct entries.
	c2 := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 64 << 20})
	c = c2
	check()
}

// TestOffheapTable grows the table past one huge page (mapped) and checks
// every key is still found after each doubling.
func TestOffheapTable(t *testing.T) {
	if testing.Short() {
		t.Skip("300k entries")
	}
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 256 << 20})
	const n = 300_000
	e := UtxoEntry{Amount: 7, PkScript: []byte{0x51}}
	for i := range n {
		op := offheapOp(i)
		if err := c.AddEntry(&op, &e, false); err != nil {
			t.Fatal(err)
		}
	}
	if offheapOK {
		m := c.table.mem
		if m == nil || len(m.slots) != len(c.table.slots)*8 ||
			unsafe.Pointer(unsafe.SliceData(m.slots)) != unsafe.Pointer(unsafe.SliceData(c.table.slots)) {
			t.Fatalf("table of %d slots is not the mapped array", len(c.table.slots))
		}
	}
	var got UtxoEntry
	for i := range n {
		op := offheapOp(i)
		if ok, err := c.FetchEntry(&op, &got); !ok || err != nil {
			t.Fatalf("entry %d lost after table growth: %v %v", i, ok, err)
		}
	}
}

// TestOffheapPrefault: growing the slabs keeps a margin of the region
// faulted in ahead of the chunks in use (between half and one and a half
// times the margin), and releasing chunks pulls the
// mark back so that regrown chunks are faulted in again.
func TestOffheapPrefault(t *testing.T) {
	if !offheapOK {
		t.Skip("no off-heap memory on this platform")
	}
	var s slabs
	region, err := mapAligned(64 << 20)
	if err != nil {
		t.Skip("mmap refused:", err)
	}
	defer unmap(region)
	s.region = region
	s.grow()
	ahead := min(8<<20, len(region)/32)
	if s.populated != chunkBytes+ahead {
		t.Fatalf("after one chunk: populated %d, want %d", s.populated, chunkBytes+ahead)
	}
	for len(s.chunks)*chunkBytes < 3*ahead {
		s.grow()
	}
	if used := len(s.chunks) * chunkBytes; s.populated < used+ahead/2 || s.populated > used+3*ahead/2 {
		t.Fatalf("%d bytes in use, populated %d (margin %d)", used, s.populated, ahead)
	}
	for len(s.chunks) > 2 {
		s.dropTop()
	}
	if s.populated != 2*chunkBytes {
		t.Fatalf("after release to 2 chunks: populated %d", s.populated)
	}
	for _, b := range s.region[2*chunkBytes : 3*chunkBytes] {
		if b != 0 {
			t.Fatal("released chunk not zero")
		}
	}
}

// TestTableShrinksAfterFlush: a table doubled while everything was dirty
// (the cache over its budget before a flush) is halved after the flush
// until it is at least 5/16 full, instead of keeping the size and the
// budget share of the peak (at 10 MiB, 2 MiB of slots for entries that
// fit in 1 MiB), and every entry is still found.
func TestTableShrinksAfterFlush(t *testing.T) {
	for _, budget := range []int64{2 << 20, 5 << 19, 4 << 20} {
		cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
		if err != nil {
			t.Fatal(err)
		}
		c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: budget})
		e := UtxoEntry{Amount: 7, PkScript: []byte{0x51}}
		n := int(budget * 6 / 5 / entrySize) // all dirty, 20% over the budget
		for i := range n {
			op := offheapOp(i)
			if err := c.AddEntry(&op, &e, false); err != nil {
				t.Fatal(err)
			}
		}
		grown := len(c.table.slots)
		if err := c.Flush(wire.Hash{1}, 1); err != nil {
			t.Fatal(err)
		}
		if c.table.shrinkable() || len(c.table.slots) >= grown {
			t.Fatalf("budget %d: after the flush %d entries in %d slots (was %d)", budget, c.table.count, len(c.table.slots), grown)
		}
		var got UtxoEntry
		for i := range n {
			op := offheapOp(i)
			if ok, err := c.FetchEntry(&op, &got); !ok || err != nil {
				t.Fatalf("budget %d: entry %d lost: %v %v", budget, i, ok, err)
			}
		}
		cs.Close()
	}
}

// TestTableResize halves and doubles a table and finds every key.
func TestTableResize(t *testing.T) {
	var s slabs
	tb := newTable(0)
	const n = 3000
	for i := range n {
		for len(s.free) == 0 {
			s.grow()
		}
		idx := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		op := offheapOp(i)
		k := makeKey(&op)
		*s.at(idx) = cacheEntry{key: k, flags: flagLive}
		h := tb.hash(&k)
		_, pos, ok := tb.findHash(&s, &k, h)
		if ok {
			t.Fatal("duplicate")
		}
		if tb.needsGrow() {
			tb.grow()
			_, pos, _ = tb.findHash(&s, &k, h)
		}
		tb.insertAt(pos, idx, h)
	}
	check := func(when string) {
		for i := range n {
			op := offheapOp(i)
			k := makeKey(&op)
			if idx, _, ok := tb.find(&s, &k); !ok || s.at(idx).key != k {
				t.Fatalf("%s (%d slots): key %d not found", when, len(tb.slots), i)
			}
		}
	}
	check("grown")
	tb.resize(len(tb.slots) * 4)
	if !tb.shrinkable() {
		t.Fatalf("%d entries in %d slots not shrinkable", tb.count, len(tb.slots))
	}
	check("enlarged")
	for tb.shrinkable() {
		tb.resize(len(tb.slots) / 2)
		check("halved")
	}
	if tb.count*4 > len(tb.slots)*3 {
		t.Fatalf("shrunk past 3/4: %d in %d", tb.count, len(tb.slots))
	}
}
