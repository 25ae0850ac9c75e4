package mempool

import (
	"fmt"
	"time"

	"github.com/btcnode/btcd/wire"
)

// FeeRate is a fee rate in satoshis per 1000 virtual bytes (Core's
// CFeeRate).
type FeeRate int64

// Fee returns the fee for vsize virtual bytes at the rate, rounded up
// (Core's CFeeRate::GetFee, EvaluateFeeUp).
func (r FeeRate) Fee(vsize int64) int64 {
	if r <= 0 || vsize <= 0 {
		return int64(r) * vsize / 1000
	}
	return (int64(r)*vsize + 999) / 1000
}

// NewFeeRate returns the rate of fee satoshis over vsize virtual bytes.
func NewFeeRate(fee, vsize int64) FeeRate {
	if vsize <= 0 {
		return 0
	}
	return FeeRate(fee * 1000 / vsize)
}

// String renders the rate as Core's CFeeRate::ToString does
// ("0.00001000 BTC/kvB"), the form its rejection details carry.
func (r FeeRate) String() string {
	v := int64(r)
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%08d BTC/kvB", sign, v/1e8, v%1e8)
}

// formatMoney is Core's FormatMoney: a BTC amount with eight decimals,
// trailing zeros trimmed down to two ("0.0005", "1.00").
func formatMoney(sat int64) string {
	neg := sat < 0
	if neg {
		sat = -sat
	}
	s := fmt.Sprintf("%d.%08d", sat/1e8, sat%1e8)
	end := len(s)
	for end > 0 && s[end-1] == '0' && s[end-3] != '.' {
		end--
	}
	s = s[:end]
	if neg {
		s = "-" + s
	}
	return s
}

// Policy constants, as Bitcoin Core 30 defines them.
const (
	// MaxStandardTxWeight is the largest weight relayed (MAX_STANDARD_TX_WEIGHT).
	MaxStandardTxWeight = 400000
	// MinStandardTxNonWitnessSize is the smallest stripped size relayed (the
	// 64-byte transaction attack is avoided).
	MinStandardTxNonWitnessSize = 65
	// MaxP2SHSigOps is the sigop limit of a standard P2SH redeem script.
	MaxP2SHSigOps = 15
	// MaxBlockSigOpsCost is the consensus block sigop cost limit.
	MaxBlockSigOpsCost = 80000
	// MaxStandardTxSigOpsCost is the per-transaction sigop cost limit.
	MaxStandardTxSigOpsCost = MaxBlockSigOpsCost / 5
	// MaxTxLegacySigOps is the BIP54 cap on non-witness sigops a transaction
	// may execute (policy since Core 30).
	MaxTxLegacySigOps = 2500
	// MaxStandardScriptSigSize is the largest standard scriptSig.
	MaxStandardScriptSigSize = 1650
	// MaxStandardP2WSHStackItems, MaxStandardP2WSHStackItemSize and
	// MaxStandardP2WSHScriptSize bound a standard P2WSH witness.
	MaxStandardP2WSHStackItems    = 100
	MaxStandardP2WSHStackItemSize = 80
	MaxStandardP2WSHScriptSize    = 3600
	// MaxStandardTapscriptStackItemSize bounds tapscript (leaf 0xc0) stack
	// items.
	MaxStandardTapscriptStackItemSize = 80
	// MaxDustOutputsPerTx is how many dust outputs a transaction may have
	// (one, as ephemeral dust, and then only with zero fee).
	MaxDustOutputsPerTx = 1
	// MaxOpReturnRelay is Core 30's -datacarriersize default: the whole
	// standard transaction size, i.e. no separate limit.
	MaxOpReturnRelay = MaxStandardTxWeight / wire.WitnessScaleFactor

	// TRUCVersion is the BIP431 transaction version.
	TRUCVersion = 3
	// TRUCMaxVSize and TRUCChildMaxVSize bound TRUC transactions.
	TRUCMaxVSize      = 10000
	TRUCChildMaxVSize = 1000
	// TRUCAncestorLimit and TRUCDescendantLimit count the transaction
	// itself.
	TRUCAncestorLimit   = 2
	TRUCDescendantLimit = 2

	// MaxReplacementCandidates bounds the transactions one replacement may
	// evict (BIP125 rule 5).
	MaxReplacementCandidates = 100
	// ExtraDescendantTxSizeLimit is the CPFP carve-out size allowance.
	ExtraDescendantTxSizeLimit = 10000

	// annexTag marks a taproot annex.
	annexTag = 0x50
	// tapLeafMask and tapLeafTapscript select the BIP342 leaf version.
	tapLeafMask      = 0xfe
	tapLeafTapscript = 0xc0
)

