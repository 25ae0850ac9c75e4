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

// Flush writes every dirty entry to LevelDB in key order together with the
// best-block marker, then keeps the entries in memory as clean (spent ones
// are dropped). If the writes fit one batch the update is atomic. Otherwise
// the head-blocks marker is written first and removed with the last batch,
// so a crash in between is detected at open (ChainState.HeadBlocks) and
// repaired by replaying blocks. After the flush, clean entries are evicted
// and slabs released until the cache is back within its budget.
//
// While an interrupted flush is being replayed, Flush only accepts the head
// marker's new block: flushing anything earlier could lose coins that the
// partial flush already deleted.
func (c *UtxoCache) Flush(best wire.Hash, height int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	cs := c.cs
	newBest := BlockMarker{Hash: best, Height: height}
	old := cs.BestBlock()
	if head, ok := cs.HeadBlocks(); ok {
		if head.New != newBest {
			return newErr(ErrReplayNeeded, "flush at %s (height %d) before replay reached %s (height %d)",
				best, height, head.New.Hash, head.New.Height)
		}
		old = head.Old
	}

	// Collect dirty entries once each, sorted in key order.
	recs := c.sorted[:0]
	if cap(recs) < c.dirtyCount {
		recs = make([]sortRec, 0, c.dirtyCount)
	}
	for _, idx := range c.dirty {
		e := c.slabs.at(idx)
		if e.flags&flagListed == 0 {
			continue // stale or duplicate index
		}
		e.flags &^= flagListed
		if e.flags&(flagLive|flagDirty) != flagLive|flagDirty {
			continue
		}
		recs = append(recs, sortRec{prefix: binary.BigEndian.Uint64(e.key[:8]), idx: idx})
	}
	slices.SortFunc(recs, func(a, b sortRec) int {
		switch {
		case a.prefix < b.prefix:
			return -1
		case a.prefix > b.prefix:
			return 1
		}
		return compareKeys(&c.slabs.at(a.idx).key, &c.slabs.at(b.idx).key)
	})
	c.sorted = recs

	var marker [72]byte
	split := false
	if c.batch == nil {
		c.batch = leveldb.MakeBatchWithConfig(&leveldb.BatchConfig{InitialCapacity: c.maxBatch + batchSlack})
	}
	batch := c.batch
	batch.Reset()
	var keyBuf [maxCoinKeyLen]byte
	valBuf := wire.GetBuffer(0)
	defer wire.PutBuffer(valBuf)
	done := 0 // recs[:done] are written
	wo := &opt.WriteOptions{}
	for i := range recs {
		e := c.slabs.at(recs[i].idx)
		key := appendCoinKey(keyBuf[:0], &e.key)
		if e.flags&flagSpent != 0 {
			batch.Delete(key)
		} else {
			*valBuf = AppendCoin((*valBuf)[:0], e.amount, c.entryScript(e), e.height, e.flags&flagCoinbase != 0)
			batch.Put(key, *valBuf)
		}
		c.batchPeak = max(c.batchPeak, batch.Len())
		if len(batch.Dump()) < c.maxBatch || i == len(recs)-1 {
			continue
		}
		if !split {
			// First of several batches: mark the flush as in progress
			// so a crash leaves a detectable, replayable state.
			split = true
			hb := appendMarker(appendMarker(marker[:0], newBest), old)
			var mb leveldb.Batch
			mb.Put([]byte{keyHeadBlocks}, hb)
			mb.Delete([]byte{keyBestBlock})
			if err := cs.db.Write(&mb, &opt.WriteOptions{Sync: cs.syncEach}); err != nil {
				c.relist(recs)
				return levelErr(err, "write head blocks")
			}
		}
		if err := cs.db.Write(batch, wo); err != nil {
			c.relist(recs[done:])
			return levelErr(err, "write coins")
		}
		if testFlushHook != nil {
			if err := testFlushHook(); err != nil {
				c.relist(recs[done:])
				return err
			}
		}
		c.markClean(recs[done : i+1])
		done = i + 1
		batch.Reset()
	}
	batch.Put([]byte{keyBestBlock}, appendMarker(marker[:0], newBest))
	batch.Delete([]byte{keyHeadBlocks})
	if err := cs.db.Write(batch, &opt.WriteOptions{Sync: cs.syncEach}); err != nil {
		c.relist(recs[done:])
		return levelErr(err, "write coins and best block")
	}
	c.markClean(recs[done:])
	batch.Reset()
	c.dirty = c.dirty[:0]
	cs.mu.Lock()
	cs.best = newBest
	cs.head = nil
	cs.mu.Unlock()

	c.shrink()
	d := time.Since(start)
	c.lastFlush = time.Now()
	c.stats.Flushes++
	c.stats.FlushedCoins += uint64(len(recs))
	c.stats.LastFlush = d
	c.stats.TotalFlush += d
	if d > c.stats.LongestFlush {
		c.stats.LongestFlush = d
	}
	return nil
}

