package mempool

import (
	"errors"
	"fmt"
	"time"

	"github.com/btcnode/btcd/wire"
)

// AcceptOptions tunes one acceptance.
type AcceptOptions struct {
	// TestOnly runs every check without adding the transaction
	// (testmempoolaccept).
	TestOnly bool
	// BypassLimits skips the fee floors and the size limit, as for
	// transactions returned to the pool by a reorg.
	BypassLimits bool
	// MaxFeeRate, when positive, rejects a transaction paying more
	// ("max-fee-exceeded"), as sendrawtransaction's maxfeerate.
	MaxFeeRate FeeRate
	// Time overrides the entry time (for mempool.dat loading).
	Time time.Time
	// Unbroadcast puts the accepted transaction in the unbroadcast set
	// before it is announced (a locally submitted transaction), so a
	// peer's request can never arrive first.
	Unbroadcast bool
}

// AcceptResult describes an accepted (or, with TestOnly, acceptable)
// transaction.
type AcceptResult struct {
	TxID  wire.Hash
	WTxID wire.Hash
	VSize int64
	Fee   int64
	// ModifiedFee is Fee plus the prioritisetransaction delta, the fee
	// the effective fee rate is computed from.
	ModifiedFee int64
	Entry       *Entry      // snapshot of the new entry; nil with TestOnly
	Replaced    []wire.Hash // txids evicted by replacement

	// snap holds the snapshot Entry points to, so that a result and its
	// snapshot are one allocation (acceptance is a hot path).
	snap Entry
}

// AcceptTransaction validates tx against the pool and, unless
// opts.TestOnly, adds it, then retries orphans it unlocks. Missing inputs
// give an ErrMissingInputs rejection and the transaction is not kept as an
// orphan (see ProcessTransaction).
func (p *Pool) AcceptTransaction(tx *wire.MsgTx, opts AcceptOptions) (*AcceptResult, error) {
	p.mu.Lock()
	res, err := p.acceptLocked(tx, opts)
	var accepted []*Entry
	if err == nil && res.Entry != nil {
		res.snap = *res.Entry
		res.snap.parents, res.snap.children = nil, nil
		res.Entry = &res.snap
		if opts.Unbroadcast {
			if p.unbroadcast == nil {
				p.unbroadcast = make(map[wire.Hash]struct{})
			}
			p.unbroadcast[res.TxID] = struct{}{}
		}
		if len(p.orphans.byID) > 0 {
			live, _ := p.byTxID[res.TxID]
			accepted = p.snapshots(p.processOrphansLocked([]*Entry{live})[1:])
		}
	}
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if res.Entry != nil && p.cfg.OnAccept != nil {
		p.cfg.OnAccept(res.Entry)
	}
	p.announce(accepted)
	return res, nil
}

// acceptArgs are the switches of one evaluation (Core's ATMPArgs): what a
// single transaction, a transaction inside a package and a whole package
// may each do differ, and mixing them up is how packages get around
// single-transaction limits.
type acceptArgs struct {
	testOnly     bool
	bypassLimits bool
	// allowReplacement evaluates conflicts under the replacement rules;
	// without it any conflict is "bip125-replacement-disallowed".
	allowReplacement     bool
	allowSiblingEviction bool
	// allowCarveouts grants the CPFP carve-out and the single-conflict
	// descendant allowance, which only make sense for one transaction.
	allowCarveouts bool
	// packageSubmission defers the size limit to the end of the package,
	// so that a package is never trimmed half-way through.
	packageSubmission bool
	// packageFeerates checks the fee floors on the package fee rate
	// instead of each transaction's (the CPFP of package relay).
	packageFeerates bool
	// legacyMaxFee is sendrawtransaction's maxfeerate on the base fee.
	legacyMaxFee FeeRate
	// clientMaxFeeRate is submitpackage's maxfeerate on the modified fee.
	clientMaxFeeRate FeeRate
	time             time.Time
}

// singleArgs are the switches of a lone transaction.
func singleArgs(opts AcceptOptions) acceptArgs {
	return acceptArgs{
		testOnly: opts.TestOnly, bypassLimits: opts.BypassLimits,
		allowReplacement: true, allowSiblingEviction: true, allowCarveouts: true,
		legacyMaxFee: opts.MaxFeeRate, time: opts.Time,
	}
}

