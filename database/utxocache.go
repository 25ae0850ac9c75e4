package database

import (
	"encoding/binary"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// UtxoEntry is an unspent output as handed to and from the cache. PkScript
// aliases memory owned by whoever filled the entry (the caller's buffer for
// FetchEntries and SpendEntry), never the cache's own storage.
type UtxoEntry struct {
	Amount     int64
	PkScript   []byte
	Height     int32
	IsCoinBase bool
	// Missing is set by FetchEntries when the outpoint is not unspent.
	Missing bool
}

// DefaultUtxoCacheBytes is the default cache budget (--utxocachemaxsize 450).
const DefaultUtxoCacheBytes = 450 << 20

// UtxoCache is the memory-bounded cache of the UTXO set in front of a
// ChainState. It is safe for concurrent use; the chain's sync goroutine is
// expected to be the main user.
type UtxoCache struct {
	mu sync.Mutex
	// flushMu is held from a flush's snapshot until its write has
	// finished, so at most one flush runs at a time and the next one waits
	// for the previous background write (see FlushAsync).
	flushMu  sync.Mutex
	cs       *ChainState
	maxBytes int64

	slabs slabs
	table table
	arena arena
	// dirty lists slab indices of entries that became dirty since the last
	// flush (possibly stale or repeated; flush filters them).
	dirty      []uint32
	dirtyCount int
	hand       uint32 // eviction clock hand

	// Reused flush scratch. The batch's data buffer is preallocated to the
	// batch limit (goleveldb otherwise grows big batches by ~1% steps,
	// copying quadratically); batchPeak records the most records one batch
	// held, to account for the batch's index array.
	sorted    []sortRec
	batch     *leveldb.Batch
	batchPeak int

	// State of the flush in progress (see flush.go). pinnedCount counts
	// entries with flagPinned; captures holds the snapshot records of
	// pinned entries changed before the flush serialized them; writing is
	// set from the snapshot until the write has finished.
	pinnedCount int
	captures    captureSet
	writing     bool
	val         []byte        // value scratch, used under mu
	curPause    time.Duration // longest lock hold of the flush in progress
	asyncErr    error         // unreported error of a background write (flushMu)

	lastFlush time.Time
	interval  time.Duration
	maxBatch  int
	stats     CacheStats
}

// CacheStats reports the cache's behaviour since it was created.
type CacheStats struct {
	Entries      int   // live entries (including spent tombstones)
	Dirty        int   // entries waiting for a flush
	MemUsage     int64 // bytes of all backing arrays (what the budget limits)
	MaxBytes     int64
	Hits         uint64
	Misses       uint64 // lookups that went to LevelDB
	Evictions    uint64
	Flushes      uint64
	FlushedCoins uint64 // records written (puts and deletes)
	LastFlush    time.Duration
	LongestFlush time.Duration // longest flush, snapshot to durable write
	TotalFlush   time.Duration
	// LastPause and LongestPause are the longest stretch for which a flush
	// held the cache lock (stalling block connection and lookups), in the
	// last flush and overall; TotalPause sums every stretch.
	LastPause    time.Duration
	LongestPause time.Duration
	TotalPause   time.Duration
	// Pinned counts entries written by a flush in progress that may not be
	// evicted until the write is done.
	Pinned        int
	Flushing      bool  // a (background) flush write is in progress
	OverBudgetMax int64 // worst MemUsage seen above MaxBytes (all entries dirty)
	// OffHeap is the part of the cache mapped outside the Go heap and
	// resident (slab chunks in the reserved region, including pages
	// faulted in ahead of use, and a mapped table array): memory the Go
	// runtime's memory limit does not see (see offheap_linux.go).
	OffHeap int64
}

// UtxoCacheOptions configures NewUtxoCache.
type UtxoCacheOptions struct {
	// MaxBytes is the memory budget (default DefaultUtxoCacheBytes).
	MaxBytes int64
	// FlushInterval makes NeedsFlush true this long after the last flush
	// (0: only when over budget), bounding work lost in a crash.
	FlushInterval time.Duration
	// MaxBatchBytes bounds one LevelDB write batch of a flush (default
	// DefaultMaxBatchBytes); bigger flushes are split (see Flush).
	MaxBatchBytes int
}

// initialTableEntries is how many entries the cache's table is first
// sized for (1 MiB of slots).
const initialTableEntries = 1 << 16

// NewUtxoCache returns a cache over cs.
func NewUtxoCache(cs *ChainState, o UtxoCacheOptions) *UtxoCache {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultUtxoCacheBytes
	}
	if o.MaxBatchBytes <= 0 {
		// The batch buffer counts against the budget: keep it a small
		// share of it.
		o.MaxBatchBytes = int(min(DefaultMaxBatchBytes, max(o.MaxBytes/16, 64<<10)))
	}
	c := &UtxoCache{
		maxBatch: o.MaxBatchBytes,
		cs:       cs,
		maxBytes: o.MaxBytes,
		// The table starts small and doubles with the entries. Sizing it
		// for the whole budget up front (64 MiB of slots at 450 MiB) spread
		// a few hundred thousand entries over the whole array, so each
		// probe was a TLB and cache miss: adds cost 1.1-1.7 us instead of
		// 0.2-0.7 us. Doubling copies slots without rehashing (their hash
		// is in the slot) and briefly holds both arrays, at most 1.5x the
		// final table.
		table:     newTable(int(min(o.MaxBytes/entrySize, initialTableEntries))),
		arena:     newArena(),
		lastFlush: time.Now(),
		interval:  o.FlushInterval,
	}
	attachOffheap(c)
	return c
}

