package main

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// sample is one poll of the measured node's height, with what its
// process had used by then.
type sample struct {
	at     time.Duration // since the node was started
	height int64
	rssKiB uint64
	io     procIO
	cpuS   float64 // the process's user+system CPU seconds so far
	// From the node's metrics, fetched at most every metricsEvery (the
	// last fetch's values in between): chainstate compaction seconds and
	// UTXO cache misses so far.
	compactionS float64
	misses      uint64
}

// metricsEvery is how often the polls also fetch the node's metrics.
const metricsEvery = 250 * time.Millisecond

// progress records a sample at every height poll of the measured node.
type progress struct {
	pid     int
	start   time.Time
	samples []sample
	// metrics, if set, fetches the node's store metrics.
	metrics   func() (*storeStats, error)
	lastFetch time.Duration
}

// record is the node's onPoll hook.
func (p *progress) record(height int64) {
	s := sample{at: time.Since(p.start), height: height}
	s.rssKiB, _ = procStatusKiB(p.pid, "VmRSS:")
	s.io, _ = readProcIO(p.pid)
	s.cpuS, _ = procCPUSeconds(p.pid)
	if n := len(p.samples); n > 0 {
		s.compactionS, s.misses = p.samples[n-1].compactionS, p.samples[n-1].misses
	}
	if p.metrics != nil && (len(p.samples) == 0 || s.at-p.lastFetch >= metricsEvery) {
		if st, err := p.metrics(); err == nil {
			s.compactionS, s.misses = st.CompactionSeconds, st.CacheMisses
			p.lastFetch = s.at
		}
	}
	p.samples = append(p.samples, s)
}

// tenth is the sync of one tenth of the chain's transactions.
type tenth struct {
	Tenth      int     `json:"tenth"`
	FromHeight int64   `json:"from_height"` // last block of the previous tenth
	ToHeight   int64   `json:"to_height"`
	Txs        int     `json:"txs"`
	Seconds    float64 `json:"s"`
	TxPerSec   float64 `json:"tx_per_s"`
	MaxRSSMiB  float64 `json:"max_rss_mib"`
	// Bytes the node's process read from and wrote to storage during
	// the tenth (/proc/PID/io read_bytes and write_bytes: page cache
	// hits are not reads).
	ReadMiB  float64 `json:"read_mib"`
	WriteMiB float64 `json:"write_mib"`
	// CPUSeconds is the process's CPU time in the tenth (user+system, in
	// ticks of 10 ms), and Cores that over the tenth's wall time: on a
	// machine of N cores, near N means the tenth was bound by CPU.
	CPUSeconds float64 `json:"cpu_s"`
	Cores      float64 `json:"cores"`
	// CompactionS is the chainstate's compaction time and Misses the UTXO
	// cache's misses in the tenth, from metrics fetched every 250 ms.
	CompactionS float64 `json:"compaction_s"`
	Misses      uint64  `json:"utxo_misses"`
	// LongestStallS is the longest time the height stood still within
	// the tenth, as seen by the polls (so up to one poll interval more
	// than the real pause).
	LongestStallS float64 `json:"longest_stall_s"`
}

// stall is the longest interval between two observed height changes
// after the coinbase-only prefix, and the height that ended it.
type stall struct {
	seconds float64
	height  int64
}

