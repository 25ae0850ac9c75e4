package mempool

import "math"

// FeeHorizon selects one of the estimator's three tracking horizons.
type FeeHorizon int

// The horizons, in the order estimaterawfee reports them.
const (
	HorizonShort FeeHorizon = iota
	HorizonMedium
	HorizonLong
)

// String is the horizon's name in estimaterawfee's result.
func (h FeeHorizon) String() string {
	switch h {
	case HorizonShort:
		return "short"
	case HorizonMedium:
		return "medium"
	}
	return "long"
}

// FeeBucketRange describes a range of fee-rate buckets that passed or
// failed the success threshold (Core's EstimatorBucket). Start and End are
// in sat/kvB; Start is -1 when no such range was found.
type FeeBucketRange struct {
	Start, End     float64
	WithinTarget   float64 // confirmed within the target
	TotalConfirmed float64 // confirmed at all
	InMempool      float64 // still unconfirmed after the target
	LeftMempool    float64 // left the pool unconfirmed after the target
}

// RawFeeEstimate is one horizon's estimaterawfee answer (Core's
// EstimationResult with the fee rate).
type RawFeeEstimate struct {
	// FeeRate is 0 when no range meets the threshold.
	FeeRate FeeRate
	Pass    FeeBucketRange
	Fail    FeeBucketRange
	Decay   float64
	Scale   int
}

// HighestTarget is the largest confirmation target horizon h tracks.
func (f *FeeEstimator) HighestTarget(h FeeHorizon) int { return f.stats(h).maxConfirms() }

func (f *FeeEstimator) stats(h FeeHorizon) *confirmStats {
	switch h {
	case HorizonShort:
		return f.short
	case HorizonMedium:
		return f.med
	}
	return f.long
}

// EstimateRawFee estimates, from one horizon alone, the lowest fee rate
// whose transactions confirmed within target blocks at least threshold
// of the time (Core's estimateRawFee), with the bucket ranges that
// decided it.
func (f *FeeEstimator) EstimateRawFee(target int, threshold float64, h FeeHorizon) RawFeeEstimate {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats(h)
	empty := FeeBucketRange{Start: -1, End: -1}
	r := RawFeeEstimate{Pass: empty, Fail: empty}
	if target <= 0 || target > s.maxConfirms() || threshold > 1 {
		return r
	}
	sufficient := sufficientFeeTxs
	if h == HorizonShort {
		sufficient = sufficientTxsShort
	}
	median := s.estimateMedianDetail(target, sufficient, threshold, f.bestSeen, &r)
	if median >= 0 {
		r.FeeRate = FeeRate(math.Round(median))
	}
	return r
}

// estimateMedianDetail is estimateMedianVal reporting, as Core's
// EstimateMedianVal does, the last passing range and the first failing
// one. It groups buckets by the count of the current range only, so a
// failing range does not make the next bucket count as sufficient.
func (s *confirmStats) estimateMedianDetail(confTarget int, sufficientTxVal, successBreakPoint float64, height int, r *RawFeeEstimate) float64 {
	var nConf, totalNum, failNum, partialNum float64
	extraNum := 0
	periodTarget := (confTarget + s.scale - 1) / s.scale
	maxBucket := len(s.buckets) - 1
	curNear, bestNear, curFar, bestFar := maxBucket, maxBucket, maxBucket, maxBucket
	found, newRange, passing := false, true, true
	bins := len(s.unconf)
	pass := FeeBucketRange{Start: -1, End: -1}
	fail := FeeBucketRange{Start: -1, End: -1}
	rangeOf := func(near, far int) (float64, float64) {
		lo, hi := min(near, far), max(near, far)
		start := 0.0
		if lo > 0 {
			start = s.buckets[lo-1]
		}
		return start, s.buckets[hi]
	}
	for b := maxBucket; b >= 0; b-- {
		if newRange {
			curNear = b
			newRange = false
		}
		curFar = b
		nConf += s.confAvg[periodTarget-1][b]
		partialNum += s.txCtAvg[b]
		totalNum += s.txCtAvg[b]
		failNum += s.failAvg[periodTarget-1][b]
		for c := confTarget; c < s.maxConfirms(); c++ {
			extraNum += s.unconf[((height-c)%bins+bins)%bins][b]
		}
		extraNum += s.oldUnconf[b]
		if partialNum < sufficientTxVal/(1-s.decay) {
			continue
		}
		partialNum = 0
		if nConf/(totalNum+failNum+float64(extraNum)) < successBreakPoint {
			if passing {
				fail.Start, fail.End = rangeOf(curNear, curFar)
				fail.WithinTarget, fail.TotalConfirmed = nConf, totalNum
				fail.InMempool, fail.LeftMempool = float64(extraNum), failNum
				passing = false
			}
			continue
		}
		fail = FeeBucketRange{Start: -1, End: -1}
		found, passing = true, true
		pass.WithinTarget, pass.TotalConfirmed = nConf, totalNum
		pass.InMempool, pass.LeftMempool = float64(extraNum), failNum
		nConf, totalNum, failNum, extraNum = 0, 0, 0, 0
		bestNear, bestFar = curNear, curFar
		newRange = true
	}
	median := -1.0
	lo, hi := min(bestNear, bestFar), max(bestNear, bestFar)
	var txSum float64
	for j := lo; j <= hi; j++ {
		txSum += s.txCtAvg[j]
	}
	if found && txSum != 0 {
		txSum /= 2
		for j := lo; j <= hi; j++ {
			if s.txCtAvg[j] < txSum {
				txSum -= s.txCtAvg[j]
				continue
			}
			median = s.feeAvg[j] / s.txCtAvg[j]
			break
		}
		pass.Start, pass.End = rangeOf(lo, hi)
	}
	// Buckets left over below the last passing range lacked the data to
	// be judged; they are reported as the failing range.
	if passing && !newRange {
		fail.Start, fail.End = rangeOf(curNear, curFar)
		fail.WithinTarget, fail.TotalConfirmed = nConf, totalNum
		fail.InMempool, fail.LeftMempool = float64(extraNum), failNum
	}
	r.Pass, r.Fail, r.Decay, r.Scale = pass, fail, s.decay, s.scale
	return median
}

// EstimateRawFee answers estimaterawfee from the pool's estimator; ok is
// false when the pool has none.
func (p *Pool) EstimateRawFee(target int, threshold float64, h FeeHorizon) (RawFeeEstimate, bool) {
	if p.est == nil {
		return RawFeeEstimate{}, false
	}
	return p.est.EstimateRawFee(target, threshold, h), true
}

// FeeHorizonTarget is the largest target horizon h of the pool's
// estimator tracks (0 without an estimator).
func (p *Pool) FeeHorizonTarget(h FeeHorizon) int {
	if p.est == nil {
		return 0
	}
	return p.est.HighestTarget(h)
}
