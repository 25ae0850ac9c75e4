package database

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// cpuTime returns the process's user+system CPU time. On the shared,
// overloaded build machine wall-clock ns/op mostly measures waiting, so
// the benchmarks also report CPU ns per op (all goroutines, GC included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuTimer measures CPU time across StartTimer/StopTimer-free sections.
type cpuTimer struct {
	b     *testing.B
	start time.Duration
}

func startCPU(b *testing.B) *cpuTimer { return &cpuTimer{b: b, start: cpuTime()} }

func (c *cpuTimer) report(ops int) {
	c.b.ReportMetric(float64(cpuTime()-c.start)/float64(ops), "cpu-ns/op")
}

// benchOps holds precomputed outpoints so that hashing is not measured.
var benchOps []wire.OutPoint

// benchOutPoint returns a distinct outpoint for every i: four outputs per
// pseudo-random txid.
func benchOutPoint(i int) wire.OutPoint {
	if i < len(benchOps) {
		return benchOps[i]
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(i/4))
	return wire.OutPoint{Hash: sha256.Sum256(b[:]), Index: uint32(i % 4)}
}

var benchOpsOnce sync.Once

func benchCacheSetup() {
	benchOpsOnce.Do(func() {
		ops := make([]wire.OutPoint, 0, 1<<20)
		for i := range 1 << 20 {
			ops = append(ops, benchOutPoint(i))
		}
		benchOps = ops
	})
}

var benchScript = func() []byte {
	s := append([]byte{opDup, opHash160, 20}, make([]byte, 20)...)
	return append(s, opEqualVerify, opCheckSig)
}()

func benchCache(b testing.TB, budget int64) (*ChainState, *UtxoCache) {
	benchCacheSetup()
	cs, err := OpenChainState(b.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs, NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: budget})
}

