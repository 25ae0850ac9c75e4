package mempool

import (
	"github.com/btcnode/btcd/wire"
)

// ErrorKind classifies a rejection the way Core's TxValidationResult does,
// so callers (peer scoring, RPC) can decide with errors.Is what to do
// without parsing reason strings.
type ErrorKind string

// Error returns the kind's name.
func (k ErrorKind) Error() string { return string(k) }

// Rejection kinds.
const (
	// ErrConsensus means the transaction is invalid under consensus rules;
	// a peer that relays it misbehaves.
	ErrConsensus = ErrorKind("consensus")
	// ErrNotStandard means an output, the version, size or scriptSig form
	// breaks relay policy.
	ErrNotStandard = ErrorKind("not standard")
	// ErrInputsNotStandard means a spent output or its witness is of a form
	// that policy does not relay.
	ErrInputsNotStandard = ErrorKind("inputs not standard")
	// ErrMissingInputs means an input is neither in the chain nor in the
	// pool; the transaction is an orphan candidate.
	ErrMissingInputs = ErrorKind("missing inputs")
	// ErrPrematureSpend means a lock time or coinbase maturity is not yet
	// met; the transaction may become valid later.
	ErrPrematureSpend = ErrorKind("premature spend")
	// ErrConflict means the transaction (or its inputs) is already known:
	// already in the pool, already confirmed.
	ErrConflict = ErrorKind("conflict")
	// ErrMempoolPolicy means a pool-level limit refused it: chain limits,
	// replacement rules, a full pool.
	ErrMempoolPolicy = ErrorKind("mempool policy")
	// ErrReconsiderable means the fee was too low on its own; as part of a
	// package it might pass.
	ErrReconsiderable = ErrorKind("reconsiderable")
)

// RejectError is a rejected transaction: Core's reason string (the
// vocabulary RPC clients and tests match on), an optional debug detail, the
// BIP61 reject code and the kind.
type RejectError struct {
	Code   wire.RejectCode
	Kind   ErrorKind
	Reason string
	Debug  string
}

// Error renders "reason" or "reason, debug" as Core's ValidationState does.
func (e *RejectError) Error() string {
	if e.Debug == "" {
		return e.Reason
	}
	return e.Reason + ", " + e.Debug
}

// Unwrap exposes the kind to errors.Is.
func (e *RejectError) Unwrap() error { return e.Kind }

func reject(kind ErrorKind, code wire.RejectCode, reason, debug string) *RejectError {
	return &RejectError{Code: code, Kind: kind, Reason: reason, Debug: debug}
}

func rejectNonStd(reason, debug string) *RejectError {
	return reject(ErrNotStandard, wire.RejectNonstandard, reason, debug)
}

func rejectInvalid(reason, debug string) *RejectError {
	return reject(ErrConsensus, wire.RejectInvalid, reason, debug)
}

func rejectPolicy(reason, debug string) *RejectError {
	return reject(ErrMempoolPolicy, wire.RejectNonstandard, reason, debug)
}

func rejectFee(kind ErrorKind, reason, debug string) *RejectError {
	return reject(kind, wire.RejectInsufficientFee, reason, debug)
}

// Reason strings, exactly as Bitcoin Core spells them.
const (
	ReasonMinRelayFee         = "min relay fee not met"
	ReasonMempoolMinFee       = "mempool min fee not met"
	ReasonInsufficientFee     = "insufficient fee"
	ReasonMempoolConflict     = "txn-mempool-conflict"
	ReasonDust                = "dust"
	ReasonMissingInputs       = "bad-txns-inputs-missingorspent"
	ReasonAlreadyInMempool    = "txn-already-in-mempool"
	ReasonSameNonWitness      = "txn-same-nonwitness-data-in-mempool"
	ReasonAlreadyKnown        = "txn-already-known"
	ReasonTooLongChain        = "too-long-mempool-chain"
	ReasonNonFinal            = "non-final"
	ReasonNonBIP68Final       = "non-BIP68-final"
	ReasonScriptPubKey        = "scriptpubkey"
	ReasonBareMultisig        = "bare-multisig"
	ReasonTxSize              = "tx-size"
	ReasonTxSizeSmall         = "tx-size-small"
	ReasonVersion             = "version"
	ReasonScriptSigSize       = "scriptsig-size"
	ReasonScriptSigNotPush    = "scriptsig-not-pushonly"
	ReasonMultiOpReturn       = "multi-op-return"
	ReasonDataCarrier         = "datacarrier"
	ReasonNonStandardInputs   = "bad-txns-nonstandard-inputs"
	ReasonWitnessNonStandard  = "bad-witness-nonstandard"
	ReasonTooManySigops       = "bad-txns-too-many-sigops"
	ReasonTooManyReplacements = "too many potential replacements"
	ReasonAddsUnconfirmed     = "replacement-adds-unconfirmed"
	ReasonSpendsConflicting   = "bad-txns-spends-conflicting-tx"
	ReasonMempoolScript       = "mempool-script-verify-flag-failed"
	ReasonMandatoryScript     = "mandatory-script-verify-flag-failed"
	ReasonNonMandatoryScript  = "non-mandatory-script-verify-flag"
	ReasonCoinbase            = "coinbase"
	ReasonPrematureCoinbase   = "bad-txns-premature-spend-of-coinbase"
	ReasonInBelowOut          = "bad-txns-in-belowout"
	ReasonInputValuesRange    = "bad-txns-inputvalues-outofrange"
	ReasonMempoolFull         = "mempool full"
	ReasonTRUCViolation       = "TRUC-violation"
	ReasonMaxFeeExceeded      = "max-fee-exceeded"
	// ReasonMaxFeeRate is submitpackage's maxfeerate refusal.
	ReasonMaxFeeRate = "max feerate exceeded"
	// ReasonReplacementDisallowed refuses a conflict where replacement is
	// not evaluated (testmempoolaccept of several transactions).
	ReasonReplacementDisallowed = "bip125-replacement-disallowed"
	// ReasonMissingEphemeralSpends refuses a child leaving its parent's
	// ephemeral dust unspent.
	ReasonMissingEphemeralSpends = "missing-ephemeral-spends"
)
