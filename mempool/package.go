package mempool

import (
	"github.com/btcnode/btcd/wire"
)

// Package limits (Core's MAX_PACKAGE_COUNT and MAX_PACKAGE_WEIGHT).
const (
	MaxPackageCount  = 25
	MaxPackageWeight = 404_000
)

// PackageErrorKind classifies a package-wide failure as Core's
// PackageValidationResult does.
type PackageErrorKind uint8

// Package failure kinds.
const (
	// PackageErrTx means a member transaction failed; its result says why
	// (Core's PCKG_TX, "transaction failed").
	PackageErrTx PackageErrorKind = iota + 1
	// PackageErrPolicy means the package as a whole breaks policy: its
	// shape, its size, package limits, package RBF (PCKG_POLICY).
	PackageErrPolicy
	// PackageErrMempool is an internal inconsistency (PCKG_MEMPOOL_ERROR).
	PackageErrMempool
)

// PackageError is a package-wide failure with Core's reason strings.
type PackageError struct {
	Kind   PackageErrorKind
	Reason string
	Debug  string
}

// Error renders "reason" or "reason, debug" as Core's ValidationState does.
func (e *PackageError) Error() string {
	if e.Debug == "" {
		return e.Reason
	}
	return e.Reason + ", " + e.Debug
}

// Package reason strings, as Core spells them.
const (
	ReasonPackageTooMany           = "package-too-many-transactions"
	ReasonPackageTooLarge          = "package-too-large"
	ReasonPackageDuplicates        = "package-contains-duplicates"
	ReasonPackageNotSorted         = "package-not-sorted"
	ReasonPackageConflict          = "conflict-in-package"
	ReasonPackageNotChildParents   = "package-not-child-with-parents"
	ReasonPackageUnconfirmedParent = "package-not-child-with-unconfirmed-parents"
	ReasonPackageMempoolLimits     = "package-mempool-limits"
	ReasonPackageTxFailed          = "transaction failed"
	ReasonPackageUnspentDust       = "unspent-dust"
)

func packageTxFailed() *PackageError {
	return &PackageError{Kind: PackageErrTx, Reason: ReasonPackageTxFailed}
}

// TxResultKind is what happened to one package member (Core's
// MempoolAcceptResult::ResultType).
type TxResultKind uint8

// Member outcomes.
const (
	// TxValid means accepted now (or acceptable, when testing).
	TxValid TxResultKind = iota + 1
	// TxInMempool means it was already in the pool.
	TxInMempool
	// TxDifferentWitness means the pool holds the same transaction with
	// another witness (OtherWTxID); the submitted one was ignored.
	TxDifferentWitness
	// TxInvalid means rejected (Err).
	TxInvalid
)

// TxResult is one package member's outcome.
type TxResult struct {
	Kind  TxResultKind
	TxID  wire.Hash
	WTxID wire.Hash
	// VSize and Fee (the base fee) are set for TxValid and TxInMempool.
	VSize int64
	Fee   int64
	// EffectiveFeeRate is the modified fee rate the fee floors were
	// checked on, and EffectiveIncludes the wtxids it sums over (the
	// package when the package rate was used); TxValid only.
	EffectiveFeeRate  FeeRate
	EffectiveIncludes []wire.Hash
	// Replaced lists the txids evicted by this member's replacement.
	Replaced   []wire.Hash
	OtherWTxID wire.Hash
	Err        *RejectError
}

// PackageResult is a package evaluation (Core's
// PackageMempoolAcceptResult). Results are keyed by wtxid; members never
// evaluated (after a failure ended the evaluation) have none.
type PackageResult struct {
	// Err is the package-wide failure, nil when every member is valid
	// or already in the pool.
	Err     *PackageError
	Results map[wire.Hash]*TxResult
}

func invalidResult(ws *acceptState, err *RejectError) *TxResult {
	return &TxResult{Kind: TxInvalid, TxID: ws.txid, WTxID: ws.wtxid, Err: err}
}

