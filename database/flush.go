package database

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// DefaultMaxBatchBytes bounds one LevelDB batch of a flush (Core's
// -dbbatchsize default). Larger flushes are split and protected by the
// head-blocks marker.
const DefaultMaxBatchBytes = 16 << 20

// batchSlack is room beyond the batch limit for the record that crosses it
// and the best-block marker.
const batchSlack = 64 << 10

// flushStep is how many records a flush serializes or unpins per hold of
// the cache lock; between steps block connection and lookups proceed.
const flushStep = 4096

// flushJob is a flush between its snapshot and the end of its write.
type flushJob struct {
	best, old BlockMarker
	recs      []sortRec // pinned entries, sorted by sortJob
	start     time.Time
}

// Flush writes every dirty entry to LevelDB in key order together with the
// best-block marker, then keeps the entries in memory as clean (spent ones
// are dropped). If the writes fit one batch the update is atomic. Otherwise
// the head-blocks marker is written first and removed with the last batch,
// so a crash in between is detected at open (ChainState.HeadBlocks) and
// repaired by replaying blocks. After the flush, clean entries are evicted
// and slabs released until the cache is back within its budget.
//
// Flush returns once everything is written, but holds the cache lock only
// in short steps (see FlushAsync), so other goroutines' lookups and changes
// proceed meanwhile; what is written is exactly the cache's state when
// Flush was called. It first waits for a background write in progress.
//
// While an interrupted flush is being replayed, Flush only accepts the head
// marker's new block: flushing anything earlier could lose coins that the
// partial flush already deleted.
func (c *UtxoCache) Flush(best wire.Hash, height int32) error {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	job, err := c.snapshot(best, height)
	if err != nil {
		return err
	}
	if err := c.write(job); err != nil {
		return err
	}
	c.asyncErr = nil // everything up to best is written now
	return nil
}

// FlushAsync is Flush that returns once the snapshot is taken and writes in
// a background goroutine; the channel (buffered) receives the write's
// result. The caller may change the cache at once: the write still records
// the state at the call, labelled best. The next Flush, FlushAsync or
// WaitFlush waits for this write. A failed write leaves its entries dirty,
// so the next flush writes them again. Errors of the snapshot itself
// (ErrReplayNeeded) are delivered on the channel at once.
//
// The block files of blocks up to best must not be pruned before the
// write has finished (WaitFlush): until then a crash reopens the
// chainstate at an earlier block, which the chain must be able to replay
// from.
func (c *UtxoCache) FlushAsync(best wire.Hash, height int32) <-chan error {
	ch := make(chan error, 1)
	c.flushMu.Lock()
	job, err := c.snapshot(best, height)
	if err != nil {
		c.asyncErr = err // for WaitFlush too
		c.flushMu.Unlock()
		ch <- err
		return ch
	}
	go func() {
		err := c.write(job)
		c.asyncErr = err // guarded by flushMu
		c.flushMu.Unlock()
		ch <- err
	}()
	return ch
}

// WaitFlush waits until no flush is in progress and returns the error of
// the last FlushAsync (snapshot or write) if it failed and no Flush has
// succeeded since (reported once).
func (c *UtxoCache) WaitFlush() error {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	err := c.asyncErr
	c.asyncErr = nil
	return err
}

// lock takes the cache lock for one step of a flush and returns the time,
// for unlock to record the pause.
func (c *UtxoCache) lock() time.Time {
	c.mu.Lock()
	return time.Now()
}

func (c *UtxoCache) unlock(t0 time.Time) {
	d := time.Since(t0)
	c.curPause = max(c.curPause, d)
	c.stats.TotalPause += d
	c.mu.Unlock()
}

