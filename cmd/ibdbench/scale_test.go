package main

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseFlagsMainnetScale(t *testing.T) {
	o, err := parseFlags([]string{"-size", "mainnet-scale", "-assumevalid", "tip"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.chainDir != "/tmp/cg-mainnet-scale" || o.sigbench || o.tail != 2100 {
		t.Fatalf("unexpected options %+v", o)
	}
}

// TestTenths feeds polls of a made-up sync: 100 empty blocks, then 20
// blocks of 10 transactions, one block per second using 1.5 CPU-s each,
// except a 3 s stall before block 115.
func TestTenths(t *testing.T) {
	cum := make([]int, 121)
	for h := 101; h <= 120; h++ {
		cum[h] = cum[h-1] + 10
	}
	var samples []sample
	at := 5 * time.Second
	samples = append(samples, sample{at: at, height: 100, rssKiB: 1024})
	for h := int64(101); h <= 120; h++ {
		step := time.Second
		if h == 115 {
			step = 3 * time.Second
			samples = append(samples, sample{at: at + time.Second, height: h - 1})
		}
		at += step
		samples = append(samples, sample{at: at, height: h, rssKiB: uint64(h) * 1024,
			io:   procIO{readBytes: uint64(h) << 20, writeBytes: uint64(2*h) << 20},
			cpuS: 1.5 * float64(h-100)})
	}
	got, st := tenths(cum, samples)
	if len(got) != 10 {
		t.Fatalf("%d tenths", len(got))
	}
	for i, x := range got {
		if x.Txs != 20 || x.ToHeight != int64(100+2*(i+1)) {
			t.Errorf("tenth %d: %+v", i+1, x)
		}
	}
	if got[0].TxPerSec != 10 || got[0].Seconds != 2 || got[0].MaxRSSMiB != 102 || got[1].WriteMiB != 4 ||
		got[0].CPUSeconds != 3 || got[0].Cores != 1.5 {
		t.Errorf("first tenths %+v %+v", got[0], got[1])
	}
	if got[7].Seconds != 4 || got[7].Cores != 0.75 || got[7].LongestStallS != 3 || got[6].LongestStallS != 1 {
		t.Errorf("stalled tenth %+v", got[7])
	}
	if st.seconds != 3 || st.height != 115 {
		t.Errorf("longest stall %+v", st)
	}
	if x, _ := tenths([]int{0}, samples); x != nil {
		t.Errorf("empty chain: %v", x)
	}
}

func TestParseProcIO(t *testing.T) {
	p, err := parseProcIO(strings.NewReader("rchar: 10\nwchar: 20\nsyscr: 1\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n"))
	if err != nil || p != (procIO{readBytes: 4096, writeBytes: 8192, rchar: 10, wchar: 20}) {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := os.Stat("/proc/self/io"); err == nil {
		if _, err := readProcIO(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseStoreMetrics(t *testing.T) {
	page := `# TYPE btcd_leveldb_io_read_bytes_total counter
btcd_leveldb_io_read_bytes_total{db="chainstate"} 2.097152e+06
btcd_leveldb_io_read_bytes_total{db="index"} 99
btcd_leveldb_io_write_bytes_total{db="chainstate"} 1048576
btcd_leveldb_compaction_seconds_total{db="chainstate",level="0"} 1.5
btcd_leveldb_compaction_seconds_total{db="chainstate",level="1"} 2
btcd_leveldb_compaction_seconds_total{db="index",level="0"} 7
btcd_utxo_cache_misses_total 12
btcd_utxo_cache_flushes_total 3
btcd_chain_block_validation_duration_seconds_bucket{le="0.5"} 90
btcd_chain_block_validation_duration_seconds_bucket{le="1"} 97
btcd_chain_block_validation_duration_seconds_bucket{le="2.5"} 100
btcd_chain_block_validation_duration_seconds_bucket{le="5"} 100
btcd_chain_block_validation_duration_seconds_bucket{le="+Inf"} 100
btcd_chain_block_validation_duration_seconds_count 100
`
	s, err := parseStoreMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if s.ChainstateReadMiB != 2 || s.ChainstateWriteMiB != 1 || s.CompactionSeconds != 3.5 ||
		s.CacheMisses != 12 || s.Flushes != 3 || s.BlocksOver1s != 3 || s.LongestBlockLE != 2.5 {
		t.Fatalf("got %+v", s)
	}
	s, err = parseStoreMetrics(strings.NewReader("btcd_chain_block_validation_duration_seconds_bucket{le=\"+Inf\"} 4\nbtcd_chain_block_validation_duration_seconds_count 4\n"))
	if err != nil || s.LongestBlockLE != -1 {
		t.Fatalf("beyond the buckets: %+v %v", s, err)
	}
}