// acceptState carries the work of one acceptance.
type acceptState struct {
	tx     *wire.MsgTx
	txid   wire.Hash
	wtxid  wire.Hash
	weight int64
	vsize  int64
	fee    int64
	modFee int64
	sigops int64
	coins  []Coin
	// parents and ancestors are in the pool; pkgParents are earlier
	// transactions of the same package this one spends.
	parents    []*Entry
	ancestors  []*Entry
	pkgParents []*acceptState
	conflicts  []*Entry // direct conflicts (and an evicted sibling)
	evict      []*Entry // conflicts and their descendants
	spendsCB   bool
	tip        ChainTip
	lockHeight int32
	lockTime   int64
	// siblingEviction marks a TRUC child replacing its sibling.
	siblingEviction bool
	// pkgRate and pkgIncludes are the package fee rate and its members
	// when the package rate decided the fee floors.
	pkgRate     FeeRate
	pkgIncludes []wire.Hash
}

func newAcceptState(tx *wire.MsgTx) *acceptState {
	ws := &acceptState{tx: tx, txid: tx.TxHash()}
	ws.wtxid = ws.txid
	if tx.HasWitness() {
		ws.wtxid = tx.WitnessHash()
	}
	return ws
}

// acceptLocked is the single-transaction acceptance behind
// AcceptTransaction, orphan processing, reorgs and mempool.dat loading.
// res.Entry is the live entry (callers snapshot it before unlocking).
func (p *Pool) acceptLocked(tx *wire.MsgTx, opts AcceptOptions) (*AcceptResult, error) {
	ws, e, rerr := p.acceptSingleLocked(tx, singleArgs(opts))
	if rerr != nil {
		return nil, rerr
	}
	res := &AcceptResult{TxID: ws.txid, WTxID: ws.wtxid, VSize: ws.vsize, Fee: ws.fee, ModifiedFee: ws.modFee, Entry: e}
	for _, r := range ws.evict {
		res.Replaced = append(res.Replaced, r.TxID)
	}
	return res, nil
}

// acceptSingleLocked is Core's AcceptSingleTransaction: the pre-checks,
// the caller's fee-rate cap, ephemeral dust spends, the replacement
// rules, the scripts, then (unless testing) the pool update and the size
// limit. The entry is nil when testing.
func (p *Pool) acceptSingleLocked(tx *wire.MsgTx, args acceptArgs) (*acceptState, *Entry, *RejectError) {
	ws := newAcceptState(tx)
	if err := p.preChecks(ws, &args, nil, true); err != nil {
		return ws, nil, err
	}
	if args.clientMaxFeeRate > 0 && NewFeeRate(ws.modFee, ws.vsize) > args.clientMaxFeeRate {
		return ws, nil, rejectPolicy(ReasonMaxFeeRate, "")
	}
	if p.cfg.Policy.RequireStandard {
		if _, err := p.checkEphemeralSpends([]*acceptState{ws}); err != nil {
			return ws, nil, err
		}
	}
	if len(ws.conflicts) > 0 {
		if err := p.checkReplacement(ws); err != nil {
			return ws, nil, err
		}
	}
	if err := p.verifyScripts(tx, ws.coins); err != nil {
		return ws, nil, err
	}
	if args.testOnly {
		return ws, nil, nil
	}
	p.removeSet(ws.evict, removeReplaced)
	e := p.addFromState(ws, &args)
	if !args.packageSubmission && !args.bypassLimits {
		p.expireLocked(e.Time)
		p.trimToSizeLocked(p.cfg.MaxMempoolBytes)
		if _, ok := p.byTxID[ws.txid]; !ok {
			return ws, nil, rejectFee(ErrReconsiderable, ReasonMempoolFull, "")
		}
	}
	return ws, e, nil
}

