package blockchain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// ErrorKind names one consensus rule. Its value is the short reject reason
// Bitcoin Core uses for that rule ("bad-txnmrklroot", "high-hash"), which
// is also what submitblock answers, so callers can test a failure with
// errors.Is(err, blockchain.ErrBadMerkleRoot) and report it verbatim.
type ErrorKind string

// Error returns the reject reason.
func (k ErrorKind) Error() string { return string(k) }

// Rule kinds, named after Core's reject reasons.
const (
	// Header rules.
	ErrHighHash           = ErrorKind("high-hash")
	ErrBadDiffBits        = ErrorKind("bad-diffbits")
	ErrTimeTooOld         = ErrorKind("time-too-old")
	ErrTimeTooNew         = ErrorKind("time-too-new")
	ErrTimewarpAttack     = ErrorKind("time-timewarp-attack")
	ErrBadVersion         = ErrorKind("bad-version")
	ErrBadPrevBlock       = ErrorKind("bad-prevblk")
	ErrPrevBlockNotFound  = ErrorKind("prev-blk-not-found")
	ErrDuplicate          = ErrorKind("duplicate")
	ErrDuplicateInvalid   = ErrorKind("duplicate-invalid")
	ErrTooLittleChainWork = ErrorKind("too-little-chainwork")

	// Block structure rules.
	ErrBadMerkleRoot        = ErrorKind("bad-txnmrklroot")
	ErrTxnsDuplicate        = ErrorKind("bad-txns-duplicate")
	ErrBadBlockLength       = ErrorKind("bad-blk-length")
	ErrBadBlockWeight       = ErrorKind("bad-blk-weight")
	ErrBadCoinbaseMissing   = ErrorKind("bad-cb-missing")
	ErrBadCoinbaseMultiple  = ErrorKind("bad-cb-multiple")
	ErrBadBlockSigOps       = ErrorKind("bad-blk-sigops")
	ErrBadWitnessMerkle     = ErrorKind("bad-witness-merkle-match")
	ErrBadWitnessNonceSize  = ErrorKind("bad-witness-nonce-size")
	ErrUnexpectedWitness    = ErrorKind("unexpected-witness")
	ErrBadCoinbaseHeight    = ErrorKind("bad-cb-height")
	ErrBadCoinbaseAmount    = ErrorKind("bad-cb-amount")
	ErrBadSignetBlockSig    = ErrorKind("bad-signet-blksig")
	ErrBadTxnsNonFinal      = ErrorKind("bad-txns-nonfinal")
	ErrBadTxnsBIP30         = ErrorKind("bad-txns-BIP30")
	ErrBadTxnsMissingInputs = ErrorKind("bad-txns-inputs-missingorspent")
	ErrBadTxnsAccumFee      = ErrorKind("bad-txns-accumulated-fee-outofrange")

	// Transaction rules.
	ErrTxVinEmpty            = ErrorKind("bad-txns-vin-empty")
	ErrTxVoutEmpty           = ErrorKind("bad-txns-vout-empty")
	ErrTxOversize            = ErrorKind("bad-txns-oversize")
	ErrTxVoutNegative        = ErrorKind("bad-txns-vout-negative")
	ErrTxVoutTooLarge        = ErrorKind("bad-txns-vout-toolarge")
	ErrTxOutTotalTooLarge    = ErrorKind("bad-txns-txouttotal-toolarge")
	ErrTxInputsDuplicate     = ErrorKind("bad-txns-inputs-duplicate")
	ErrTxBadCoinbaseLength   = ErrorKind("bad-cb-length")
	ErrTxPrevOutNull         = ErrorKind("bad-txns-prevout-null")
	ErrTxPrematureCoinbase   = ErrorKind("bad-txns-premature-spend-of-coinbase")
	ErrTxInBelowOut          = ErrorKind("bad-txns-in-belowout")
	ErrTxInputValuesRange    = ErrorKind("bad-txns-inputvalues-outofrange")
	ErrTxFeeOutOfRange       = ErrorKind("bad-txns-fee-outofrange")
	ErrScriptVerifyMandatory = ErrorKind("mandatory-script-verify-flag-failed")
)

// mutationKinds are the failures Core classes as BLOCK_MUTATED: the bytes
// we received may not be the block the header commits to (a peer can
// strip witnesses or duplicate transactions without changing the hash), so
// the hash must not be marked invalid, or a valid block could be blocked
// by a malleated copy of it.
func (k ErrorKind) isMutation() bool {
	switch k {
	case ErrBadMerkleRoot, ErrTxnsDuplicate, ErrBadWitnessMerkle,
		ErrBadWitnessNonceSize, ErrUnexpectedWitness:
		return true
	}
	return false
}

