package blockchain

import (
	"math/big"

	"github.com/btcnode/btcd/chaincfg"
)

// maxTimewarp is BIP94's allowance: the first block of a retarget period
// may be at most this many seconds older than its parent.
const maxTimewarp = 600

// CalcRetarget is the retarget formula on its own: the new target is the
// base target scaled by the actual duration of the period over the
// intended one, with the duration clamped to a factor of four either way
// and the result capped at the proof-of-work limit. It returns compact
// bits. baseBits is the last block's bits, or under BIP94 the first
// block's.
func CalcRetarget(p *chaincfg.Params, baseBits uint32, firstTime, lastTime int64) uint32 {
	target := int64(p.TargetTimespan.Seconds())
	actual := lastTime - firstTime
	factor := p.RetargetAdjustmentFactor
	if factor == 0 {
		factor = 4
	}
	actual = max(actual, target/factor)
	actual = min(actual, target*factor)

	n := chaincfg.CompactToBig(baseBits)
	n.Mul(n, big.NewInt(actual))
	n.Quo(n, big.NewInt(target))
	if n.Cmp(p.PowLimit) > 0 {
		n.Set(p.PowLimit)
	}
	return chaincfg.BigToCompact(n)
}

// nextRequiredBits returns the bits a block built on prev with the given
// timestamp must carry (Core's GetNextWorkRequired). prev is nil only for
// genesis.
func nextRequiredBits(p *chaincfg.Params, prev *blockNode, newTime int64) uint32 {
	if prev == nil {
		return p.PowLimitBits
	}
	interval := p.DifficultyAdjustmentInterval()
	if (prev.height+1)%interval != 0 {
		if p.ReduceMinDifficulty {
			// Testnet: a block more than twice the target spacing after
			// its parent may use the minimum difficulty...
			gap := int64(p.MinDiffReductionTime.Seconds())
			if gap == 0 {
				gap = 2 * int64(p.TargetTimePerBlock.Seconds())
			}
			if newTime > int64(prev.timestamp)+gap {
				return p.PowLimitBits
			}
			// ...and otherwise inherits the difficulty of the last block
			// that was not such an exception.
			n := prev
			for n.parent != nil && n.height%interval != 0 && n.bits == p.PowLimitBits {
				n = n.parent
			}
			return n.bits
		}
		return prev.bits
	}
	if p.PoWNoRetargeting {
		return prev.bits
	}
	first := prev.ancestor(prev.height - (interval - 1))
	base := prev.bits
	if p.EnforceBIP94 {
		// BIP94: retarget from the period's first block, whose difficulty
		// is never a 20-minute exception, so that exceptions at the end
		// of a period cannot drag the next one down.
		base = first.bits
	}
	return CalcRetarget(p, base, int64(first.timestamp), int64(prev.timestamp))
}