// tenths splits the sync into ten parts of equal transaction counts.
// cum[h] is the number of non-coinbase transactions in blocks 1..h. The
// first part starts when the node reaches the last block before the
// first transaction, so start-up and the header download are not in it.
func tenths(cum []int, samples []sample) ([]tenth, stall) {
	var longest stall
	last := len(cum) - 1
	if last < 1 || len(samples) == 0 || cum[last] == 0 {
		return nil, longest
	}
	total := cum[last]
	var bounds [11]int64
	h := 0
	for h < last && cum[h+1] == 0 {
		h++
	}
	bounds[0] = int64(h)
	for k := 1; k <= 10; k++ {
		want := (total*k + 9) / 10
		for h < last && cum[h] < want {
			h++
		}
		bounds[k] = int64(h)
	}
	// reached[k] is the first sample at or past bounds[k].
	var reached [11]int
	for k := range reached {
		reached[k] = -1
	}
	for i, s := range samples {
		for k := range reached {
			if reached[k] < 0 && s.height >= bounds[k] {
				reached[k] = i
			}
		}
	}
	out := make([]tenth, 0, 10)
	for k := 1; k <= 10; k++ {
		a, b := reached[k-1], reached[k]
		if a < 0 || b < 0 {
			break
		}
		sa, sb := samples[a], samples[b]
		t := tenth{Tenth: k, FromHeight: bounds[k-1], ToHeight: bounds[k],
			Txs:      cum[bounds[k]] - cum[bounds[k-1]],
			Seconds:  round((sb.at - sa.at).Seconds(), 3),
			ReadMiB:  round(float64(sb.io.readBytes-min(sa.io.readBytes, sb.io.readBytes))/(1<<20), 1),
			WriteMiB: round(float64(sb.io.writeBytes-min(sa.io.writeBytes, sb.io.writeBytes))/(1<<20), 1),
		}
		t.CPUSeconds = round(max(sb.cpuS-sa.cpuS, 0), 2)
		t.CompactionS = round(max(sb.compactionS-sa.compactionS, 0), 2)
		t.Misses = sb.misses - min(sa.misses, sb.misses)
		if t.Seconds > 0 {
			t.TxPerSec = round(float64(t.Txs)/t.Seconds, 0)
			t.Cores = round(t.CPUSeconds/t.Seconds, 2)
		}
		changed := sa.at
		for i := a + 1; i <= b; i++ {
			s := samples[i]
			t.MaxRSSMiB = max(t.MaxRSSMiB, round(float64(s.rssKiB)/1024, 1))
			if s.height > samples[i-1].height {
				gap := (s.at - changed).Seconds()
				t.LongestStallS = max(t.LongestStallS, round(gap, 3))
				if gap > longest.seconds {
					longest = stall{seconds: round(gap, 3), height: s.height}
				}
				changed = s.at
			}
		}
		out = append(out, t)
	}
	return out, longest
}

// procIO is the part of /proc/PID/io the benchmark reports.
type procIO struct {
	readBytes, writeBytes uint64 // to and from storage
	rchar, wchar          uint64 // through read/write calls, page cache included
}

func readProcIO(pid int) (procIO, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return procIO{}, err
	}
	defer f.Close()
	return parseProcIO(f)
}

func parseProcIO(r io.Reader) (procIO, error) {
	var p procIO
	sc := bufio.NewScanner(io.LimitReader(r, 1<<16))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "read_bytes":
			p.readBytes = n
		case "write_bytes":
			p.writeBytes = n
		case "rchar":
			p.rchar = n
		case "wchar":
			p.wchar = n
		}
	}
	return p, sc.Err()
}

// scale fills the at-scale fields at the tip: per-tenth figures from the
// polls, the process's I/O so far, and the node's store metrics.
func (r *result) scale(n *node, p *progress, cum []int) error {
	var st stall
	r.Tenths, st = tenths(cum, p.samples)
	r.LongestStallS, r.LongestStallHeight = st.seconds, st.height
	if len(r.Tenths) == 10 && r.Tenths[9].TxPerSec > 0 {
		r.LastVsFirstTenth = round(r.Tenths[0].TxPerSec/r.Tenths[9].TxPerSec, 3)
	}
	if pio, err := readProcIO(n.cmd.Process.Pid); err == nil {
		const mib = 1 << 20
		r.ReadMiB, r.WriteMiB = round(float64(pio.readBytes)/mib, 1), round(float64(pio.writeBytes)/mib, 1)
		r.RcharMiB, r.WcharMiB = round(float64(pio.rchar)/mib, 1), round(float64(pio.wchar)/mib, 1)
	}
	var err error
	r.Store, err = n.storeMetrics()
	return err
}
