package blockchain

import (
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// Money limits.
const (
	// SatoshiPerBitcoin is the number of satoshis in one bitcoin.
	SatoshiPerBitcoin = 100_000_000
	// MaxMoney is the largest amount any output or sum may hold; it is a
	// sanity bound, not the supply.
	MaxMoney = 21_000_000 * SatoshiPerBitcoin
)

// MoneyRange reports whether v is a valid amount.
func MoneyRange(v int64) bool { return v >= 0 && v <= MaxMoney }

// dupCheckLinearMax is the input count up to which duplicate inputs are
// found by comparing pairs, which beats a map for small transactions.
const dupCheckLinearMax = 16

// CheckTransaction applies the rules that need nothing but the transaction
// (Core's CheckTransaction): inputs and outputs present, stripped size
// within the block limit, output values in range, no duplicate inputs, a
// coinbase script of 2 to 100 bytes, no null prevout in a non-coinbase.
// As in Core, the failures carry no debug text beyond the reason.
func CheckTransaction(tx *wire.MsgTx) error {
	if len(tx.TxIn) == 0 {
		return ruleReason(ErrTxVinEmpty)
	}
	if len(tx.TxOut) == 0 {
		return ruleReason(ErrTxVoutEmpty)
	}
	if tx.SerializeSizeStripped()*wire.WitnessScaleFactor > wire.MaxBlockWeight {
		return ruleReason(ErrTxOversize)
	}
	var total int64
	for i := range tx.TxOut {
		v := tx.TxOut[i].Value
		if v < 0 {
			return ruleReason(ErrTxVoutNegative)
		}
		if v > MaxMoney {
			return ruleReason(ErrTxVoutTooLarge)
		}
		total += v
		if !MoneyRange(total) {
			return ruleReason(ErrTxOutTotalTooLarge)
		}
	}
	if err := checkDuplicateInputs(tx); err != nil {
		return err
	}
	if tx.IsCoinBase() {
		if l := len(tx.TxIn[0].SignatureScript); l < 2 || l > 100 {
			return ruleReason(ErrTxBadCoinbaseLength)
		}
		return nil
	}
	for i := range tx.TxIn {
		op := &tx.TxIn[i].PreviousOutPoint
		if op.Index == wire.MaxPrevOutIndex && op.Hash == (wire.Hash{}) {
			return ruleReason(ErrTxPrevOutNull)
		}
	}
	return nil
}

func checkDuplicateInputs(tx *wire.MsgTx) error {
	ins := tx.TxIn
	if len(ins) <= dupCheckLinearMax {
		for i := 1; i < len(ins); i++ {
			for j := 0; j < i; j++ {
				if ins[i].PreviousOutPoint == ins[j].PreviousOutPoint {
					return ruleReason(ErrTxInputsDuplicate)
				}
			}
		}
		return nil
	}
	seen := make(map[wire.OutPoint]struct{}, len(ins))
	for i := range ins {
		op := ins[i].PreviousOutPoint
		if _, ok := seen[op]; ok {
			return ruleReason(ErrTxInputsDuplicate)
		}
		seen[op] = struct{}{}
	}
	return nil
}

// CheckTxInputs applies the rules on a transaction's spent coins (Core's
// Consensus::CheckTxInputs) and returns its fee. coins[i] is the coin the
// i-th input spends; spendHeight is the height of the block spending them.
// Coinbase outputs need coinbaseMaturity confirmations; every input value
// and their sum must be in range and cover the outputs.
func CheckTxInputs(tx *wire.MsgTx, coins []database.UtxoEntry, spendHeight, coinbaseMaturity int32) (int64, error) {
	var in int64
	for i := range coins {
		c := &coins[i]
		if c.IsCoinBase && spendHeight-c.Height < coinbaseMaturity {
			return 0, ruleError(ErrTxPrematureCoinbase, "tried to spend coinbase at depth %d", spendHeight-c.Height)
		}
		in += c.Amount
		if !MoneyRange(c.Amount) || !MoneyRange(in) {
			return 0, ruleReason(ErrTxInputValuesRange)
		}
	}
	var out int64
	for i := range tx.TxOut {
		out += tx.TxOut[i].Value
	}
	if in < out {
		return 0, ruleError(ErrTxInBelowOut, "value in (%s) < value out (%s)", formatMoney(in), formatMoney(out))
	}
	fee := in - out
	if !MoneyRange(fee) {
		return 0, ruleReason(ErrTxFeeOutOfRange)
	}
	return fee, nil
}