// dirtyCache is benchCache holding n new (dirty) entries.
func dirtyCache(b testing.TB, budget int64, n int) *UtxoCache {
	_, c := benchCache(b, budget)
	e := UtxoEntry{Amount: 1000, PkScript: benchScript, Height: 1}
	for i := range n {
		op := benchOutPoint(i)
		if err := c.AddEntry(&op, &e, false); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

// BenchmarkCacheAdd measures adding new outputs (one op = one output).
func BenchmarkCacheAdd(b *testing.B) {
	_, c := benchCache(b, 4<<30)
	ops := make([]wire.OutPoint, 1<<16)
	for i := range ops {
		ops[i] = benchOutPoint(i)
	}
	e := UtxoEntry{Amount: 1000, PkScript: benchScript, Height: 1}
	b.ReportAllocs()
	b.ResetTimer()
	ct := startCPU(b)
	defer func() { ct.report(b.N) }()
	for i := 0; i < b.N; i++ {
		op := ops[i&(len(ops)-1)]
		op.Index += uint32(i>>16) * 4 // unique outpoints
		if err := c.AddEntry(&op, &e, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCacheAddSpend measures an output created and spent between
// flushes (one op = add + spend, returning the entry for undo).
func BenchmarkCacheAddSpend(b *testing.B) {
	_, c := benchCache(b, 64<<20)
	e := UtxoEntry{Amount: 1000, PkScript: benchScript, Height: 1}
	var spent UtxoEntry
	spent.PkScript = make([]byte, 0, 64)
	b.ReportAllocs()
	b.ResetTimer()
	ct := startCPU(b)
	defer func() { ct.report(b.N) }()
	for i := 0; i < b.N; i++ {
		op := benchOutPoint(i)
		c.AddEntry(&op, &e, false)
		if ok, err := c.SpendEntry(&op, &spent); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkCacheFetchHit fetches cached outputs in block-sized batches
// (one op = one outpoint).
func BenchmarkCacheFetchHit(b *testing.B) {
	_, c := benchCache(b, 16<<20)
	const n = 100_000
	e := UtxoEntry{Amount: 1000, PkScript: benchScript, Height: 1}
	for i := range n {
		op := benchOutPoint(i)
		c.AddEntry(&op, &e, false)
	}
	r := rand.New(rand.NewPCG(1, 1))
	batch := make([]wire.OutPoint, 2000)
	var dst []UtxoEntry
	var scripts []byte
	b.ReportAllocs()
	b.ResetTimer()
	ct := startCPU(b)
	defer func() { ct.report(b.N) }()
	for done := 0; done < b.N; done += len(batch) {
		b.StopTimer()
		for i := range batch {
			batch[i] = benchOutPoint(r.IntN(n))
		}
		b.StartTimer()
		var err error
		dst, scripts, err = c.FetchEntries(batch, dst, scripts)
		if err != nil || dst[0].Missing {
			b.Fatal(err)
		}
	}
}

// BenchmarkCacheFetchMiss fetches outputs that are only in LevelDB (one op =
// one outpoint read from disk and cached).
//
// BTCD_MISS_COINS sets the number of coins in the chainstate (default
// 300,000); readB/op is what LevelDB read per lookup, which shows whether
// the tables' index and filter blocks stay in memory as the set grows.
func BenchmarkCacheFetchMiss(b *testing.B) {
	cs, c := benchCache(b, 256<<20)
	n := envInt(b, "BTCD_MISS_COINS", 300_000)
	e := UtxoEntry{Amount: 1000, PkScript: benchScript, Height: 1}
	for i := range n {
		op := benchOutPoint(i)
		c.AddEntry(&op, &e, false)
		if i%1_000_000 == 999_999 {
			if err := c.Flush(wire.Hash{1}, 1); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := c.Flush(wire.Hash{1}, 1); err != nil {
		b.Fatal(err)
	}
	// Compaction reads would count as lookup reads.
	if err := cs.db.CompactRange(util.Range{}); err != nil {
		b.Fatal(err)
	}
	var before, after leveldb.DBStats
	cs.db.Stats(&before)
	defer func() {
		cs.db.Stats(&after)
		b.ReportMetric(float64(after.IORead-before.IORead)/float64(b.N), "readB/op")
	}()
	r := rand.New(rand.NewPCG(1, 1))
	batch := make([]wire.OutPoint, 2000)
	var dst []UtxoEntry
	var scripts []byte
	b.ReportAllocs()
	b.ResetTimer()
	ct := startCPU(b)
	defer func() { ct.report(b.N) }()
	for done := 0; done < b.N; done += len(batch) {
		b.StopTimer()
		// A new empty cache each batch: every lookup misses.
		c = NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 256 << 20})
		for i := range batch {
			batch[i] = benchOutPoint(r.IntN(n))
		}
		b.StartTimer()
		var err error
		dst, scripts, err = c.FetchEntries(batch, dst, scripts)
		if err != nil || dst[0].Missing {
			b.Fatal(err)
		}
	}
}

// BenchmarkFlush1M flushes one million dirty entries (heavy: run with
// -benchtime=1x). Reports flush throughput.
func BenchmarkFlush1M(b *testing.B) {
	const n = 1_000_000
	b.ReportAllocs()
	var total, cpu time.Duration
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		c := dirtyCache(b, 1<<30, n)
		b.StartTimer()
		start, cstart := time.Now(), cpuTime()
		if err := c.Flush(wire.Hash{1}, 1); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		cpu += cpuTime() - cstart
		st := c.Stats()
		b.ReportMetric(float64(st.LongestFlush.Milliseconds()), "flush-ms")
		b.ReportMetric(float64(st.LongestPause.Microseconds())/1000, "longest-pause-ms")
	}
	b.ReportMetric(float64(n)*float64(b.N)/total.Seconds(), "entries/s")
	b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "entries/cpu-s")
}

// BenchmarkFlushShrink flushes a cache of 2M dirty entries, about twice
// its 96 MiB budget, so that after the write the flush evicts half the
// entries and releases the slab chunks they leave (heavy: run with
// -benchtime=1x). release-ms is the time from the end of the last batch
// write to the end of the flush, when the chunks are released.
func BenchmarkFlushShrink(b *testing.B) {
	const n = 2_000_000
	for it := 0; it < b.N; it++ {
		b.StopTimer()
		c := dirtyCache(b, 96<<20, n)
		var wrote time.Time
		testFlushDoneHook = func() { wrote = time.Now() }
		b.StartTimer()
		if err := c.Flush(wire.Hash{1}, 1); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		testFlushDoneHook = nil
		st := c.Stats()
		b.ReportMetric(float64(time.Since(wrote).Microseconds())/1000, "release-ms")
		b.ReportMetric(float64(st.LongestFlush.Milliseconds()), "flush-ms")
		b.ReportMetric(float64(st.LongestPause.Microseconds())/1000, "longest-pause-ms")
	}
}

// BenchmarkCacheHeapVsBudget fills a cache far beyond its budget (flushing
// when asked) and reports the Go heap it really holds against the budget
// and against its own accounting.
func BenchmarkCacheHeapVsBudget(b *testing.B) {
	const budget = 64 << 20
	for it := 0; it < b.N; it++ {
		heap, acct, st := fillAndMeasure(b, budget, 2_000_000)
		b.ReportMetric(float64(st.LongestPause.Microseconds())/1000, "longest-pause-ms")
		b.ReportMetric(float64(st.LongestFlush.Microseconds())/1000, "longest-flush-ms")
		b.ReportMetric(float64(heap)/(1<<20), "heapMiB")
		b.ReportMetric(float64(acct)/(1<<20), "accountedMiB")
		b.ReportMetric(float64(budget)/(1<<20), "budgetMiB")
	}
}

// fillAndMeasure adds n outputs (1 in 10 with a long script) to a cache
// with the given budget, flushing when NeedsFlush, and returns the heap
// the cache really holds (freed when it is dropped) and the cache's own
// accounting.
func fillAndMeasure(tb testing.TB, budget int64, n int) (heap, acct int64, st CacheStats) {
	cs, err := OpenChainState(tb.TempDir(), ChainStateOptions{NoSyncOnFlush: true, WriteBuffer: 4 << 20, CacheBytes: 4 << 20})
	if err != nil {
		tb.Fatal(err)
	}
	defer cs.Close()
	var ms runtime.MemStats
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: budget})
	long := make([]byte, 71) // bare multisig-sized
	e := UtxoEntry{Amount: 1000, PkScript: benchScript, Height: 1}
	el := UtxoEntry{Amount: 1000, PkScript: long, Height: 1}
	for i := range n {
		op := benchOutPoint(i)
		ent := &e
		if i%10 == 0 {
			ent = &el
		}
		if err := c.AddEntry(&op, ent, false); err != nil {
			tb.Fatal(err)
		}
		if i%1000 == 999 && c.NeedsFlush() {
			if err := c.Flush(wire.Hash{1}, int32(i)); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := c.Flush(wire.Hash{2}, int32(n)); err != nil {
		tb.Fatal(err)
	}
	// The heap the cache holds is what the GC frees when the cache is
	// dropped. LevelDB's memtable and buffer pools are not the cache's:
	// the database is closed first and then measured both times.
	st = c.Stats()
	acct = st.MemUsage
	cs.Close()
	c.cs = nil
	// Let LevelDB's goroutines wind down and release their buffers.
	for range 3 {
		time.Sleep(100 * time.Millisecond)
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	with := int64(ms.HeapAlloc)
	runtime.KeepAlive(c)
	c = nil
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heap = with - int64(ms.HeapAlloc)
	return heap, acct, st
}

// TestCacheHeapWithinBudget checks that the real heap held by a full cache
// stays within its budget (plus a small constant).
func TestCacheHeapWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 16 MiB")
	}
	const budget = 16 << 20
	heap, acct, _ := fillAndMeasure(t, budget, 400_000)
	t.Logf("heap %d, accounted %d, budget %d", heap, acct, budget)
	if acct > budget {
		t.Errorf("accounted %d over budget %d", acct, budget)
	}
	if heap > budget+budget/10+1<<20 {
		t.Errorf("real heap %d exceeds budget %d by more than 10%%", heap, budget)
	}
}

// BenchmarkChainStateCompression compares snappy with no compression for
// the chainstate: flush time of 500k realistic coins (mixed script types,
// random amounts), on-disk size after compaction, and random reads.
func BenchmarkChainStateCompression(b *testing.B) {
	for _, snappy := range []bool{false, true} {
		name := "none"
		if snappy {
			name = "snappy"
		}
		b.Run(name, func(b *testing.B) {
			for it := 0; it < b.N; it++ {
				dir := b.TempDir()
				cs, err := OpenChainState(dir, ChainStateOptions{NoSyncOnFlush: true, Compression: snappy})
				if err != nil {
					b.Fatal(err)
				}
				c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 1 << 30})
				g := newGenerator(1, 500, 0)
				for range 1000 {
					blk := g.next()
					for j, op := range blk.creates {
						c.AddEntry(&op, &blk.entries[j], false)
					}
				}
				start := time.Now()
				if err := c.Flush(wire.Hash{1}, 1); err != nil {
					b.Fatal(err)
				}
				cs.db.CompactRange(util.Range{})
				flush := time.Since(start)
				var size int64
				filepath.Walk(filepath.Join(dir, "chainstate"), func(_ string, fi os.FileInfo, _ error) error {
					if fi != nil && !fi.IsDir() {
						size += fi.Size()
					}
					return nil
				})
				ops := make([]wire.OutPoint, 0, 20000)
				for op := range g.model {
					if len(ops) == cap(ops) {
						break
					}
					ops = append(ops, op)
				}
				c = NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 1 << 30})
				rs := time.Now()
				if _, _, err := c.FetchEntries(ops, nil, nil); err != nil {
					b.Fatal(err)
				}
				read := time.Since(rs)
				b.ReportMetric(float64(flush.Milliseconds()), "flush+compact-ms")
				b.ReportMetric(float64(size)/(1<<20), "diskMiB")
				b.ReportMetric(float64(read.Nanoseconds())/float64(len(ops)), "ns/read")
				cs.Close()
			}
		})
	}
}

