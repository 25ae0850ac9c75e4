package database

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"unsafe"
)

// This file holds the cache's storage: fixed-size entry records in chunked
// slabs, an open-addressing hash table of slab indices, and a size-classed
// byte arena for the few scripts too long to store inline. None of these
// contain pointers per entry, so the garbage collector never scans them,
// and every byte they hold is counted by memUsage.

// outKey is an outpoint as a fixed-size map key: txid || index (LE).
type outKey [36]byte

// inlineScript is the longest script stored inside the entry record. It
// covers P2PKH (25), P2SH (23), P2WPKH (22), P2WSH and P2TR (34) and
// compressed P2PK (35), i.e. nearly every output; longer scripts live in
// the arena and the inline bytes hold their arena reference.
const inlineScript = 35

// Entry flag bits.
const (
	flagLive   = 1 << iota // slot holds an entry
	flagDirty              // differs from the database
	flagFresh              // the database has no such coin: spending it needs no write
	flagSpent              // tombstone: spent, the database still has it
	flagRef                // touched since the clock hand last passed (eviction)
	flagListed             // already in the dirty list
	flagCoinbase
	// flagPinned marks an entry whose snapshot the flush in progress is
	// writing: it may not be evicted (a later miss would read the old value
	// from LevelDB), and changing it first captures the snapshot (unpin).
	flagPinned
)

// cacheEntry is one cached output, 88 bytes, pointer-free.
type cacheEntry struct {
	amount int64
	key    outKey
	height int32
	slen   uint32
	flags  uint8
	script [inlineScript]byte
}

// entrySize is the memory one slab slot costs.
const entrySize = 88

const (
	slabShift = 10
	slabLen   = 1 << slabShift // entries per slab chunk (88 KiB)
	slabMask  = slabLen - 1
)

// slabs is the chunked entry store with a free-slot stack.
type slabs struct {
	chunks [][]cacheEntry
	free   []uint32
	// stale counts the indices on free that belong to chunks released
	// since the free list was last filtered (dropFree): releasing a chunk
	// leaves its free slots on the list rather than passing over the
	// whole list (millions of slots after a flush's evictions) per chunk.
	// pop skips them; grow runs only on an empty list, so a stale index
	// never names a slot of a chunk added later.
	stale int
	// region, if mapped, holds the first len(region)/chunkBytes chunks
	// back to back; chunks are added and released only at the top, so
	// chunk i is in the region exactly when it fits there.
	region []byte
	// populated is how far into the region pages have been (or are being)
	// faulted in ahead of use (prefault).
	populated int
}

func (s *slabs) at(i uint32) *cacheEntry {
	return &s.chunks[i>>slabShift][i&slabMask]
}

func (s *slabs) capacity() int { return len(s.chunks) * slabLen }

// pop takes the top of the free stack, skipping stale indices; ok is false
// when the stack holds none that is usable.
func (s *slabs) pop() (i uint32, ok bool) {
	limit := uint32(s.capacity())
	for n := len(s.free); n > 0; n-- {
		i = s.free[n-1]
		s.free = s.free[:n-1]
		if i < limit {
			return i, true
		}
		s.stale--
	}
	return 0, false
}

// usableFree is how many free slots pop can still return.
func (s *slabs) usableFree() int { return len(s.free) - s.stale }

// sinkFree reorders the free stack so that slots at or above index cut
// are at the bottom: slots below cut are handed out first, and entries
// moved out of the chunks above it land below it.
func (s *slabs) sinkFree(cut uint32) {
	lo := 0
	for j, i := range s.free {
		if i >= cut {
			s.free[lo], s.free[j] = s.free[j], s.free[lo]
			lo++
		}
	}
}

// dropFree removes the stale indices from the free list.
func (s *slabs) dropFree() {
	if s.stale == 0 {
		return
	}
	limit := uint32(s.capacity())
	out := s.free[:0]
	for _, i := range s.free {
		if i < limit {
			out = append(out, i)
		}
	}
	s.free = out
	s.stale = 0
}

