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
}

// AcceptResult describes an accepted (or, with TestOnly, acceptable)
// transaction.
type AcceptResult struct {
	TxID     wire.Hash
	WTxID    wire.Hash
	VSize    int64
	Fee      int64
	Entry    *Entry      // snapshot of the new entry; nil with TestOnly
	Replaced []wire.Hash // txids evicted by replacement

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
		if len(p.orphans.byID) > 0 {
			live, _ := p.byTxID[res.TxID]
			accepted = p.snapshots(p.processOrphansLocked([]*Entry{live})[1:])
		}
	}
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err == nil && res.Entry != nil && p.cfg.OnAccept != nil {
		p.cfg.OnAccept(res.Entry)
	}
	p.announce(accepted)
	return res, nil
}

// acceptState carries the work of one acceptance.
type acceptState struct {
	tx        *wire.MsgTx
	txid      wire.Hash
	wtxid     wire.Hash
	weight    int64
	vsize     int64
	fee       int64
	sigops    int64
	coins     []Coin
	parents   []*Entry
	ancestors []*Entry
	conflicts []*Entry // direct conflicts
	evict     []*Entry // conflicts and their descendants
	spendsCB  bool
	tip       ChainTip
	// siblingEviction marks a TRUC child replacing its sibling.
	siblingEviction bool
}

func (p *Pool) acceptLocked(tx *wire.MsgTx, opts AcceptOptions) (*AcceptResult, error) {
	pol := &p.cfg.Policy
	ws := acceptState{tx: tx, txid: tx.TxHash()}
	ws.wtxid = ws.txid
	if tx.HasWitness() {
		ws.wtxid = tx.WitnessHash()
	}
	if err := checkTransaction(tx); err != nil {
		return nil, err
	}
	if tx.IsCoinBase() {
		return nil, rejectInvalid(ReasonCoinbase, "")
	}
	ws.weight = tx.Weight()
	if pol.RequireStandard {
		if err := checkStandardTx(tx, ws.weight, pol); err != nil {
			return nil, err
		}
	}
	if tx.SerializeSizeStripped() < MinStandardTxNonWitnessSize {
		return nil, rejectNonStd(ReasonTxSizeSmall, "")
	}
	ws.tip = p.cfg.Chain.Tip()
	if !isFinalTx(tx, ws.tip.Height+1, ws.tip.MedianTimePast) {
		return nil, reject(ErrPrematureSpend, wire.RejectNonstandard, ReasonNonFinal, "")
	}
	if _, ok := p.byWTxID[ws.wtxid]; ok {
		return nil, reject(ErrConflict, wire.RejectDuplicate, ReasonAlreadyInMempool, "")
	}
	if _, ok := p.byTxID[ws.txid]; ok {
		return nil, reject(ErrConflict, wire.RejectDuplicate, ReasonSameNonWitness, "")
	}
	if err := p.gatherInputs(&ws); err != nil {
		return nil, err
	}
	lockHeight, lockTime := sequenceLock(tx, ws.coins, ws.tip, p.cfg.Chain.MedianTimePast)
	if lockHeight >= ws.tip.Height+1 || lockTime >= ws.tip.MedianTimePast {
		return nil, reject(ErrPrematureSpend, wire.RejectNonstandard, ReasonNonBIP68Final, "")
	}
	fee, rerr := checkTxInputs(tx, ws.coins, ws.tip.Height+1, p.cfg.CoinbaseMaturity)
	if rerr != nil {
		return nil, rerr
	}
	ws.fee = fee
	if pol.RequireStandard {
		if err := checkInputsStandard(tx, ws.coins); err != nil {
			return nil, err
		}
		if tx.HasWitness() {
			if err := checkWitnessStandard(tx, ws.coins); err != nil {
				return nil, err
			}
		}
	}
	ws.sigops = sigOpCost(tx, ws.coins)
	if ws.sigops > MaxStandardTxSigOpsCost {
		return nil, rejectNonStd(ReasonTooManySigops, fmt.Sprintf("%d", ws.sigops))
	}
	ws.vsize = VirtualSize(ws.weight, ws.sigops, pol.BytesPerSigOp)
	if pol.RequireStandard && ws.fee != 0 && countDust(tx, pol.DustRelayFee) > 0 {
		return nil, rejectNonStd(ReasonDust, "tx with dust output must be 0-fee")
	}
	if opts.MaxFeeRate > 0 && ws.fee > opts.MaxFeeRate.Fee(ws.vsize) {
		return nil, reject(ErrMempoolPolicy, wire.RejectNonstandard, ReasonMaxFeeExceeded,
			fmt.Sprintf("Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate) %d > %d", ws.fee, opts.MaxFeeRate.Fee(ws.vsize)))
	}
	if !opts.BypassLimits {
		if err := p.checkFeeRate(ws.vsize, ws.fee); err != nil {
			return nil, err
		}
	}
	if err := p.checkChainLimits(&ws); err != nil {
		return nil, err
	}
	if err := p.checkTRUC(&ws); err != nil {
		return nil, err
	}
	if len(ws.conflicts) > 0 {
		if err := p.checkReplacement(&ws); err != nil {
			return nil, err
		}
	}
	if err := p.verifyScripts(tx, ws.coins); err != nil {
		return nil, err
	}

	res := &AcceptResult{TxID: ws.txid, WTxID: ws.wtxid, VSize: ws.vsize, Fee: ws.fee}
	if opts.TestOnly {
		return res, nil
	}
	now := opts.Time
	if now.IsZero() {
		now = p.now()
	}
	for _, e := range ws.evict {
		res.Replaced = append(res.Replaced, e.TxID)
	}
	p.removeSet(ws.evict, removeReplaced)
	e := &Entry{
		Tx: tx, TxID: ws.txid, WTxID: ws.wtxid, Fee: ws.fee, VSize: ws.vsize, Weight: ws.weight,
		SigOpCost: ws.sigops, Time: now, Height: ws.tip.Height, SpendsCoinbase: ws.spendsCB,
		lockHeight: lockHeight, lockTime: lockTime,
	}
	// The ancestor walk used marks that removeSet may have overwritten;
	// the ancestor list itself is still valid because replacements never
	// evict an ancestor (bad-txns-spends-conflicting-tx).
	p.addEntry(e, ws.parents, ws.ancestors)
	if p.est != nil {
		valid := !opts.BypassLimits && len(ws.parents) == 0
		p.est.processTx(e.TxID, e.Height, e.Fee, e.VSize, valid)
	}
	if !opts.BypassLimits {
		p.expireLocked(now)
		p.trimToSizeLocked(p.cfg.MaxMempoolBytes)
		if _, ok := p.byTxID[ws.txid]; !ok {
			return nil, rejectFee(ErrMempoolPolicy, ReasonMempoolFull, "")
		}
	}
	res.Entry = e
	return res, nil
}

