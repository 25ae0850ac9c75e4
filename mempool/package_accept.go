package mempool

import (
	"github.com/btcnode/btcd/wire"
)

// PackageOptions tunes AcceptPackage.
type PackageOptions struct {
	// MaxFeeRate, when positive, refuses a member whose own modified fee
	// rate is above it ("max feerate exceeded"), as submitpackage's
	// maxfeerate.
	MaxFeeRate FeeRate
}

// AcceptPackage submits a package (Core's AcceptPackage, behind
// submitpackage and one-parent-one-child relay): a topologically sorted
// child with some of its unconfirmed parents, or a single transaction.
// Members already in the pool are skipped; every other member is first
// tried alone, and those that fail only on fee rate (or for want of such
// a parent) are then evaluated together, where the child may pay for its
// parents. The size limit is applied once at the end, so a member that
// entered may still be reported "mempool full". Accepted transactions are
// announced through Config.OnAccept and unlock orphans as single
// acceptances do.
func (p *Pool) AcceptPackage(txs []*wire.MsgTx, opts PackageOptions) *PackageResult {
	p.mu.Lock()
	res, added := p.acceptPackageLocked(txs, opts)
	added = p.snapshots(p.processOrphansLocked(added))
	p.mu.Unlock()
	p.announce(added)
	return res
}

// acceptPackageLocked returns the result and the live entries that
// entered the pool and are still in it, in acceptance order.
func (p *Pool) acceptPackageLocked(txs []*wire.MsgTx, opts PackageOptions) (*PackageResult, []*Entry) {
	res := &PackageResult{Results: make(map[wire.Hash]*TxResult)}
	if err := CheckPackage(txs); err != nil {
		res.Err = err
		return res, nil
	}
	if len(txs) > 1 {
		if !IsChildWithParents(txs) {
			res.Err = &PackageError{Kind: PackageErrPolicy, Reason: ReasonPackageNotChildParents}
			return res, nil
		}
		// Every input of the child must be a member or confirmed: a
		// parent in the pool but left out makes it another package.
		parents := make(map[wire.Hash]struct{}, len(txs)-1)
		for _, tx := range txs[:len(txs)-1] {
			parents[tx.TxHash()] = struct{}{}
		}
		child := txs[len(txs)-1]
		for i := range child.TxIn {
			op := child.TxIn[i].PreviousOutPoint
			if _, ok := parents[op.Hash]; ok {
				continue
			}
			if _, ok := p.cfg.Chain.FetchCoin(op); !ok {
				res.Err = &PackageError{Kind: PackageErrPolicy, Reason: ReasonPackageUnconfirmedParent}
				return res, nil
			}
		}
	}
	single := acceptArgs{
		allowReplacement: true, allowSiblingEviction: true, packageSubmission: true,
		clientMaxFeeRate: opts.MaxFeeRate,
	}
	final := make(map[wire.Hash]*TxResult, len(txs))
	nonFinal := make(map[wire.Hash]*TxResult, len(txs))
	var added []*Entry
	var eval []*wire.MsgTx
	var quitEarly *PackageError
	for _, tx := range txs {
		txid := tx.TxHash()
		wtxid := tx.WitnessHash()
		if e, ok := p.byWTxID[wtxid]; ok {
			final[wtxid] = &TxResult{Kind: TxInMempool, TxID: txid, WTxID: wtxid, VSize: e.VSize, Fee: e.Fee}
			continue
		}
		if e, ok := p.byTxID[txid]; ok {
			final[wtxid] = &TxResult{Kind: TxDifferentWitness, TxID: txid, WTxID: wtxid, OtherWTxID: e.WTxID}
			continue
		}
		ws, e, err := p.acceptSingleLocked(tx, single)
		switch {
		case err == nil:
			final[ws.wtxid] = validResult(ws)
			added = append(added, e)
		case len(txs) == 1 || (err.Kind != ErrReconsiderable && err.Kind != ErrMissingInputs):
			// Only the fee rate differs between alone and together;
			// whatever else failed fails in the package too.
			quitEarly = packageTxFailed()
			nonFinal[ws.wtxid] = invalidResult(ws, err)
		default:
			nonFinal[ws.wtxid] = invalidResult(ws, err)
			eval = append(eval, tx)
		}
	}
	multi := &PackageResult{Err: quitEarly, Results: map[wire.Hash]*TxResult{}}
	if quitEarly == nil && len(eval) > 0 {
		if len(eval) > 1 {
			pkgArgs := acceptArgs{
				allowReplacement: true, packageSubmission: true, packageFeerates: true,
				clientMaxFeeRate: opts.MaxFeeRate,
			}
			var more []*Entry
			multi, more = p.acceptMultipleLocked(eval, pkgArgs)
			added = append(added, more...)
		} else {
			ws, e, err := p.acceptSingleLocked(eval[0], single)
			if err != nil {
				multi.Err = packageTxFailed()
				multi.Results[ws.wtxid] = invalidResult(ws, err)
			} else {
				multi.Results[ws.wtxid] = validResult(ws)
				added = append(added, e)
			}
		}
	}
	res.Err = multi.Err
	p.expireLocked(p.now())
	p.trimToSizeLocked(p.cfg.MaxMempoolBytes)
	full := func(txid, wtxid wire.Hash) *TxResult {
		res.Err = packageTxFailed()
		return &TxResult{Kind: TxInvalid, TxID: txid, WTxID: wtxid, Err: rejectPolicy(ReasonMempoolFull, "")}
	}
	for _, tx := range txs {
		wtxid := tx.WitnessHash()
		if r, ok := multi.Results[wtxid]; ok {
			if _, in := p.byWTxID[wtxid]; r.Kind == TxValid && !in {
				r = full(r.TxID, wtxid)
			}
			res.Results[wtxid] = r
		} else if r, ok := final[wtxid]; ok {
			if _, in := p.byTxID[r.TxID]; !in {
				r = full(r.TxID, wtxid)
			}
			res.Results[wtxid] = r
		} else if r, ok := nonFinal[wtxid]; ok {
			res.Results[wtxid] = r
		}
	}
	kept := added[:0]
	for _, e := range added {
		if live, ok := p.byTxID[e.TxID]; ok && live == e {
			kept = append(kept, e)
		}
	}
	return res, kept
}