func makeKey(op *wire.OutPoint) (k outKey) {
	copy(k[:32], op.Hash[:])
	binary.LittleEndian.PutUint32(k[32:], op.Index)
	return k
}

// memUsage is the exact size of every backing array the cache owns.
func (c *UtxoCache) memUsage() int64 {
	n := c.slabs.memUsage() + c.table.memUsage() + c.arena.memUsage() +
		int64(cap(c.dirty))*4 + int64(cap(c.sorted))*sortRecSize + c.batchMem() + int64(cap(c.val)) +
		c.captures.memUsage()
	return n
}

// batchMem estimates the reused LevelDB batch: its preallocated data
// buffer plus its index array (40 bytes per record, grown by append).
func (c *UtxoCache) batchMem() int64 {
	if c.batch == nil {
		return 0
	}
	idx := int64(1)
	for idx < int64(c.batchPeak) {
		idx <<= 1
	}
	return int64(c.maxBatch+batchSlack) + idx*40
}

// alloc returns a free slab slot, evicting clean entries rather than
// growing past the budget. Only when everything is dirty does the cache
// exceed its budget, and NeedsFlush then reports true.
func (c *UtxoCache) alloc() uint32 {
	if i, ok := c.slabs.pop(); ok {
		return i
	}
	// The free list is empty now (pop drained any stale indices).
	// Scanning for clean entries when nearly all are dirty would cost a
	// pass over the cache per chunk; grow instead and let NeedsFlush
	// trigger the flush that is due anyway.
	if c.memUsage()+slabLen*entrySize > c.maxBytes && (c.table.count-c.dirtyCount-c.pinnedCount)*10 >= c.table.count {
		c.evict(slabLen / 2)
	}
	if len(c.slabs.free) == 0 {
		c.slabs.grow()
		if u := c.memUsage(); u > c.maxBytes && u-c.maxBytes > c.stats.OverBudgetMax {
			c.stats.OverBudgetMax = u - c.maxBytes
		}
	}
	i, _ := c.slabs.pop()
	return i
}

// insert adds a new entry for k (of table hash h), whose failed find
// returned pos, and returns it. Allocation may evict entries (shifting the
// table) and the table may grow; either invalidates pos, so it is looked
// up again then.
func (c *UtxoCache) insert(k *outKey, h uint32, pos uint64) (*cacheEntry, uint32) {
	ev := c.stats.Evictions
	idx := c.alloc()
	moved := ev != c.stats.Evictions
	if c.table.needsGrow() {
		c.table.grow()
		moved = true
	}
	if moved {
		_, pos, _ = c.table.findHash(&c.slabs, k, h)
	}
	e := c.slabs.at(idx)
	*e = cacheEntry{key: *k, flags: flagLive | flagRef}
	c.table.insertAt(pos, idx, h)
	return e, idx
}

