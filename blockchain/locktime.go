package blockchain

import "github.com/btcnode/btcd/wire"

// LockTimeThreshold separates lock times that are heights (below) from
// those that are Unix times (at or above).
const LockTimeThreshold = 500_000_000

// IsFinalTx reports whether tx may be included in a block at height whose
// lock-time cutoff is blockTime (the block's timestamp, or from BIP113 on
// the median time past of its parent). A transaction is final when its
// lock time has passed or every input's sequence is final.
func IsFinalTx(tx *wire.MsgTx, height int32, blockTime int64) bool {
	lt := tx.LockTime
	if lt == 0 {
		return true
	}
	limit := int64(height)
	if lt >= LockTimeThreshold {
		limit = blockTime
	}
	if int64(lt) < limit {
		return true
	}
	for i := range tx.TxIn {
		if tx.TxIn[i].Sequence != wire.MaxTxInSequenceNum {
			return false
		}
	}
	return true
}

// SequenceLock is the BIP68 relative lock of a transaction: the block
// height and median time past that must both be exceeded (-1 means no
// constraint).
type SequenceLock struct {
	MinHeight int32
	MinTime   int64
}

// CalcSequenceLock computes the BIP68 lock of tx. coinHeights[i] is the
// height of the block holding the coin input i spends; mtpBefore(h) must
// return the median time past of the block at height h-1 on the chain being
// extended (Core measures a time lock from the MTP of the block before the
// coin's). enforce is whether BIP68 is active. The version test is
// unsigned: version 0xffffffff counts as >= 2, as in Core (btcd compared
// it signed, CVE-2024-34478).
func CalcSequenceLock(tx *wire.MsgTx, coinHeights []int32, enforce bool, mtpBefore func(h int32) int64) SequenceLock {
	lock := SequenceLock{MinHeight: -1, MinTime: -1}
	if !enforce || tx.Version < 2 || tx.IsCoinBase() {
		return lock
	}
	for i := range tx.TxIn {
		seq := tx.TxIn[i].Sequence
		if seq&wire.SequenceLockTimeDisabled != 0 {
			continue
		}
		h := coinHeights[i]
		v := int64(seq & wire.SequenceLockTimeMask)
		if seq&wire.SequenceLockTimeIsSeconds != 0 {
			t := mtpBefore(h) + v<<wire.SequenceLockTimeGranularity - 1
			lock.MinTime = max(lock.MinTime, t)
		} else {
			lock.MinHeight = max(lock.MinHeight, h+int32(v)-1)
		}
	}
	return lock
}

// Satisfied reports whether the lock allows inclusion in a block at height
// whose parent has median time past prevMTP.
func (l SequenceLock) Satisfied(height int32, prevMTP int64) bool {
	return l.MinHeight < height && l.MinTime < prevMTP
}
