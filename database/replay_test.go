package database

import (
	"bytes"
	"container/heap"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// replayBlock is one block's UTXO changes, in the order connectBlock makes
// them: the coins its inputs spend, fetched in one pass, then per
// transaction its spends and its outputs.
type replayBlock struct {
	height  int32
	hash    wire.Hash
	ops     []wire.OutPoint // every non-coinbase input
	inBlock []bool          // ops[i] spends an output of an earlier tx of the block
	fetch   []wire.OutPoint // the ops that do not
	txIns   []int           // inputs per transaction (0 for the coinbase)
	outs    []wire.OutPoint
	entries []UtxoEntry
	txOuts  []int // outputs per transaction
}

// loadReplay reads the regtest block file at path into replay blocks.
func loadReplay(tb testing.TB, path string) []replayBlock {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	br := NewBlockFileReader(f, wire.RegTest)
	var blocks []replayBlock
	for h := int32(1); ; h++ {
		raw, err := br.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		var mb wire.MsgBlock
		if _, err := mb.Decode(raw); err != nil {
			tb.Fatal(err)
		}
		txids := mb.TxHashes()
		created := make(map[wire.Hash]bool, len(txids))
		rb := replayBlock{height: h, hash: mb.BlockHash()}
		for i, tx := range mb.Transactions {
			ins := 0
			if i > 0 {
				for j := range tx.TxIn {
					op := tx.TxIn[j].PreviousOutPoint
					rb.ops = append(rb.ops, op)
					rb.inBlock = append(rb.inBlock, created[op.Hash])
					if !created[op.Hash] {
						rb.fetch = append(rb.fetch, op)
					}
				}
				ins = len(tx.TxIn)
			}
			rb.txIns = append(rb.txIns, ins)
			for o, out := range tx.TxOut {
				rb.outs = append(rb.outs, wire.OutPoint{Hash: txids[i], Index: uint32(o)})
				rb.entries = append(rb.entries, UtxoEntry{Amount: out.Value, PkScript: out.PkScript, Height: h, IsCoinBase: i == 0})
			}
			rb.txOuts = append(rb.txOuts, len(tx.TxOut))
			created[txids[i]] = true
		}
		blocks = append(blocks, rb)
	}
	return blocks
}

// replaySetup reads the replay benchmarks' settings: the block file
// (BTCD_REPLAY_BLOCKS; the benchmark is skipped without it) and the cache
// budget in MiB (BTCD_REPLAY_CACHE_MIB, default 10).
func replaySetup(b *testing.B) ([]replayBlock, int64) {
	path := os.Getenv("BTCD_REPLAY_BLOCKS")
	if path == "" {
		b.Skip("BTCD_REPLAY_BLOCKS is not set")
	}
	mib := envInt(b, "BTCD_REPLAY_CACHE_MIB", 10)
	return loadReplay(b, path), int64(mib)
}

// replayChainState opens an empty chainstate with the options of a cache
// of mib MiB, or the LevelDB sizes set by BTCD_REPLAY_WRITEBUF_MIB and
// BTCD_REPLAY_BLOCKCACHE_MIB.
func replayChainState(b *testing.B, mib int64) *ChainState {
	o := ChainStateOptions{CacheBudget: mib << 20, NoSyncOnFlush: true}
	o.WriteBuffer = envInt(b, "BTCD_REPLAY_WRITEBUF_MIB", 0) << 20
	o.CacheBytes = envInt(b, "BTCD_REPLAY_BLOCKCACHE_MIB", 0) << 20
	cs, err := OpenChainState(b.TempDir(), o)
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

// envInt returns the integer in environment variable name, or def if it
// is unset.
func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		b.Fatalf("%s=%q: not a count", name, s)
	}
	return v
}

