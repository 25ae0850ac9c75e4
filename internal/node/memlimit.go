package node

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The node's soft memory limit for the Go runtime follows the UTXO cache
// unless --memlimit or GOMEMLIMIT sets one.
//
// Why: the cache keeps its slabs and table outside the Go heap
// (database/offheap_linux.go), so the collector's goal is twice the live
// heap alone (GOGC=100), and nothing bounds the heap's share of the
// process by what the cache already holds. On the mainnet-scale chain at
// the default cache the heap (LevelDB memtables and batches, the flush's
// sorted keys and batch, blocks in flight) had 160-210 MB live and its
// mapping 440 MiB resident, the process 887 MiB against a 450 MiB budget;
// with this limit 253 and 684 MiB (docs/ibd.md, "Memory limit and the
// flush's sort").
// The limit gives the heap what the cache does not use of budget +
// memHeadroom, plus what the mempool accounts for; the collector then
// runs earlier and the scavenger returns freed pages sooner. The heap is
// mostly pointer-free buffers, so the extra cycles are cheap (GC went from
// 0.7% to 2.4% of the CPU there).

const (
	// memHeadroom is what the process may hold beyond the cache budget
	// and the mempool: Go heap, stacks and runtime, and the binary.
	memHeadroom = 250 << 20
	// memOutsideRuntime is the resident memory neither the cache's
	// OffHeap nor the Go runtime's limit sees: the binary's text and data
	// (about 17 MiB), a table array's copy while the cache resizes it and
	// the heap's overshoot of a soft limit between two collections.
	memOutsideRuntime = 56 << 20
	// memLimitFloor keeps a tiny cache budget from starving the heap.
	memLimitFloor = 96 << 20
	// memLimitEvery is how often the limit follows the cache; the
	// cache's resident memory moves by a few MiB a second while it fills
	// and drops at once after a flush.
	memLimitEvery = time.Second
)

// autoMemLimitWanted reports whether the node sets the limit itself:
// neither --memlimit nor GOMEMLIMIT (the Go runtime's own setting, "off"
// included) chose one.
func autoMemLimitWanted(memLimitMiB uint64, goMemLimitEnv string) bool {
	return memLimitMiB == 0 && goMemLimitEnv == ""
}

// autoMemLimit is the soft limit for the Go runtime, in bytes, given the
// cache budget, the cache's resident memory outside the heap, the
// mempool's accounted usage and the live heap. It stays a quarter above
// the live heap whatever the cache holds, so the collector never runs
// back to back (the heap then exceeds the headroom, and RSS the target).
func autoMemLimit(budget, offHeap, mempool, liveHeap int64) int64 {
	limit := budget + memHeadroom + mempool - offHeap - memOutsideRuntime
	return max(limit, liveHeap+liveHeap/4, memLimitFloor)
}

// liveHeapBytes is the heap the last collection marked live.
func liveHeapBytes() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// memLimitInputs is what the automatic limit is derived from.
type memLimitInputs struct {
	budget, offHeap, mempool, liveHeap int64
}

func (in memLimitInputs) limit() int64 {
	return autoMemLimit(in.budget, in.offHeap, in.mempool, in.liveHeap)
}

// memLimitInputs reads the cache's and the mempool's current state.
func (s *server) memLimitInputs() memLimitInputs {
	st := s.cache.Stats()
	return memLimitInputs{budget: st.MaxBytes, offHeap: st.OffHeap, mempool: s.pool.Usage(), liveHeap: liveHeapBytes()}
}

// followMemLimit keeps the runtime's limit following the cache until the
// node stops. The root daemon runs it, not the server, so that tests
// running several nodes in one process keep the runtime's defaults.
func (s *server) followMemLimit() {
	btcdLog.Infof("Go memory limit follows the UTXO cache: %d MiB budget + %d MiB + mempool - cache outside the Go heap (--memlimit or GOMEMLIMIT to fix one)",
		s.cache.Stats().MaxBytes>>20, memHeadroom>>20)
	var last int64
	t := time.NewTicker(memLimitEvery)
	defer t.Stop()
	for {
		in := s.memLimitInputs()
		limit := in.limit()
		debug.SetMemoryLimit(limit)
		if d := limit - last; d >= 32<<20 || d <= -32<<20 {
			btcdLog.Debugf("Go memory limit %d MiB (UTXO cache outside the heap %d MiB, mempool %d MiB, live heap %d MiB)",
				limit>>20, in.offHeap>>20, in.mempool>>20, in.liveHeap>>20)
			last = limit
		}
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
	}
}

// goMemLimitEnv is GOMEMLIMIT as the runtime read it at start.
var goMemLimitEnv = os.Getenv("GOMEMLIMIT")
