package mempool

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"

	"github.com/btcnode/btcd/wire"
)

// checkReplacement applies the replace-by-fee rules to a lone transaction
// in Core's order (ReplacementChecks): a higher fee rate than every direct
// conflict, at most 100 evictions, no new unconfirmed inputs, at least the
// evicted fees plus its own relay at the incremental fee. All fees are
// modified fees. It fills ws.evict.
func (p *Pool) checkReplacement(ws *acceptState) *RejectError {
	if p.cfg.NoReplacement {
		return rejectPolicy(ReasonMempoolConflict, "replacement disabled")
	}
	suffix := ""
	if ws.siblingEviction {
		suffix = " (including sibling eviction)"
	}
	newRate := NewFeeRate(ws.modFee, ws.vsize)
	for _, c := range ws.conflicts {
		// Core compares CFeeRates, truncated to whole sat/kvB.
		if old := NewFeeRate(c.ModFee, c.VSize); newRate <= old {
			return rejectFee(ErrReconsiderable, ReasonInsufficientFee+suffix,
				fmt.Sprintf("rejecting replacement %s; new feerate %s <= old feerate %s", ws.txid, newRate, old))
		}
	}
	evict, msg := p.entriesForConflicts(ws.txid, ws.conflicts)
	if msg != "" {
		return rejectPolicy(ReasonTooManyReplacements+suffix, msg)
	}
	ws.evict = evict
	if msg := p.noNewUnconfirmed(ws.tx, ws.txid, evict); msg != "" {
		return rejectPolicy(ReasonAddsUnconfirmed+suffix, msg)
	}
	var evictedFees int64
	for _, e := range evict {
		evictedFees += e.ModFee
	}
	if msg := paysForRBF(evictedFees, ws.modFee, ws.vsize, p.cfg.Policy.IncrementalRelayFee, ws.txid); msg != "" {
		return rejectFee(ErrReconsiderable, ReasonInsufficientFee+suffix, msg)
	}
	return nil
}

// entriesForConflicts is Core's GetEntriesForConflicts (BIP125 rule 5):
// it refuses as soon as the conflicts' descendant counts add up to more
// than MaxReplacementCandidates (an overestimate that bounds the work),
// then returns the conflicts with all their descendants.
func (p *Pool) entriesForConflicts(txid wire.Hash, conflicts []*Entry) ([]*Entry, string) {
	var n int64
	for _, c := range conflicts {
		n += c.DescCount
		if n > MaxReplacementCandidates {
			return nil, fmt.Sprintf("rejecting replacement %s; too many potential replacements (%d > %d)", txid, n, MaxReplacementCandidates)
		}
	}
	return p.withDescendants(conflicts), ""
}

// noNewUnconfirmed is BIP125 rule 2 (Core's HasNoNewUnconfirmed): every
// in-pool transaction the replacement spends must already be spent by
// something it replaces.
func (p *Pool) noNewUnconfirmed(tx *wire.MsgTx, txid wire.Hash, evict []*Entry) string {
	for j := range tx.TxIn {
		h := tx.TxIn[j].PreviousOutPoint.Hash
		if _, inPool := p.byTxID[h]; !inPool {
			continue
		}
		known := false
		for _, e := range evict {
			for k := range e.Tx.TxIn {
				if e.Tx.TxIn[k].PreviousOutPoint.Hash == h {
					known = true
					break
				}
			}
			if known {
				break
			}
		}
		if !known {
			return fmt.Sprintf("replacement %s adds unconfirmed input, idx %d", txid, j)
		}
	}
	return ""
}

// paysForRBF is BIP125 rules 3 and 4 (Core's PaysForRBF), worded with
// Core's FormatMoney amounts.
func paysForRBF(originalFees, replacementFees, replacementVSize int64, incremental FeeRate, txid wire.Hash) string {
	if replacementFees < originalFees {
		return fmt.Sprintf("rejecting replacement %s, less fees than conflicting txs; %s < %s",
			txid, formatMoney(replacementFees), formatMoney(originalFees))
	}
	if extra, need := replacementFees-originalFees, incremental.Fee(replacementVSize); extra < need {
		return fmt.Sprintf("rejecting replacement %s, not enough additional fees to relay; %s < %s",
			txid, formatMoney(extra), formatMoney(need))
	}
	return ""
}