// remove deletes the entry at slab index idx, table position pos.
func (c *UtxoCache) remove(e *cacheEntry, idx uint32, pos uint64) {
	c.clearScript(e)
	if e.flags&flagDirty != 0 {
		c.dirtyCount--
	}
	if e.flags&flagPinned != 0 {
		c.pinnedCount--
	}
	c.table.deleteAt(pos)
	if e.flags&flagListed != 0 && len(c.dirty) > 0 && c.dirty[len(c.dirty)-1] == idx {
		// Created and spent in a row: drop it from the dirty list too.
		c.dirty = c.dirty[:len(c.dirty)-1]
	}
	e.flags = 0
	c.slabs.free = append(c.slabs.free, idx)
}

func (c *UtxoCache) markDirty(e *cacheEntry, idx uint32) {
	if e.flags&flagDirty == 0 {
		e.flags |= flagDirty
		c.dirtyCount++
	}
	if e.flags&flagListed == 0 {
		e.flags |= flagListed
		if len(c.dirty) == cap(c.dirty) && len(c.dirty) > 2*c.dirtyCount+1024 {
			c.compactDirty()
		}
		c.dirty = append(c.dirty, idx)
	}
}

// compactDirty drops stale and repeated indices from the dirty list, which
// accumulate when outputs are created and spent between flushes, instead of
// letting the list grow.
func (c *UtxoCache) compactDirty() {
	out := c.dirty[:0]
	limit := uint32(c.slabs.capacity())
	for _, idx := range c.dirty {
		if idx >= limit {
			continue // in a chunk released since (releaseTopChunk)
		}
		e := c.slabs.at(idx)
		if e.flags&flagListed != 0 && e.flags&flagLive != 0 {
			// Clear the bit while compacting so repeats are dropped.
			e.flags &^= flagListed
			out = append(out, idx)
		}
	}
	for _, idx := range out {
		c.slabs.at(idx).flags |= flagListed
	}
	c.dirty = out
}

// evict removes up to n clean entries using the clock algorithm: entries
// touched since the hand last passed get a second chance, so the oldest
// untouched share goes first.
func (c *UtxoCache) evict(n int) {
	total := uint32(c.slabs.capacity())
	if total == 0 {
		return
	}
	freed := 0
	for steps := uint32(0); steps < 2*total && freed < n; steps++ {
		if c.hand >= total {
			c.hand = 0
		}
		idx := c.hand
		c.hand++
		e := c.slabs.at(idx)
		if e.flags&flagLive == 0 || e.flags&(flagDirty|flagPinned) != 0 {
			continue
		}
		if e.flags&flagRef != 0 {
			e.flags &^= flagRef
			continue
		}
		_, pos, ok := c.table.find(&c.slabs, &e.key)
		if !ok {
			continue
		}
		c.remove(e, idx, pos)
		freed++
	}
	c.stats.Evictions += uint64(freed)
}

func (c *UtxoCache) fill(dst *UtxoEntry, e *cacheEntry, scripts []byte) []byte {
	start := len(scripts)
	scripts = append(scripts, c.entryScript(e)...)
	*dst = UtxoEntry{
		Amount:     e.amount,
		PkScript:   scripts[start:len(scripts):len(scripts)],
		Height:     e.height,
		IsCoinBase: e.flags&flagCoinbase != 0,
	}
	return scripts
}

// FetchEntries looks up every outpoint of ops (typically all inputs of a
// block) and returns one entry per outpoint in dst (reused if large
// enough), with Missing set for outpoints that are not unspent (including
// outputs created earlier in the same block, which the chain resolves
// itself). Scripts are
// copied into scripts (reused, grown as needed), which is returned so the
// caller can reuse it for the next block. Cache misses are read from
// LevelDB in key order and then kept in the cache as clean entries.
func (c *UtxoCache) FetchEntries(ops []wire.OutPoint, dst []UtxoEntry, scripts []byte) ([]UtxoEntry, []byte, error) {
	return c.FetchEntriesExcept(ops, nil, dst, scripts)
}

