package mempool

import (
	"math"
	"sort"
	"sync"

	"github.com/btcnode/btcd/wire"
)

// Fee estimator parameters, as Core's CBlockPolicyEstimator.
const (
	shortBlockPeriods = 12
	shortScale        = 1
	shortDecay        = .962
	medBlockPeriods   = 24
	medScale          = 2
	medDecay          = .9952
	longBlockPeriods  = 42
	longScale         = 24
	longDecay         = .99931

	halfSuccessPct   = .6
	successPct       = .85
	doubleSuccessPct = .95

	sufficientFeeTxs   = 0.1
	sufficientTxsShort = 0.5

	// minBucketFeeRate follows Core 30's lowered relay floor (100 sat/kvB)
	// so that sub-1-sat/vB transactions land in their own buckets.
	minBucketFeeRate = 100
	maxBucketFeeRate = 1e7
	feeSpacing       = 1.05
	infFeeRate       = 1e99

	// oldestEstimateHistory is how far back a persisted history stays
	// usable (6 long horizons).
	oldestEstimateHistory = 6 * 1008
)

// confirmStats tracks, per fee-rate bucket, how many transactions
// confirmed within each number of periods (Core's TxConfirmStats).
type confirmStats struct {
	buckets    []float64
	scale      int
	decay      float64
	txCtAvg    []float64
	feeAvg     []float64
	confAvg    [][]float64 // [period][bucket]
	failAvg    [][]float64 // [period][bucket]
	unconf     [][]int     // [height % (periods*scale)][bucket]
	oldUnconf  []int
	maxPeriods int
	// hasData is set once any average may be non-zero. Until then decay
	// is a no-op and is skipped: during initial sync the pool is empty,
	// and decaying ~60,000 zeros per block cost 50 us of the connecting
	// goroutine's time per block.
	hasData bool
}

func newConfirmStats(buckets []float64, periods, scale int, decay float64) *confirmStats {
	nb := len(buckets)
	s := &confirmStats{buckets: buckets, scale: scale, decay: decay, maxPeriods: periods,
		txCtAvg: make([]float64, nb), feeAvg: make([]float64, nb), oldUnconf: make([]int, nb)}
	s.confAvg = make2(periods, nb)
	s.failAvg = make2(periods, nb)
	s.unconf = make([][]int, periods*scale)
	for i := range s.unconf {
		s.unconf[i] = make([]int, nb)
	}
	return s
}

func make2(rows, cols int) [][]float64 {
	flat := make([]float64, rows*cols)
	out := make([][]float64, rows)
	for i := range out {
		out[i] = flat[i*cols : (i+1)*cols : (i+1)*cols]
	}
	return out
}

func (s *confirmStats) maxConfirms() int { return s.scale * s.maxPeriods }

func (s *confirmStats) clearCurrent(height int) {
	row := s.unconf[height%len(s.unconf)]
	for b := range row {
		s.oldUnconf[b] += row[b]
		row[b] = 0
	}
}

func (s *confirmStats) record(blocksToConfirm int, feeRate float64, bucket int) {
	if blocksToConfirm < 1 {
		return
	}
	periods := (blocksToConfirm + s.scale - 1) / s.scale
	for i := periods; i <= len(s.confAvg); i++ {
		s.confAvg[i-1][bucket]++
	}
	s.txCtAvg[bucket]++
	s.feeAvg[bucket] += feeRate
	s.hasData = true
}

func (s *confirmStats) updateMovingAverages() {
	if !s.hasData {
		return
	}
	for b := range s.buckets {
		for i := range s.confAvg {
			s.confAvg[i][b] *= s.decay
			s.failAvg[i][b] *= s.decay
		}
		s.feeAvg[b] *= s.decay
		s.txCtAvg[b] *= s.decay
	}
}

func (s *confirmStats) newTx(height int, bucket int) {
	s.unconf[height%len(s.unconf)][bucket]++
}

func (s *confirmStats) removeTx(entryHeight, bestSeen int, bucket int, inBlock bool) {
	blocksAgo := bestSeen - entryHeight
	if bestSeen == 0 {
		blocksAgo = 0
	}
	if blocksAgo < 0 {
		return
	}
	if blocksAgo >= len(s.unconf) {
		if s.oldUnconf[bucket] > 0 {
			s.oldUnconf[bucket]--
		}
	} else if row := s.unconf[entryHeight%len(s.unconf)]; row[bucket] > 0 {
		row[bucket]--
	}
	if !inBlock && blocksAgo >= s.scale {
		periodsAgo := blocksAgo / s.scale
		for i := 0; i < periodsAgo && i < len(s.failAvg); i++ {
			s.failAvg[i][bucket]++
			s.hasData = true
		}
	}
}

