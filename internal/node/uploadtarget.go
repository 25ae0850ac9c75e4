package node

import (
	"sync"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// uploadTarget implements --maxuploadtarget as Core's outbound limit: the
// bytes sent to peers are counted per 24-hour cycle of node time, and once
// the target is near, historical blocks (more than a week older than the
// best header) are refused to peers without the download permission, so
// what is left of the budget still relays every new block.
type uploadTarget struct {
	limit uint64 // bytes per cycle; 0 = no limit

	mu         sync.Mutex
	cycleStart time.Time
	sent       uint64
}

// uploadCycle is the length of a cycle (Core's MAX_UPLOAD_TIMEFRAME).
const uploadCycle = 24 * time.Hour

// historicalBlockAge is the age beyond which a block counts as
// historical (Core's HISTORICAL_BLOCK_AGE).
const historicalBlockAge = 7 * 24 * time.Hour

// record counts n bytes sent, starting a new cycle when the last one ended.
func (u *uploadTarget) record(n int) {
	if u == nil || u.limit == 0 || n <= 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.rollLocked(clock.Now())
	u.sent += uint64(n)
}

func (u *uploadTarget) rollLocked(now time.Time) {
	if u.cycleStart.IsZero() || now.Sub(u.cycleStart) > uploadCycle {
		u.cycleStart, u.sent = now, 0
	}
}

// timeLeftLocked is what remains of the current cycle (a whole one when
// none has started or the last is over).
func (u *uploadTarget) timeLeftLocked(now time.Time) time.Duration {
	if u.cycleStart.IsZero() || now.Sub(u.cycleStart) > uploadCycle {
		return uploadCycle
	}
	return max(u.cycleStart.Add(uploadCycle).Sub(now), 0)
}

// reached reports whether the target is reached; with historical, whether
// what is left no longer covers a maximal block every ten minutes of the
// rest of the cycle (the limit for serving old blocks).
func (u *uploadTarget) reached(historical bool) bool {
	if u == nil || u.limit == 0 {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	now := clock.Now()
	sent := u.sentLocked(now)
	if historical {
		buffer := uint64(u.timeLeftLocked(now)/(10*time.Minute)) * wire.MaxBlockSerializedSize
		return buffer >= u.limit || sent >= u.limit-buffer
	}
	return sent >= u.limit
}

// sentLocked is what the current cycle has sent: nothing once the cycle
// is over. Only record starts a cycle, as Core's counters begin with the
// first byte sent.
func (u *uploadTarget) sentLocked(now time.Time) uint64 {
	if u.cycleStart.IsZero() || now.Sub(u.cycleStart) > uploadCycle {
		return 0
	}
	return u.sent
}

// refuseBlock reports whether a block of the given time must not be sent
// to a peer without the download permission: it is historical and the
// historical serving limit is reached.
func (u *uploadTarget) refuseBlock(blockTime, bestHeaderTime int64) bool {
	if u == nil || u.limit == 0 {
		return false
	}
	old := time.Duration(bestHeaderTime-blockTime)*time.Second > historicalBlockAge
	return old && u.reached(true)
}

// status fills getnettotals' uploadtarget.
func (u *uploadTarget) status() rpc.UploadTarget {
	st := rpc.UploadTarget{TimeFrame: int64(uploadCycle / time.Second), ServeHistoricalBlocks: true}
	if u == nil || u.limit == 0 {
		return st
	}
	st.Target = u.limit
	st.TargetReached = u.reached(false)
	st.ServeHistoricalBlocks = !u.reached(true)
	u.mu.Lock()
	defer u.mu.Unlock()
	now := clock.Now()
	if sent := u.sentLocked(now); u.limit > sent {
		st.BytesLeftInCycle = u.limit - sent
	}
	st.TimeLeftInCycle = int64(u.timeLeftLocked(now) / time.Second)
	return st
}