// Policy is the configurable relay policy.
type Policy struct {
	// RequireStandard enforces the standardness rules (Core's inverse of
	// -acceptnonstdtxn; the `rejectnonstd` option).
	RequireStandard bool
	// MinRelayFee is -minrelaytxfee.
	MinRelayFee FeeRate
	// IncrementalRelayFee is -incrementalrelayfee: the price of relaying a
	// replacement and the step of the rolling minimum fee.
	IncrementalRelayFee FeeRate
	// DustRelayFee is -dustrelayfee.
	DustRelayFee FeeRate
	// DataCarrier is -datacarrier; when false no OP_RETURN output is
	// standard.
	DataCarrier bool
	// MaxDataCarrierBytes is -datacarriersize: the summed size of all
	// OP_RETURN output scripts of one transaction.
	MaxDataCarrierBytes int
	// SingleDataCarrier restores the pre-Core-30 rule of at most one
	// OP_RETURN output ("multi-op-return"). Off by default, as in Core 30.
	SingleDataCarrier bool
	// PermitBareMultisig is -permitbaremultisig.
	PermitBareMultisig bool
	// BytesPerSigOp is -bytespersigop: the virtual size charged per sigop
	// when that exceeds the weight-based size.
	BytesPerSigOp int64
	// AncestorLimit, AncestorSizeLimitKvB, DescendantLimit and
	// DescendantSizeLimitKvB are -limitancestorcount etc.
	AncestorLimit          int64
	AncestorSizeLimitKvB   int64
	DescendantLimit        int64
	DescendantSizeLimitKvB int64
}

// DefaultPolicy returns Core 30's defaults.
func DefaultPolicy() Policy {
	return Policy{
		RequireStandard:        true,
		MinRelayFee:            100,
		IncrementalRelayFee:    100,
		DustRelayFee:           3000,
		DataCarrier:            true,
		MaxDataCarrierBytes:    MaxOpReturnRelay,
		PermitBareMultisig:     true,
		BytesPerSigOp:          20,
		AncestorLimit:          25,
		AncestorSizeLimitKvB:   101,
		DescendantLimit:        25,
		DescendantSizeLimitKvB: 101,
	}
}

// DefaultExpiry is -mempoolexpiry.
const DefaultExpiry = 336 * time.Hour

// DefaultMaxMempoolBytes is -maxmempool (300 MB).
const DefaultMaxMempoolBytes = 300_000_000

// VirtualSize is Core's GetVirtualTransactionSize: weight over four,
// rounded up, or the sigop-based size when that is larger.
func VirtualSize(weight, sigOpCost, bytesPerSigOp int64) int64 {
	w := weight
	if s := sigOpCost * bytesPerSigOp; s > w {
		w = s
	}
	return (w + wire.WitnessScaleFactor - 1) / wire.WitnessScaleFactor
}