// BenchmarkReplayChain applies the UTXO changes of a real block file (for
// example one written by cmd/chaingen) through the cache, flushing in the
// background whenever NeedsFlush says so, as the chain does during IBD:
// the UTXO-layer share of a scripts-skipped sync, without networking or
// validation. BTCD_REPLAY_BLOCKS names the file (regtest framing);
// BTCD_REPLAY_CACHE_MIB the budget (default 10). One op = the whole chain.
//
//	BTCD_REPLAY_BLOCKS=/tmp/cg-medium/blk00000.dat go test ./database -run - -bench ReplayChain -benchtime 3x
func BenchmarkReplayChain(b *testing.B) {
	blocks, mib := replaySetup(b)
	b.ReportAllocs()
	b.ResetTimer()
	var st CacheStats
	var flushWait time.Duration
	ct := startCPU(b)
	for range b.N {
		b.StopTimer()
		cs := replayChainState(b, mib)
		c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: mib << 20})
		b.StartTimer()
		st, flushWait = replayChain(b, c, blocks)
		b.StopTimer()
		cs.Close()
		b.StartTimer()
	}
	ct.report(b.N)
	b.ReportMetric(float64(st.Misses), "misses")
	b.ReportMetric(float64(st.Evictions), "evictions")
	b.ReportMetric(float64(st.Flushes), "flushes")
	b.ReportMetric(float64(st.FlushedCoins), "records")
	b.ReportMetric(flushWait.Seconds(), "flush-wait-s")
}

