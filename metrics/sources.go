package metrics

import (
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/syndtr/goleveldb/leveldb"
)

// Sources are the functions read at scrape time. Every field is optional
// (a nil one leaves its metrics out). They are called from the HTTP
// server's goroutines, possibly concurrently with each other and with the
// node's work, so they must be safe for concurrent use, and they should be
// cheap (take a lock, copy a few numbers).
type Sources struct {
	// Chain reports the tips and the orphan pool.
	Chain func() ChainStats
	// SigCache reports the signature cache's lifetime hits and misses.
	SigCache func() (hits, misses uint64)
	// UtxoCache reports the UTXO cache (database.UtxoCache.Stats).
	UtxoCache func() UtxoCacheStats
	// LevelDB maps a database name ("chainstate", "index") to a function
	// filling goleveldb's statistics (leveldb.DB.Stats).
	LevelDB map[string]func(*leveldb.DBStats) error
	// Peers reports the connected peers by direction.
	Peers func() (inbound, outbound int)
	// Mempool reports the mempool's size (as getmempoolinfo).
	Mempool func() MempoolStats
}

// ChainStats is what Sources.Chain reports.
type ChainStats struct {
	HeaderHeight int32 // best known header
	BlockHeight  int32 // best fully validated block (the tip)
	Orphans      int   // blocks held whose parent is unknown; negative: not known (left out)
}

// UtxoCacheStats is what Sources.UtxoCache reports; the fields mirror
// database.CacheStats so the daemon copies them one for one.
type UtxoCacheStats struct {
	Entries      int   // live entries
	Dirty        int   // entries waiting for a flush
	MemUsage     int64 // bytes counted against the budget
	MaxBytes     int64 // the budget
	Hits, Misses uint64
	Evictions    uint64
	Flushes      uint64
	FlushedCoins uint64        // records written by flushes
	LastFlush    time.Duration // duration of the latest flush
	TotalFlush   time.Duration // all flush durations together
	LastPause    time.Duration // longest lock hold of the latest flush
	TotalPause   time.Duration // all flush lock holds together
}

// MempoolStats is what Sources.Mempool reports.
type MempoolStats struct {
	Count        int     // transactions
	VSize        int64   // sum of virtual sizes (getmempoolinfo "bytes")
	Usage        int64   // memory used (getmempoolinfo "usage")
	MinFeeSatKvB float64 // minimum fee rate to enter, sat/kvB
}

// sourceCollector turns Sources into const metrics at each scrape.
type sourceCollector struct {
	src atomic.Pointer[Sources]

	// The flush histogram is fed from UtxoCacheStats deltas unless the
	// daemon reports each flush itself (UtxoFlushed sets pushed).
	flushHist   prometheus.Histogram
	pushed      atomic.Bool
	flushMu     sync.Mutex
	seenFlushes uint64
	seenTotal   time.Duration

	headerHeight, blockHeight, orphans *prometheus.Desc
	sigHits, sigMisses                 *prometheus.Desc

	utxoEntries, utxoDirty, utxoBytes, utxoBudget *prometheus.Desc
	utxoHits, utxoMisses, utxoHitRatio            *prometheus.Desc
	utxoEvictions, utxoFlushes, utxoFlushed       *prometheus.Desc
	utxoLastPause, utxoPauseTotal                 *prometheus.Desc

	ldbIOWrite, ldbIORead, ldbCompRead, ldbCompWrite *prometheus.Desc
	ldbCompTime, ldbCompactions, ldbLevelBytes       *prometheus.Desc
	ldbLevelTables, ldbWriteDelays, ldbDelayTime     *prometheus.Desc
	ldbWritePaused, ldbBlockCache, ldbOpenTables     *prometheus.Desc

	peers *prometheus.Desc

	mpCount, mpVSize, mpUsage, mpMinFee *prometheus.Desc
}

func desc(sub, name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(Namespace, sub, name), help, labels, nil)
}