func validResult(ws *acceptState) *TxResult {
	r := &TxResult{Kind: TxValid, TxID: ws.txid, WTxID: ws.wtxid, VSize: ws.vsize, Fee: ws.fee}
	if ws.pkgIncludes != nil {
		r.EffectiveFeeRate, r.EffectiveIncludes = ws.pkgRate, ws.pkgIncludes
	} else {
		r.EffectiveFeeRate, r.EffectiveIncludes = NewFeeRate(ws.modFee, ws.vsize), []wire.Hash{ws.wtxid}
	}
	for _, e := range ws.evict {
		r.Replaced = append(r.Replaced, e.TxID)
	}
	return r
}

// CheckPackage is Core's IsWellFormedPackage for a topologically sorted
// package: at most MaxPackageCount members, at most MaxPackageWeight in
// total (for more than one), no duplicate txids, parents before children
// and no two members spending the same output (nor a member with no
// inputs). It needs no context and allocates in proportion to the
// package only.
func CheckPackage(txs []*wire.MsgTx) *PackageError {
	fail := func(reason string) *PackageError {
		return &PackageError{Kind: PackageErrPolicy, Reason: reason}
	}
	if len(txs) > MaxPackageCount {
		return fail(ReasonPackageTooMany)
	}
	var weight int64
	for _, tx := range txs {
		weight += tx.Weight()
	}
	if len(txs) > 1 && weight > MaxPackageWeight {
		return fail(ReasonPackageTooLarge)
	}
	later := make(map[wire.Hash]struct{}, len(txs))
	for _, tx := range txs {
		later[tx.TxHash()] = struct{}{}
	}
	if len(later) != len(txs) {
		return fail(ReasonPackageDuplicates)
	}
	for _, tx := range txs {
		for i := range tx.TxIn {
			if _, ok := later[tx.TxIn[i].PreviousOutPoint.Hash]; ok {
				return fail(ReasonPackageNotSorted)
			}
		}
		delete(later, tx.TxHash())
	}
	seen := make(map[wire.OutPoint]struct{})
	for _, tx := range txs {
		if len(tx.TxIn) == 0 {
			return fail(ReasonPackageConflict)
		}
		for i := range tx.TxIn {
			if _, dup := seen[tx.TxIn[i].PreviousOutPoint]; dup {
				return fail(ReasonPackageConflict)
			}
		}
		// A transaction spending one output twice is a consensus error
		// CheckTransaction reports, so its inputs go in together.
		for i := range tx.TxIn {
			seen[tx.TxIn[i].PreviousOutPoint] = struct{}{}
		}
	}
	return nil
}