// DustThreshold is Core's GetDustThreshold: the fee, at the dust relay
// rate, of the output plus a minimal input spending it (148 bytes, or 67
// virtual bytes for a witness program). Unspendable outputs have none.
func DustThreshold(out *wire.TxOut, dustRelayFee FeeRate) int64 {
	if isUnspendable(out.PkScript) {
		return 0
	}
	size := int64(out.SerializeSize())
	if _, _, ok := witnessProgram(out.PkScript); ok {
		size += 32 + 4 + 1 + 107/wire.WitnessScaleFactor + 4
	} else {
		size += 32 + 4 + 1 + 107 + 4
	}
	return dustRelayFee.Fee(size)
}

// IsDust reports whether the output is worth less than its dust threshold.
func IsDust(out *wire.TxOut, dustRelayFee FeeRate) bool {
	return out.Value < DustThreshold(out, dustRelayFee)
}

// countDust returns the number of dust outputs of tx.
func countDust(tx *wire.MsgTx, rate FeeRate) int {
	n := 0
	for i := range tx.TxOut {
		if IsDust(&tx.TxOut[i], rate) {
			n++
		}
	}
	return n
}

// checkStandardTx applies Core's IsStandardTx: version, weight, scriptSig
// size and form, output types, data carrier budget, bare multisig and dust
// count. weight is tx.Weight(), passed in to avoid recomputing it.
func checkStandardTx(tx *wire.MsgTx, weight int64, p *Policy) *RejectError {
	if tx.Version < 1 || tx.Version > TRUCVersion {
		return rejectNonStd(ReasonVersion, "")
	}
	if weight > MaxStandardTxWeight {
		return rejectNonStd(ReasonTxSize, "")
	}
	for i := range tx.TxIn {
		ss := tx.TxIn[i].SignatureScript
		if len(ss) > MaxStandardScriptSigSize {
			return rejectNonStd(ReasonScriptSigSize, "")
		}
		if !isPushOnly(ss) {
			return rejectNonStd(ReasonScriptSigNotPush, "")
		}
	}
	dataLeft := 0
	if p.DataCarrier {
		dataLeft = p.MaxDataCarrierBytes
	}
	dataOuts := 0
	for i := range tx.TxOut {
		pk := tx.TxOut[i].PkScript
		class, m, n := classify(pk)
		switch class {
		case classNonStandard:
			return rejectNonStd(ReasonScriptPubKey, "")
		case classMultiSig:
			if n < 1 || n > 3 || m < 1 || m > n {
				return rejectNonStd(ReasonScriptPubKey, "")
			}
			if !p.PermitBareMultisig {
				return rejectNonStd(ReasonBareMultisig, "")
			}
		case classNullData:
			if len(pk) > dataLeft {
				return rejectNonStd(ReasonDataCarrier, "")
			}
			dataLeft -= len(pk)
			dataOuts++
		}
	}
	if countDust(tx, p.DustRelayFee) > MaxDustOutputsPerTx {
		return rejectNonStd(ReasonDust, "")
	}
	if p.SingleDataCarrier && dataOuts > 1 {
		return rejectNonStd(ReasonMultiOpReturn, "")
	}
	return nil
}

// checkInputsStandard is Core's AreInputsStandard: the BIP54 legacy sigop
// cap, no spends of non-standard or unknown-witness-version outputs, and
// at most 15 sigops in a P2SH redeem script.
func checkInputsStandard(tx *wire.MsgTx, coins []Coin) *RejectError {
	legacy := 0
	for i := range tx.TxIn {
		ss := tx.TxIn[i].SignatureScript
		legacy += sigOpCount(ss, true) + p2shSigOps(coins[i].PkScript, ss)
		if legacy > MaxTxLegacySigOps {
			return reject(ErrInputsNotStandard, wire.RejectNonstandard, ReasonNonStandardInputs,
				"non-witness sigops exceed bip54 limit")
		}
	}
	for i := range tx.TxIn {
		class, _, _ := classify(coins[i].PkScript)
		switch class {
		case classNonStandard, classWitnessUnknown:
			return reject(ErrInputsNotStandard, wire.RejectNonstandard, ReasonNonStandardInputs,
				fmt.Sprintf("input %d spends a %s output", i, class))
		case classScriptHash:
			redeem, ok := lastPush(tx.TxIn[i].SignatureScript)
			if !ok {
				return reject(ErrInputsNotStandard, wire.RejectNonstandard, ReasonNonStandardInputs,
					fmt.Sprintf("input %d: no P2SH redeem script", i))
			}
			if sigOpCount(redeem, true) > MaxP2SHSigOps {
				return reject(ErrInputsNotStandard, wire.RejectNonstandard, ReasonNonStandardInputs,
					fmt.Sprintf("input %d: P2SH redeem script has too many sigops", i))
			}
		}
	}
	return nil
}

