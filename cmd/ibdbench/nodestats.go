package main

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// storeStats are the UTXO cache and chainstate figures of the measured
// node at the tip, from its metrics, and the flush lock pause from its
// closing log line.
type storeStats struct {
	// Bytes LevelDB read from and wrote to the chainstate's files
	// (goleveldb's own counters: reads served by the page cache count).
	ChainstateReadMiB  float64 `json:"chainstate_read_mib"`
	ChainstateWriteMiB float64 `json:"chainstate_write_mib"`
	CompactionSeconds  float64 `json:"chainstate_compaction_s"`
	WriteDelaySeconds  float64 `json:"chainstate_write_delay_s"`
	CacheHits          uint64  `json:"utxo_hits"`
	CacheMisses        uint64  `json:"utxo_misses"`
	Evictions          uint64  `json:"utxo_evictions"`
	Flushes            uint64  `json:"utxo_flushes"`
	FlushSeconds       float64 `json:"utxo_flush_s"`
	// BlocksOver1s counts blocks whose validation and connection took
	// more than a second; LongestBlockLE is the upper bound of the
	// histogram bucket holding the slowest block (-1: beyond the last).
	BlocksOver1s   uint64  `json:"blocks_over_1s"`
	LongestBlockLE float64 `json:"longest_block_le_s"`
	// LongestLockPauseS is the UTXO cache's longest single lock hold
	// during a flush (CacheStats.LongestPause, logged at shutdown, so the
	// final flush after the tail is included).
	LongestLockPauseS float64 `json:"longest_flush_lock_s,omitempty"`
}

// storeMetrics fetches the node's /metrics page and picks the series.
func (n *node) storeMetrics() (*storeStats, error) {
	resp, err := n.client.Get("http://" + n.metricsAddr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return parseStoreMetrics(io.LimitReader(resp.Body, 64<<20))
}

// parseStoreMetrics reads Prometheus text exposition (labels in the
// sorted order the client library writes them).
func parseStoreMetrics(r io.Reader) (*storeStats, error) {
	s := &storeStats{}
	const cs = `{db="chainstate"}`
	buckets := map[float64]float64{}
	var count float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		name := line[:i]
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		switch {
		case name == "btcd_leveldb_io_read_bytes_total"+cs:
			s.ChainstateReadMiB = round(v/(1<<20), 1)
		case name == "btcd_leveldb_io_write_bytes_total"+cs:
			s.ChainstateWriteMiB = round(v/(1<<20), 1)
		case strings.HasPrefix(name, `btcd_leveldb_compaction_seconds_total{db="chainstate",`):
			s.CompactionSeconds = round(s.CompactionSeconds+v, 3)
		case name == "btcd_leveldb_write_delay_seconds_total"+cs:
			s.WriteDelaySeconds = round(v, 3)
		case name == "btcd_utxo_cache_hits_total":
			s.CacheHits = uint64(v)
		case name == "btcd_utxo_cache_misses_total":
			s.CacheMisses = uint64(v)
		case name == "btcd_utxo_cache_evictions_total":
			s.Evictions = uint64(v)
		case name == "btcd_utxo_cache_flushes_total":
			s.Flushes = uint64(v)
		case name == "btcd_utxo_cache_flush_pause_seconds_total":
			s.FlushSeconds = round(v, 3)
		case name == "btcd_chain_block_validation_duration_seconds_count":
			count = v
		case strings.HasPrefix(name, `btcd_chain_block_validation_duration_seconds_bucket{le="`):
			le := strings.TrimSuffix(strings.TrimPrefix(name, `btcd_chain_block_validation_duration_seconds_bucket{le="`), `"}`)
			if b, err := strconv.ParseFloat(le, 64); err == nil {
				buckets[b] = v
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	s.BlocksOver1s = uint64(count - buckets[1])
	for le, c := range buckets {
		if math.IsInf(le, 1) {
			continue
		}
		if c >= count && (s.LongestBlockLE == 0 || le < s.LongestBlockLE) {
			s.LongestBlockLE = le
		}
	}
	if s.LongestBlockLE == 0 && count > 0 {
		s.LongestBlockLE = -1
	}
	return s, nil
}

var lockPauseRE = regexp.MustCompile(`longest lock pause ([0-9.]+[a-zµ]+)\)`)

// longestLockPause reads the UTXO cache's closing summary from the
// node's log (0 if absent).
func (n *node) longestLockPause() float64 {
	b, err := os.ReadFile(filepath.Join(n.dir, "logs", "regtest", "btcd.log"))
	if err != nil {
		return 0
	}
	i := bytes.LastIndex(b, []byte("UTXO cache since start:"))
	if i < 0 {
		return 0
	}
	m := lockPauseRE.FindSubmatch(b[i:])
	if m == nil {
		return 0
	}
	d, err := time.ParseDuration(string(m[1]))
	if err != nil {
		return 0
	}
	return round(d.Seconds(), 4)
}