// IsChildWithParents reports whether every member but the last is a
// direct parent of the last (Core's IsChildWithParents); a single
// transaction is not such a package.
func IsChildWithParents(txs []*wire.MsgTx) bool {
	if len(txs) < 2 {
		return false
	}
	child := txs[len(txs)-1]
	for _, parent := range txs[:len(txs)-1] {
		id := parent.TxHash()
		found := false
		for i := range child.TxIn {
			if child.TxIn[i].PreviousOutPoint.Hash == id {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// IsChildWithParentsTree is IsChildWithParents where no parent spends
// another (the only shape submitpackage takes).
func IsChildWithParentsTree(txs []*wire.MsgTx) bool {
	if !IsChildWithParents(txs) {
		return false
	}
	parents := make(map[wire.Hash]struct{}, len(txs)-1)
	for _, tx := range txs[:len(txs)-1] {
		parents[tx.TxHash()] = struct{}{}
	}
	for _, tx := range txs[:len(txs)-1] {
		for i := range tx.TxIn {
			if _, ok := parents[tx.TxIn[i].PreviousOutPoint.Hash]; ok {
				return false
			}
		}
	}
	return true
}

// TestAcceptPackage evaluates several transactions together without
// changing the pool, as testmempoolaccept does (Core's
// AcceptMultipleTransactions with test_accept): each sees the outputs of
// the members before it, none may conflict with the pool, and each must
// pay the fee floors on its own (no package fee rate).
func (p *Pool) TestAcceptPackage(txs []*wire.MsgTx) *PackageResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	res, _ := p.acceptMultipleLocked(txs, acceptArgs{testOnly: true})
	return res
}

// acceptMultipleLocked is Core's AcceptMultipleTransactions: pre-checks of
// every member with the earlier members' outputs visible, the package
// TRUC rules, the package fee rate (args.packageFeerates), the package
// limits and package RBF, ephemeral dust spends and the scripts; then,
// unless testing, the members enter the pool in order. It returns the
// entries added.
func (p *Pool) acceptMultipleLocked(txs []*wire.MsgTx, args acceptArgs) (*PackageResult, []*Entry) {
	res := &PackageResult{Results: make(map[wire.Hash]*TxResult)}
	if err := CheckPackage(txs); err != nil || len(txs) == 0 {
		res.Err = err
		return res, nil
	}
	pkg := make([]*acceptState, 0, len(txs))
	view := make(map[wire.Hash]*acceptState, len(txs))
	for _, tx := range txs {
		ws := newAcceptState(tx)
		if err := p.preChecks(ws, &args, view, false); err != nil {
			res.Err = packageTxFailed()
			res.Results[ws.wtxid] = invalidResult(ws, err)
			return res, nil
		}
		// The cap ignores what a child pays for its parent.
		if args.clientMaxFeeRate > 0 && NewFeeRate(ws.modFee, ws.vsize) > args.clientMaxFeeRate {
			res.Err = packageTxFailed()
			res.Results[ws.wtxid] = invalidResult(ws, rejectPolicy(ReasonMaxFeeRate, ""))
			return res, nil
		}
		pkg = append(pkg, ws)
		view[ws.txid] = ws
	}
	for _, ws := range pkg {
		if msg := packageTRUCChecks(ws, pkg); msg != "" {
			res.Err = &PackageError{Kind: PackageErrPolicy, Reason: ReasonTRUCViolation, Debug: msg}
			return res, nil
		}
	}
	var totalVSize, totalFee int64
	rbf := false
	wtxids := make([]wire.Hash, len(pkg))
	for i, ws := range pkg {
		totalVSize += ws.vsize
		totalFee = saturatingAdd(totalFee, ws.modFee)
		wtxids[i] = ws.wtxid
		rbf = rbf || len(ws.conflicts) > 0
	}
	pkgRate := NewFeeRate(totalFee, totalVSize)
	if args.packageFeerates {
		if err := p.checkFeeRate(totalVSize, totalFee); err != nil {
			res.Err = packageTxFailed()
			last := pkg[len(pkg)-1]
			res.Results[last.wtxid] = invalidResult(last, err)
			return res, nil
		}
	}
	var evict []*Entry
	if len(pkg) > 1 {
		if msg := p.checkPackageLimits(pkg, totalVSize); msg != "" {
			res.Err = &PackageError{Kind: PackageErrPolicy, Reason: ReasonPackageMempoolLimits, Debug: msg}
			return res, nil
		}
		if rbf {
			var perr *PackageError
			if evict, perr = p.packageRBFChecks(pkg, totalFee, totalVSize); perr != nil {
				res.Err = perr
				return res, nil
			}
		}
	}
	if p.cfg.Policy.RequireStandard {
		if child, err := p.checkEphemeralSpends(pkg); err != nil {
			res.Err = &PackageError{Kind: PackageErrTx, Reason: ReasonPackageUnspentDust}
			res.Results[child.wtxid] = invalidResult(child, err)
			return res, nil
		}
	}
	for _, ws := range pkg {
		if args.packageFeerates {
			ws.pkgRate, ws.pkgIncludes = pkgRate, wtxids
		}
		if err := p.verifyScripts(ws.tx, ws.coins); err != nil {
			res.Err = packageTxFailed()
			res.Results[ws.wtxid] = invalidResult(ws, err)
			return res, nil
		}
		if args.testOnly {
			res.Results[ws.wtxid] = validResult(ws)
		}
	}
	if args.testOnly {
		return res, nil
	}
	p.removeSet(evict, removeReplaced)
	added := make([]*Entry, 0, len(pkg))
	for i, ws := range pkg {
		// The replaced transactions are reported once, with the first
		// member, as Core hands its list to the first result.
		if i == 0 {
			ws.evict = evict
		}
		added = append(added, p.addFromState(ws, &args))
		res.Results[ws.wtxid] = validResult(ws)
	}
	return res, added
}
