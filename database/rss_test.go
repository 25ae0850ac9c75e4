package database

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// rssEnv selects the child mode of TestSmallBudgetRSS: "fixed" opens the
// chainstate with the budget-independent defaults, "scaled" passes the
// cache budget (ChainStateOptions.CacheBudget).
const rssEnv = "DB_RSS_CHILD"

// TestSmallBudgetRSS measures the peak RSS (VmHWM) of a process that
// pushes 500k coins through a 10 MiB UTXO cache (many flushes, spends that
// miss the cache and read LevelDB). Peak RSS is per process, so each
// configuration runs in a fresh child. It takes ~30 s of CPU, so it runs
// only with DB_RSS_TEST=1:
//
//	DB_RSS_TEST=1 go test ./database/ -run '^TestSmallBudgetRSS$' -v
func TestSmallBudgetRSS(t *testing.T) {
	if os.Getenv(rssEnv) != "" {
		rssChild(t, os.Getenv(rssEnv))
		return
	}
	if os.Getenv("DB_RSS_TEST") == "" {
		t.Skip("set DB_RSS_TEST=1 to measure")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no test executable")
	}
	for _, mode := range []string{"fixed", "scaled"} {
		cmd := exec.Command(exe, "-test.run=^TestSmallBudgetRSS$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), rssEnv+"="+mode+","+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s child: %v\n%s", mode, err, out)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "RSS peak"); i >= 0 {
				t.Logf("%s: %s", mode, sc.Text()[i:])
			} else if i := strings.Index(sc.Text(), "live heap"); i >= 0 {
				t.Logf("%s: %s", mode, sc.Text()[i:])
			}
		}
	}
}

func rssChild(t *testing.T, arg string) {
	mode, dir, _ := strings.Cut(arg, ",")
	const budget = 10 << 20
	o := ChainStateOptions{NoSyncOnFlush: true}
	if mode == "scaled" {
		o.CacheBudget = budget
	}
	base := vmStatus(t, "VmHWM")
	cs, err := OpenChainState(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: budget})

	const blocks, outs, spends = 250, 2000, 1000
	txid := func(h int) wire.Hash {
		return sha256.Sum256(binary.LittleEndian.AppendUint64(nil, uint64(h)))
	}
	spent := make([]bool, blocks*outs)
	rng := rand.New(rand.NewPCG(1, 2))
	script := make([]byte, 25)
	copy(script, []byte{0x76, 0xa9, 0x14})
	script[23], script[24] = 0x88, 0xac
	var heapPeak uint64
	var ms runtime.MemStats
	flushes := 0
	start := time.Now()
	for h := range blocks {
		for range spends {
			if h == 0 {
				break
			}
			k := rng.IntN(h * outs) // an output of an earlier block
			if spent[k] {
				continue
			}
			spent[k] = true
			op := wire.OutPoint{Hash: txid(k / outs), Index: uint32(k % outs)}
			var e UtxoEntry
			if ok, err := c.SpendEntry(&op, &e); err != nil || !ok {
				t.Fatalf("spend %v: %v %v", op, ok, err)
			}
		}
		id := txid(h)
		for j := range outs {
			binary.LittleEndian.PutUint64(script[3:], rng.Uint64())
			binary.LittleEndian.PutUint64(script[11:], rng.Uint64())
			op := wire.OutPoint{Hash: id, Index: uint32(j)}
			e := UtxoEntry{Amount: int64(j) + 1, PkScript: script, Height: int32(h)}
			if err := c.AddEntry(&op, &e, false); err != nil {
				t.Fatal(err)
			}
		}
		if c.NeedsFlush() || h == blocks-1 {
			if err := c.Flush(id, int32(h)); err != nil {
				t.Fatal(err)
			}
			flushes++
			runtime.ReadMemStats(&ms)
			heapPeak = max(heapPeak, ms.HeapInuse)
		}
	}
	if f := os.Getenv("DB_RSS_HEAPPROF"); f != "" {
		pf, _ := os.Create(f + "." + mode)
		pprof.WriteHeapProfile(pf)
		pf.Close()
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	live := ms.HeapAlloc
	t.Logf("live heap after GC %d MiB, cache MemUsage %d MiB", live>>20, c.Stats().MemUsage>>20)
	t.Logf("RSS peak %d MiB (baseline %d MiB), Go heap in use peak at flush %d MiB, Sys %d MiB, %d flushes, %.1fs",
		vmStatus(t, "VmHWM")>>10, base>>10, heapPeak>>20, ms.Sys>>20, flushes, time.Since(start).Seconds())
}

// vmStatus returns a /proc/self/status field in KiB.
func vmStatus(t *testing.T, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func TestScaledLevelMem(t *testing.T) {
	for _, c := range []struct {
		budget int64
		wb     int
	}{
		{1 << 20, 12 << 20},
		{10 << 20, 12 << 20},
		{100 << 20, 12 << 20},
		{450 << 20, 14400 << 10},
		{4 << 30, 64 << 20},
	} {
		if wb := scaledLevelMem(c.budget); wb != c.wb {
			t.Errorf("budget %d: got %d, want %d", c.budget, wb, c.wb)
		}
	}
}