// grow adds one chunk and pushes its slots on the free stack, highest first
// so that low indices are used first (keeps trimming effective).
func (s *slabs) grow() {
	base := uint32(len(s.chunks) * slabLen)
	if off := len(s.chunks) * chunkBytes; off+chunkBytes <= len(s.region) {
		// Zero: never touched, or released by dropTop.
		s.chunks = append(s.chunks, entriesAt(s.region[off:off+chunkBytes]))
		s.prefault(off + chunkBytes)
	} else {
		s.chunks = append(s.chunks, make([]cacheEntry, slabLen))
	}
	for i := slabLen - 1; i >= 0; i-- {
		s.free = append(s.free, base+uint32(i))
	}
}

// prefault has a background goroutine fault in the region's pages from
// next on, keeping between half and one and a half times a margin (8 MiB,
// or 1/32 of the region at small budgets) faulted ahead of the chunks in
// use, so that the goroutine adding coins does not wait for the kernel to
// zero fresh pages. That memory is not in memUsage until chunks use it.
func (s *slabs) prefault(next int) {
	ahead := min(8<<20, len(s.region)/32)
	if s.populated >= next+ahead/2 || s.populated >= len(s.region) {
		return
	}
	from := max(s.populated, next)
	to := min(from+ahead, len(s.region))
	s.populated = to
	go populate(s.region[from:to])
}

// dropTop releases the highest chunk, whose entries the caller has moved
// out: a mapped chunk's pages go back to the kernel at once.
func (s *slabs) dropTop() {
	top := len(s.chunks) - 1
	if off := top * chunkBytes; off+chunkBytes <= len(s.region) {
		dropPages(s.region[off : off+chunkBytes])
		s.populated = min(s.populated, off)
	}
	s.chunks[top] = nil
	s.chunks = s.chunks[:top]
}

// mappedResident is how much of the region is in use or faulted in ahead
// of use: the part of the cache's slabs that lives outside the Go heap.
func (s *slabs) mappedResident() int64 {
	used := min(len(s.chunks)*chunkBytes, len(s.region)/chunkBytes*chunkBytes)
	return int64(max(used, s.populated))
}

func (s *slabs) memUsage() int64 {
	return int64(len(s.chunks))*slabLen*entrySize + int64(cap(s.free))*4 + int64(cap(s.chunks))*24
}

// table maps outKey -> slab index with linear probing over a power-of-two
// array of uint64 slots: the low 32 bits hold index+1 (0 = empty), the
// high 32 bits the key's 32-bit hash, which also picks the home position.
// Keeping the hash in the slot means a probe compares keys only when the
// hashes agree, so a miss (every new output, every BIP30 lookup) never
// touches the 88-byte records, and growing or deleting never rehashes
// (each record read was a cache miss: find was 20% of the node's CPU with
// scripts skipped). Its memory is exactly 8 bytes per slot, unlike a Go
// map whose buckets hold the 36-byte key and whose growth doubles its
// footprint. Hashing is seeded so that ground txids cannot force long
// probe chains.
type table struct {
	slots []uint64
	mask  uint64
	count int
	seed  maphash.Seed
	mem   *offheap // where big arrays are mapped (nil: on the heap)
}

const minTableSize = 1 << 10

func newTable(hint int) table {
	n := minTableSize
	for n*3/4 < hint {
		n <<= 1
	}
	return table{slots: make([]uint64, n), mask: uint64(n - 1), seed: maphash.MakeSeed()}
}

// hash returns k's 32-bit table hash (never 0 is not required: a slot is
// empty by its index half).
func (t *table) hash(k *outKey) uint32 { return uint32(maphash.Bytes(t.seed, k[:]) >> 32) }

// find returns the slab index of k and its table position (for a missing
// key, the empty position where insertAt may put it).
func (t *table) find(s *slabs, k *outKey) (idx uint32, pos uint64, ok bool) {
	return t.findHash(s, k, t.hash(k))
}