// estimateMedianVal walks the buckets from the highest fee rate down,
// grouping buckets until each group has enough data, and returns the
// median fee rate of the lowest group whose confirmation rate within
// confTarget still meets successBreakPoint (-1 when none does).
func (s *confirmStats) estimateMedianVal(confTarget int, sufficientTxVal, successBreakPoint float64, height int) float64 {
	var nConf, totalNum, failNum float64
	extraNum := 0
	periodTarget := (confTarget + s.scale - 1) / s.scale
	maxBucket := len(s.buckets) - 1
	curNear, bestNear, curFar, bestFar := maxBucket, maxBucket, maxBucket, maxBucket
	found, newRange := false, true
	bins := len(s.unconf)
	for b := maxBucket; b >= 0; b-- {
		if newRange {
			curNear = b
			newRange = false
		}
		curFar = b
		nConf += s.confAvg[periodTarget-1][b]
		totalNum += s.txCtAvg[b]
		failNum += s.failAvg[periodTarget-1][b]
		for c := confTarget; c < s.maxConfirms(); c++ {
			extraNum += s.unconf[((height-c)%bins+bins)%bins][b]
		}
		extraNum += s.oldUnconf[b]
		if totalNum >= sufficientTxVal/(1-s.decay) {
			if nConf/(totalNum+failNum+float64(extraNum)) < successBreakPoint {
				continue
			}
			found = true
			nConf, totalNum, failNum, extraNum = 0, 0, 0, 0
			bestNear, bestFar = curNear, curFar
			newRange = true
		}
	}
	if !found {
		return -1
	}
	lo, hi := min(bestNear, bestFar), max(bestNear, bestFar)
	var sum float64
	for j := lo; j <= hi; j++ {
		sum += s.txCtAvg[j]
	}
	if sum == 0 {
		return -1
	}
	sum /= 2
	for j := lo; j <= hi; j++ {
		if s.txCtAvg[j] < sum {
			sum -= s.txCtAvg[j]
			continue
		}
		return s.feeAvg[j] / s.txCtAvg[j]
	}
	return -1
}

type trackedTx struct {
	height int
	bucket int
}

// FeeEstimator estimates the fee rate needed to confirm within a number
// of blocks from how long transactions that entered the pool took to
// confirm, over a short (12 blocks), medium (48) and long (1008) horizon
// with exponential decay. It is safe for concurrent use.
type FeeEstimator struct {
	mu               sync.Mutex
	buckets          []float64
	short, med, long *confirmStats
	tracked          map[wire.Hash]trackedTx
	bestSeen         int
	firstRecorded    int
	historicalFirst  int
	historicalBest   int
	trackedTxs       int
	untrackedTxs     int
}

// NewFeeEstimator returns an empty estimator.
func NewFeeEstimator() *FeeEstimator {
	var b []float64
	for r := float64(minBucketFeeRate); r <= maxBucketFeeRate; r *= feeSpacing {
		b = append(b, r)
	}
	b = append(b, infFeeRate)
	return newFeeEstimatorBuckets(b)
}

func newFeeEstimatorBuckets(b []float64) *FeeEstimator {
	return &FeeEstimator{
		buckets: b,
		short:   newConfirmStats(b, shortBlockPeriods, shortScale, shortDecay),
		med:     newConfirmStats(b, medBlockPeriods, medScale, medDecay),
		long:    newConfirmStats(b, longBlockPeriods, longScale, longDecay),
		tracked: make(map[wire.Hash]trackedTx),
	}
}

func (f *FeeEstimator) bucketIndex(rate float64) int {
	return sort.SearchFloat64s(f.buckets, rate)
}

// processTx starts tracking a transaction that entered the pool at height.
// Only transactions seen at the current best height with no in-pool
// parents are used, as in Core.
func (f *FeeEstimator) processTx(txid wire.Hash, height int32, fee, vsize int64, valid bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.tracked[txid]; ok {
		return
	}
	if int(height) != f.bestSeen || !valid || vsize <= 0 {
		f.untrackedTxs++
		return
	}
	f.trackedTxs++
	rate := float64(fee) * 1000 / float64(vsize)
	b := f.bucketIndex(rate)
	f.tracked[txid] = trackedTx{height: int(height), bucket: b}
	f.short.newTx(int(height), b)
	f.med.newTx(int(height), b)
	f.long.newTx(int(height), b)
}

// removeTx stops tracking a transaction that left the pool without
// confirming (a failure for the periods it waited).
func (f *FeeEstimator) removeTx(txid wire.Hash) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removeLocked(txid, false)
}

func (f *FeeEstimator) removeLocked(txid wire.Hash, inBlock bool) bool {
	t, ok := f.tracked[txid]
	if !ok {
		return false
	}
	f.short.removeTx(t.height, f.bestSeen, t.bucket, inBlock)
	f.med.removeTx(t.height, f.bestSeen, t.bucket, inBlock)
	f.long.removeTx(t.height, f.bestSeen, t.bucket, inBlock)
	delete(f.tracked, txid)
	return true
}

// ConfirmedTx is a pool transaction confirmed by a block, as the estimator
// needs it.
type ConfirmedTx struct {
	TxID   wire.Hash
	Height int32 // height when it entered the pool
	Fee    int64
	VSize  int64
}