// packageRBFChecks is Core's package replace-by-fee (the replacement part
// of PackageMempoolChecks): only a parent and child with no in-pool
// ancestors may replace, only clusters of at most two transactions, and
// the replacement must pay for what it evicts and strictly improve the
// feerate diagram. It fills the evicted set on success; failures are
// package-wide.
func (p *Pool) packageRBFChecks(pkg []*acceptState, totalFee, totalVSize int64) ([]*Entry, *PackageError) {
	fail := func(reason, debug string) *PackageError {
		return &PackageError{Kind: PackageErrPolicy, Reason: "package RBF failed: " + reason, Debug: debug}
	}
	if len(pkg) != 2 || !IsChildWithParents([]*wire.MsgTx{pkg[0].tx, pkg[1].tx}) {
		return nil, fail("package must be 1-parent-1-child", "")
	}
	for _, ws := range pkg {
		if len(ws.ancestors) > 0 {
			return nil, fail("new transaction cannot have mempool ancestors", "")
		}
	}
	var direct []*Entry
	for _, ws := range pkg {
		for _, c := range ws.conflicts {
			if !containsPtr(direct, c) {
				direct = append(direct, c)
			}
		}
	}
	parent, child := pkg[0], pkg[1]
	evict, msg := p.entriesForConflicts(child.txid, direct)
	if msg != "" {
		return nil, fail("too many potential replacements", msg)
	}
	var evictedFees int64
	for _, e := range evict {
		evictedFees += e.ModFee
	}
	if msg := paysForRBF(evictedFees, totalFee, totalVSize, p.cfg.Policy.IncrementalRelayFee, child.txid); msg != "" {
		return nil, fail("insufficient anti-DoS fees", msg)
	}
	// The pair must be a chunk of its own: a child paying only the
	// anti-DoS fees for a parent that outbids the conflicts alone is
	// not a package replacement.
	parentRate := NewFeeRate(parent.modFee, parent.vsize)
	if pkgRate := NewFeeRate(totalFee, totalVSize); pkgRate <= parentRate {
		return nil, fail("package feerate is less than or equal to parent feerate",
			fmt.Sprintf("package feerate %s <= parent feerate is %s", pkgRate, parentRate))
	}
	if msg := p.improvesFeerateDiagram(evict, totalFee, totalVSize); msg != "" {
		return nil, fail(msg, "")
	}
	return evict, nil
}

// feeFrac is a fee over a size, a point or a slope of a feerate diagram.
type feeFrac struct{ fee, size int64 }

// cmpRate compares the fee rates of a and b exactly; fees times sizes
// can exceed 64 bits.
func cmpRate(a, b feeFrac) int {
	l := new(big.Int).Mul(big.NewInt(a.fee), big.NewInt(b.size))
	r := new(big.Int).Mul(big.NewInt(b.fee), big.NewInt(a.size))
	return l.Cmp(r)
}

// improvesFeerateDiagram is Core's ImprovesFeerateDiagram for clusters of
// at most two: the evicted transactions (and the parents they leave
// behind) are chunked, and the mempool's feerate diagram with the
// replacement must be better somewhere and worse nowhere than without.
func (p *Pool) improvesFeerateDiagram(evict []*Entry, fee, vsize int64) string {
	// Core walks the evicted set in txid order, which decides the
	// message when several transactions break the topology.
	sorted := append([]*Entry(nil), evict...)
	sort.Slice(sorted, func(i, j int) bool { return bytes.Compare(sorted[i].TxID[:], sorted[j].TxID[:]) < 0 })
	if msg := conflictTopology(sorted); msg != "" {
		return msg
	}
	inEvict := p.nextEpoch()
	for _, e := range sorted {
		e.mark = inEvict
	}
	var oldChunks, newChunks []feeFrac
	for _, e := range sorted {
		if e.DescCount > 1 {
			// Chunked with its child below.
			continue
		}
		own := feeFrac{e.ModFee, e.VSize}
		if e.AncCount > 1 {
			pkg := feeFrac{e.AncFees, e.AncSize}
			if cmpRate(own, pkg) > 0 {
				oldChunks = append(oldChunks, pkg)
			} else {
				oldChunks = append(oldChunks, feeFrac{pkg.fee - own.fee, pkg.size - own.size}, own)
			}
		} else {
			oldChunks = append(oldChunks, own)
		}
	}
	for _, e := range sorted {
		if len(e.parents) > 0 && e.parents[0].mark != inEvict {
			pe := e.parents[0]
			newChunks = append(newChunks, feeFrac{pe.ModFee, pe.VSize})
		}
	}
	newChunks = append(newChunks, feeFrac{fee, vsize})
	if !diagramBetter(newChunks, oldChunks) {
		return "insufficient feerate: does not improve feerate diagram"
	}
	return ""
}