// FetchEntriesExcept is FetchEntries for the outpoints of ops whose skip
// flag is false; the others (outputs the caller knows are created in the
// same block) are returned Missing without a lookup, which with coins on
// disk spares a LevelDB read that could only find nothing. skip is nil or
// as long as ops.
func (c *UtxoCache) FetchEntriesExcept(ops []wire.OutPoint, skip []bool, dst []UtxoEntry, scripts []byte) ([]UtxoEntry, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dst = slices.Grow(dst[:0], len(ops))[:len(ops)]
	scripts = scripts[:0]
	var missBuf [64]uint32
	miss := missBuf[:0]
	for i := range ops {
		if skip != nil && skip[i] {
			dst[i] = UtxoEntry{Missing: true}
			continue
		}
		k := makeKey(&ops[i])
		idx, _, ok := c.table.find(&c.slabs, &k)
		if !ok {
			miss = append(miss, uint32(i))
			continue
		}
		c.stats.Hits++
		e := c.slabs.at(idx)
		e.flags |= flagRef
		if e.flags&flagSpent != 0 {
			dst[i] = UtxoEntry{Missing: true}
			continue
		}
		scripts = c.fill(&dst[i], e, scripts)
	}
	if len(miss) == 0 {
		return dst, scripts, nil
	}
	slices.SortFunc(miss, func(a, b uint32) int {
		ka, kb := makeKey(&ops[a]), makeKey(&ops[b])
		return compareKeys(&ka, &kb)
	})
	// One snapshot for all misses: a plain Get takes and releases a
	// snapshot per call, two allocations each.
	var rd coinGetter = c.cs.db
	if len(miss) > 1 && c.cs.mayHaveCoins.Load() {
		snap, err := c.cs.db.GetSnapshot()
		if err != nil {
			return dst, scripts, levelErr(err, "snapshot")
		}
		defer snap.Release()
		rd = snap
	}
	var keyBuf [maxCoinKeyLen]byte
	for _, i := range miss {
		k := makeKey(&ops[i])
		// A duplicate outpoint in ops may have been loaded just now.
		if idx, _, ok := c.table.find(&c.slabs, &k); ok {
			e := c.slabs.at(idx)
			if e.flags&flagSpent != 0 {
				dst[i] = UtxoEntry{Missing: true}
			} else {
				scripts = c.fill(&dst[i], e, scripts)
			}
			continue
		}
		e, _, found, err := c.load(rd, &k, keyBuf[:0])
		if err != nil {
			return dst, scripts, err
		}
		if !found {
			dst[i] = UtxoEntry{Missing: true}
			continue
		}
		scripts = c.fill(&dst[i], e, scripts)
	}
	return dst, scripts, nil
}