// relist puts entries whose write failed back on the dirty list so the next
// flush retries them.
func (c *UtxoCache) relist(recs []sortRec) {
	for _, r := range recs {
		c.slabs.at(r.idx).flags |= flagListed
	}
}

// testFlushHook, if set by a test, runs after each intermediate batch of a
// split flush; an error aborts the flush there as a crash would.
var testFlushHook func() error

// markClean updates entries whose records were written: spent ones leave
// the cache, the rest stay as clean, non-fresh entries.
func (c *UtxoCache) markClean(recs []sortRec) {
	for _, r := range recs {
		e := c.slabs.at(r.idx)
		if e.flags&flagSpent != 0 {
			_, pos, ok := c.table.find(&c.slabs, &e.key)
			if ok {
				c.remove(e, r.idx, pos)
			}
			continue
		}
		e.flags &^= flagDirty | flagFresh
		c.dirtyCount--
	}
}

// shrink brings the cache back within budget after a flush: it evicts
// clean entries until the live ones fit in about 90% of the budget, then
// moves entries out of the highest slab chunks into free slots below so
// those chunks can be released.
func (c *UtxoCache) shrink() {
	if c.memUsage() <= c.maxBytes {
		return
	}
	fixed := c.memUsage() - int64(len(c.slabs.chunks))*slabLen*entrySize
	target := (c.maxBytes*9/10 - fixed) / entrySize
	if target < 0 {
		target = 0
	}
	if live := int64(c.table.count); live > target {
		c.evict(int(live - target))
	}
	c.compactArena()
	// Chunks needed for the live entries, plus one of slack if it fits.
	const chunkBytes = slabLen * entrySize
	keep := (c.table.count + slabLen - 1) / slabLen
	if fixed+int64(keep+1)*chunkBytes <= c.maxBytes {
		keep++
	}
	if keep >= len(c.slabs.chunks) {
		return
	}
	limit := uint32(keep * slabLen)
	// Free slots below the limit, lowest first.
	var free []uint32
	for i := uint32(0); i < limit; i++ {
		if c.slabs.at(i).flags&flagLive == 0 {
			free = append(free, i)
		}
	}
	j := 0
	for i := limit; i < uint32(c.slabs.capacity()); i++ {
		e := c.slabs.at(i)
		if e.flags&flagLive == 0 {
			continue
		}
		_, pos, ok := c.table.find(&c.slabs, &e.key)
		if !ok || j >= len(free) {
			continue // cannot happen: keep counts every live entry
		}
		to := free[j]
		j++
		*c.slabs.at(to) = *e
		e.flags = 0
		c.table.replaceAt(pos, to)
	}
	for k := keep; k < len(c.slabs.chunks); k++ {
		c.slabs.chunks[k] = nil
	}
	c.slabs.chunks = c.slabs.chunks[:keep]
	// Rebuild the free stack (lowest index on top) without the released
	// chunks.
	rest := free[j:]
	c.slabs.free = c.slabs.free[:0]
	for k := len(rest) - 1; k >= 0; k-- {
		c.slabs.free = append(c.slabs.free, rest[k])
	}
	if cap(c.slabs.free) > 2*len(c.slabs.free)+slabLen {
		c.slabs.free = slices.Clip(c.slabs.free)
	}
	c.hand = 0
	// Scratch buffers sized for the flush that just finished would keep
	// the cache over budget; let them go.
	c.sorted = nil
	c.dirty = nil
}

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
