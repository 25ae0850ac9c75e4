package blockchain

// baseSubsidy is the reward of the first halving era: 50 BTC.
const baseSubsidy = 50 * SatoshiPerBitcoin

// CalcBlockSubsidy returns the new coins a block at height may create:
// 50 BTC halved every halvingInterval blocks, and nothing once the shift
// would reach 64 (Core guards the undefined shift the same way).
func CalcBlockSubsidy(height, halvingInterval int32) int64 {
	if halvingInterval <= 0 {
		return baseSubsidy
	}
	halvings := height / halvingInterval
	if halvings >= 64 {
		return 0
	}
	return baseSubsidy >> uint(halvings)
}