// Prefetch loads into the cache the coins of ops that are neither cached
// nor known spent, so that a later FetchEntries finds them: the sync
// manager calls it for a block's inputs as the block arrives, moving the
// LevelDB reads off the connecting goroutine. Unlike FetchEntries it
// copies nothing out, and a block whose coins are all cached (the usual
// case with a large cache) costs one table probe per input. scratch is
// reused for the missing outpoints and returned, so that a caller keeping
// it allocates nothing per block.
func (c *UtxoCache) Prefetch(ops []wire.OutPoint, scratch []wire.OutPoint) ([]wire.OutPoint, error) {
	miss := scratch[:0]
	if !c.cs.mayHaveCoins.Load() {
		// Nothing on disk (a fresh sync before its first flush): every
		// miss is answered "absent" without a read, and there is nothing
		// clean to evict, so probing would only contend for the lock.
		return miss, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range ops {
		k := makeKey(&ops[i])
		if idx, _, ok := c.table.find(&c.slabs, &k); ok {
			c.slabs.at(idx).flags |= flagRef
			continue
		}
		miss = append(miss, ops[i])
	}
	if len(miss) == 0 {
		return miss, nil
	}
	slices.SortFunc(miss, func(a, b wire.OutPoint) int {
		ka, kb := makeKey(&a), makeKey(&b)
		return compareKeys(&ka, &kb)
	})
	var rd coinGetter = c.cs.db
	if len(miss) > 1 && c.cs.mayHaveCoins.Load() {
		snap, err := c.cs.db.GetSnapshot()
		if err != nil {
			return miss, levelErr(err, "snapshot")
		}
		defer snap.Release()
		rd = snap
	}
	var keyBuf [maxCoinKeyLen]byte
	for i := range miss {
		k := makeKey(&miss[i])
		if _, _, ok := c.table.find(&c.slabs, &k); ok {
			continue // a duplicate outpoint, loaded just now
		}
		if _, _, _, err := c.load(rd, &k, keyBuf[:0]); err != nil {
			return miss, err
		}
	}
	return miss, nil
}

// MayReadDisk reports whether a cache miss may read LevelDB: false while
// the chainstate holds no coin (a fresh sync before its first flush), when
// a miss is answered from memory.
func (c *UtxoCache) MayReadDisk() bool { return c.cs.mayHaveCoins.Load() }

// coinGetter is a LevelDB or one of its snapshots.
type coinGetter interface {
	Get(key []byte, ro *opt.ReadOptions) ([]byte, error)
}

// FetchEntry looks up one outpoint (mempool, RPC gettxout) and copies it
// into dst, reusing dst.PkScript's capacity. It reports false if the output
// is not unspent.
func (c *UtxoCache) FetchEntry(op *wire.OutPoint, dst *UtxoEntry) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := makeKey(op)
	idx, _, ok := c.table.find(&c.slabs, &k)
	var e *cacheEntry
	if ok {
		c.stats.Hits++
		e = c.slabs.at(idx)
		e.flags |= flagRef
	} else {
		var keyBuf [maxCoinKeyLen]byte
		var found bool
		var err error
		if e, _, found, err = c.load(c.cs.db, &k, keyBuf[:0]); err != nil || !found {
			return false, err
		}
	}
	if e.flags&flagSpent != 0 {
		return false, nil
	}
	*dst = UtxoEntry{
		Amount:     e.amount,
		PkScript:   append(dst.PkScript[:0], c.entryScript(e)...),
		Height:     e.height,
		IsCoinBase: e.flags&flagCoinbase != 0,
	}
	return true, nil
}

// load reads k from LevelDB and caches it as a clean entry.
func (c *UtxoCache) load(rd coinGetter, k *outKey, keyBuf []byte) (*cacheEntry, uint32, bool, error) {
	c.stats.Misses++
	if !c.cs.mayHaveCoins.Load() {
		return nil, 0, false, nil
	}
	v, err := rd.Get(appendCoinKey(keyBuf, k), nil)
	if err != nil {
		if errors.Is(err, leveldb.ErrNotFound) {
			return nil, 0, false, nil
		}
		return nil, 0, false, levelErr(err, "read coin")
	}
	bp := wire.GetBuffer(0)
	defer wire.PutBuffer(bp)
	ue, buf, n, err := DecodeCoin(v, (*bp)[:0])
	*bp = buf
	if err != nil {
		return nil, 0, false, err
	}
	if n != len(v) {
		return nil, 0, false, newErr(ErrCorrupt, "trailing bytes in coin value")
	}
	h := c.table.hash(k)
	_, pos, _ := c.table.findHash(&c.slabs, k, h)
	e, idx := c.insert(k, h, pos)
	e.amount = ue.Amount
	e.height = ue.Height
	if ue.IsCoinBase {
		e.flags |= flagCoinbase
	}
	c.setScript(e, ue.PkScript)
	return e, idx, true, nil
}

