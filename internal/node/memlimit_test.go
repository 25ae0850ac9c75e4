package node

import (
	"runtime/debug"
	"testing"
	"time"
)

func TestAutoMemLimitWanted(t *testing.T) {
	for _, c := range []struct {
		mib  uint64
		env  string
		want bool
	}{
		{0, "", true},
		{300, "", false},   // --memlimit fixes the limit
		{0, "1GiB", false}, // GOMEMLIMIT as the runtime reads it
		{0, "off", false},  // GOMEMLIMIT=off: no limit at all
	} {
		if got := autoMemLimitWanted(c.mib, c.env); got != c.want {
			t.Errorf("autoMemLimitWanted(%d, %q) = %v, want %v", c.mib, c.env, got, c.want)
		}
	}
}

func TestAutoMemLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name                               string
		budget, offHeap, mempool, liveHeap int64
		want                               int64
	}{
		// The default cache at its peak on the mainnet-scale chain.
		{"full cache", 450 * mib, 362 * mib, 0, 180 * mib, (450 + 250 - 362 - 56) * mib},
		// While the cache fills the heap may use what it does not.
		{"empty cache", 450 * mib, 0, 0, 20 * mib, (450 + 250 - 56) * mib},
		// The mempool's accounted memory is added, not squeezed.
		{"mempool", 450 * mib, 362 * mib, 300 * mib, 180 * mib, (450 + 250 - 362 - 56 + 300) * mib},
		// Never within a quarter of the live heap: no back-to-back GC.
		{"live heap over headroom", 450 * mib, 440 * mib, 0, 400 * mib, 500 * mib},
		// A cache over its budget (all dirty) cannot push the limit
		// below the floor.
		{"floor", 4 * mib, 200 * mib, 0, 10 * mib, memLimitFloor},
	} {
		if got := autoMemLimit(c.budget, c.offHeap, c.mempool, c.liveHeap); got != c.want {
			t.Errorf("%s: autoMemLimit = %d MiB, want %d MiB", c.name, got>>20, c.want>>20)
		}
	}
}

// TestFollowMemLimit checks that a node's limit is derived from its cache
// and mempool and reaches the runtime.
func TestFollowMemLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) }) // after the node stops
	n := newTestNode(t)
	in := n.s.memLimitInputs()
	if in.budget != 64<<20 {
		t.Errorf("budget %d, want the node's --utxocachemaxsize=64", in.budget)
	}
	if in.offHeap < 0 || in.offHeap > 2*in.budget {
		t.Errorf("cache outside the heap: %d bytes", in.offHeap)
	}
	if in.liveHeap <= 0 {
		t.Errorf("live heap %d bytes", in.liveHeap)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.s.followMemLimit()
	}()
	t.Cleanup(func() { n.s.Stop(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := debug.SetMemoryLimit(-1)
		if got >= memLimitFloor && got <= in.budget+memHeadroom {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runtime limit %d, want one derived from a 64 MiB cache (at most %d)", got, in.budget+memHeadroom)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