// BenchmarkConnectBlocks applies pre-generated synthetic blocks (2000
// outputs created, 1200 random earlier outputs spent, each fetched first
// as the chain does) through a 16 MiB cache, flushing whenever NeedsFlush
// says so. One op = one block.
func BenchmarkConnectBlocks(b *testing.B) {
	const nBlocks = 300
	g := newGenerator(3, 2000, 1200)
	blocks := make([]synthBlock, nBlocks)
	for i := range blocks {
		blocks[i] = g.next()
	}
	cs, err := OpenChainState(b.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 16 << 20})
	var entries []UtxoEntry
	var scripts []byte
	var spent UtxoEntry
	b.ReportAllocs()
	b.ResetTimer()
	ct := startCPU(b)
	for i := 0; i < b.N; i++ {
		if i > 0 && i%nBlocks == 0 {
			b.StopTimer() // the synthetic chain is exhausted: start over
			cs.Close()
			cs, _ = OpenChainState(b.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
			c = NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 16 << 20})
			b.StartTimer()
		}
		blk := &blocks[i%nBlocks]
		entries, scripts, err = c.FetchEntries(blk.spends, entries, scripts)
		if err != nil {
			b.Fatal(err)
		}
		si := 0
		for si < len(blk.spends) && blk.spendAt[si] < 0 {
			c.SpendEntry(&blk.spends[si], &spent)
			si++
		}
		for j := range blk.creates {
			c.AddEntry(&blk.creates[j], &blk.entries[j], false)
			for si < len(blk.spends) && blk.spendAt[si] == j {
				c.SpendEntry(&blk.spends[si], &spent)
				si++
			}
		}
		if c.NeedsFlush() {
			if err := c.Flush(blockHash(blk.height), blk.height); err != nil {
				b.Fatal(err)
			}
		}
	}
	ct.report(b.N)
	st := c.Stats()
	b.ReportMetric(float64(st.LongestFlush.Microseconds())/1000, "longest-flush-ms")
	b.ReportMetric(float64(st.LongestPause.Microseconds())/1000, "longest-pause-ms")
	b.ReportMetric(float64(st.Hits)/float64(st.Hits+st.Misses+1), "hit-ratio")
}
