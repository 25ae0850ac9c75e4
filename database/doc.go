// Package database owns the node's on-disk state: block files, undo files,
// the block index (with pruning mechanics), the optional txindex and the
// UTXO set (chainstate) with its memory-bounded cache. It stores what the
// blockchain package gives it; it never interprets validation status or
// chain work.
//
// # Layout
//
//	DATADIR/blocks/blkNNNNN.dat  blocks in Core framing: magic, uint32 LE length, block
//	DATADIR/blocks/revNNNNN.dat  undo records: magic, length, CBlockUndo, sha256d(prev hash || undo)
//	DATADIR/blocks/index/        LevelDB: 'b'+hash -> BlockIndexRecord,
//	                             'f'+file -> FileInfo, 'V' -> format version
//	DATADIR/indexes/txindex/     LevelDB (with -txindex, OpenTxIndex): 't'+txid -> TxLoc,
//	                             'V' -> format version (txindex.go)
//	DATADIR/chainstate/          LevelDB: 'C'+txid+VARINT(index) -> coin, 'T' -> best block,
//	                             'H' -> head blocks (interrupted flush), 'V' -> format version (2)
//
// Block files roll at DefaultMaxBlockFileSize (128 MiB). Undo data of a
// block goes to the rev file with the block file's number, as in Core.
// The chainstate and the block index are separate LevelDB instances, so
// compaction of the write-heavy chainstate does not stall index reads.
//
// # Encodings
//
// Coins use Core's layout: VARINT(height*2+coinbase), VARINT(CompressAmount(
// value)), compressed script (0x00 P2PKH, 0x01 P2SH, 0x02/0x03 compressed
// P2PK, 0x04/0x05 uncompressed P2PK stored as x only, else VARINT(len+6) ||
// script). VARINT is Core's MSB base-128 form (AppendVarInt/ReadVarInt),
// not the P2P CompactSize. Undo records are Core's CBlockUndo
// (AppendBlockUndo, BlockUndo.Decode). Values differ from Core's chainstate
// only in that no obfuscation key is applied. Every decoder bounds counts by
// the bytes remaining and has a fuzz target.
//
// # API for the blockchain package
//
//	bdb, _ := OpenBlockDB(datadir, wire.MainNet, BlockDBOptions{})
//	loc, _ := bdb.WriteBlock(raw, height)           // BlockLoc{File, Offset, Size}
//	uloc, _ := bdb.WriteUndo(loc.File, undo, &prev) // undo = AppendBlockUndo(...)
//	bdb.PutBlockIndex(&hash, &rec)                  // queued; written by Flush
//	bdb.Flush()                                     // fsync files, then index batch (synced)
//	raw, _ = bdb.ReadBlock(loc, buf); undo, _ = bdb.ReadUndo(uloc, &prev, buf)
//	bdb.PruneFiles(maxHeight) / PrunedHeight() / DiskUsage(); MissingBlockFiles()
//	bdb.OpenTxIndex(); PutTxLoc/DeleteTxLoc (written by Flush after the index batch); TxLoc/ReadTx
//	--reindex: ResetForReindex(datadir), then for each BlockFiles() number read
//	BlockFilePath(n) with NewBlockFileReader (Offset gives the BlockLoc; call
//	Resync when a block fails to decode) and NoteExistingBlock.
//
//	cs, _ := OpenChainState(datadir, ChainStateOptions{CacheBudget: utxocachemaxsize << 20})
//	if hb, ok := cs.HeadBlocks(); ok { /* replay hb.Old -> hb.New, see below */ }
//	best := cs.BestBlock()
//	cache := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: utxocachemaxsize << 20})
//	entries, scripts, _ = cache.FetchEntries(blockOutpoints, entries, scripts)
//	cache.FetchEntry(&op, &e)          // single lookup (mempool, gettxout)
//	cache.SpendEntry(&op, &spent)      // spent feeds the undo record
//	cache.AddEntry(&op, &entry, false) // true when the coin may already exist
//	if cache.NeedsFlush() { bdb.Flush(); cache.Flush(tipHash, tipHeight) }
//	// or write in the background while the next blocks connect:
//	bdb.Flush(); errc := cache.FlushAsync(tipHash, tipHeight)
//	cache.WaitFlush()                  // before pruning block files, closing
//	stats, _ := cs.Stats()             // gettxoutsetinfo, after a Flush
//
// Flush order matters: BlockDB.Flush before UtxoCache.Flush, so the
// chainstate never refers to blocks the index has not recorded.
//
// FetchEntries looks a whole block's outpoints up at once: cache hits
// first, then the misses sorted in key order and read from LevelDB; they
// stay cached as clean entries so the following SpendEntry calls hit.
// Scripts are copied into a caller-owned buffer, so entries remain valid
// after the cache evicts. Outputs that can never be spent (OP_RETURN or
// longer than MaxScriptSize) are not stored, as in Core.
//
// # Crash safety
//
// A flush writes dirty coins in key order (txid, then output index) in a
// reused LevelDB batch of at most MaxBatchBytes. If everything fits one
// batch, the coins and the best-block marker are written atomically. A
// larger flush first writes the head-blocks marker (new and old best block)
// and deletes the best-block marker; its last batch writes the best block
// and deletes the head-blocks marker. Both markers' keys sort after every
// coin, so that a table holding them spans no coins beyond its own (see
// keyBestBlockV1). After a crash in between, HeadBlocks
// reports both blocks and the chain must replay: connect the blocks from
// Old to New again with AddEntry(..., true) and ignoring SpendEntry's "not
// found" (disconnecting first if Old is not an ancestor of New), then Flush
// at New; Flush refuses any other block (ErrReplayNeeded) until then.
// TestCrashRecovery kills a child process with SIGKILL during such flushes
// and checks both outcomes against a reference model. The final batch of a
// flush is fsynced (LevelDB Sync) so a power loss cannot lose a flush the
// chain was told about.
//
// A corrupt database (undecodable value, checksum mismatch, LevelDB
// corruption) returns ErrCorrupt and an unknown format version
// ErrUnknownVersion; both messages tell the operator to restart with
// --reindex. Nothing is rewritten silently.
//
// # Flushing without stalling the chain
//
// A flush holds the cache lock only in short steps, so block connection
// (FlushAsync) and lookups from other goroutines (RPC, metrics, mempool)
// proceed while it writes:
//
//  1. Snapshot (one lock hold, ~25 ns per dirty entry): every dirty entry
//     becomes clean, non-fresh and pinned; the sort records were
//     allocated and faulted in before the lock.
//  2. Sort the snapshot in key order without the lock (keys of live
//     entries never change and pinned slots never move), as the first
//     step of the write: FlushAsync returns after step 1, since sorting
//     millions of records took a second or more that block connection
//     waited for.
//  3. Serialize flushStep (4096) records per lock hold into the reused
//     batch; write each full batch, and the last one with the best-block
//     marker, without the lock.
//  4. Unpin written entries in steps (spent ones leave the cache), then
//     shrink back under budget in steps too: flushStep evictions, then one
//     slab chunk released per lock hold (entries changed during the write
//     are moved with it and their dirty-list indices follow).
//
// The write records exactly the state at the call, even though the cache
// changes meanwhile: before a pinned entry changes (unpin), its snapshot
// record is captured, and the entry is dirty again. At each step the
// captures are sorted into the records still to serialize, those at keys
// already serialized dropped (the record written was the same), so every
// batch stays one ascending run of keys (TestFlushBatchesInKeyOrder).
// So a spend of a coin the snapshot writes as
// unspent becomes a dirty tombstone that the next flush deletes. Pinned
// entries are never evicted: LevelDB may not hold their new value yet, and
// a later miss would read the old one. While the write runs, NeedsFlush
// stays false unless the cache exceeds its budget by a quarter (pinned
// entries cannot be evicted, so it may grow meanwhile); a flush then
// waits for the running one (at most one flush at a time, flushMu).
// The head-blocks protocol below applies to background writes unchanged:
// the markers name the snapshot's block. Block files must not be pruned
// until the write is done (WaitFlush), since a crash before then reopens
// the chainstate at the previous flush. Model tests hold the first batch
// write back while the next block is connected (TestUtxoCacheModel), and
// TestCrashRecovery's child writes every other flush in the background.
// CacheStats.LongestPause is the longest single lock hold of a flush.
//
// # UTXO cache memory
//
// Entries are 88-byte pointer-free records in slabs of 1024; scripts up to
// 35 bytes (P2PKH, P2SH, P2WPKH, P2WSH, P2TR, compressed P2PK: nearly all)
// are stored inline, longer ones in a size-classed arena of 64 KiB chunks.
// The index is an open-addressing table whose 8-byte slots hold a slab
// index and the key's 32-bit hash (load <= 3/4, seeded hash, starting
// small, doubling, and halved after a flush below 5/16) instead of a Go
// map, whose buckets
// would hold the 36-byte key again and whose growth doubles its size; so
// the budget counts every backing array exactly (slabs, table, arena, dirty
// list, flush scratch and the reused batch). The GC scans none of it.
//
// On 64-bit Linux the slabs and (from 2 MiB up) the table are mapped
// outside the Go heap, on transparent huge pages where the kernel allows
// (offheap_linux.go): the slabs in one region reserved for twice the
// budget, carved in order and released from the top with MADV_DONTNEED
// (chunks beyond the region, if the cache ever outgrows it, come from the
// heap). Page faults on first touch cost about 11 us per 4 KiB on the
// reference VM, and random probes over tens of MiB of small pages miss
// the TLB; memory outside the heap also stays out of the collector's heap
// goal, so a full cache does not let GOGC double the footprint. A cleanup
// unmaps everything when the cache is collected. Other systems keep the
// arrays on the heap (offheap_other.go).
//
// Entries are fresh (not in LevelDB: spending them never touches disk),
// dirty (to be written) or clean. When the budget would be exceeded, clean
// entries are evicted with a clock algorithm (the oldest untouched share
// first); only if everything is dirty does the cache grow past its budget.
// NeedsFlush reports true past the budget, and already once the cache is
// three quarters full and three quarters dirty: the clean quarter then
// makes room for the blocks connected while the flush writes. (Waiting
// for the budget, the first flush of a mainnet-scale sync at 450 MiB held
// block connection for 4.9 s while the cache ran a quarter over budget;
// flushing at three quarters, 0.9 s, and the peak RSS fell 915 -> 832
// MiB.) A flush keeps the written entries as
// clean, then evicts down to 90% of the budget and moves entries out of the
// top slabs (and repacks the arena) so memory really returns under budget.
// CacheStats reports flush durations and lock pauses, hits, misses and
// evictions.
//
// LevelDB memory (write buffer, table metadata) is outside the cache
// budget, but the write buffer scales with it when the caller passes
// ChainStateOptions.CacheBudget: budget/32 clamped to [12, 64] MiB (lower
// bound measured, see scaledLevelMem). Core splits -dbcache between the
// coins cache and the coins LevelDB (which takes a quarter of its share as
// write buffer and half as block cache); we add to the budget instead of
// carving from it, so the shares are smaller. goleveldb keeps up to three
// memtables (the active one, one being compacted and a pooled one, each
// growing its node array by append), so a fixed 64 MiB write buffer cost
// well over 100 MiB of heap (and twice that in RSS under GOGC=100)
// regardless of a 10 MiB budget. A flush
// batch that grew past twice its preallocated size (captures written
// into it) is dropped after the flush rather than kept at its peak, as are
// capture buffers past 1 MiB.
// TestSmallBudgetRSS measures the effect (docs/performance.md).
//
// # Lookups past the block cache
//
// The chainstate runs without a LevelDB block cache. With one, goleveldb
// keeps every table's index and filter blocks in that cache beside the
// data blocks (about 300 KiB per 8 MiB table), and once the set outgrows
// it they are evicted and read again on lookups. BenchmarkCacheFetchMiss
// with BTCD_MISS_COINS=12000000 (every lookup a miss, in batches of 2,000):
// with the 32 MiB block cache LevelDB read 14.8 KiB per lookup, 20.6 us
// of CPU; without it 4.7 KiB (about one 4 KiB data block), 18.6 us, and
// the gap widens as the set grows past the cache. The data blocks lose nothing worth keeping: the UTXO cache above
// holds the coins that are read again, and the kernel's page cache holds
// the files. The metadata costs about 3.5% of the chainstate's size in
// memory, for up to 500 open tables (goleveldb's default; about 4 GB of
// chainstate), beyond which tables are reopened and their metadata read
// again. TestChainStateMetadataResident checks the setting.
//
// The chainstate also runs without goleveldb's buffer pool. The pool
// hands a request for an index or filter block (100-300 KiB) any larger
// buffer it holds, such as the 8 MiB one a compaction's table writer
// returned, and the open table then keeps that buffer for as long as it
// is open: at the tip of the mainnet-scale IBD (115 tables) the heap
// profile held 918 MB in such buffers and the peak RSS was 1,717 MiB;
// without the pool it was 962 MiB, for about 3 KiB more allocated per
// transaction (data blocks get a buffer each; 1.2% of CPU in GC at the
// default cache).
//
// # Measurements (2 shared cores, load average 10-20; see bench_test.go)
//
// Wall-clock ns/op mostly measured waiting for a core, so benchmarks also
// report CPU ns per op (process CPU time, GC and LevelDB included):
//
//	add new output                ~1000 cpu-ns, 0 allocs (cold memory, slab growth)
//	add + spend before a flush      ~140-340 cpu-ns, 0 allocs, never touches LevelDB
//	fetch, cache hit                ~250-400 cpu-ns, 0 allocs
//	fetch, miss read from LevelDB   ~3500 cpu-ns, 3 allocs (all inside goleveldb Get)
//	flush of 1M dirty entries       ~1-2.4 s CPU (~450-990k entries/cpu-s), 99 allocs;
//	                                longest lock hold 7-40 ms (outliers to ~300 ms
//	                                at load 8), was the whole flush (0.9-2.8 s)
//	synthetic block (2000 outputs created, 1200 spent, 16 MiB cache)
//	                                ~2.6 ms CPU, 643 allocs (all goleveldb reads)
//
// Chainstate compression: for 500k synthetic coins (random hashes, like the
// real set) snappy saved about 12% on disk (23.4 vs 26.7 MiB) and its read
// and flush timings were within the noise of the loaded machine. Values are
// already compact and mostly hashes, and Core also runs its LevelDB without
// compression, so the chainstate defaults to none (ChainStateOptions.
// Compression turns snappy on). Defaults: 64 MiB write buffer (scaled
// down with CacheBudget, see UTXO cache memory), 8 MiB tables, no block
// cache (see Lookups past the block cache), 10-bit bloom filter, seek
// compaction off.
//
// Real heap against the budget: TestCacheHeapWithinBudget and
// BenchmarkCacheHeapVsBudget fill a cache with 400k/2M outputs (far beyond
// 16/64 MiB budgets) and measure what the GC frees when the cache is
// dropped: 13.8 MiB held vs 13.7 accounted (16 budget) and 58.5 vs 57.8
// (64 budget), i.e. accounting is within about 1.5% and the budget holds.
package database
