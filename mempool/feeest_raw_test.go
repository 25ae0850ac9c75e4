package mempool

import "testing"

func TestEstimateRawFee(t *testing.T) {
	f := NewFeeEstimator()
	simulateFees(f, 200)
	for _, c := range []struct {
		h      FeeHorizon
		target int
		want   float64
		scale  int
		decay  float64
	}{
		{HorizonShort, 1, 50_000, 1, shortDecay},
		{HorizonShort, 6, 10_000, 1, shortDecay},
		{HorizonMedium, 2, 50_000, 2, medDecay},
		{HorizonLong, 48, 2_000, 24, longDecay},
	} {
		r := f.EstimateRawFee(c.target, 0.95, c.h)
		if !near(r.FeeRate, c.want) {
			t.Errorf("%v target %d: rate %d, want about %v", c.h, c.target, r.FeeRate, c.want)
		}
		if r.Scale != c.scale || r.Decay != c.decay {
			t.Errorf("%v: scale %d decay %v", c.h, r.Scale, r.Decay)
		}
		// The passing range holds the answer; the range below it
		// failed (or had too little data).
		if r.Pass.Start > float64(r.FeeRate) || r.Pass.End < float64(r.FeeRate) || r.Pass.TotalConfirmed <= 0 {
			t.Errorf("%v target %d: pass range %+v for rate %d", c.h, c.target, r.Pass, r.FeeRate)
		}
		if r.Fail.Start != -1 && r.Fail.End > r.Pass.Start {
			t.Errorf("%v target %d: fail range %+v above pass range %+v", c.h, c.target, r.Fail, r.Pass)
		}
	}
	// Targets a horizon does not track, and a threshold above 1, give
	// nothing.
	if r := f.EstimateRawFee(13, 0.95, HorizonShort); r.FeeRate != 0 || r.Scale != 0 || r.Pass.Start != -1 {
		t.Errorf("beyond the short horizon: %+v", r)
	}
	if r := f.EstimateRawFee(1, 1.1, HorizonShort); r.FeeRate != 0 {
		t.Errorf("threshold above 1: %+v", r)
	}
	if got := f.HighestTarget(HorizonShort); got != 12 {
		t.Errorf("short horizon tracks %d", got)
	}
	if f.HighestTarget(HorizonMedium) != 48 || f.HighestTarget(HorizonLong) != 1008 {
		t.Error("horizon sizes")
	}
	// Nothing is known yet: no rate, and the whole range, lacking data,
	// is reported as failing (as Core does).
	r := NewFeeEstimator().EstimateRawFee(2, 0.95, HorizonMedium)
	if r.FeeRate != 0 || r.Fail.Start != 0 || r.Fail.End != infFeeRate || r.Pass.Start != -1 || r.Scale != 2 {
		t.Errorf("empty estimator: %+v", r)
	}
	if HorizonShort.String() != "short" || HorizonMedium.String() != "medium" || HorizonLong.String() != "long" {
		t.Error("horizon names")
	}
}
