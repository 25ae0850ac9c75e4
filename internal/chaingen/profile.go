package chaingen

import (
	"crypto/sha256"
	"math"

	"github.com/btcnode/btcd/txscript"
)

// Profile selects the kind of chain a Generator builds.
type Profile uint8

const (
	// ProfileSigned is the signed mix of the package documentation; the
	// small, medium and large sizes use it.
	ProfileSigned Profile = iota
	// ProfileMainnetScale builds a chain whose UTXO set outgrows any
	// default cache: transactions with more outputs than inputs, every
	// output anyone-can-spend (no signatures), and inputs whose ages
	// follow a spend-age mix (see the package documentation, "Mainnet
	// scale"). It is for syncing with scripts skipped (--assumevalid);
	// its scripts are valid without signatures, so a sync that checks
	// them also succeeds, but measures no signature work.
	ProfileMainnetScale
	numProfiles
)

// Parameters of ProfileMainnetScale (the "mainnet-scale" size).
const (
	// MainnetScaleTxs is the size's transaction count: with on average
	// 1.45 inputs and 3.4 outputs per transaction plus the coinbase
	// splits, the UTXO set ends above 10 million coins.
	MainnetScaleTxs = 5_000_000
	// MainnetScaleTxPerBlock is about a full mainnet block of today,
	// which these smaller transactions fill to about 3 M weight units.
	MainnetScaleTxPerBlock = 3500
	// ageWindow is how many blocks keep their own coin pool for the
	// age-based choice: three days of 10-minute blocks. Older coins join
	// the general pool, from which the long tail draws uniformly.
	ageWindow = 432
	// pctAgedSame, pctAgedHour and pctAgedDays are the chances
	// (percent) that an input spends an output of the same block, of
	// the previous 1-6 blocks (an hour), or of a block 7 to ageWindow
	// blocks old (log-uniform in the age: young ages more often); the
	// rest (15%) spend a uniformly chosen coin older than ageWindow.
	pctAgedSame = 10
	pctAgedHour = 30
	pctAgedDays = 45
	hourBlocks  = 6
	// maxOutputs bounds the outputs of a transaction of either profile.
	maxOutputs = 5
	// maxTrueTxWeight bounds one ProfileMainnetScale transaction: three
	// P2SH inputs with taproot-sized witnesses and five 43-byte
	// outputs are under 1,600 weight units.
	maxTrueTxWeight = 4 * 450
)

// Input and output count mixes of ProfileMainnetScale, cumulative
// percent: 1-3 inputs (65/25/10%, mean 1.45) and 2-5 outputs
// (25/25/20/30%, mean 3.55).
var (
	trueInCum  = [3]int{65, 90, 100}
	trueOutCum = [4]int{25, 50, 70, 100}
)

// opTrue is the script OP_TRUE (OP_1), which leaves one true element.
var opTrue = []byte{txscript.OP_TRUE}

// trueSpend is how an anyone-can-spend kind is paid to and spent: the
// same scripts for every coin, since nothing is signed.
type trueSpend struct {
	pkScript  []byte
	sigScript []byte
	witness   [][]byte
}

// newTrueSpends builds the three anyone-can-spend kinds. The taproot
// output's internal key is a key derived from the seed; its one leaf
// (version 0xc0) is OP_TRUE, revealed with its control block.
func newTrueSpends(seed uint64) ([numKinds]trueSpend, error) {
	var s [numKinds]trueSpend
	wsh := sha256.Sum256(opTrue)
	s[P2WSHTrue] = trueSpend{pkScript: txscript.PayToWitnessScript(0, wsh[:]), witness: [][]byte{opTrue}}

	sh := txscript.Hash160(opTrue)
	s[P2SHTrue] = trueSpend{pkScript: txscript.PayToScriptHashScript(sh[:]),
		sigScript: []byte{1, txscript.OP_TRUE}}

	internal := deriveScalar(seed^0x7472756574727565, 0).PubKey() // "truetrue"
	xonly := internal.SerializeCompressed()[1:]
	leaf := txscript.TapLeafHash(0xc0, opTrue)
	outKey, odd, ok := txscript.ComputeTaprootOutputKey(xonly, leaf[:])
	if !ok {
		return s, errorf(ErrInternal, "taproot tweak of the OP_TRUE leaf")
	}
	ctl := byte(0xc0)
	if odd {
		ctl |= 1
	}
	control := append([]byte{ctl}, xonly...)
	s[P2TRTrue] = trueSpend{pkScript: txscript.PayToWitnessScript(1, outKey[:]),
		witness: [][]byte{opTrue, control}}
	return s, nil
}

// ConfigForSize returns the Config of a named size: "small", "medium"
// and "large" (ProfileSigned), and "mainnet-scale" (ProfileMainnetScale,
// MainnetScaleTxs transactions of MainnetScaleTxPerBlock per block).
func ConfigForSize(name string) (Config, error) {
	if name == "mainnet-scale" {
		return Config{Txs: MainnetScaleTxs, TxPerBlock: MainnetScaleTxPerBlock, Profile: ProfileMainnetScale}, nil
	}
	n, err := TxsForSize(name)
	return Config{Txs: n, Profile: ProfileSigned}, err
}

// Unsigned reports whether the profile's chains carry no signatures.
func (p Profile) Unsigned() bool { return p == ProfileMainnetScale }

// trueCount draws a count from a cumulative percent table: first+i
// for the first entry above the draw.
func (g *Generator) trueCount(cum []int, first int) int {
	r := g.rng.IntN(100)
	for i, c := range cum {
		if r < c {
			return first + i
		}
	}
	return first + len(cum) - 1
}

// pickAged chooses the next input of a ProfileMainnetScale transaction
// by the age of the coin; when the chosen block has nothing left it
// tries a few older ones, then falls back to whatever exists.
func (g *Generator) pickAged() (coin, bool) {
	r := g.rng.IntN(100)
	age := 0
	switch {
	case r < pctAgedSame:
		if c, ok := g.takeSame(); ok {
			return c, true
		}
	case r < pctAgedSame+pctAgedHour:
		age = 1 + g.rng.IntN(hourBlocks)
	case r < pctAgedSame+pctAgedHour+pctAgedDays:
		lo, hi := float64(hourBlocks+1), float64(ageWindow+1)
		age = int(lo * math.Pow(hi/lo, g.rng.Float64()))
	}
	n := len(g.recent)
	for a := age; a > 0 && a <= n && a < age+8; a++ {
		if c, ok := g.take(&g.recent[n-a]); ok {
			return c, true
		}
	}
	if c, ok := g.take(&g.old); ok {
		return c, true
	}
	if c, ok := g.takeRecent(); ok {
		return c, true
	}
	return g.takeSame()
}
