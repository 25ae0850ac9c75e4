package node

import (
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
)

// errFeeEstimationDisabled is bitcoind's answer when it keeps no fee
// estimator (-blocksonly).
func errFeeEstimationDisabled() error {
	return rpc.NewError(rpc.ErrInternal, "Fee estimation disabled")
}

// estimateSmartFee serves estimatesmartfee from the pool's fee estimator.
func (s *server) estimateSmartFee(target int64, mode string) (*rpc.EstimateSmartFeeResult, error) {
	if s.feeEst == nil {
		return nil, errFeeEstimationDisabled()
	}
	rate, blocks := s.pool.EstimateSmartFee(int(target), mode == "conservative")
	if rate <= 0 {
		return &rpc.EstimateSmartFeeResult{Errors: []string{"Insufficient data or no feerate found"}, Blocks: int64(blocks)}, nil
	}
	return &rpc.EstimateSmartFeeResult{FeeRate: rpc.FormatBTC(int64(rate)), Blocks: int64(blocks)}, nil
}

// estimateRawFee serves estimaterawfee from the pool's fee estimator:
// each horizon that tracks the target answers on its own.
func (s *server) estimateRawFee(target int, threshold float64) ([]rpc.RawFeeHorizon, error) {
	if s.feeEst == nil || s.pool.FeeHorizonTarget(mempool.HorizonLong) == 0 {
		return nil, errFeeEstimationDisabled()
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
