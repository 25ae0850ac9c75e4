package database

import (
	"slices"
	"unsafe"

	"github.com/syndtr/goleveldb/leveldb"
)

// A capture is the snapshot record of a pinned entry, taken by unpin just
// before the entry changed while a flush was writing; the flush writes it
// in the entry's place.
type capture struct {
	key    outKey
	off, n uint32 // value in captureSet.vals
	del    bool
}

// captureSet holds a write's captures so that they join its batches in key
// order. Each batch's coin keys then form one narrow run of the key space,
// so the table LevelDB writes for it overlaps only that run in the next
// level. Captures written as they arrive made every batch's first table
// span all coins, and each of its compactions rewrote the whole next level.
//
// The fields are guarded by the cache lock.
type captureSet struct {
	on      bool      // the write has records left to serialize
	arrived []capture // since the write's last step, in arrival order
	pending []capture // key order; pending[head:] are not yet serialized,
	head    int       // and their keys follow the last one serialized
	spare   []capture // merge buffer, swapped with pending
	vals    []byte
}

// add captures e's current state.
func (s *captureSet) add(c *UtxoCache, e *cacheEntry) {
	rec := capture{key: e.key, off: uint32(len(s.vals)), del: e.flags&flagSpent != 0}
	if !rec.del {
		s.vals = c.appendValue(s.vals, e)
		rec.n = uint32(len(s.vals)) - rec.off
	}
	s.arrived = append(s.arrived, rec)
}

// merge moves the captures that arrived since the last step into pending,
// dropping those whose key is at or before last (when haveLast): their
// entries were still pinned when the write passed them, so their snapshot
// record, identical to the capture, is serialized already.
func (s *captureSet) merge(last *outKey, haveLast bool) {
	if len(s.arrived) == 0 {
		return
	}
	in := s.arrived
	if haveLast {
		in = slices.DeleteFunc(in, func(r capture) bool { return compareKeys(&r.key, last) <= 0 })
	}
	slices.SortFunc(in, func(a, b capture) int { return compareKeys(&a.key, &b.key) })
	out := s.spare[:0]
	p := s.pending[s.head:]
	for len(p) > 0 && len(in) > 0 {
		if compareKeys(&p[0].key, &in[0].key) < 0 {
			out, p = append(out, p[0]), p[1:]
		} else {
			out, in = append(out, in[0]), in[1:]
		}
	}
	out = append(append(out, p...), in...)
	s.spare, s.pending, s.head = s.pending[:0], out, 0
	s.arrived = s.arrived[:0]
}

// emitBefore appends to b the pending captures with keys before k (all of
// them if k is nil); if it appended any, last becomes the key of the last
// one.
func (s *captureSet) emitBefore(b *leveldb.Batch, k, last *outKey) {
	var keyBuf [maxCoinKeyLen]byte
	i := s.head
	for ; i < len(s.pending) && (k == nil || compareKeys(&s.pending[i].key, k) < 0); i++ {
		r := &s.pending[i]
		key := appendCoinKey(keyBuf[:0], &r.key)
		if r.del {
			b.Delete(key)
		} else {
			b.Put(key, s.vals[r.off:r.off+r.n])
		}
	}
	if i > s.head {
		*last = s.pending[i-1].key
		s.head = i
	}
}

// reset empties the set for the next write, letting go of buffers that a
// write with many changes grew past 1 MiB.
func (s *captureSet) reset() {
	s.on = false
	if cap(s.vals) > 1<<20 || cap(s.arrived)+cap(s.pending)+cap(s.spare) > 1<<20/captureSize {
		*s = captureSet{}
		return
	}
	s.arrived, s.pending, s.spare, s.vals, s.head = s.arrived[:0], s.pending[:0], s.spare[:0], s.vals[:0], 0
}

// memUsage is the size of the set's backing arrays.
func (s *captureSet) memUsage() int64 {
	return int64(cap(s.vals)) + int64(cap(s.arrived)+cap(s.pending)+cap(s.spare))*int64(captureSize)
}

// captureSize is the memory of one capture record.
const captureSize = int(unsafe.Sizeof(capture{}))