// findHash is find for a key whose hash h the caller already has (an
// insert after a failed lookup hashes the key once).
func (t *table) findHash(s *slabs, k *outKey, h uint32) (idx uint32, pos uint64, ok bool) {
	pos = uint64(h) & t.mask
	for {
		v := t.slots[pos]
		if uint32(v) == 0 {
			return 0, pos, false
		}
		if uint32(v>>32) == h && s.at(uint32(v)-1).key == *k {
			return uint32(v) - 1, pos, true
		}
		pos = (pos + 1) & t.mask
	}
}

// insertAt stores idx for a key of hash h at the empty position pos
// returned by find.
func (t *table) insertAt(pos uint64, idx uint32, h uint32) {
	t.slots[pos] = uint64(h)<<32 | uint64(idx+1)
	t.count++
}

// needsGrow reports whether one more insert would exceed a 3/4 load.
func (t *table) needsGrow() bool { return (t.count+1)*4 > len(t.slots)*3 }

// grow doubles the table.
func (t *table) grow() { t.resize(2 * len(t.slots)) }

// shrinkable reports whether the table may be halved and stay at most
// 5/8 full, far enough from the 3/4 that grows it again.
func (t *table) shrinkable() bool {
	return len(t.slots) > minTableSize && t.count*16 < len(t.slots)*5
}

// resize moves the table to n slots (a power of two holding every entry)
// and reinserts every slot at its new home; inserting by probing in any
// order gives a valid linear-probing table.
func (t *table) resize(n int) {
	old := t.slots
	var mapped []byte
	t.slots, mapped = makeSlots(t.mem, n)
	if t.mem != nil {
		// The old array is unused after this copy (every probe runs under
		// the cache lock); release it if it was mapped.
		defer func(prev []byte) { unmap(prev) }(t.mem.slots)
		t.mem.slots = mapped
	}
	t.mask = uint64(len(t.slots) - 1)
	for _, v := range old {
		if uint32(v) == 0 {
			continue
		}
		pos := (v >> 32) & t.mask
		for uint32(t.slots[pos]) != 0 {
			pos = (pos + 1) & t.mask
		}
		t.slots[pos] = v
	}
}

// deleteAt removes the entry at pos, shifting later members of its probe
// run back so that no tombstones are needed.
func (t *table) deleteAt(pos uint64) {
	t.count--
	for {
		t.slots[pos] = 0
		next := pos
		for {
			next = (next + 1) & t.mask
			v := t.slots[next]
			if uint32(v) == 0 {
				return
			}
			home := (v >> 32) & t.mask
			// Move v into the hole if its home is not in (pos, next].
			if (next-home)&t.mask >= (next-pos)&t.mask {
				t.slots[pos] = v
				pos = next
				break
			}
		}
	}
}

// replaceAt points position pos at a new slab index (entry moved); the
// key, and so its hash, is unchanged.
func (t *table) replaceAt(pos uint64, idx uint32) {
	t.slots[pos] = t.slots[pos]&^0xffffffff | uint64(idx+1)
}

func (t *table) memUsage() int64 { return int64(len(t.slots)) * 8 }

// arena stores scripts longer than inlineScript in size-classed blocks cut
// from 64 KiB chunks. A reference packs chunk number and offset.
type arena struct {
	chunks  [][]byte
	class   []uint8    // size class of each chunk
	next    []uint32   // bump offset within the newest chunk of each class
	current []int32    // newest chunk of each class, -1 if none
	free    [][]uint64 // freed block refs per class
	used    int64      // bytes in live blocks (for statistics)
}

const arenaChunk = 64 << 10

// arenaClasses are block sizes, roughly 1.5x apart, up to MaxScriptSize.
var arenaClasses = [...]uint32{48, 64, 96, 128, 192, 256, 384, 512, 768, 1024,
	1536, 2048, 3072, 4096, 6144, 8192, MaxScriptSize}

