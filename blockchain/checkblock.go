package blockchain

import (
	"math/big"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// MaxFutureBlockTime is how far ahead of our clock a block's timestamp may
// be, in seconds.
const MaxFutureBlockTime = 2 * 60 * 60

// CheckBlockHeaderSanity checks what a header proves by itself: its proof
// of work (Core's CheckBlockHeader).
func CheckBlockHeaderSanity(h *wire.BlockHeader, powLimit *big.Int) error {
	hash := h.BlockHash()
	return CheckProofOfWork(&hash, h.Bits, powLimit)
}

// CheckBlockSanity applies the rules that need nothing but the block
// (Core's CheckBlock), in Core's order: proof of work, merkle root and the
// CVE-2012-2459 mutation (both mutations, so the caller must not mark the
// hash invalid), size, exactly one coinbase and first, every
// transaction's context-free rules, and the legacy sigop limit.
func CheckBlockSanity(b *wire.MsgBlock, powLimit *big.Int) error {
	if err := CheckBlockHeaderSanity(&b.Header, powLimit); err != nil {
		return err
	}
	return checkBlockBody(b)
}

// checkBlockBody is CheckBlockSanity without the proof of work, for blocks
// whose header was checked when it entered the tree.
func checkBlockBody(b *wire.MsgBlock) error {
	root, mutated := b.MerkleRoot()
	if root != b.Header.MerkleRoot {
		return ruleError(ErrBadMerkleRoot, "hashMerkleRoot mismatch")
	}
	if mutated {
		return ruleError(ErrTxnsDuplicate, "duplicate transaction")
	}
	n := len(b.Transactions)
	if n == 0 || n*wire.WitnessScaleFactor > wire.MaxBlockWeight ||
		b.SerializeSizeStripped()*wire.WitnessScaleFactor > wire.MaxBlockWeight {
		return ruleError(ErrBadBlockLength, "size limits failed")
	}
	if !b.Transactions[0].IsCoinBase() {
		return ruleError(ErrBadCoinbaseMissing, "first tx is not coinbase")
	}
	for i := 1; i < n; i++ {
		if b.Transactions[i].IsCoinBase() {
			return ruleError(ErrBadCoinbaseMultiple, "more than one coinbase")
		}
	}
	for i, tx := range b.Transactions {
		if err := CheckTransaction(tx); err != nil {
			re := err.(*RuleError)
			re.Desc = "Transaction check failed (tx hash " + b.TxHashes()[i].String() + ") " + re.Desc
			return re
		}
	}
	sigops := 0
	for _, tx := range b.Transactions {
		sigops += LegacySigOps(tx)
	}
	if sigops*wire.WitnessScaleFactor > MaxBlockSigOpsCost {
		return ruleError(ErrBadBlockSigOps, "out-of-bounds SigOpCount")
	}
	return nil
}

// HeaderContext is what the header rules need to know about the chain a
// header extends.
type HeaderContext struct {
	Height       int32  // height of the new header
	RequiredBits uint32 // from the retarget rules
	PrevTime     int64  // parent's timestamp
	PrevMTP      int64  // parent's median time past
	Now          int64  // our adjusted clock, Unix seconds
}

// CheckHeaderContext applies the header rules that depend on the chain
// (Core's ContextualCheckBlockHeader without checkpoints): the difficulty,
// a timestamp above the parent's median time past, BIP94's time-warp rule,
// at most two hours in the future, and the minimum versions required once
// BIP34, BIP66 and BIP65 are active.
func CheckHeaderContext(p *chaincfg.Params, h *wire.BlockHeader, c *HeaderContext) error {
	if h.Bits != c.RequiredBits {
		return ruleError(ErrBadDiffBits, "incorrect proof of work")
	}
	t := int64(h.Timestamp)
	if t <= c.PrevMTP {
		return ruleError(ErrTimeTooOld, "block's timestamp is too early")
	}
	if p.EnforceBIP94 && c.Height%p.DifficultyAdjustmentInterval() == 0 && t < c.PrevTime-maxTimewarp {
		return ruleError(ErrTimewarpAttack, "block's timestamp is too early on diff adjustment block")
	}
	if t > c.Now+MaxFutureBlockTime {
		return ruleError(ErrTimeTooNew, "block timestamp too far in the future")
	}
	if (h.Version < 2 && c.Height >= p.BIP34Height) ||
		(h.Version < 3 && c.Height >= p.BIP66Height) ||
		(h.Version < 4 && c.Height >= p.BIP65Height) {
		reason := "bad-version(0x" + hex8(uint32(h.Version)) + ")"
		return ruleErrorReason(ErrBadVersion, reason, "rejected nVersion=0x%s block", hex8(uint32(h.Version)))
	}
	return nil
}

func hex8(v uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// CheckBlockContext applies the block rules that depend on the height and
// parent (Core's ContextualCheckBlock): every transaction final at the
// lock-time cutoff (the parent's median time past once CSV/BIP113 is
// active, the block's own time before), the BIP34 height in the coinbase,
// the witness commitment once segwit is active, and the weight limit.
func CheckBlockContext(p *chaincfg.Params, b *wire.MsgBlock, height int32, prevMTP int64) error {
	cutoff := int64(b.Header.Timestamp)
	if height >= p.CSVHeight {
		cutoff = prevMTP
	}
	for _, tx := range b.Transactions {
		if !IsFinalTx(tx, height, cutoff) {
			return ruleError(ErrBadTxnsNonFinal, "non-final transaction")
		}
	}
	if height >= p.BIP34Height && len(b.Transactions) > 0 {
		if err := CheckCoinbaseHeight(b.Transactions[0], height); err != nil {
			return err
		}
	}
	if err := CheckWitnessCommitment(b, height >= p.SegwitHeight); err != nil {
		return err
	}
	if w := b.Weight(); w > wire.MaxBlockWeight {
		return ruleError(ErrBadBlockWeight, "ContextualCheckBlock : weight limit failed")
	}
	return nil
}