// replayChain runs blocks through c and returns its statistics after a
// final flush, and how long the replay waited for background flushes.
func replayChain(b *testing.B, c *UtxoCache, blocks []replayBlock) (CacheStats, time.Duration) {
	var coins []UtxoEntry
	var scripts []byte
	var pending <-chan error
	var wait time.Duration
	for bi := range blocks {
		rb := &blocks[bi]
		var err error
		if replayFetchAll {
			coins, scripts, err = c.FetchEntries(rb.ops, coins, scripts)
		} else {
			coins, scripts, err = c.FetchEntries(rb.fetch, coins, scripts)
			coins = expandCoins(coins, rb.inBlock)
		}
		if err != nil {
			b.Fatal(err)
		}
		k, o := 0, 0
		for t := range rb.txIns {
			for range rb.txIns[t] {
				var ok bool
				if coins[k].Missing {
					ok, err = c.SpendEntry(&rb.ops[k], &coins[k])
				} else {
					ok, err = c.SpendEntry(&rb.ops[k], nil)
				}
				if err != nil || !ok {
					b.Fatalf("block %d input %d: spend %v %v", rb.height, k, ok, err)
				}
				k++
			}
			for range rb.txOuts[t] {
				if err := c.AddEntry(&rb.outs[o], &rb.entries[o], t == 0); err != nil {
					b.Fatal(err)
				}
				o++
			}
		}
		if pending != nil {
			select {
			case err := <-pending:
				if err != nil {
					b.Fatal(err)
				}
				pending = nil
			default:
			}
		}
		if c.NeedsFlush() {
			if pending != nil {
				t0 := time.Now()
				if err := <-pending; err != nil {
					b.Fatal(err)
				}
				wait += time.Since(t0)
			}
			pending = c.FlushAsync(rb.hash, rb.height)
		}
	}
	if pending != nil {
		if err := <-pending; err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer() // the final flush is shutdown work, as in ibdbench
	last := &blocks[len(blocks)-1]
	if err := c.Flush(last.hash, last.height); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	return c.Stats(), wait
}

var replayFetchAll = os.Getenv("BTCD_REPLAY_FETCHALL") != ""

// expandCoins spreads the coins fetched for the inputs not spending in-block
// outputs over all inputs, marking the others missing.
func expandCoins(coins []UtxoEntry, inBlock []bool) []UtxoEntry {
	n := len(coins)
	for len(coins) < len(inBlock) {
		coins = append(coins, UtxoEntry{})
	}
	j := n - 1
	for i := len(inBlock) - 1; i >= 0; i-- {
		if inBlock[i] {
			coins[i] = UtxoEntry{Missing: true}
		} else {
			coins[i] = coins[j]
			j--
		}
	}
	return coins
}

// BenchmarkReplayFloor bounds from below the extra LevelDB work that any
// UTXO cache of the given budget must do over one that holds every coin,
// for the block file named by BTCD_REPLAY_BLOCKS (BTCD_REPLAY_CACHE_MIB,
// default 10):
//
//   - capacity: at most budget/88 coins (a cache record's size, ignoring
//     the table and every other overhead) fit in memory;
//   - min-puts: coins that must be on disk at the tip, the final UTXO set
//     less that capacity; each was written once during the sync;
//   - belady-reads: spends of coins not in memory under the clairvoyant
//     policy (evict the coin spent furthest in the future), the fewest
//     reads any eviction policy can achieve;
//   - online-reads: a lower bound on the expected reads of any policy
//     that cannot foresee spends (see beladyResult.onlineReads). Each
//     coin read was written before and, being spent, is deleted;
//   - put-cpu-s, get-cpu-s, del-cpu-s: CPU time (all threads, compactions
//     running meanwhile included) to write min-puts + online-reads coin
//     records in sorted batches of 4,096 (BTCD_REPLAY_FLOOR_BATCH), to
//     read the online-reads spent ones back in random order from the
//     fully compacted database (its cheapest layout), and to delete them,
//     with the chainstate's options at this budget (or the LevelDB sizes
//     set as for BenchmarkReplayChain).
//
// floor-cpu-s is their sum: the extra CPU time a sync needs at this
// budget whatever its cache does, short of foreseeing spends.
//
//	BTCD_REPLAY_BLOCKS=/tmp/cg-medium/blk00000.dat go test ./database -run - -bench ReplayFloor -benchtime 1x
func BenchmarkReplayFloor(b *testing.B) {
	blocks, mib := replaySetup(b)
	capacity := int(mib << 20 / entrySize)
	sim := simulateBelady(blocks, capacity)
	minPuts := max(sim.final-capacity, 0)
	nRead := int(sim.onlineReads)

	// The records, with their real keys and values: minPuts coins of the
	// final set, then nRead coins that are spent (the earliest created:
	// reads are of old coins), in chain order.
	recs := make([][2][]byte, 0, minPuts+nRead)
	spentFrom := -1
	for _, want := range []bool{true, false} {
		n := minPuts
		if !want {
			spentFrom, n = len(recs), nRead
		}
		taken := 0
		for _, rb := range blocks {
			for i := range rb.outs {
				if taken == n || sim.unspent[rb.outs[i]] != want || IsUnspendable(rb.entries[i].PkScript) {
					continue
				}
				k := makeKey(&rb.outs[i])
				e := &rb.entries[i]
				recs = append(recs, [2][]byte{appendCoinKey(nil, &k), AppendCoin(nil, e.Amount, e.PkScript, e.Height, e.IsCoinBase)})
				taken++
			}
		}
	}
	spent := recs[spentFrom:]
	// writeSorted writes recs[i] for i in order, in sorted batches of
	// floorBatch as a flush would, as puts or as deletions.
	writeSorted := func(db *leveldb.DB, order []int, del bool) {
		var batch leveldb.Batch
		for lo := 0; lo < len(order); lo += floorBatch {
			part := order[lo:min(lo+floorBatch, len(order))]
			slices.SortFunc(part, func(x, y int) int { return bytes.Compare(recs[x][0], recs[y][0]) })
			batch.Reset()
			for _, i := range part {
				if del {
					batch.Delete(recs[i][0])
				} else {
					batch.Put(recs[i][0], recs[i][1])
				}
			}
			if err := db.Write(&batch, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	var putCPU, getCPU, delCPU time.Duration
	for range b.N {
		b.StopTimer()
		cs := replayChainState(b, mib)
		rng := rand.New(rand.NewPCG(1, 2))
		order := rng.Perm(len(recs))
		runtime.GC()
		b.StartTimer()
		t0 := cpuTime()
		writeSorted(cs.db, order, false)
		putCPU += cpuTime() - t0
		// Reads are timed on a fully compacted database, their cheapest
		// layout (and with no compaction running meanwhile).
		b.StopTimer()
		if err := cs.db.CompactRange(util.Range{}); err != nil {
			b.Fatal(err)
		}
		it := cs.db.NewIterator(nil, nil) // fills the block cache
		for it.Next() {
		}
		it.Release()
		reads := rng.Perm(len(spent))
		b.StartTimer()
		t1 := cpuTime()
		for _, i := range reads {
			if _, err := cs.db.Get(spent[i][0], nil); err != nil {
				b.Fatal(err)
			}
		}
		t2 := cpuTime()
		getCPU += t2 - t1
		for k := range reads {
			reads[k] += spentFrom
		}
		writeSorted(cs.db, reads, true)
		delCPU += cpuTime() - t2
		b.StopTimer()
		cs.Close()
		b.StartTimer()
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(float64(capacity), "capacity")
	b.ReportMetric(float64(sim.final), "final-set")
	b.ReportMetric(float64(minPuts), "min-puts")
	b.ReportMetric(float64(sim.reads), "belady-reads")
	b.ReportMetric(sim.onlineReads, "online-reads")
	b.ReportMetric(per(putCPU), "put-cpu-s")
	b.ReportMetric(per(getCPU), "get-cpu-s")
	b.ReportMetric(per(delCPU), "del-cpu-s")
	b.ReportMetric(per(putCPU+getCPU+delCPU), "floor-cpu-s")
}

// beladyResult is what simulateBelady finds.
type beladyResult struct {
	reads int // spends of coins not in memory
	// onlineReads bounds the expected reads of any policy that cannot
	// foresee spends: a coin at least oldAge blocks old is picked
	// uniformly among all such unspent coins (cmd/chaingen's "old pool"),
	// so a cache holding at most capacity of them misses with probability
	// at least 1 - capacity/pool.
	onlineReads float64
	final       int                    // unspent coins at the end
	unspent     map[wire.OutPoint]bool // those coins
}

// simulateBelady runs the chain's coin lifetimes through a cache of
// capacity coins that evicts the coin spent furthest in the future (never
// spent counts as furthest), the optimal offline policy; a spend of a coin
// not in memory is a read. Coins live in memory only between creation and
// spend or eviction: a coin read for its spend is spent at once.
func simulateBelady(blocks []replayBlock, capacity int) beladyResult {
	// Spend times: the index of the spending input in chain order.
	spendAt := make(map[wire.OutPoint]int)
	t := 0
	for _, rb := range blocks {
		for _, op := range rb.ops {
			spendAt[op] = t
			t++
		}
	}
	const never = int(^uint(0) >> 1)
	// Old-pool size: unspent coins created at least oldAge blocks before
	// the block being built.
	created := make(map[wire.OutPoint]int32)
	perBlock := make(map[int32]int) // unspent coins per creation height
	oldPool := 0
	h := &spendHeap{}
	inMem := make(map[wire.OutPoint]bool)
	res := beladyResult{unspent: make(map[wire.OutPoint]bool)}
	t = 0
	for _, rb := range blocks {
		oldPool += perBlock[rb.height-oldAge]
		k, o := 0, 0
		for tx := range rb.txIns {
			for range rb.txIns[tx] {
				op := rb.ops[k]
				if ch := created[op]; ch <= rb.height-oldAge {
					res.onlineReads += 1 - min(float64(capacity), float64(oldPool))/float64(oldPool)
					oldPool--
				}
				perBlock[created[op]]--
				if inMem[op] {
					delete(inMem, op) // its heap item goes stale
				} else {
					res.reads++
				}
				delete(res.unspent, op)
				k++
				t++
			}
			for range rb.txOuts[tx] {
				op := rb.outs[o]
				o++
				when, ok := spendAt[op]
				if !ok {
					when = never
				}
				res.unspent[op] = true
				created[op] = rb.height
				perBlock[rb.height]++
				inMem[op] = true
				heap.Push(h, spendItem{when, op})
				for len(inMem) > capacity {
					it := heap.Pop(h).(spendItem)
					if inMem[it.op] {
						delete(inMem, it.op)
					}
				}
			}
		}
	}
	res.final = len(res.unspent)
	return res
}

// floorBatch is how many records BenchmarkReplayFloor writes per batch
// (BTCD_REPLAY_FLOOR_BATCH; default 4,096, about a flush step).
var floorBatch = func() int {
	if v, err := strconv.Atoi(os.Getenv("BTCD_REPLAY_FLOOR_BATCH")); err == nil && v > 0 {
		return v
	}
	return 4096
}()

// oldAge is the age in blocks from which cmd/chaingen picks coins
// uniformly (internal/chaingen's recent window is 5 blocks).
const oldAge = 6

type spendItem struct {
	when int
	op   wire.OutPoint
}

// spendHeap is a max-heap on spend time.
type spendHeap []spendItem

func (h spendHeap) Len() int           { return len(h) }
func (h spendHeap) Less(i, j int) bool { return h[i].when > h[j].when }
func (h spendHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *spendHeap) Push(x any)        { *h = append(*h, x.(spendItem)) }
func (h *spendHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