// snapshot pins every dirty entry (clean from now on, not evictable, its
// snapshot captured before any change) and returns them, for the write to
// sort (sortJob) and write. The caller holds flushMu.
func (c *UtxoCache) snapshot(best wire.Hash, height int32) (*flushJob, error) {
	// Allocate the sort records before taking the lock for the snapshot:
	// zeroing and faulting in tens of MiB would lengthen the pause. Only
	// the caller adds dirty entries meanwhile, so the count holds.
	c.mu.Lock()
	recs, need := c.sorted[:0], c.dirtyCount
	c.mu.Unlock()
	if cap(recs) < need {
		recs = make([]sortRec, 0, need)
		// Fresh memory from the OS is faulted in on first write; do it
		// here rather than under the lock (512 records a 4 KiB page).
		full := recs[:need]
		for i := 0; i < len(full); i += 512 {
			full[i] = sortRec{}
		}
	}
	var batch *leveldb.Batch
	if c.batch == nil { // only flushes, serialized by flushMu, set it
		batch = leveldb.MakeBatchWithConfig(&leveldb.BatchConfig{InitialCapacity: c.maxBatch + batchSlack})
	}
	t0 := c.lock()
	if batch != nil {
		c.batch = batch
	}
	job := &flushJob{best: BlockMarker{Hash: best, Height: height}, old: c.cs.BestBlock(), start: t0}
	c.curPause = 0
	if head, ok := c.cs.HeadBlocks(); ok {
		if head.New != job.best {
			c.unlock(t0)
			return nil, newErr(ErrReplayNeeded, "flush at %s (height %d) before replay reached %s (height %d)",
				best, height, head.New.Hash, head.New.Height)
		}
		job.old = head.Old
	}
	// Collect dirty entries once each.
	if cap(recs) < c.dirtyCount {
		recs = make([]sortRec, 0, c.dirtyCount)
	}
	limit := uint32(c.slabs.capacity())
	for _, idx := range c.dirty {
		if idx >= limit {
			continue // in a chunk released since (releaseTopChunk)
		}
		e := c.slabs.at(idx)
		if e.flags&flagListed == 0 {
			continue // stale or duplicate index
		}
		e.flags &^= flagListed
		if e.flags&(flagLive|flagDirty) != flagLive|flagDirty {
			continue
		}
		// Once written the coin is in LevelDB: a later spend must write
		// a deletion, so it is no longer fresh.
		e.flags = e.flags&^(flagDirty|flagFresh) | flagPinned
		recs = append(recs, sortRec{prefix: binary.BigEndian.Uint32(e.key[:4]), idx: idx})
	}
	if len(recs) > 0 {
		c.cs.mayHaveCoins.Store(true)
	}
	c.dirtyCount -= len(recs)
	c.pinnedCount += len(recs)
	c.dirty = c.dirty[:0]
	c.sorted = recs
	job.recs = recs
	c.captures.on = true
	c.writing = true
	c.lastFlush = time.Now()
	c.unlock(t0)
	return job, nil
}

// sortJob puts the snapshot's records in prefix order (sortrec.go); the
// write orders each run of equal prefixes as it reaches it. It runs at the
// start of the write, in FlushAsync's background goroutine: sorting
// millions of records took 1.0-1.4 s per flush of a mainnet-scale sync at
// the default cache as a comparison sort, and block connection waited for
// all of it while FlushAsync did it before returning.
func (c *UtxoCache) sortJob(job *flushJob) {
	if testSortHook != nil {
		testSortHook()
	}
	sortByPrefix(job.recs)
}

// appendRecord appends e's current state (a put, or a deletion for a
// tombstone) to b. The caller holds mu.
func (c *UtxoCache) appendRecord(b *leveldb.Batch, e *cacheEntry) {
	var keyBuf [maxCoinKeyLen]byte
	key := appendCoinKey(keyBuf[:0], &e.key)
	if e.flags&flagSpent != 0 {
		b.Delete(key)
		return
	}
	c.val = c.appendValue(c.val[:0], e)
	b.Put(key, c.val)
}

// appendValue appends the stored value of the live coin e to dst.
func (c *UtxoCache) appendValue(dst []byte, e *cacheEntry) []byte {
	return AppendCoin(dst, e.amount, c.entryScript(e), e.height, e.flags&flagCoinbase != 0)
}