// conflictTopology is Core's CheckConflictTopology: every evicted
// transaction must sit in a cluster of at most a parent and its only
// child.
func conflictTopology(evict []*Entry) string {
	for _, e := range evict {
		hasAnc, hasDesc := e.AncCount > 1, e.DescCount > 1
		switch {
		case e.AncCount > 2:
			return fmt.Sprintf("%s has %d ancestors, max 1 allowed", e.TxID, e.AncCount-1)
		case e.DescCount > 2:
			return fmt.Sprintf("%s has %d descendants, max 1 allowed", e.TxID, e.DescCount-1)
		case hasAnc && hasDesc:
			return fmt.Sprintf("%s has both ancestor and descendant, exceeding cluster limit of 2", e.TxID)
		case hasDesc && len(e.children) > 0 && e.children[0].AncCount > 2:
			return fmt.Sprintf("%s is not the only parent of child %s", e.TxID, e.children[0].TxID)
		case !hasDesc && hasAnc && len(e.parents) > 0 && e.parents[0].DescCount > 2:
			return fmt.Sprintf("%s is not the only child of parent %s", e.TxID, e.parents[0].TxID)
		}
	}
	return ""
}

// diagramBetter reports whether the feerate diagram of chunks a is at
// least that of b everywhere and above it somewhere (Core's CompareChunks
// returning greater). Each diagram is the concave curve of cumulative fee
// over cumulative size with its chunks in decreasing fee rate order, flat
// after its end; two such curves are compared at every corner of either.
func diagramBetter(a, b []feeFrac) bool {
	pa, pb := diagramPoints(a), diagramPoints(b)
	better, worse := false, false
	for _, x := range append(cornerSizes(pa), cornerSizes(pb)...) {
		switch diagramAt(pa, x).Cmp(diagramAt(pb, x)) {
		case 1:
			better = true
		case -1:
			worse = true
		}
	}
	return better && !worse
}

func diagramPoints(chunks []feeFrac) []feeFrac {
	sorted := append([]feeFrac(nil), chunks...)
	sort.SliceStable(sorted, func(i, j int) bool { return cmpRate(sorted[i], sorted[j]) > 0 })
	pts := []feeFrac{{0, 0}}
	for _, c := range sorted {
		last := pts[len(pts)-1]
		pts = append(pts, feeFrac{last.fee + c.fee, last.size + c.size})
	}
	return pts
}

func cornerSizes(pts []feeFrac) []int64 {
	out := make([]int64, len(pts))
	for i, pt := range pts {
		out[i] = pt.size
	}
	return out
}

// diagramAt is the diagram's cumulative fee at size x, interpolated
// between corners and constant past the last one.
func diagramAt(pts []feeFrac, x int64) *big.Rat {
	for i := 1; i < len(pts); i++ {
		lo, hi := pts[i-1], pts[i]
		if x > hi.size {
			continue
		}
		if hi.size == lo.size {
			return new(big.Rat).SetInt64(hi.fee)
		}
		// lo.fee + (hi.fee-lo.fee)*(x-lo.size)/(hi.size-lo.size)
		r := new(big.Rat).SetFrac(
			new(big.Int).Mul(big.NewInt(hi.fee-lo.fee), big.NewInt(x-lo.size)),
			big.NewInt(hi.size-lo.size))
		return r.Add(r, new(big.Rat).SetInt64(lo.fee))
	}
	return new(big.Rat).SetInt64(pts[len(pts)-1].fee)
}
