package mempool

import (
	"fmt"

	"github.com/btcnode/btcd/wire"
)

// singleTRUCChecks is BIP431 against the pool (Core's SingleTRUCChecks):
// version inheritance with every in-pool ancestor, the size limits, at
// most one unconfirmed ancestor and one child per parent. When the only
// problem is that the parent already has a childless only child, that
// sibling is returned too: the caller may try to evict it under the
// replacement rules instead (sibling eviction).
func (p *Pool) singleTRUCChecks(ws *acceptState) (string, *Entry) {
	isTRUC := ws.tx.Version == TRUCVersion
	for _, a := range ws.ancestors {
		switch aTRUC := a.Tx.Version == TRUCVersion; {
		case !isTRUC && aTRUC:
			return fmt.Sprintf("non-version=3 tx %s (wtxid=%s) cannot spend from version=3 tx %s (wtxid=%s)",
				ws.txid, ws.wtxid, a.TxID, a.WTxID), nil
		case isTRUC && !aTRUC:
			return fmt.Sprintf("version=3 tx %s (wtxid=%s) cannot spend from non-version=3 tx %s (wtxid=%s)",
				ws.txid, ws.wtxid, a.TxID, a.WTxID), nil
		}
	}
	if !isTRUC {
		return "", nil
	}
	if ws.vsize > TRUCMaxVSize {
		return fmt.Sprintf("version=3 tx %s (wtxid=%s) is too big: %d > %d virtual bytes", ws.txid, ws.wtxid, ws.vsize, TRUCMaxVSize), nil
	}
	if int64(len(ws.ancestors))+1 > TRUCAncestorLimit {
		return fmt.Sprintf("tx %s (wtxid=%s) would have too many ancestors", ws.txid, ws.wtxid), nil
	}
	if len(ws.ancestors) == 0 {
		return "", nil
	}
	if ws.vsize > TRUCChildMaxVSize {
		return fmt.Sprintf("version=3 child tx %s (wtxid=%s) is too big: %d > %d virtual bytes", ws.txid, ws.wtxid, ws.vsize, TRUCChildMaxVSize), nil
	}
	parent := ws.ancestors[0]
	// A child this transaction replaces does not count.
	for _, c := range parent.children {
		if containsPtr(ws.conflicts, c) {
			return "", nil
		}
	}
	if parent.DescCount+1 <= TRUCDescendantLimit {
		return "", nil
	}
	msg := fmt.Sprintf("tx %s (wtxid=%s) would exceed descendant count limit", parent.TxID, parent.WTxID)
	// Only one sibling without descendants of its own can be weighed for
	// eviction; more (possible after a reorg) are not.
	if parent.DescCount == 2 && len(parent.children) == 1 && parent.children[0].AncCount == 2 {
		return msg, parent.children[0]
	}
	return msg, nil
}

// packageTRUCChecks is BIP431 across a package (Core's PackageTRUCChecks),
// run once every member's in-pool ancestors and size are known: the
// in-package parents count as ancestors, a TRUC parent may have only one
// child in the package and none in the pool, and a TRUC child may not
// have children of its own in the package.
func packageTRUCChecks(ws *acceptState, pkg []*acceptState) string {
	pkgParents := ws.pkgParents
	if ws.tx.Version != TRUCVersion {
		for _, a := range ws.ancestors {
			if a.Tx.Version == TRUCVersion {
				return fmt.Sprintf("non-version=3 tx %s (wtxid=%s) cannot spend from version=3 tx %s (wtxid=%s)",
					ws.txid, ws.wtxid, a.TxID, a.WTxID)
			}
		}
		for _, pp := range pkgParents {
			if pp.tx.Version == TRUCVersion {
				return fmt.Sprintf("non-version=3 tx %s (wtxid=%s) cannot spend from version=3 tx %s (wtxid=%s)",
					ws.txid, ws.wtxid, pp.txid, pp.wtxid)
			}
		}
		return ""
	}
	if ws.vsize > TRUCMaxVSize {
		return fmt.Sprintf("version=3 tx %s (wtxid=%s) is too big: %d > %d virtual bytes", ws.txid, ws.wtxid, ws.vsize, TRUCMaxVSize)
	}
	if len(ws.ancestors)+len(pkgParents)+1 > TRUCAncestorLimit {
		return fmt.Sprintf("tx %s (wtxid=%s) would have too many ancestors", ws.txid, ws.wtxid)
	}
	if len(ws.ancestors)+len(pkgParents) == 0 {
		return ""
	}
	if ws.vsize > TRUCChildMaxVSize {
		return fmt.Sprintf("version=3 child tx %s (wtxid=%s) is too big: %d > %d virtual bytes", ws.txid, ws.wtxid, ws.vsize, TRUCChildMaxVSize)
	}
	var parentID, parentWID wire.Hash
	var parentVersion uint32
	pooledDescendant := false
	if len(ws.ancestors) > 0 {
		a := ws.ancestors[0]
		parentID, parentWID, parentVersion = a.TxID, a.WTxID, a.Tx.Version
		pooledDescendant = a.DescCount > 1
	} else {
		pp := pkgParents[0]
		parentID, parentWID, parentVersion = pp.txid, pp.wtxid, pp.tx.Version
	}
	if parentVersion != TRUCVersion {
		return fmt.Sprintf("version=3 tx %s (wtxid=%s) cannot spend from non-version=3 tx %s (wtxid=%s)",
			ws.txid, ws.wtxid, parentID, parentWID)
	}
	for _, other := range pkg {
		if other == ws {
			continue
		}
		for i := range other.tx.TxIn {
			h := other.tx.TxIn[i].PreviousOutPoint.Hash
			if h == parentID {
				return fmt.Sprintf("tx %s (wtxid=%s) would exceed descendant count limit", parentID, parentWID)
			}
			if h == ws.txid {
				return fmt.Sprintf("tx %s (wtxid=%s) would have too many ancestors", other.txid, other.wtxid)
			}
		}
	}
	if pooledDescendant {
		return fmt.Sprintf("tx %s (wtxid=%s) would exceed descendant count limit", parentID, parentWID)
	}
	return ""
}
