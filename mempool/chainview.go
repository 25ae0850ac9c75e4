package mempool

import (
	"fmt"

	"github.com/btcnode/btcd/wire"
)

// Coin is an unspent output as the pool needs it.
type Coin struct {
	Value      int64
	PkScript   []byte
	Height     int32 // height of the block holding it; mempoolHeight for pool outputs
	IsCoinBase bool
}

// mempoolHeight marks a coin created by a pool transaction (Core's
// MEMPOOL_HEIGHT).
const mempoolHeight = 0x7fffffff

// ChainTip describes the best block.
type ChainTip struct {
	Height         int32
	Hash           wire.Hash
	MedianTimePast int64
}

// ChainView is the pool's window on the confirmed chain. The daemon fills
// it from blockchain; tests fill it with fakes. All functions must be safe
// to call while the pool holds its lock (they must not call back into it).
type ChainView struct {
	// FetchCoin returns the unspent output op names in the confirmed UTXO
	// set.
	FetchCoin func(op wire.OutPoint) (Coin, bool)
	// Tip returns the best block.
	Tip func() ChainTip
	// MedianTimePast returns the median time past of the best-chain block
	// at height (for BIP68 time locks).
	MedianTimePast func(height int32) int64
}

// VerifyScriptsFunc runs every input script of tx against the spent coins
// (coins[i] for TxIn[i]). With standard set it applies the full policy
// flag set (Core's STANDARD_SCRIPT_VERIFY_FLAGS); otherwise only the
// mandatory flags (Core's MANDATORY_SCRIPT_VERIFY_FLAGS, which the
// failure wording depends on) and those of the next block. The daemon
// implements it with
// txscript.VerifyInput.
type VerifyScriptsFunc func(tx *wire.MsgTx, coins []Coin, standard bool) error

// InputError is how a VerifyScriptsFunc names the failing input: the
// rejection then carries Core's detail ("input 0 of <txid> (wtxid
// <wtxid>), spending <txid>:<n>") after the script error's reason.
type InputError struct {
	Input int
	Err   error
}

// Error returns the script error's text alone; the input goes into the
// rejection's detail.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap exposes the script error.
func (e *InputError) Unwrap() error { return e.Err }

// Consensus constants the pool checks itself (copied facts, not imports,
// to keep the package free of blockchain).
const (
	maxMoney          = 21_000_000 * 100_000_000
	lockTimeThreshold = 500_000_000
	maxBlockWeight    = wire.MaxBlockWeight
)

// checkTransaction is the context-free part of Core's CheckTransaction.
func checkTransaction(tx *wire.MsgTx) *RejectError {
	if len(tx.TxIn) == 0 {
		return rejectInvalid("bad-txns-vin-empty", "")
	}
	if len(tx.TxOut) == 0 {
		return rejectInvalid("bad-txns-vout-empty", "")
	}
	if tx.SerializeSizeStripped()*wire.WitnessScaleFactor > maxBlockWeight {
		return rejectInvalid("bad-txns-oversize", "")
	}
	var total int64
	for i := range tx.TxOut {
		v := tx.TxOut[i].Value
		if v < 0 {
			return rejectInvalid("bad-txns-vout-negative", "")
		}
		if v > maxMoney {
			return rejectInvalid("bad-txns-vout-toolarge", "")
		}
		total += v
		if total > maxMoney {
			return rejectInvalid("bad-txns-txouttotal-toolarge", "")
		}
	}
	// Duplicate inputs: a quadratic scan is cheaper than a map for the
	// usual handful of inputs.
	if len(tx.TxIn) <= 32 {
		for i := 1; i < len(tx.TxIn); i++ {
			for j := 0; j < i; j++ {
				if tx.TxIn[i].PreviousOutPoint == tx.TxIn[j].PreviousOutPoint {
					return rejectInvalid("bad-txns-inputs-duplicate", "")
				}
			}
		}
	} else {
		seen := make(map[wire.OutPoint]struct{}, len(tx.TxIn))
		for i := range tx.TxIn {
			op := tx.TxIn[i].PreviousOutPoint
			if _, dup := seen[op]; dup {
				return rejectInvalid("bad-txns-inputs-duplicate", "")
			}
			seen[op] = struct{}{}
		}
	}
	if tx.IsCoinBase() {
		if l := len(tx.TxIn[0].SignatureScript); l < 2 || l > 100 {
			return rejectInvalid("bad-cb-length", "")
		}
		return nil
	}
	for i := range tx.TxIn {
		op := &tx.TxIn[i].PreviousOutPoint
		if op.Index == wire.MaxPrevOutIndex && op.Hash == (wire.Hash{}) {
			return rejectInvalid("bad-txns-prevout-null", "")
		}
	}
	return nil
}

// isFinalTx is Core's IsFinalTx.
func isFinalTx(tx *wire.MsgTx, height int32, blockTime int64) bool {
	lt := int64(tx.LockTime)
	if lt == 0 {
		return true
	}
	limit := int64(height)
	if lt >= lockTimeThreshold {
		limit = blockTime
	}
	if lt < limit {
		return true
	}
	for i := range tx.TxIn {
		if tx.TxIn[i].Sequence != wire.MaxTxInSequenceNum {
			return false
		}
	}
	return true
}

// sequenceLock computes the BIP68 lock of tx given its coins, treating
// pool coins as if mined in the next block. The lock is satisfied for a
// block at height h with parent MTP t when minHeight < h and minTime < t.
func sequenceLock(tx *wire.MsgTx, coins []Coin, tip ChainTip, mtp func(int32) int64) (minHeight int32, minTime int64) {
	minHeight, minTime = -1, -1
	if tx.Version < 2 {
		return
	}
	for i := range tx.TxIn {
		seq := tx.TxIn[i].Sequence
		if seq&wire.SequenceLockTimeDisabled != 0 {
			continue
		}
		h := coins[i].Height
		if h == mempoolHeight {
			h = tip.Height + 1
		}
		v := int64(seq & wire.SequenceLockTimeMask)
		if seq&wire.SequenceLockTimeIsSeconds != 0 {
			prev := h - 1
			if prev < 0 {
				prev = 0
			}
			var t int64
			if prev >= tip.Height {
				t = tip.MedianTimePast
			} else if mtp != nil {
				t = mtp(prev)
			}
			if lock := t + v<<wire.SequenceLockTimeGranularity - 1; lock > minTime {
				minTime = lock
			}
		} else if lock := h + int32(v) - 1; lock > minHeight {
			minHeight = lock
		}
	}
	return
}

// checkTxInputs is the contextual input check of Core's
// Consensus::CheckTxInputs; it returns the fee.
func checkTxInputs(tx *wire.MsgTx, coins []Coin, spendHeight, maturity int32) (int64, *RejectError) {
	var in int64
	for i := range coins {
		c := &coins[i]
		if c.IsCoinBase && spendHeight-c.Height < maturity {
			return 0, reject(ErrPrematureSpend, wire.RejectInvalid, ReasonPrematureCoinbase,
				fmt.Sprintf("tried to spend coinbase at depth %d", spendHeight-c.Height))
		}
		in += c.Value
		if c.Value < 0 || c.Value > maxMoney || in > maxMoney {
			return 0, rejectInvalid(ReasonInputValuesRange, "")
		}
	}
	var out int64
	for i := range tx.TxOut {
		out += tx.TxOut[i].Value
	}
	if in < out {
		return 0, rejectInvalid(ReasonInBelowOut, fmt.Sprintf("value in (%d) < value out (%d)", in, out))
	}
	return in - out, nil
}