// addFromState links a checked transaction into the pool. Its parents are
// looked up again because earlier members of its package entered after
// it was checked; replacements never evict an ancestor
// (bad-txns-spends-conflicting-tx), so the lookup finds the same set.
func (p *Pool) addFromState(ws *acceptState, args *acceptArgs) *Entry {
	now := args.time
	if now.IsZero() {
		now = p.now()
	}
	e := &Entry{
		Tx: ws.tx, TxID: ws.txid, WTxID: ws.wtxid, Fee: ws.fee, ModFee: ws.modFee, VSize: ws.vsize,
		Weight: ws.weight, SigOpCost: ws.sigops, Time: now, Height: ws.tip.Height,
		SpendsCoinbase: ws.spendsCB, lockHeight: ws.lockHeight, lockTime: ws.lockTime,
	}
	var parents []*Entry
	for i := range ws.tx.TxIn {
		if pe, ok := p.byTxID[ws.tx.TxIn[i].PreviousOutPoint.Hash]; ok && !containsPtr(parents, pe) {
			parents = append(parents, pe)
		}
	}
	ancestors := p.ancestorsOf(parents, p.nextEpoch(), nil)
	p.addEntry(e, parents, ancestors)
	if args.bypassLimits {
		// Back from a disconnected block: peers may fetch it at once,
		// before children that were in the pool already (Core gives such
		// entries sequence 0).
		e.AnnounceSequence = 0
	}
	if p.est != nil {
		valid := !args.bypassLimits && !args.packageSubmission && len(parents) == 0
		p.est.processTx(e.TxID, e.Height, e.Fee, e.VSize, valid)
	}
	return e
}

// preChecks is Core's PreChecks: everything but the replacement rules and
// the scripts, in Core's order (which decides the reason a transaction
// breaking several rules is rejected with). view holds the transactions
// of the package checked before this one, whose outputs it may spend;
// scratch lets the coins live in the pool's reusable buffer, which only a
// lone transaction may do.
func (p *Pool) preChecks(ws *acceptState, args *acceptArgs, view map[wire.Hash]*acceptState, scratch bool) *RejectError {
	pol := &p.cfg.Policy
	tx := ws.tx
	if err := checkTransaction(tx); err != nil {
		return err
	}
	if tx.IsCoinBase() {
		return rejectInvalid(ReasonCoinbase, "")
	}
	ws.weight = tx.Weight()
	if pol.RequireStandard {
		if err := checkStandardTx(tx, ws.weight, pol); err != nil {
			return err
		}
	}
	if tx.SerializeSizeStripped() < MinStandardTxNonWitnessSize {
		return rejectNonStd(ReasonTxSizeSmall, "")
	}
	ws.tip = p.cfg.Chain.Tip()
	if !isFinalTx(tx, ws.tip.Height+1, ws.tip.MedianTimePast) {
		return reject(ErrPrematureSpend, wire.RejectNonstandard, ReasonNonFinal, "")
	}
	if _, ok := p.byWTxID[ws.wtxid]; ok {
		return reject(ErrConflict, wire.RejectDuplicate, ReasonAlreadyInMempool, "")
	}
	if _, ok := p.byTxID[ws.txid]; ok {
		return reject(ErrConflict, wire.RejectDuplicate, ReasonSameNonWitness, "")
	}
	for i := range tx.TxIn {
		if c, ok := p.spends[tx.TxIn[i].PreviousOutPoint]; ok && !containsPtr(ws.conflicts, c) {
			if !args.allowReplacement {
				return rejectPolicy(ReasonReplacementDisallowed, "")
			}
			ws.conflicts = append(ws.conflicts, c)
		}
	}
	if err := p.gatherInputs(ws, view, scratch); err != nil {
		return err
	}
	ws.lockHeight, ws.lockTime = sequenceLock(tx, ws.coins, ws.tip, p.cfg.Chain.MedianTimePast)
	if ws.lockHeight >= ws.tip.Height+1 || ws.lockTime >= ws.tip.MedianTimePast {
		return reject(ErrPrematureSpend, wire.RejectNonstandard, ReasonNonBIP68Final, "")
	}
	fee, rerr := checkTxInputs(tx, ws.coins, ws.tip.Height+1, p.cfg.CoinbaseMaturity)
	if rerr != nil {
		return rerr
	}
	ws.fee = fee
	if pol.RequireStandard {
		if err := checkInputsStandard(tx, ws.coins); err != nil {
			return err
		}
		if tx.HasWitness() {
			if err := checkWitnessStandard(tx, ws.coins); err != nil {
				return err
			}
		}
	}
	ws.sigops = sigOpCost(tx, ws.coins)
	ws.vsize = VirtualSize(ws.weight, ws.sigops, pol.BytesPerSigOp)
	ws.modFee = saturatingAdd(ws.fee, p.deltas[ws.txid])
	// A dust output is only relayed as ephemeral dust: with no fee, not
	// even a prioritised one, so that it is never worth mining alone.
	if pol.RequireStandard && (ws.fee != 0 || ws.modFee != 0) && countDust(tx, pol.DustRelayFee) > 0 {
		return rejectNonStd(ReasonDust, "tx with dust output must be 0-fee")
	}
	if ws.sigops > MaxStandardTxSigOpsCost {
		return rejectNonStd(ReasonTooManySigops, fmt.Sprintf("%d", ws.sigops))
	}
	if args.legacyMaxFee > 0 && ws.fee > args.legacyMaxFee.Fee(ws.vsize) {
		return reject(ErrMempoolPolicy, wire.RejectNonstandard, ReasonMaxFeeExceeded,
			fmt.Sprintf("Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate) %d > %d", ws.fee, args.legacyMaxFee.Fee(ws.vsize)))
	}
	// The relay floor binds every transaction but TRUC ones on its own:
	// nothing keeps a child around to pay for a parent below it. It is
	// therefore not reconsiderable in a package.
	if !args.bypassLimits && tx.Version != TRUCVersion {
		if floor := pol.MinRelayFee.Fee(ws.vsize); ws.modFee < floor {
			return reject(ErrMempoolPolicy, wire.RejectInsufficientFee, ReasonMinRelayFee, fmt.Sprintf("%d < %d", ws.modFee, floor))
		}
	}
	if !args.bypassLimits && !args.packageFeerates {
		if err := p.checkFeeRate(ws.vsize, ws.modFee); err != nil {
			return err
		}
	}
	if err := p.checkChainLimits(ws, args); err != nil {
		return err
	}
	if msg, sibling := p.singleTRUCChecks(ws); msg != "" {
		if !args.allowSiblingEviction || sibling == nil || p.cfg.NoReplacement {
			return rejectPolicy(ReasonTRUCViolation, msg)
		}
		ws.conflicts = append(ws.conflicts, sibling)
		ws.siblingEviction = true
	}
	for _, a := range ws.ancestors {
		if containsPtr(ws.conflicts, a) {
			return rejectInvalid(ReasonSpendsConflicting,
				fmt.Sprintf("%s spends conflicting transaction %s", ws.txid, a.TxID))
		}
	}
	return nil
}