// unpin is called, under mu, before a change to e: if e belongs to the
// flush in progress, its snapshot record is captured first (unless every
// record is already serialized), after which it is an ordinary entry that
// the change makes dirty again.
func (c *UtxoCache) unpin(e *cacheEntry) {
	if e.flags&flagPinned == 0 {
		return
	}
	if c.captures.on {
		c.captures.add(c, e)
	}
	e.flags &^= flagPinned
	c.pinnedCount--
}

// write serializes the snapshot into batches in steps of flushStep records
// under the lock and writes each full batch outside it. Entries changed
// meanwhile were captured by unpin; their records join the batches in key
// order (see captureSet).
func (c *UtxoCache) write(job *flushJob) error {
	c.sortJob(job)
	cs, recs, batch := c.cs, job.recs, c.batch
	var marker [72]byte
	var lastKey outKey // last coin key serialized, once haveLast
	split, haveLast := false, false
	next, done := 0, 0 // recs[:next] serialized, recs[:done] unpinned
	keyed := 0         // recs[:keyed] in key order (sortRunByKey)
	at := c.slabs.at
	for {
		t0 := c.lock()
		c.captures.merge(&lastKey, haveLast)
		end := min(next+flushStep, len(recs))
		for ; next < end && len(batch.Dump()) < c.maxBatch; next++ {
			if next == keyed {
				keyed = sortRunByKey(recs, next, at)
			}
			e := c.slabs.at(recs[next].idx)
			if e.flags&flagPinned == 0 {
				continue // captured: its record is pending
			}
			c.captures.emitBefore(batch, &e.key, &lastKey)
			c.appendRecord(batch, e)
			lastKey, haveLast = e.key, true
		}
		last := next == len(recs)
		if last {
			// Every snapshot record is in this batch or written: later
			// changes need no capture.
			c.captures.emitBefore(batch, nil, &lastKey)
			c.captures.on = false
			// The markers sort after every coin: the batch's keys stay
			// one run (see keyBestBlockV1).
			batch.Put([]byte{keyBestBlock}, appendMarker(marker[:0], job.best))
			batch.Delete([]byte{keyHeadBlocks})
		}
		c.batchPeak = max(c.batchPeak, batch.Len())
		full := len(batch.Dump()) >= c.maxBatch
		c.unlock(t0)
		if !last && !full {
			continue
		}
		if !last && !split {
			// First of several batches: mark the flush as in progress
			// so a crash leaves a detectable, replayable state.
			split = true
			hb := appendMarker(appendMarker(marker[:0], job.best), job.old)
			var mb leveldb.Batch
			mb.Put([]byte{keyHeadBlocks}, hb)
			mb.Delete([]byte{keyBestBlock})
			if err := cs.db.Write(&mb, &opt.WriteOptions{Sync: cs.syncEach}); err != nil {
				return c.fail(job, done, levelErr(err, "write head blocks"))
			}
		}
		if testWriteHook != nil {
			testWriteHook()
		}
		if testBatchHook != nil {
			testBatchHook(batch)
		}
		if err := cs.db.Write(batch, &opt.WriteOptions{Sync: last && cs.syncEach}); err != nil {
			return c.fail(job, done, levelErr(err, "write coins"))
		}
		if !last && testFlushHook != nil {
			if err := testFlushHook(); err != nil {
				return c.fail(job, done, err)
			}
		}
		if last {
			cs.mu.Lock()
			cs.best = job.best
			cs.head = nil
			cs.mu.Unlock()
		}
		t0 = c.lock()
		batch.Reset()
		c.unlock(t0)
		// The written records are in LevelDB: their entries may go.
		c.release(recs[done:next])
		done = next
		if last {
			break
		}
	}
	t0 := c.lock()
	c.captures.reset()
	if cap(c.batch.Dump()) > 2*(c.maxBatch+batchSlack) {
		// Captures written into the batch grew it past its preallocated
		// size; do not keep the peak for the rest of the run (the next
		// flush allocates a right-sized one).
		c.batch = nil
	}
	c.unlock(t0)
	if testFlushDoneHook != nil {
		testFlushDoneHook()
	}
	c.shrink()
	t0 = c.lock()
	c.writing = false
	d := time.Since(job.start)
	c.stats.Flushes++
	c.stats.FlushedCoins += uint64(len(recs))
	c.stats.LastFlush = d
	c.stats.TotalFlush += d
	c.stats.LongestFlush = max(c.stats.LongestFlush, d)
	c.unlock(t0)
	c.mu.Lock()
	c.stats.LastPause = c.curPause
	c.stats.LongestPause = max(c.stats.LongestPause, c.curPause)
	c.mu.Unlock()
	return nil
}