// gatherInputs finds each input's coin in the pool or the chain, records
// direct conflicts and in-pool parents.
func (p *Pool) gatherInputs(ws *acceptState) *RejectError {
	tx := ws.tx
	// The coin slice is scratch space reused across acceptances (the pool
	// lock is held and nothing keeps it).
	if cap(p.coinBuf) < len(tx.TxIn) {
		p.coinBuf = make([]Coin, len(tx.TxIn))
	}
	ws.coins = p.coinBuf[:len(tx.TxIn)]
	clear(ws.coins)
	missing := false
	for i := range tx.TxIn {
		op := tx.TxIn[i].PreviousOutPoint
		if c, ok := p.spends[op]; ok && !containsPtr(ws.conflicts, c) {
			ws.conflicts = append(ws.conflicts, c)
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

// checkFeeRate applies the rolling minimum fee and the minimum relay fee
// in Core's order.
func (p *Pool) checkFeeRate(vsize, fee int64) *RejectError {
	if minFee := FeeRate(p.minFeeLocked()).Fee(vsize); minFee > 0 && fee < minFee {
		return rejectFee(ErrReconsiderable, ReasonMempoolMinFee, fmt.Sprintf("%d < %d", fee, minFee))
	}
	if floor := p.cfg.Policy.MinRelayFee.Fee(vsize); fee < floor {
		return rejectFee(ErrReconsiderable, ReasonMinRelayFee, fmt.Sprintf("%d < %d", fee, floor))
	}
	return nil
}

// chainLimits are Core's CTxMemPool::Limits, in virtual bytes.
type chainLimits struct {
	ancCount, ancSize, descCount, descSize int64
}

// checkChainLimits computes the in-pool ancestors and enforces the
// ancestor and descendant limits, retrying with the CPFP carve-out.
func (p *Pool) checkChainLimits(ws *acceptState) *RejectError {
	if len(ws.parents) == 0 {
		return nil
	}
	pol := &p.cfg.Policy
	ws.ancestors = p.ancestorsOf(ws.parents, p.nextEpoch(), nil)
	lim := chainLimits{pol.AncestorLimit, pol.AncestorSizeLimitKvB * 1000, pol.DescendantLimit, pol.DescendantSizeLimitKvB * 1000}
	// A replacement of a single transaction may take its place in its
	// parents' descendant budget (Core's maybe_rbf_limits).
	if len(ws.conflicts) == 1 {
		lim.descCount++
		lim.descSize += ws.conflicts[0].DescSize
	}
	err := p.limitsOK(ws, lim)
	if err == nil {
		return nil
	}
	if ws.vsize > ExtraDescendantTxSizeLimit || ws.tx.Version == TRUCVersion {
		return err
	}
	carve := chainLimits{2, lim.ancSize, lim.descCount + 1, lim.descSize + ExtraDescendantTxSizeLimit}
	if p.limitsOK(ws, carve) == nil {
		return nil
	}
	return err
}

func (p *Pool) limitsOK(ws *acceptState, lim chainLimits) *RejectError {
	if int64(len(ws.ancestors))+1 > lim.ancCount {
		return rejectPolicy(ReasonTooLongChain, fmt.Sprintf("too many unconfirmed ancestors [limit: %d]", lim.ancCount))
	}
	size := ws.vsize
	for _, a := range ws.ancestors {
		size += a.VSize
		if a.DescCount+1 > lim.descCount {
			return rejectPolicy(ReasonTooLongChain, fmt.Sprintf("too many descendants for tx %s [limit: %d]", a.TxID, lim.descCount))
		}
		if a.DescSize+ws.vsize > lim.descSize {
			return rejectPolicy(ReasonTooLongChain, fmt.Sprintf("exceeds descendant size limit for tx %s [limit: %d]", a.TxID, lim.descSize))
		}
	}
	if size > lim.ancSize {
		return rejectPolicy(ReasonTooLongChain, fmt.Sprintf("exceeds ancestor size limit [limit: %d]", lim.ancSize))
	}
	return nil
}

// checkTRUC enforces BIP431 for version-3 transactions and their
// relatives (Core's SingleTRUCChecks, with sibling eviction).
func (p *Pool) checkTRUC(ws *acceptState) *RejectError {
	tx := ws.tx
	fail := func(format string, args ...any) *RejectError {
		return rejectPolicy(ReasonTRUCViolation, fmt.Sprintf(format, args...))
	}
	if tx.Version != TRUCVersion {
		for _, pe := range ws.parents {
			if pe.Tx.Version == TRUCVersion {
				return fail("non-version=3 tx %s (wtxid=%s) cannot spend from version=3 tx %s (wtxid=%s)",
					ws.txid, ws.wtxid, pe.TxID, pe.WTxID)
			}
		}
		return nil
	}
	for _, pe := range ws.parents {
		if pe.Tx.Version != TRUCVersion {
			return fail("version=3 tx %s (wtxid=%s) cannot spend from non-version=3 tx %s (wtxid=%s)",
				ws.txid, ws.wtxid, pe.TxID, pe.WTxID)
		}
	}
	if ws.vsize > TRUCMaxVSize {
		return fail("version=3 tx %s (wtxid=%s) is too big: %d > %d virtual bytes", ws.txid, ws.wtxid, ws.vsize, TRUCMaxVSize)
	}
	if int64(len(ws.ancestors))+1 > TRUCAncestorLimit {
		return fail("tx %s (wtxid=%s) would have too many ancestors", ws.txid, ws.wtxid)
	}
	if len(ws.parents) == 0 {
		return nil
	}
	if ws.vsize > TRUCChildMaxVSize {
		return fail("version=3 child tx %s (wtxid=%s) is too big: %d > %d virtual bytes", ws.txid, ws.wtxid, ws.vsize, TRUCChildMaxVSize)
	}
	parent := ws.parents[0]
	for _, c := range parent.children {
		if containsPtr(ws.conflicts, c) {
			continue
		}
		// Sibling eviction (Core 28+): when the new child conflicts with
		// nothing else, the existing child may be replaced under the
		// usual replacement rules instead of blocking the new one.
		if len(ws.conflicts) == 0 && len(parent.children) == 1 && c.DescCount == 1 && !p.cfg.NoReplacement {
			ws.conflicts = append(ws.conflicts, c)
			ws.siblingEviction = true
			continue
		}
		return fail("tx %s (wtxid=%s) would exceed descendant count limit", parent.TxID, parent.WTxID)
	}
	return nil
}

// checkReplacement applies the replace-by-fee rules (BIP125 as Core 30
// runs them, every transaction replaceable).
func (p *Pool) checkReplacement(ws *acceptState) *RejectError {
	if p.cfg.NoReplacement {
		return rejectPolicy(ReasonMempoolConflict, "replacement disabled")
	}
	for _, a := range ws.ancestors {
		if containsPtr(ws.conflicts, a) {
			return rejectInvalid(ReasonSpendsConflicting,
				fmt.Sprintf("%s spends conflicting transaction %s", ws.txid, a.TxID))
		}
	}
	var potential int64
	for _, c := range ws.conflicts {
		potential += c.DescCount
	}
	if potential > MaxReplacementCandidates {
		return rejectPolicy(ReasonTooManyReplacements,
			fmt.Sprintf("rejecting replacement %s; too many potential replacements (%d > %d)", ws.txid, potential, MaxReplacementCandidates))
	}
	ws.evict = p.withDescendants(ws.conflicts)
	if len(ws.evict) > MaxReplacementCandidates {
		return rejectPolicy(ReasonTooManyReplacements,
			fmt.Sprintf("rejecting replacement %s; too many potential replacements (%d > %d)", ws.txid, len(ws.evict), MaxReplacementCandidates))
	}
	// No new unconfirmed inputs: every in-pool parent must already be a
	// parent of some directly conflicting transaction.
	for i := range ws.tx.TxIn {
		h := ws.tx.TxIn[i].PreviousOutPoint.Hash
		if _, inPool := p.byTxID[h]; !inPool {
			continue
		}
		known := false
		for _, c := range ws.conflicts {
			for j := range c.Tx.TxIn {
				if c.Tx.TxIn[j].PreviousOutPoint.Hash == h {
					known = true
					break
				}
			}
			if known {
				break
			}
		}
		if !known {
			return rejectPolicy(ReasonAddsUnconfirmed, fmt.Sprintf("replacement %s adds unconfirmed input, idx %d", ws.txid, i))
		}
	}
	if err := p.checkReplacementFees(ws); err != nil {
		if ws.siblingEviction {
			err.Debug += " (including sibling eviction)"
		}
		return err
	}
	return nil
}

// checkReplacementFees is BIP125 rules 3, 4 and 6: a higher fee rate than
// every direct conflict, at least the evicted fees, plus relay of itself
// at the incremental relay fee.
func (p *Pool) checkReplacementFees(ws *acceptState) *RejectError {
	newRate := NewFeeRate(ws.fee, ws.vsize)
	for _, c := range ws.conflicts {
		// Compared exactly, as Core's fraction-based fee rates are.
		if ws.fee*c.VSize <= c.Fee*ws.vsize {
			old := c.FeeRate()
			return rejectFee(ErrReconsiderable, ReasonInsufficientFee,
				fmt.Sprintf("rejecting replacement %s; new feerate %s <= old feerate %s", ws.txid, newRate, old))
		}
	}
	var evictedFees int64
	for _, e := range ws.evict {
		evictedFees += e.Fee
	}
	if ws.fee < evictedFees {
		return rejectFee(ErrReconsiderable, ReasonInsufficientFee,
			fmt.Sprintf("rejecting replacement %s, less fees than conflicting txs; %d < %d", ws.txid, ws.fee, evictedFees))
	}
	if extra, need := ws.fee-evictedFees, p.cfg.Policy.IncrementalRelayFee.Fee(ws.vsize); extra < need {
		return rejectFee(ErrReconsiderable, ReasonInsufficientFee,
			fmt.Sprintf("rejecting replacement %s, not enough additional fees to relay; %d < %d", ws.txid, extra, need))
	}
	return nil
}

// IsMissingInputs reports whether err is a missing-inputs rejection.
func IsMissingInputs(err error) bool { return errors.Is(err, ErrMissingInputs) }

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
	switch {
	case !p.cfg.LegacyScriptReasons && consensus:
		return rejectInvalid(ReasonMempoolScript+detail, "")
	case !p.cfg.LegacyScriptReasons:
		return rejectNonStd(ReasonMempoolScript+detail, "")
	case consensus:
		return rejectInvalid(ReasonMandatoryScript+detail, "")
	default:
		return rejectNonStd(ReasonNonMandatoryScript+detail, "")
	}
}