// checkWitnessStandard is Core's IsWitnessStandard: witnesses only on
// witness-program spends (not on pay-to-anchor), P2WSH size limits, no
// taproot annex and tapscript stack item limits.
func checkWitnessStandard(tx *wire.MsgTx, coins []Coin) *RejectError {
	for i := range tx.TxIn {
		wit := tx.TxIn[i].Witness
		if len(wit) == 0 {
			continue
		}
		fail := func(why string) *RejectError {
			return reject(ErrInputsNotStandard, wire.RejectNonstandard, ReasonWitnessNonStandard,
				fmt.Sprintf("input %d: %s", i, why))
		}
		prev := coins[i].PkScript
		if isAnchor(prev) {
			return fail("witness on pay-to-anchor")
		}
		p2sh := false
		if isP2SH(prev) {
			top, ok := lastPush(tx.TxIn[i].SignatureScript)
			if !ok {
				return fail("bad P2SH redeem script")
			}
			prev, p2sh = top, true
		}
		v, prog, ok := witnessProgram(prev)
		if !ok {
			return fail("witness on a non-witness input")
		}
		if v == 0 && len(prog) == 32 {
			if len(wit[len(wit)-1]) > MaxStandardP2WSHScriptSize {
				return fail("P2WSH script too large")
			}
			items := len(wit) - 1
			if items > MaxStandardP2WSHStackItems {
				return fail("too many P2WSH stack items")
			}
			for _, item := range wit[:items] {
				if len(item) > MaxStandardP2WSHStackItemSize {
					return fail("P2WSH stack item too large")
				}
			}
		}
		if v == 1 && len(prog) == 32 && !p2sh {
			stack := wit
			if len(stack) >= 2 && len(stack[len(stack)-1]) > 0 && stack[len(stack)-1][0] == annexTag {
				return fail("taproot annex")
			}
			if len(stack) >= 2 {
				control := stack[len(stack)-1]
				stack = stack[:len(stack)-2]
				if len(control) == 0 {
					return fail("empty control block")
				}
				if control[0]&tapLeafMask == tapLeafTapscript {
					for _, item := range stack {
						if len(item) > MaxStandardTapscriptStackItemSize {
							return fail("tapscript stack item too large")
						}
					}
				}
			}
		}
	}
	return nil
}

// sigOpCost is Core's GetTransactionSigOpCost: legacy sigops of scriptSigs
// and outputs, P2SH redeem-script sigops (both scaled by four) and witness
// sigops.
func sigOpCost(tx *wire.MsgTx, coins []Coin) int64 {
	n := 0
	for i := range tx.TxIn {
		n += sigOpCount(tx.TxIn[i].SignatureScript, false)
	}
	for i := range tx.TxOut {
		n += sigOpCount(tx.TxOut[i].PkScript, false)
	}
	cost := int64(n) * wire.WitnessScaleFactor
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		pk := coins[i].PkScript
		if isP2SH(pk) {
			cost += int64(p2shSigOps(pk, in.SignatureScript)) * wire.WitnessScaleFactor
		}
		cost += int64(witnessSigOps(in.SignatureScript, pk, in.Witness))
	}
	return cost
}