func newSourceCollector(s Sources, flushHist prometheus.Histogram) *sourceCollector {
	c := &sourceCollector{
		flushHist: flushHist,

		headerHeight: desc("chain", "best_header_height", "Height of the best known header."),
		blockHeight:  desc("chain", "best_block_height", "Height of the best fully validated block."),
		orphans:      desc("chain", "orphan_blocks", "Blocks held whose parent is not yet known."),
		sigHits:      desc("chain", "sig_cache_hits_total", "Signature cache lookups that found a verified signature."),
		sigMisses:    desc("chain", "sig_cache_misses_total", "Signature cache lookups that did not."),

		utxoEntries:    desc("utxo_cache", "entries", "Entries in the UTXO cache."),
		utxoDirty:      desc("utxo_cache", "dirty_entries", "UTXO cache entries not yet flushed."),
		utxoBytes:      desc("utxo_cache", "bytes", "Memory used by the UTXO cache, as counted against its budget."),
		utxoBudget:     desc("utxo_cache", "budget_bytes", "The UTXO cache's memory budget (--utxocachemaxsize)."),
		utxoHits:       desc("utxo_cache", "hits_total", "UTXO lookups served from the cache."),
		utxoMisses:     desc("utxo_cache", "misses_total", "UTXO lookups that read the chainstate database."),
		utxoHitRatio:   desc("utxo_cache", "hit_ratio", "Lifetime fraction of UTXO lookups served from the cache."),
		utxoEvictions:  desc("utxo_cache", "evictions_total", "Clean entries evicted to stay within the budget."),
		utxoFlushes:    desc("utxo_cache", "flushes_total", "UTXO cache flushes."),
		utxoFlushed:    desc("utxo_cache", "flushed_records_total", "Records (puts and deletes) written by flushes."),
		utxoLastPause:  desc("utxo_cache", "last_flush_pause_seconds", "Duration of the latest flush."),
		utxoPauseTotal: desc("utxo_cache", "flush_pause_seconds_total", "Time spent in flushes."),

		ldbIOWrite:     desc("leveldb", "io_write_bytes_total", "Bytes written to disk by LevelDB.", "db"),
		ldbIORead:      desc("leveldb", "io_read_bytes_total", "Bytes read from disk by LevelDB.", "db"),
		ldbCompRead:    desc("leveldb", "compaction_read_bytes_total", "Bytes read by compactions, by level.", "db", "level"),
		ldbCompWrite:   desc("leveldb", "compaction_write_bytes_total", "Bytes written by compactions, by level.", "db", "level"),
		ldbCompTime:    desc("leveldb", "compaction_seconds_total", "Time spent compacting, by level.", "db", "level"),
		ldbCompactions: desc("leveldb", "compactions_total", "Compactions by type (memtable, level0, nonlevel0, seek).", "db", "type"),
		ldbLevelBytes:  desc("leveldb", "level_size_bytes", "Size of the tables in each level.", "db", "level"),
		ldbLevelTables: desc("leveldb", "level_tables", "Number of tables in each level.", "db", "level"),
		ldbWriteDelays: desc("leveldb", "write_delays_total", "Writes delayed because level 0 was too full.", "db"),
		ldbDelayTime:   desc("leveldb", "write_delay_seconds_total", "Time writes spent delayed.", "db"),
		ldbWritePaused: desc("leveldb", "write_paused", "1 while writes are paused for compaction.", "db"),
		ldbBlockCache:  desc("leveldb", "block_cache_bytes", "Bytes held by the block cache.", "db"),
		ldbOpenTables:  desc("leveldb", "open_tables", "Table files held open.", "db"),

		peers: desc("peers", "connected", "Connected peers by direction.", "direction"),

		mpCount:  desc("mempool", "transactions", "Transactions in the mempool."),
		mpVSize:  desc("mempool", "vsize_bytes", "Sum of the virtual sizes of mempool transactions (getmempoolinfo bytes)."),
		mpUsage:  desc("mempool", "usage_bytes", "Memory used by the mempool (getmempoolinfo usage)."),
		mpMinFee: desc("mempool", "min_fee_sat_per_kvb", "Minimum fee rate to enter the mempool, in sat/kvB."),
	}
	c.set(s)
	return c
}