// ProcessBlock records a connected block at height and the tracked pool
// transactions it confirmed.
func (f *FeeEstimator) ProcessBlock(height int32, confirmed []ConfirmedTx) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := int(height)
	if h <= f.bestSeen {
		// Reorgs and replays are ignored, as in Core.
		return
	}
	f.bestSeen = h
	for _, s := range []*confirmStats{f.short, f.med, f.long} {
		s.clearCurrent(h)
		s.updateMovingAverages()
	}
	counted := 0
	for _, c := range confirmed {
		if !f.removeLocked(c.TxID, true) {
			continue
		}
		blocks := h - int(c.Height)
		if blocks <= 0 || c.VSize <= 0 {
			continue
		}
		rate := float64(c.Fee) * 1000 / float64(c.VSize)
		b := f.bucketIndex(rate)
		f.short.record(blocks, rate, b)
		f.med.record(blocks, rate, b)
		f.long.record(blocks, rate, b)
		counted++
	}
	if f.firstRecorded == 0 && counted > 0 {
		f.firstRecorded = f.bestSeen
	}
}

func (f *FeeEstimator) blockSpan() int {
	if f.firstRecorded == 0 {
		return 0
	}
	return f.bestSeen - f.firstRecorded
}

func (f *FeeEstimator) historicalSpan() int {
	if f.historicalFirst == 0 || f.historicalBest < f.historicalFirst || f.bestSeen-f.historicalBest > oldestEstimateHistory {
		return 0
	}
	return f.historicalBest - f.historicalFirst
}

func (f *FeeEstimator) maxUsableEstimate() int {
	return min(f.long.maxConfirms(), max(f.blockSpan(), f.historicalSpan())/2)
}

func (f *FeeEstimator) combined(target int, threshold float64, checkShorter bool) float64 {
	est := -1.0
	if target < 1 || target > f.long.maxConfirms() {
		return est
	}
	switch {
	case target <= f.short.maxConfirms():
		est = f.short.estimateMedianVal(target, sufficientTxsShort, threshold, f.bestSeen)
	case target <= f.med.maxConfirms():
		est = f.med.estimateMedianVal(target, sufficientFeeTxs, threshold, f.bestSeen)
	default:
		est = f.long.estimateMedianVal(target, sufficientFeeTxs, threshold, f.bestSeen)
	}
	if checkShorter {
		if target > f.med.maxConfirms() {
			if v := f.med.estimateMedianVal(f.med.maxConfirms(), sufficientFeeTxs, threshold, f.bestSeen); v > 0 && (est == -1 || v < est) {
				est = v
			}
		}
		if target > f.short.maxConfirms() {
			if v := f.short.estimateMedianVal(f.short.maxConfirms(), sufficientTxsShort, threshold, f.bestSeen); v > 0 && (est == -1 || v < est) {
				est = v
			}
		}
	}
	return est
}

func (f *FeeEstimator) conservative(doubleTarget int) float64 {
	est := -1.0
	if doubleTarget <= f.short.maxConfirms() {
		est = f.med.estimateMedianVal(doubleTarget, sufficientFeeTxs, doubleSuccessPct, f.bestSeen)
	}
	if doubleTarget <= f.med.maxConfirms() {
		if v := f.long.estimateMedianVal(doubleTarget, sufficientFeeTxs, doubleSuccessPct, f.bestSeen); v > est {
			est = v
		}
	}
	return est
}

// EstimateSmartFee returns the fee rate expected to confirm within target
// blocks and the target the answer is really for (Core's
// estimateSmartFee). Conservative mode also consults the long horizon at
// twice the target. A zero rate means no estimate is available.
func (f *FeeEstimator) EstimateSmartFee(target int, conservative bool) (FeeRate, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if target <= 0 || target > f.long.maxConfirms() {
		return 0, 0
	}
	if target == 1 {
		target = 2
	}
	if m := f.maxUsableEstimate(); target > m {
		target = m
	}
	if target <= 1 {
		return 0, 0
	}
	median := f.combined(target/2, halfSuccessPct, true)
	if v := f.combined(target, successPct, true); v > median {
		median = v
	}
	if v := f.combined(2*target, doubleSuccessPct, !conservative); v > median {
		median = v
	}
	if conservative || median == -1 {
		if v := f.conservative(2 * target); v > median {
			median = v
		}
	}
	if median < 0 {
		return 0, target
	}
	return FeeRate(math.Round(median)), target
}

// EstimateSmartFee answers estimatesmartfee: the estimator's rate raised
// to the pool's minimum and the relay floor. It returns a zero rate when
// no estimator is configured or there is not enough data.
func (p *Pool) EstimateSmartFee(target int, conservative bool) (FeeRate, int) {
	if p.est == nil {
		return 0, 0
	}
	rate, blocks := p.est.EstimateSmartFee(target, conservative)
	if rate == 0 {
		return 0, blocks
	}
	if m := p.MinFee(); rate < m {
		rate = m
	}
	if rate < p.cfg.Policy.MinRelayFee {
		rate = p.cfg.Policy.MinRelayFee
	}
	return rate, blocks
}