// AddEntry adds an unspent output. Outputs that can never be spent
// (IsUnspendable) are not stored, as in Core. possibleOverwrite must be set
// when the outpoint may already exist in the database (replaying blocks
// after an interrupted flush, restoring coins when disconnecting a block,
// the two historical duplicate coinbases); otherwise a new output is marked
// fresh, so that spending it before the next flush never touches LevelDB.
// Adding over an unspent entry without possibleOverwrite is ErrInvalidArg.
func (c *UtxoCache) AddEntry(op *wire.OutPoint, e *UtxoEntry, possibleOverwrite bool) error {
	if IsUnspendable(e.PkScript) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := makeKey(op)
	h := c.table.hash(&k)
	idx, pos, ok := c.table.findHash(&c.slabs, &k, h)
	var ce *cacheEntry
	fresh := !possibleOverwrite
	if ok {
		ce = c.slabs.at(idx)
		if ce.flags&flagSpent == 0 {
			if !possibleOverwrite {
				return newErr(ErrInvalidArg, "output %s:%d already unspent", op.Hash, op.Index)
			}
			// An entry that never reached the database stays fresh.
			fresh = ce.flags&flagFresh != 0
		}
		c.unpin(ce)
		if ce.flags&flagSpent != 0 {
			// A tombstone means the database still holds the old coin.
			fresh = false
		}
		ce.flags &^= flagSpent | flagFresh | flagCoinbase
		ce.flags |= flagRef
	} else {
		ce, idx = c.insert(&k, h, pos)
	}
	ce.amount = e.Amount
	ce.height = e.Height
	if e.IsCoinBase {
		ce.flags |= flagCoinbase
	}
	if fresh {
		ce.flags |= flagFresh
	}
	c.setScript(ce, e.PkScript)
	c.markDirty(ce, idx)
	return nil
}

// SpendEntry marks an output spent and, if dst is non-nil, copies the spent
// output into it (its PkScript reuses dst.PkScript's capacity) for the undo
// record. It reports false if the output is not unspent.
func (c *UtxoCache) SpendEntry(op *wire.OutPoint, dst *UtxoEntry) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := makeKey(op)
	idx, pos, ok := c.table.find(&c.slabs, &k)
	var e *cacheEntry
	if ok {
		c.stats.Hits++
		e = c.slabs.at(idx)
		if e.flags&flagSpent != 0 {
			return false, nil
		}
	} else {
		var keyBuf [maxCoinKeyLen]byte
		var found bool
		var err error
		e, idx, found, err = c.load(c.cs.db, &k, keyBuf[:0])
		if err != nil || !found {
			return false, err
		}
		_, pos, _ = c.table.find(&c.slabs, &k)
	}
	if dst != nil {
		*dst = UtxoEntry{
			Amount:     e.amount,
			PkScript:   append(dst.PkScript[:0], c.entryScript(e)...),
			Height:     e.height,
			IsCoinBase: e.flags&flagCoinbase != 0,
		}
	}
	if e.flags&flagFresh != 0 {
		c.remove(e, idx, pos)
		return true, nil
	}
	// A pinned coin's snapshot said unspent: the spend must reach the
	// next flush as a tombstone.
	c.unpin(e)
	c.clearScript(e)
	e.flags |= flagSpent
	c.markDirty(e, idx)
	return true, nil
}

// NeedsFlush reports whether the chain should call Flush now: dirty entries
// have pushed the cache over its budget, or the flush interval has passed.
func (c *UtxoCache) NeedsFlush() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirtyCount == 0 {
		return false
	}
	if c.writing {
		// Entries of the write in progress cannot be evicted, so the
		// cache may exceed its budget meanwhile; asking for a flush now
		// would only block on that write. Past a quarter of the budget
		// beyond, it does (back-pressure).
		return c.memUsage() > c.maxBytes+c.maxBytes/4
	}
	if u := c.memUsage(); u > c.maxBytes || (u > c.maxBytes*3/4 && c.dirtyCount*4 > c.table.count*3) {
		// Three quarters dirty is soon enough: the clean quarter can be
		// evicted to make room for the blocks connected while the flush
		// writes, instead of the cache growing past its budget and, a
		// quarter beyond, making block connection wait for the write.
		return true
	}
	return c.interval > 0 && time.Since(c.lastFlush) >= c.interval
}

// Stats returns the cache statistics.
func (c *UtxoCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries = c.table.count
	s.Dirty = c.dirtyCount
	s.MemUsage = c.memUsage()
	s.OffHeap = c.slabs.mappedResident()
	if c.table.mem != nil {
		s.OffHeap += int64(len(c.table.mem.slots))
	}
	s.MaxBytes = c.maxBytes
	s.Pinned = c.pinnedCount
	s.Flushing = c.writing
	return s
}