func (c *sourceCollector) set(s Sources) { c.src.Store(&s) }

// Describe implements prometheus.Collector.
func (c *sourceCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		c.headerHeight, c.blockHeight, c.orphans, c.sigHits, c.sigMisses,
		c.utxoEntries, c.utxoDirty, c.utxoBytes, c.utxoBudget, c.utxoHits, c.utxoMisses,
		c.utxoHitRatio, c.utxoEvictions, c.utxoFlushes, c.utxoFlushed, c.utxoLastPause, c.utxoPauseTotal,
		c.ldbIOWrite, c.ldbIORead, c.ldbCompRead, c.ldbCompWrite, c.ldbCompTime, c.ldbCompactions,
		c.ldbLevelBytes, c.ldbLevelTables, c.ldbWriteDelays, c.ldbDelayTime, c.ldbWritePaused,
		c.ldbBlockCache, c.ldbOpenTables,
		c.peers, c.mpCount, c.mpVSize, c.mpUsage, c.mpMinFee,
	} {
		ch <- d
	}
	c.flushHist.Describe(ch)
}

// Collect implements prometheus.Collector. A source that panics is
// reported as a scrape error for its metric rather than taking the node
// down with it.
func (c *sourceCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Load()
	guard := func(d *prometheus.Desc, fn func()) {
		defer func() {
			if r := recover(); r != nil {
				ch <- prometheus.NewInvalidMetric(d, fmt.Errorf("metrics source panicked: %v", r))
			}
		}()
		fn()
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}

	if s.Chain != nil {
		guard(c.blockHeight, func() {
			st := s.Chain()
			gauge(c.headerHeight, float64(st.HeaderHeight))
			gauge(c.blockHeight, float64(st.BlockHeight))
			if st.Orphans >= 0 {
				gauge(c.orphans, float64(st.Orphans))
			}
		})
	}
	if s.SigCache != nil {
		guard(c.sigHits, func() {
			h, m := s.SigCache()
			counter(c.sigHits, float64(h))
			counter(c.sigMisses, float64(m))
		})
	}
	if s.UtxoCache != nil {
		guard(c.utxoEntries, func() {
			st := s.UtxoCache()
			c.collectUtxo(st, gauge, counter)
			c.observeFlushes(st)
		})
	}
	if len(s.LevelDB) > 0 {
		names := make([]string, 0, len(s.LevelDB))
		for n := range s.LevelDB {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fn := s.LevelDB[n]
			guard(c.ldbIOWrite, func() {
				var st leveldb.DBStats
				if err := fn(&st); err != nil {
					ch <- prometheus.NewInvalidMetric(c.ldbIOWrite, fmt.Errorf("leveldb %s stats: %w", n, err))
					return
				}
				c.collectLevelDB(n, &st, gauge, counter)
			})
		}
	}
	c.flushHist.Collect(ch)
	if s.Peers != nil {
		guard(c.peers, func() {
			in, out := s.Peers()
			gauge(c.peers, float64(in), "inbound")
			gauge(c.peers, float64(out), "outbound")
		})
	}
	if s.Mempool != nil {
		guard(c.mpCount, func() {
			st := s.Mempool()
			gauge(c.mpCount, float64(st.Count))
			gauge(c.mpVSize, float64(st.VSize))
			gauge(c.mpUsage, float64(st.Usage))
			gauge(c.mpMinFee, st.MinFeeSatKvB)
		})
	}
}

type emitFunc func(d *prometheus.Desc, v float64, labels ...string)