// release unpins written entries in steps: spent ones leave the cache, the
// rest stay as clean, non-fresh entries. Entries changed since the
// snapshot are no longer pinned and stay dirty.
func (c *UtxoCache) release(recs []sortRec) {
	for len(recs) > 0 {
		n := min(flushStep, len(recs))
		t0 := c.lock()
		for _, r := range recs[:n] {
			e := c.slabs.at(r.idx)
			if e.flags&flagPinned == 0 {
				continue
			}
			if e.flags&flagSpent != 0 {
				if _, pos, ok := c.table.find(&c.slabs, &e.key); ok {
					c.remove(e, r.idx, pos)
				}
				continue
			}
			e.flags &^= flagPinned
			c.pinnedCount--
		}
		c.unlock(t0)
		recs = recs[n:]
	}
}

// fail ends a flush whose write failed: entries not known to be written
// become dirty again so the next flush retries them.
func (c *UtxoCache) fail(job *flushJob, done int, err error) error {
	t0 := c.lock()
	defer c.unlock(t0)
	for _, r := range job.recs[done:] {
		e := c.slabs.at(r.idx)
		if e.flags&flagPinned == 0 {
			continue // changed meanwhile: already dirty
		}
		e.flags &^= flagPinned
		c.pinnedCount--
		c.markDirty(e, r.idx)
	}
	c.batch.Reset()
	c.captures.reset()
	c.writing = false
	return err
}

// testFlushHook, if set by a test, runs after each intermediate batch of a
// split flush; an error aborts the flush there as a crash would.
var testFlushHook func() error

// testWriteHook, if set by a test, runs before each batch write, without
// the cache lock: a test can change the cache while a write is pending.
var testWriteHook func()

// testBatchHook, if set by a test, sees each batch of coins before it is
// written.
var testBatchHook func(*leveldb.Batch)

// testSortHook, if set, runs before a flush sorts its snapshot.
var testSortHook func()

// shrink brings the cache back within budget after a flush: it evicts
// clean entries until the live ones fit in about 90% of the budget, then
// moves entries out of the highest slab chunks into free slots below so
// those chunks can be released. It works in steps of one lock hold each
// (flushStep evictions, one chunk), so lookups and block connection
// proceed meanwhile; the caller holds flushMu but not mu.
func (c *UtxoCache) shrink() {
	t0 := c.lock()
	if c.memUsage() <= c.maxBytes {
		c.unlock(t0)
		return
	}
	fixed := c.memUsage() - int64(len(c.slabs.chunks))*slabLen*entrySize
	target := max((c.maxBytes*9/10-fixed)/entrySize, 0)
	need := max(int64(c.table.count)-target, 0)
	c.unlock(t0)
	for need > 0 {
		t0 := c.lock()
		ev := c.stats.Evictions
		c.evict(int(min(need, flushStep)))
		freed := int64(c.stats.Evictions - ev)
		if freed == 0 {
			c.unlock(t0)
			break // everything left is dirty
		}
		need -= freed
		c.unlock(t0)
	}
	t0 = c.lock()
	if c.table.shrinkable() {
		// A table doubled while the cache was over budget (all dirty,
		// before a flush) would otherwise keep its size and the budget
		// share that goes with it.
		n := len(c.table.slots) / 2
		for n > minTableSize && c.table.count*16 < n*5 {
			n /= 2
		}
		c.table.resize(n)
	}
	c.compactArena()
	n := len(c.slabs.chunks)
	// One pass over the free list puts the slots of the chunks that are
	// to go at its bottom, so that the entries moved out of them take
	// slots that stay.
	c.slabs.sinkFree(uint32(c.chunksToKeep() * slabLen))
	c.unlock(t0)
	for range n {
		t0 := c.lock()
		more := c.releaseTopChunk()
		c.unlock(t0)
		if !more {
			break
		}
		if testReleaseHook != nil {
			testReleaseHook()
		}
	}
	t0 = c.lock()
	c.slabs.dropFree()
	if cap(c.slabs.free) > 2*len(c.slabs.free)+slabLen {
		c.slabs.free = slices.Clip(c.slabs.free)
	}
	c.hand = 0
	// Scratch buffers sized for the flush that just finished would keep
	// the cache over budget; let them go.
	c.sorted = nil
	if len(c.dirty) == 0 {
		c.dirty = nil
	}
	c.unlock(t0)
}