// gatherInputs finds each input's coin among the package's earlier
// transactions, in the pool or in the chain, and records the in-pool and
// in-package parents.
func (p *Pool) gatherInputs(ws *acceptState, view map[wire.Hash]*acceptState, scratch bool) *RejectError {
	tx := ws.tx
	if scratch {
		// The pool's scratch buffer: the lock is held and nothing keeps
		// it past this acceptance.
		if cap(p.coinBuf) < len(tx.TxIn) {
			p.coinBuf = make([]Coin, len(tx.TxIn))
		}
		ws.coins = p.coinBuf[:len(tx.TxIn)]
		clear(ws.coins)
	} else {
		ws.coins = make([]Coin, len(tx.TxIn))
	}
	missing := false
	for i := range tx.TxIn {
		op := tx.TxIn[i].PreviousOutPoint
		if pw := view[op.Hash]; pw != nil {
			if int(op.Index) >= len(pw.tx.TxOut) {
				missing = true
				continue
			}
			out := &pw.tx.TxOut[op.Index]
			ws.coins[i] = Coin{Value: out.Value, PkScript: out.PkScript, Height: mempoolHeight}
			if !containsState(ws.pkgParents, pw) {
				ws.pkgParents = append(ws.pkgParents, pw)
			}
			continue
		}
		if parent, ok := p.byTxID[op.Hash]; ok {
			if int(op.Index) >= len(parent.Tx.TxOut) {
				missing = true
				continue
			}
			out := &parent.Tx.TxOut[op.Index]
			ws.coins[i] = Coin{Value: out.Value, PkScript: out.PkScript, Height: mempoolHeight}
			if !containsPtr(ws.parents, parent) {
				ws.parents = append(ws.parents, parent)
			}
			continue
		}
		c, ok := p.cfg.Chain.FetchCoin(op)
		if !ok {
			missing = true
			continue
		}
		ws.coins[i] = c
		if c.IsCoinBase {
			ws.spendsCB = true
		}
	}
	if !missing {
		return nil
	}
	// Core: inputs that look missing because the transaction itself is
	// already confirmed make it "already known" rather than an orphan.
	for i := range tx.TxOut {
		if _, ok := p.cfg.Chain.FetchCoin(wire.OutPoint{Hash: ws.txid, Index: uint32(i)}); ok {
			return reject(ErrConflict, wire.RejectDuplicate, ReasonAlreadyKnown, "")
		}
	}
	return reject(ErrMissingInputs, wire.RejectInvalid, ReasonMissingInputs, "")
}

