package node

import (
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
)

// estimateRawFee serves estimaterawfee from the pool's fee estimator:
// each horizon that tracks the target answers on its own.
func (s *server) estimateRawFee(target int, threshold float64) ([]rpc.RawFeeHorizon, error) {
	if s.pool.FeeHorizonTarget(mempool.HorizonLong) == 0 {
		return nil, rpc.NewError(rpc.ErrMisc, "Fee estimation disabled")
	}
	var out []rpc.RawFeeHorizon
	for _, h := range []mempool.FeeHorizon{mempool.HorizonShort, mempool.HorizonMedium, mempool.HorizonLong} {
		if target > s.pool.FeeHorizonTarget(h) {
			continue
		}
		e, ok := s.pool.EstimateRawFee(target, threshold, h)
		if !ok {
			continue
		}
		bucket := func(b mempool.FeeBucketRange) rpc.RawFeeBucket {
			return rpc.RawFeeBucket{Start: b.Start, End: b.End, WithinTarget: b.WithinTarget,
				TotalConfirmed: b.TotalConfirmed, InMempool: b.InMempool, LeftMempool: b.LeftMempool}
		}
		out = append(out, rpc.RawFeeHorizon{Name: h.String(), FeeRate: int64(e.FeeRate), Decay: e.Decay,
			Scale: e.Scale, Pass: bucket(e.Pass), Fail: bucket(e.Fail)})
	}
	return out, nil
}
