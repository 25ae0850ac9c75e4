package mempool

import (
	"math"
	"time"
)

// rollingFeeHalfLife is the half-life of the rolling minimum fee (Core's
// ROLLING_FEE_HALFLIFE, 12 hours); it decays faster when the pool is well
// below its limit.
const rollingFeeHalfLife = 12 * 60 * 60

// MinFee returns the current mempool minimum fee rate (the rolling fee
// raised by evictions; zero when nothing was evicted recently). Callers
// that need a relay floor should take the larger of it and MinRelayFee.
func (p *Pool) MinFee() FeeRate {
	p.mu.Lock()
	defer p.mu.Unlock()
	return FeeRate(p.minFeeLocked())
}

// minFeeLocked is Core's CTxMemPool::GetMinFee: the rolling minimum decays
// with a half-life of 12 hours (3 hours below a quarter of the size limit,
// 6 below half), only after a block has arrived since the last bump, and
// snaps to zero below half the incremental relay fee.
func (p *Pool) minFeeLocked() FeeRate {
	if !p.blockSinceBump || p.rollingMinFee == 0 {
		return p.roundedMinFee()
	}
	now := p.now().Unix()
	if now > p.lastRollingFeeUpdate+10 {
		half := float64(rollingFeeHalfLife)
		switch limit := p.cfg.MaxMempoolBytes; {
		case p.usage < limit/4:
			half /= 4
		case p.usage < limit/2:
			half /= 2
		}
		p.rollingMinFee /= math.Pow(2, float64(now-p.lastRollingFeeUpdate)/half)
		p.lastRollingFeeUpdate = now
		if p.rollingMinFee < float64(p.cfg.Policy.IncrementalRelayFee)/2 {
			p.rollingMinFee = 0
			return 0
		}
	}
	return p.roundedMinFee()
}

func (p *Pool) roundedMinFee() FeeRate {
	if p.rollingMinFee == 0 {
		return 0
	}
	r := FeeRate(math.Round(p.rollingMinFee))
	if r < p.cfg.Policy.IncrementalRelayFee {
		r = p.cfg.Policy.IncrementalRelayFee
	}
	return r
}

// trackPackageRemoved raises the rolling minimum fee to rate.
func (p *Pool) trackPackageRemoved(rate FeeRate) {
	if float64(rate) > p.rollingMinFee {
		p.rollingMinFee = float64(rate)
		p.blockSinceBump = false
	}
}

// descendantScore is the eviction key: the better of the entry's own fee
// rate and its package-with-descendants fee rate (Core's descendant
// score). The lowest is evicted first.
func descendantScore(e *Entry) (fee, size int64) {
	if e.ModFee*e.DescSize > e.DescFees*e.VSize {
		return e.ModFee, e.VSize
	}
	return e.DescFees, e.DescSize
}

// TrimToSize evicts packages until the pool's memory is within limit.
func (p *Pool) TrimToSize(limit int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trimToSizeLocked(limit)
}

// trimToSizeLocked evicts the entry with the lowest descendant score and
// its descendants until the pool fits, raising the rolling minimum fee to
// the evicted package's rate plus the incremental relay fee. The scan for
// the minimum is linear; evictions are rare and each removes a package.
func (p *Pool) trimToSizeLocked(limit int64) {
	removed := 0
	var maxRemoved FeeRate
	for p.usage > limit && len(p.byTxID) > 0 {
		var worst *Entry
		var wf, ws int64
		for _, e := range p.byTxID {
			f, s := descendantScore(e)
			if worst == nil || f*ws < wf*s || (f*ws == wf*s && hashLess(e.TxID[:], worst.TxID[:])) {
				worst, wf, ws = e, f, s
			}
		}
		rate := NewFeeRate(worst.DescFees, worst.DescSize) + p.cfg.Policy.IncrementalRelayFee
		p.trackPackageRemoved(rate)
		maxRemoved = max(maxRemoved, rate)
		set := p.withDescendants([]*Entry{worst})
		removed += len(set)
		p.removeSet(set, removeSizeLimit)
	}
	if maxRemoved > 0 {
		log.Debugf("Removed %d txn, rolling minimum fee bumped to %s", removed, maxRemoved)
	}
}

func hashLess(a, b []byte) bool {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// Expire removes transactions that entered before now minus the expiry
// (with their descendants) and returns how many left.
func (p *Pool) Expire(now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.expireLocked(now)
}

// expireLocked runs after every acceptance, as Core's LimitMempoolSize
// does; the lower bound on entry times spares the scan while nothing can
// have expired.
func (p *Pool) expireLocked(now time.Time) int {
	cutoff := now.Add(-p.cfg.Expiry)
	if len(p.byTxID) == 0 || !p.oldest.Before(cutoff) {
		return 0
	}
	var old []*Entry
	oldest := now
	for _, e := range p.byTxID {
		if e.Time.Before(cutoff) {
			old = append(old, e)
		} else if e.Time.Before(oldest) {
			oldest = e.Time
		}
	}
	p.oldest = oldest
	if len(old) == 0 {
		return 0
	}
	set := p.withDescendants(old)
	p.removeSet(set, removeExpiry)
	return len(set)
}
