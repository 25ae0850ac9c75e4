package database

import (
	"runtime"
	"unsafe"
)

// offheap holds the memory a cache maps outside the Go heap (see
// offheap_linux.go): the slab region and the current table array. A
// cleanup on the cache unmaps both once the cache is unreachable.
type offheap struct {
	region []byte // slab chunk i lives at i*chunkBytes while it fits
	slots  []byte // the table's current array, if mapped
}

// chunkBytes is the size of one slab chunk.
const chunkBytes = slabLen * entrySize

// slabRegionBytes is the address space reserved for the slabs of a cache
// with budget maxBytes: twice the budget, as the cache may briefly exceed
// it while every entry is dirty. Chunks beyond it come from the Go heap.
func slabRegionBytes(maxBytes int64) int {
	n := (2*maxBytes + hugePage - 1) / hugePage * hugePage
	return int(min(n, 1<<40))
}

// attachOffheap gives c its slab region and registers the cleanup. Without
// one (other platforms, or mmap refused) the cache keeps using the heap.
func attachOffheap(c *UtxoCache) {
	if !offheapOK {
		return
	}
	m := &offheap{}
	if region, err := mapAligned(slabRegionBytes(c.maxBytes)); err == nil {
		m.region = region
		c.slabs.region = region
	}
	c.table.mem = m
	runtime.AddCleanup(c, (*offheap).free, m)
}

func (m *offheap) free() {
	unmap(m.region)
	unmap(m.slots)
	m.region, m.slots = nil, nil
}

// entriesAt views chunkBytes of mapped memory as a slab chunk.
func entriesAt(mem []byte) []cacheEntry {
	return unsafe.Slice((*cacheEntry)(unsafe.Pointer(unsafe.SliceData(mem))), slabLen)
}

// makeSlots returns a zeroed table array of n slots, mapped on huge pages
// when it is at least one huge page and m allows it (m.slots then records
// the mapping; the previous one is the caller's to release).
func makeSlots(m *offheap, n int) (slots []uint64, mapped []byte) {
	if m != nil && n*8 >= hugePage {
		if mem, err := mapAligned(n * 8); err == nil {
			return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(mem))), n), mem
		}
	}
	return make([]uint64, n), nil
}