func containsPtr(s []*Entry, x *Entry) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func containsState(s []*acceptState, x *acceptState) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// saturatingAdd adds without wrapping around, as Core's SaturatingAdd:
// fee deltas are caller-chosen and may be extreme.
func saturatingAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return 1<<63 - 1
	case a < 0 && b < 0 && s >= 0:
		return -1 << 63
	}
	return s
}

// checkFeeRate is Core's CheckFeeRate: the rolling minimum fee, then the
// relay floor, both reconsiderable (a package may still pay them).
func (p *Pool) checkFeeRate(vsize, fee int64) *RejectError {
	if minFee := FeeRate(p.minFeeLocked()).Fee(vsize); minFee > 0 && fee < minFee {
		return rejectFee(ErrReconsiderable, ReasonMempoolMinFee, fmt.Sprintf("%d < %d", fee, minFee))
	}
	if floor := p.cfg.Policy.MinRelayFee.Fee(vsize); fee < floor {
		return rejectFee(ErrReconsiderable, ReasonMinRelayFee, fmt.Sprintf("%d < %d", fee, floor))
	}
	return nil
}

// IsMissingInputs reports whether err is a missing-inputs rejection.
func IsMissingInputs(err error) bool { return errors.Is(err, ErrMissingInputs) }

// IsAlreadyKnown reports whether err refused a transaction the pool
// already holds (the same txid, or the same wtxid): bitcoind answers
// those with RPC_VERIFY_ALREADY_IN_CHAIN rather than a rejection.
func IsAlreadyKnown(err error) bool {
	var re *RejectError
	return errors.As(err, &re) && (re.Reason == ReasonAlreadyKnown || re.Reason == ReasonAlreadyInMempool)
}

// IsReconsiderable reports whether err refused a transaction for its fee
// rate alone, which a child paying for it in a package may change.
func IsReconsiderable(err error) bool { return errors.Is(err, ErrReconsiderable) }

// verifyScripts runs the script seam and words a failure as Core does,
// with the script error inside the reason. Core 30 says
// "mempool-script-verify-flag-failed (...)" for every mempool failure;
// earlier releases said "mandatory-script-verify-flag-failed (...)" when
// the consensus flags fail too and "non-mandatory-script-verify-flag
// (...)" when only policy flags do (Config.LegacyScriptReasons). Either
// way the consensus-only re-check decides the kind, so a peer is only
// blamed (ErrConsensus) for a transaction that is invalid by consensus.
func (p *Pool) verifyScripts(tx *wire.MsgTx, coins []Coin) *RejectError {
	std := p.cfg.Policy.RequireStandard
	err := p.cfg.VerifyScripts(tx, coins, std)
	if err == nil {
		return nil
	}
	consensus := true
	if std {
		consensus = p.cfg.VerifyScripts(tx, coins, false) != nil
	}
	detail := " (" + err.Error() + ")"
	var where string
	var ie *InputError
	if errors.As(err, &ie) && ie.Input >= 0 && ie.Input < len(tx.TxIn) {
		prev := tx.TxIn[ie.Input].PreviousOutPoint
		where = fmt.Sprintf("input %d of %v (wtxid %v), spending %v:%d", ie.Input, tx.TxHash(), tx.WitnessHash(), prev.Hash, prev.Index)
	}
	switch {
	case !p.cfg.LegacyScriptReasons && consensus:
		return rejectInvalid(ReasonMempoolScript+detail, where)
	case !p.cfg.LegacyScriptReasons:
		return rejectNonStd(ReasonMempoolScript+detail, where)
	case consensus:
		return rejectInvalid(ReasonMandatoryScript+detail, where)
	default:
		return rejectNonStd(ReasonNonMandatoryScript+detail, where)
	}
}