func newArena() arena {
	a := arena{
		next:    make([]uint32, len(arenaClasses)),
		current: make([]int32, len(arenaClasses)),
		free:    make([][]uint64, len(arenaClasses)),
	}
	for i := range a.current {
		a.current[i] = -1
	}
	return a
}

func classOf(n int) int {
	for i, c := range arenaClasses {
		if uint32(n) <= c {
			return i
		}
	}
	return -1
}

// alloc copies b into a block and returns its reference.
func (a *arena) alloc(b []byte) uint64 {
	c := classOf(len(b))
	var ref uint64
	if n := len(a.free[c]); n > 0 {
		ref = a.free[c][n-1]
		a.free[c] = a.free[c][:n-1]
	} else {
		cur := a.current[c]
		if cur < 0 || a.next[c]+arenaClasses[c] > arenaChunk {
			a.chunks = append(a.chunks, make([]byte, arenaChunk))
			a.class = append(a.class, uint8(c))
			cur = int32(len(a.chunks) - 1)
			a.current[c] = cur
			a.next[c] = 0
		}
		ref = uint64(cur)<<32 | uint64(a.next[c])
		a.next[c] += arenaClasses[c]
	}
	copy(a.chunks[ref>>32][uint32(ref):], b)
	a.used += int64(arenaClasses[c])
	return ref
}

func (a *arena) bytes(ref uint64, n uint32) []byte {
	off := uint32(ref)
	return a.chunks[ref>>32][off : off+n : off+n]
}

func (a *arena) release(ref uint64) {
	c := a.class[ref>>32]
	a.free[c] = append(a.free[c], ref)
	a.used -= int64(arenaClasses[c])
}

func (a *arena) memUsage() int64 {
	n := int64(len(a.chunks)) * arenaChunk
	for _, f := range a.free {
		n += int64(cap(f)) * 8
	}
	return n + int64(cap(a.chunks))*24 + int64(cap(a.class))
}

// entryScript returns the script bytes of e (aliasing cache memory).
func (c *UtxoCache) entryScript(e *cacheEntry) []byte {
	if e.slen <= inlineScript {
		return e.script[:e.slen:e.slen]
	}
	return c.arena.bytes(binary.LittleEndian.Uint64(e.script[:8]), e.slen)
}

// setScript stores script in e, releasing any previous arena block.
func (c *UtxoCache) setScript(e *cacheEntry, script []byte) {
	c.clearScript(e)
	e.slen = uint32(len(script))
	if len(script) <= inlineScript {
		copy(e.script[:], script)
		return
	}
	binary.LittleEndian.PutUint64(e.script[:8], c.arena.alloc(script))
}

func (c *UtxoCache) clearScript(e *cacheEntry) {
	if e.slen > inlineScript {
		c.arena.release(binary.LittleEndian.Uint64(e.script[:8]))
	}
	e.slen = 0
}

// compareKeys orders outpoints by txid bytes, then numeric output index.
// This is the chainstate key order except among outputs of one transaction
// whose indices straddle a VARINT length change (the encoding is not
// order-preserving across lengths); batch order only affects locality.
func compareKeys(a, b *outKey) int {
	if c := bytes.Compare(a[:32], b[:32]); c != 0 {
		return c
	}
	x, y := binary.LittleEndian.Uint32(a[32:]), binary.LittleEndian.Uint32(b[32:])
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// sortRec is a flush sort record: the first 4 key bytes as a big-endian
// integer decide most comparisons without touching the slab. Keys start
// with a txid, so among the 5M records of a large flush only a few
// thousand pairs from different transactions share 4 bytes (outputs of
// one transaction share any prefix), and 8 bytes per record instead of
// 16 halve the snapshot the cache keeps between flushes (40 MB at 5M).
type sortRec struct {
	prefix uint32
	idx    uint32
}

// sortRecSize is the memory of one sort record.
const sortRecSize = int64(unsafe.Sizeof(sortRec{}))