func (c *sourceCollector) collectUtxo(st UtxoCacheStats, gauge, counter emitFunc) {
	gauge(c.utxoEntries, float64(st.Entries))
	gauge(c.utxoDirty, float64(st.Dirty))
	gauge(c.utxoBytes, float64(st.MemUsage))
	gauge(c.utxoBudget, float64(st.MaxBytes))
	counter(c.utxoHits, float64(st.Hits))
	counter(c.utxoMisses, float64(st.Misses))
	ratio := 0.0
	if total := st.Hits + st.Misses; total > 0 {
		ratio = float64(st.Hits) / float64(total)
	}
	gauge(c.utxoHitRatio, ratio)
	counter(c.utxoEvictions, float64(st.Evictions))
	counter(c.utxoFlushes, float64(st.Flushes))
	counter(c.utxoFlushed, float64(st.FlushedCoins))
	gauge(c.utxoLastPause, st.LastPause.Seconds())
	counter(c.utxoPauseTotal, st.TotalPause.Seconds())
}

func (c *sourceCollector) collectLevelDB(db string, st *leveldb.DBStats, gauge, counter emitFunc) {
	counter(c.ldbIOWrite, float64(st.IOWrite), db)
	counter(c.ldbIORead, float64(st.IORead), db)
	counter(c.ldbWriteDelays, float64(st.WriteDelayCount), db)
	counter(c.ldbDelayTime, st.WriteDelayDuration.Seconds(), db)
	paused := 0.0
	if st.WritePaused {
		paused = 1
	}
	gauge(c.ldbWritePaused, paused, db)
	gauge(c.ldbBlockCache, float64(st.BlockCacheSize), db)
	gauge(c.ldbOpenTables, float64(st.OpenedTablesCount), db)
	counter(c.ldbCompactions, float64(st.MemComp), db, "memtable")
	counter(c.ldbCompactions, float64(st.Level0Comp), db, "level0")
	counter(c.ldbCompactions, float64(st.NonLevel0Comp), db, "nonlevel0")
	counter(c.ldbCompactions, float64(st.SeekComp), db, "seek")
	// goleveldb sizes these slices by the deepest level in use; each is
	// read only as far as it reaches.
	for lvl := range st.LevelSizes {
		l := strconv.Itoa(lvl)
		gauge(c.ldbLevelBytes, float64(st.LevelSizes[lvl]), db, l)
		if lvl < len(st.LevelTablesCounts) {
			gauge(c.ldbLevelTables, float64(st.LevelTablesCounts[lvl]), db, l)
		}
		if lvl < len(st.LevelRead) {
			counter(c.ldbCompRead, float64(st.LevelRead[lvl]), db, l)
		}
		if lvl < len(st.LevelWrite) {
			counter(c.ldbCompWrite, float64(st.LevelWrite[lvl]), db, l)
		}
		if lvl < len(st.LevelDurations) {
			counter(c.ldbCompTime, st.LevelDurations[lvl].Seconds(), db, l)
		}
	}
}

// observeFlushes feeds the flush histogram from the cache's counters when
// the daemon does not report flushes one by one. A scrape interval with
// one flush observes its exact pause; with several, each is observed at
// the interval's mean pause (their sum stays exact).
func (c *sourceCollector) observeFlushes(st UtxoCacheStats) {
	if c.pushed.Load() {
		return
	}
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	if st.Flushes < c.seenFlushes || st.TotalFlush < c.seenTotal {
		// A different cache (reopened); start counting afresh.
		c.seenFlushes, c.seenTotal = 0, 0
	}
	n := st.Flushes - c.seenFlushes
	switch {
	case n == 1:
		c.flushHist.Observe(st.LastFlush.Seconds())
	case n > 1:
		mean := (st.TotalFlush - c.seenTotal).Seconds() / float64(n)
		for i := uint64(0); i < n && i < maxFlushObservations; i++ {
			c.flushHist.Observe(mean)
		}
	}
	c.seenFlushes, c.seenTotal = st.Flushes, st.TotalFlush
}

// maxFlushObservations bounds the work of one scrape after a long gap
// (flushes are seconds apart at the very least, so this is rarely hit).
const maxFlushObservations = 10000