// RuleError reports a block or transaction that breaks a consensus rule.
// Reason is Core's reject reason (the kind, sometimes with a detail such as
// "bad-version(0x00000001)" or "mandatory-script-verify-flag-failed
// (Signature must be zero for failed CHECK(MULTI)SIG operation)"); Desc is
// a longer description for logs. errors.Is matches on Kind, and for script
// failures also on the txscript error underneath.
type RuleError struct {
	Kind   ErrorKind
	Reason string
	Desc   string
	Err    error
}

// Error returns "reason: description".
func (e *RuleError) Error() string {
	if e.Desc == "" {
		return e.Reason
	}
	return e.Reason + ": " + e.Desc
}

// Unwrap exposes the kind, and any underlying error, to errors.Is.
func (e *RuleError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// IsMutation reports whether the failure may be caused by a malleated copy
// of a valid block rather than by the block itself (see Core's
// BLOCK_MUTATED); such a block's hash is not marked invalid.
func (e *RuleError) IsMutation() bool { return e.Kind.isMutation() }

func ruleError(kind ErrorKind, format string, args ...any) *RuleError {
	return &RuleError{Kind: kind, Reason: string(kind), Desc: fmt.Sprintf(format, args...)}
}

// ruleReason is a rule failure with no debug text, as most of Core's
// transaction rules report.
func ruleReason(kind ErrorKind) *RuleError {
	return &RuleError{Kind: kind, Reason: string(kind)}
}

// stateString renders a failure as Core's ValidationState::ToString does
// in its log lines: the reason, then ", " and the debug text if any.
func stateString(err error) string {
	var re *RuleError
	if !errors.As(err, &re) {
		return err.Error()
	}
	if re.Desc == "" {
		return re.Reason
	}
	return re.Reason + ", " + re.Desc
}

// inTransaction adds the transaction to a transaction rule's failure
// inside a block, as Core's ConnectBlock words it.
func inTransaction(err error, txid wire.Hash) error {
	var re *RuleError
	if !errors.As(err, &re) {
		return err
	}
	c := *re
	c.Desc += " in transaction " + txid.String()
	return &c
}

// formatMoney renders satoshis as Core's FormatMoney: whole coins, then
// at least two and at most eight decimals.
func formatMoney(v int64) string {
	sign := ""
	u := uint64(v)
	if v < 0 {
		sign, u = "-", uint64(-v)
	}
	s := fmt.Sprintf("%s%d.%08d", sign, u/1e8, u%1e8)
	for i := 0; i < 6 && strings.HasSuffix(s, "0"); i++ {
		s = s[:len(s)-1]
	}
	return s
}

// ruleErrorReason is ruleError with a reason that differs from the kind,
// e.g. a reason with a parenthesised detail as Core appends.
func ruleErrorReason(kind ErrorKind, reason string, format string, args ...any) *RuleError {
	return &RuleError{Kind: kind, Reason: reason, Desc: fmt.Sprintf(format, args...)}
}

// Query failures. These are not consensus rules (errIsRule is false for
// them): they are returned wrapped in plain errors so errors.Is selects
// them, and their text is what bitcoind answers over RPC.
const (
	// ErrBlockPruned: the block is known and was stored once, but its data
	// was deleted by pruning.
	ErrBlockPruned = ErrorKind("Block not available (pruned data)")
	// ErrTxNotFound: the transaction is not in the txindex or its block is
	// no longer on the main chain.
	ErrTxNotFound = ErrorKind("No such mempool or blockchain transaction")
	// ErrTxIndexDisabled: TxByID was called without Config.TxIndex.
	ErrTxIndexDisabled = ErrorKind("No such mempool transaction. Use -txindex to enable blockchain transaction queries")
	// ErrPruneDisabled: PruneBlockchain was called without pruning enabled.
	ErrPruneDisabled = ErrorKind("Cannot prune blocks because node is not in prune mode.")
)

// BlockIndexLoadError is a start-up failure to load the block database
// (New): the block index records did not read, or block files they need
// are missing (Core's "Error loading block database").
type BlockIndexLoadError struct {
	Err error
}

// Error says what failed.
func (e *BlockIndexLoadError) Error() string { return "loading the block database: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *BlockIndexLoadError) Unwrap() error { return e.Err }

// NeedsRedownloadError reports blocks of the best chain, at or above the
// segwit activation height, that were stored without segwit's rules
// (Core's NeedsRedownload): the chain must be rebuilt from the block
// files (-reindex), which validates them again.
type NeedsRedownloadError struct {
	SegwitHeight int32
}

// Error returns Core's message.
func (e *NeedsRedownloadError) Error() string {
	return fmt.Sprintf("Witness data for blocks after height %d requires validation. Please restart with -reindex.", e.SegwitHeight)
}