// chunksToKeep is how many slab chunks the live entries need, plus one of
// slack if it fits the budget. The caller holds mu.
func (c *UtxoCache) chunksToKeep() int {
	fixed := c.memUsage() - int64(len(c.slabs.chunks))*chunkBytes
	keep := (c.table.count + slabLen - 1) / slabLen
	if fixed+int64(keep+1)*chunkBytes <= c.maxBytes {
		keep++
	}
	return keep
}

// releaseTopChunk moves the live entries of the highest slab chunk into
// free slots below it and releases the chunk, if the live entries need
// fewer chunks (chunksToKeep). It reports whether it released one. Its
// cost is one pass over the chunk: the chunk's own free slots stay on the
// free list as stale indices (slabs.stale), and the moved entries that
// are on the dirty list are listed again at their new index, their old
// index now beyond the slabs' capacity. The caller holds mu.
func (c *UtxoCache) releaseTopChunk() bool {
	keep := c.chunksToKeep()
	top := len(c.slabs.chunks) - 1
	if top < keep || top < 1 {
		return false
	}
	base := uint32(top * slabLen)
	chunk := c.slabs.chunks[top]
	live := 0
	for i := range chunk {
		if chunk[i].flags&flagLive != 0 {
			live++
		}
	}
	// Every slot of a chunk is live or on the free list, so the usable
	// free slots below this one are counted without a pass over the list.
	if live > c.slabs.usableFree()-(slabLen-live) {
		return false
	}
	own := 0 // the chunk's free slots popped (and dropped) on the way
	for i := range chunk {
		e := &chunk[i]
		if e.flags&flagLive == 0 {
			continue
		}
		_, pos, ok := c.table.find(&c.slabs, &e.key)
		if !ok {
			continue // cannot happen: every live entry is in the table
		}
		var to uint32
		for {
			to, _ = c.slabs.pop() // cannot fail: counted above
			if to < base {
				break
			}
			own++
		}
		*c.slabs.at(to) = *e
		e.flags = 0
		c.table.replaceAt(pos, to)
		if c.slabs.at(to).flags&flagListed != 0 {
			c.dirty = append(c.dirty, to)
		}
	}
	c.slabs.stale += slabLen - live - own
	c.slabs.dropTop()
	return true
}

// testFlushDoneHook, if set by a benchmark, runs after the last batch
// write, before the shrink.
var testFlushDoneHook func()

// testReleaseHook, if set by a test, runs between the chunk releases of a
// flush's shrink, without the cache lock.
var testReleaseHook func()

// compactArena rebuilds the script arena when freed blocks make up most of
// it, copying live scripts into fresh chunks, so that memory released by
// eviction is really returned.
func (c *UtxoCache) compactArena() {
	if c.arena.memUsage() <= 2*c.arena.used+4*arenaChunk {
		return
	}
	old := c.arena
	c.arena = newArena()
	for ci := range c.slabs.chunks {
		chunk := c.slabs.chunks[ci]
		for i := range chunk {
			e := &chunk[i]
			if e.flags&flagLive == 0 || e.slen <= inlineScript {
				continue
			}
			script := old.bytes(binary.LittleEndian.Uint64(e.script[:8]), e.slen)
			binary.LittleEndian.PutUint64(e.script[:8], c.arena.alloc(script))
		}
	}
}
