// Package clock is the node's one source of wall-clock time. Regression
// tests freeze it at a chosen second (the setmocktime RPC, -mocktime), as
// Bitcoin Core's mockable GetTime: every rule that depends on the time of
// day (block timestamps, the initial-download state, peer time-outs and
// pings, mempool expiry, fee estimation, address and ban expiry) reads it
// here instead of calling time.Now.
//
// Durations measured for their own sake (how long a flush took, a socket
// deadline) keep using the time package: mock time does not advance.
package clock

import (
	"sync"
	"sync/atomic"
	"time"
)

// mock is the frozen time in Unix seconds; 0 means real time.
var mock atomic.Int64

// Now returns the mock time when one is set, else the real time.
func Now() time.Time {
	if m := mock.Load(); m != 0 {
		return time.Unix(m, 0)
	}
	return time.Now()
}

// Unix returns Now in Unix seconds.
func Unix() int64 {
	if m := mock.Load(); m != 0 {
		return m
	}
	return time.Now().Unix()
}

// Since returns the time elapsed since t by Now.
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// SetMock freezes the clock at sec (Unix seconds); 0 returns to real time.
// Those waiting in Changed are woken.
func SetMock(sec int64) {
	mock.Store(sec)
	changedMu.Lock()
	close(changed)
	changed = make(chan struct{})
	changedMu.Unlock()
}

// Mock returns the mock time in Unix seconds, 0 when the clock is real.
func Mock() int64 { return mock.Load() }

var (
	changedMu sync.Mutex
	changed   = make(chan struct{})
)

// Changed returns a channel closed the next time the mock time is set, so
// loops that wait for a deadline by Now can re-check it at once instead of
// sleeping through a jump of the clock.
func Changed() <-chan struct{} {
	changedMu.Lock()
	defer changedMu.Unlock()
	return changed
}
