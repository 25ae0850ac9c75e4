package metrics

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// scrape fetches and parses the exposition at base+Path.
func scrape(t *testing.T, addr net.Addr) map[string]*dto.MetricFamily {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + addr.String() + Path)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape: %s: %s", resp.Status, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("content type %q", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	return fams
}

// find returns the metric of family name whose labels include want
// (given as name, value pairs), or nil.
func find(fams map[string]*dto.MetricFamily, name string, want ...string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(want); i += 2 {
			ok := false
			for _, l := range m.GetLabel() {
				if l.GetName() == want[i] && l.GetValue() == want[i+1] {
					ok = true
				}
			}
			if !ok {
				continue next
			}
		}
		return m
	}
	return nil
}

// value returns a counter's or gauge's value, failing if absent.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	m := find(fams, name, labels...)
	if m == nil {
		t.Fatalf("metric %s%v missing", name, labels)
	}
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	}
	t.Fatalf("metric %s has no scalar value", name)
	return 0
}

func expect(t *testing.T, fams map[string]*dto.MetricFamily, want float64, name string, labels ...string) {
	t.Helper()
	if got := value(t, fams, name, labels...); got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

func serve(t *testing.T, m *Metrics) *Server {
	t.Helper()
	s, err := Serve("127.0.0.1:0", m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func openLevelDB(t *testing.T) *leveldb.DB {
	t.Helper()
	db, err := leveldb.OpenFile(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for i := 0; i < 200; i++ {
		if err := db.Put([]byte(fmt.Sprintf("key%05d", i)), make([]byte, 100), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Push the memtable to level 0 so the level statistics are non-empty.
	if err := db.CompactRange(util.Range{}); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestScrapeEndToEnd(t *testing.T) {
	db := openLevelDB(t)
	m := New(Options{RPCMethods: []string{"getblockcount", "getblock"}})
	m.SetSources(Sources{
		Chain:    func() ChainStats { return ChainStats{HeaderHeight: 850000, BlockHeight: 849990, Orphans: 3} },
		SigCache: func() (uint64, uint64) { return 70, 30 },
		UtxoCache: func() UtxoCacheStats {
			return UtxoCacheStats{Entries: 1000, Dirty: 10, MemUsage: 1 << 20, MaxBytes: 450 << 20,
				Hits: 900, Misses: 100, Flushes: 4, LastFlush: 1500 * time.Millisecond, TotalFlush: 3 * time.Second,
				LastPause: 1500 * time.Millisecond, TotalPause: 3 * time.Second}
		},
		LevelDB: map[string]func(*leveldb.DBStats) error{"chainstate": db.Stats},
		Peers:   func() (int, int) { return 5, 8 },
		Mempool: func() MempoolStats { return MempoolStats{Count: 42, VSize: 12345, Usage: 99999, MinFeeSatKvB: 1000} },
	})
	s := serve(t, m)

	m.BlockConnected(10, 20*time.Millisecond)
	m.BlockConnected(5, 0)
	m.BlockValidated(2 * time.Second)
	m.BlockDisconnected()
	m.Reorg()
	m.ScriptChecks(37)
	m.UtxoFlushed(250 * time.Millisecond)
	m.PeerMessage("tx", true, 300)
	m.PeerMessage("tx", true, 200)
	m.PeerMessage("tx", false, 250)
	m.PeerMessage("inv", false, 61)
	m.PeerMessage("bogus\x00cmd", true, 24)
	m.PeerBanned()
	m.TxAccepted()
	m.TxAccepted()
	m.TxRejected("not standard")
	m.TxRejected("not_standard")
	m.TxRejected("missing inputs")
	m.TxRejected("something new")
	m.RPCCall("getblockcount", time.Millisecond, false)
	m.RPCCall("getblock", 3*time.Millisecond, true)
	m.RPCCall("nosuchmethod", time.Millisecond, true)

	f := scrape(t, s.Addr())

	expect(t, f, 850000, "btcd_chain_best_header_height")
	expect(t, f, 849990, "btcd_chain_best_block_height")
	expect(t, f, 3, "btcd_chain_orphan_blocks")
	expect(t, f, 70, "btcd_chain_sig_cache_hits_total")
	expect(t, f, 30, "btcd_chain_sig_cache_misses_total")
	expect(t, f, 2, "btcd_chain_blocks_connected_total")
	expect(t, f, 15, "btcd_chain_transactions_connected_total")
	expect(t, f, 1, "btcd_chain_blocks_disconnected_total")
	expect(t, f, 1, "btcd_chain_reorgs_total")
	expect(t, f, 37, "btcd_chain_script_checks_total")
	h := find(f, "btcd_chain_block_validation_duration_seconds").GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() != 2.02 {
		t.Errorf("validation histogram count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	if n := len(h.GetBucket()); n != len(BlockValidationBuckets)+1 { // +Inf included
		t.Errorf("validation histogram has %d buckets", n)
	}

	expect(t, f, 1000, "btcd_utxo_cache_entries")
	expect(t, f, 10, "btcd_utxo_cache_dirty_entries")
	expect(t, f, 1<<20, "btcd_utxo_cache_bytes")
	expect(t, f, 450<<20, "btcd_utxo_cache_budget_bytes")
	expect(t, f, 0.9, "btcd_utxo_cache_hit_ratio")
	expect(t, f, 100, "btcd_utxo_cache_misses_total")
	expect(t, f, 4, "btcd_utxo_cache_flushes_total")
	expect(t, f, 1.5, "btcd_utxo_cache_last_flush_pause_seconds")
	expect(t, f, 3, "btcd_utxo_cache_flush_pause_seconds_total")
	if c := find(f, "btcd_utxo_cache_flush_duration_seconds").GetHistogram().GetSampleCount(); c != 1 {
		t.Errorf("flush histogram count %d", c)
	}

	if v := value(t, f, "btcd_leveldb_io_write_bytes_total", "db", "chainstate"); v <= 0 {
		t.Errorf("leveldb io write %v", v)
	}
	var levelBytes float64
	for _, mt := range f["btcd_leveldb_level_size_bytes"].GetMetric() {
		levelBytes += mt.GetGauge().GetValue()
	}
	if levelBytes <= 0 {
		t.Errorf("leveldb level sizes sum to %v", levelBytes)
	}
	if v := value(t, f, "btcd_leveldb_compactions_total", "db", "chainstate", "type", "memtable"); v < 1 {
		t.Errorf("memtable compactions %v", v)
	}

	expect(t, f, 5, "btcd_peers_connected", "direction", "inbound")
	expect(t, f, 8, "btcd_peers_connected", "direction", "outbound")
	expect(t, f, 500, "btcd_peers_bytes_total", "command", "tx", "direction", "in")
	expect(t, f, 2, "btcd_peers_messages_total", "command", "tx", "direction", "in")
	expect(t, f, 250, "btcd_peers_bytes_total", "command", "tx", "direction", "out")
	expect(t, f, 61, "btcd_peers_bytes_total", "command", "inv", "direction", "out")
	expect(t, f, 24, "btcd_peers_bytes_total", "command", OtherLabel, "direction", "in")
	expect(t, f, 1, "btcd_peers_bans_total")
	if find(f, "btcd_peers_bytes_total", "command", "headers") != nil {
		t.Error("unused command exported")
	}

	expect(t, f, 42, "btcd_mempool_transactions")
	expect(t, f, 12345, "btcd_mempool_vsize_bytes")
	expect(t, f, 99999, "btcd_mempool_usage_bytes")
	expect(t, f, 1000, "btcd_mempool_min_fee_sat_per_kvb")
	expect(t, f, 2, "btcd_mempool_txs_accepted_total")
	expect(t, f, 2, "btcd_mempool_txs_rejected_total", "reason", "not_standard")
	expect(t, f, 1, "btcd_mempool_txs_rejected_total", "reason", "missing_inputs")
	expect(t, f, 1, "btcd_mempool_txs_rejected_total", "reason", OtherLabel)

	expect(t, f, 1, "btcd_rpc_calls_total", "method", "getblockcount")
	expect(t, f, 0, "btcd_rpc_errors_total", "method", "getblockcount")
	expect(t, f, 1, "btcd_rpc_errors_total", "method", "getblock")
	expect(t, f, 1, "btcd_rpc_calls_total", "method", OtherLabel)
	if find(f, "btcd_rpc_calls_total", "method", "nosuchmethod") != nil {
		t.Error("unlisted RPC method got its own series")
	}
	if c := find(f, "btcd_rpc_call_duration_seconds", "method", "getblock").GetHistogram().GetSampleCount(); c != 1 {
		t.Errorf("rpc latency count %d", c)
	}

	for _, name := range []string{"go_goroutines", "go_gc_duration_seconds", "go_cpu_classes_gc_total_cpu_seconds_total", "btcd_gc_cpu_fraction"} {
		if f[name] == nil {
			t.Errorf("runtime metric %s missing", name)
		}
	}
	if runtime.GOOS == "linux" && f["process_resident_memory_bytes"] == nil {
		t.Error("process collector missing")
	}
	if g := value(t, f, "btcd_gc_cpu_fraction"); g < 0 || g > 1 {
		t.Errorf("gc cpu fraction %v", g)
	}
}

func TestOnlyMetricsPathServed(t *testing.T) {
	s := serve(t, New(Options{NoRuntimeCollectors: true}))
	for _, p := range []string{"/", "/debug/pprof/"} {
		resp, err := http.Get("http://" + s.Addr().String() + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %s", p, resp.Status)
		}
	}
}

func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.SetSources(Sources{})
	m.BlockConnected(1, time.Second)
	m.BlockValidated(time.Second)
	m.BlockDisconnected()
	m.Reorg()
	m.ScriptChecks(1)
	m.UtxoFlushed(time.Second)
	m.PeerMessage("tx", true, 1)
	m.PeerBanned()
	m.TxAccepted()
	m.TxRejected("conflict")
	m.RPCCall("getinfo", time.Second, true)
	if m.Registry() != nil {
		t.Error("nil Metrics has a registry")
	}
	if _, err := Serve("127.0.0.1:0", nil); !errors.Is(err, ErrNoMetrics) {
		t.Errorf("Serve(nil) = %v", err)
	}
}

func TestNormalizeAddr(t *testing.T) {
	good := map[string]string{
		"9332":           "127.0.0.1:9332",
		":9332":          "127.0.0.1:9332",
		"0":              "127.0.0.1:0",
		"0.0.0.0:9332":   "0.0.0.0:9332",
		"localhost:9332": "localhost:9332",
		"[::1]:9332":     "[::1]:9332",
		"[::]:9332":      "[::]:9332",
		"10.0.0.1:1":     "10.0.0.1:1",
	}
	for in, want := range good {
		got, err := NormalizeAddr(in)
		if err != nil || got != want {
			t.Errorf("NormalizeAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "65536", "host", "::1", "host:http", "host:-1", "1.2.3.4:99999", "[::1"} {
		if got, err := NormalizeAddr(in); !errors.Is(err, ErrBadAddress) {
			t.Errorf("NormalizeAddr(%q) = %q, %v; want ErrBadAddress", in, got, err)
		}
	}
}

func TestServeErrors(t *testing.T) {
	m := New(Options{NoRuntimeCollectors: true})
	if _, err := Serve("nonsense", m); !errors.Is(err, ErrBadAddress) {
		t.Errorf("bad address: %v", err)
	}
	s := serve(t, m)
	if _, err := Serve(s.Addr().String(), m); err == nil {
		t.Error("second listener on a busy port succeeded")
	}
}

func TestCloseStopsServing(t *testing.T) {
	s, err := Serve("127.0.0.1:0", New(Options{NoRuntimeCollectors: true}))
	if err != nil {
		t.Fatal(err)
	}
	addr := s.Addr().String()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 2 * time.Second}
	if resp, err := c.Get("http://" + addr + Path); err == nil {
		resp.Body.Close()
		t.Error("endpoint still answers after Close")
	}
}

func TestGrowingRPCLabelsAreBounded(t *testing.T) {
	m := New(Options{NoRuntimeCollectors: true})
	for i := 0; i < DefaultMaxRPCMethods+50; i++ {
		m.RPCCall(fmt.Sprintf("m%d", i), time.Millisecond, false)
	}
	m.RPCCall("m0", time.Millisecond, false)
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	if n := len(byName["btcd_rpc_calls_total"].GetMetric()); n != DefaultMaxRPCMethods+1 {
		t.Errorf("%d RPC method series, want %d", n, DefaultMaxRPCMethods+1)
	}
	expect(t, byName, 50, "btcd_rpc_calls_total", "method", OtherLabel)
	expect(t, byName, 2, "btcd_rpc_calls_total", "method", "m0")
}

func TestFailingSourcesDoNotBreakScrape(t *testing.T) {
	m := New(Options{NoRuntimeCollectors: true, Sources: Sources{
		Chain:   func() ChainStats { panic("boom") },
		LevelDB: map[string]func(*leveldb.DBStats) error{"index": func(*leveldb.DBStats) error { return leveldb.ErrClosed }},
		Peers:   func() (int, int) { return 1, 2 },
	}})
	m.TxAccepted()
	s := serve(t, m)
	f := scrape(t, s.Addr())
	expect(t, f, 1, "btcd_mempool_txs_accepted_total")
	expect(t, f, 2, "btcd_peers_connected", "direction", "outbound")
	if f["btcd_chain_best_block_height"] != nil || f["btcd_leveldb_io_write_bytes_total"] != nil {
		t.Error("failing sources exported values")
	}
}

func TestConcurrentRecording(t *testing.T) {
	m := New(Options{NoRuntimeCollectors: true})
	const workers, per = 4, 2000
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				m.PeerMessage(PeerCommands[i%len(PeerCommands)], i%2 == 0, 10)
				m.RPCCall(fmt.Sprint("method", i%7), time.Microsecond, false)
				m.TxRejected(RejectReasons[(i+w)%len(RejectReasons)])
			}
		}(w)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				if _, err := m.Registry().Gather(); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	wg.Wait()
	close(done)
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var bytes, calls, rejects float64
	for _, f := range fams {
		for _, mt := range f.GetMetric() {
			switch f.GetName() {
			case "btcd_peers_bytes_total":
				bytes += mt.GetCounter().GetValue()
			case "btcd_rpc_calls_total":
				calls += mt.GetCounter().GetValue()
			case "btcd_mempool_txs_rejected_total":
				rejects += mt.GetCounter().GetValue()
			}
		}
	}
	if bytes != workers*per*10 || calls != workers*per || rejects != workers*per {
		t.Errorf("bytes %v calls %v rejects %v", bytes, calls, rejects)
	}
}

func TestHotPathsDoNotAllocate(t *testing.T) {
	m := New(Options{NoRuntimeCollectors: true})
	// First use creates each label's children; later calls must not
	// allocate.
	m.PeerMessage("block", true, 1)
	m.PeerMessage("xyz", false, 1)
	m.RPCCall("getblock", time.Millisecond, true)
	m.TxRejected("conflict")
	allocs := testing.AllocsPerRun(200, func() {
		m.BlockConnected(3000, 50*time.Millisecond)
		m.ScriptChecks(9000)
		m.PeerMessage("block", true, 1<<20)
		m.PeerMessage("xyz", false, 1)
		m.RPCCall("getblock", time.Millisecond, true)
		m.TxAccepted()
		m.TxRejected("conflict")
		m.UtxoFlushed(time.Second)
	})
	if allocs != 0 {
		t.Errorf("hot paths allocate %v times per run", allocs)
	}
}

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]*dto.MetricFamily, len(fams))
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

func TestFlushHistogramDerivedFromStats(t *testing.T) {
	var mu sync.Mutex
	st := UtxoCacheStats{}
	m := New(Options{NoRuntimeCollectors: true, Sources: Sources{
		UtxoCache: func() UtxoCacheStats { mu.Lock(); defer mu.Unlock(); return st },
		Chain:     func() ChainStats { return ChainStats{Orphans: -1} },
	}})
	set := func(n uint64, last, total time.Duration) {
		mu.Lock()
		st.Flushes, st.LastFlush, st.TotalFlush = n, last, total
		mu.Unlock()
	}
	hist := func() *dto.Histogram {
		return find(gather(t, m), "btcd_utxo_cache_flush_duration_seconds").GetHistogram()
	}
	if h := hist(); h.GetSampleCount() != 0 {
		t.Fatalf("count %d before any flush", h.GetSampleCount())
	}
	set(1, 2*time.Second, 2*time.Second)
	if h := hist(); h.GetSampleCount() != 1 || h.GetSampleSum() != 2 {
		t.Fatalf("after one flush: count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	// Three flushes between scrapes: observed at their mean, 1 s each.
	set(4, 1500*time.Millisecond, 5*time.Second)
	if h := hist(); h.GetSampleCount() != 4 || h.GetSampleSum() != 5 {
		t.Fatalf("after four flushes: count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	// A scrape with no new flush observes nothing.
	if h := hist(); h.GetSampleCount() != 4 {
		t.Fatalf("idle scrape changed count to %d", h.GetSampleCount())
	}
	if f := gather(t, m); f["btcd_chain_orphan_blocks"] != nil {
		t.Error("unknown orphan count exported")
	}
	// Reported flushes take over from the derivation.
	m.UtxoFlushed(time.Second)
	set(9, time.Second, 10*time.Second)
	if h := hist(); h.GetSampleCount() != 5 {
		t.Fatalf("after a pushed flush: count %d, want 5", h.GetSampleCount())
	}
}
