package wire

import (
	"math/bits"
	"sync"
)

// Buffers are pooled in power-of-two size classes from 256 bytes to 8 MiB,
// which covers every message payload (at most MaxProtocolMessageLength) and
// every serialized block. Larger requests are allocated and not pooled.
const (
	minPoolShift = 8
	maxPoolShift = 23
)

var bufPools [maxPoolShift - minPoolShift + 1]sync.Pool

func poolClass(size int) int {
	if size <= 1<<minPoolShift {
		return 0
	}
	return bits.Len(uint(size-1)) - minPoolShift
}

// GetBuffer returns a buffer of length size from a size-classed pool. Its
// contents are arbitrary. Return it with PutBuffer when done; a buffer that
// is never returned is simply collected.
func GetBuffer(size int) *[]byte {
	c := poolClass(size)
	if c >= len(bufPools) {
		b := make([]byte, size)
		return &b
	}
	if v := bufPools[c].Get(); v != nil {
		bp := v.(*[]byte)
		*bp = (*bp)[:size]
		return bp
	}
	b := make([]byte, size, 1<<(c+minPoolShift))
	return &b
}

// PutBuffer returns a buffer obtained from GetBuffer (possibly grown by
// append) to its pool. Buffers whose capacity is not a pool class are
// dropped, so a grown buffer never lands in a smaller class.
func PutBuffer(bp *[]byte) {
	if bp == nil {
		return
	}
	c := cap(*bp)
	if c < 1<<minPoolShift || c&(c-1) != 0 {
		return
	}
	class := bits.Len(uint(c)) - 1 - minPoolShift
	if class >= len(bufPools) {
		return
	}
	*bp = (*bp)[:0]
	bufPools[class].Put(bp)
}
