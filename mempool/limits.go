package mempool

import (
	"bytes"
	"fmt"
)

// chainLimits are Core's CTxMemPool::Limits, in virtual bytes.
type chainLimits struct {
	ancCount, ancSize, descCount, descSize int64
}

func (p *Pool) defaultLimits() chainLimits {
	pol := &p.cfg.Policy
	return chainLimits{pol.AncestorLimit, pol.AncestorSizeLimitKvB * 1000, pol.DescendantLimit, pol.DescendantSizeLimitKvB * 1000}
}

// checkChainLimits computes the in-pool ancestors of ws and enforces the
// ancestor and descendant limits. A lone transaction (args.allowCarveouts)
// replacing exactly one transaction may take that one's place in its
// parents' descendant budget, and gets the CPFP carve-out when it fails;
// inside packages neither applies, so that a package cannot stack the
// allowances of its members.
func (p *Pool) checkChainLimits(ws *acceptState, args *acceptArgs) *RejectError {
	if len(ws.parents) == 0 {
		return nil
	}
	lim := p.defaultLimits()
	if len(ws.conflicts) == 1 && args.allowCarveouts {
		lim.descCount++
		lim.descSize += ws.conflicts[0].DescSize
	}
	anc, msg := p.calcAncestors(ws.parents, ws.vsize, 1, lim)
	if msg == "" {
		ws.ancestors = anc
		return nil
	}
	fail := rejectPolicy(ReasonTooLongChain, msg)
	if !args.allowCarveouts || ws.vsize > ExtraDescendantTxSizeLimit || ws.tx.Version == TRUCVersion {
		return fail
	}
	carve := chainLimits{2, lim.ancSize, lim.descCount + 1, lim.descSize + ExtraDescendantTxSizeLimit}
	anc, msg = p.calcAncestors(ws.parents, ws.vsize, 1, carve)
	if msg != "" {
		return fail
	}
	ws.ancestors = anc
	return nil
}

// calcAncestors is Core's CalculateMemPoolAncestors for count new
// transactions of total size vsize whose direct in-pool parents are
// parents: it walks the ancestors, lowest txid (in byte order) first as
// Core's txid-ordered sets do, and returns them or the first limit broken
// (Core's wording, which callers put in the rejection's detail). The walk
// stops as soon as a limit breaks, so its cost is bounded by the limits.
func (p *Pool) calcAncestors(parents []*Entry, vsize, count int64, lim chainLimits) ([]*Entry, string) {
	if int64(len(parents))+count > lim.ancCount {
		return nil, fmt.Sprintf("too many unconfirmed parents [limit: %d]", lim.ancCount)
	}
	inAnc := p.nextEpoch()
	inStaged := p.nextEpoch()
	staged := make([]*Entry, 0, len(parents))
	for _, pe := range parents {
		pe.mark = inStaged
		staged = append(staged, pe)
	}
	var ancestors []*Entry
	total := vsize
	for len(staged) > 0 {
		best := 0
		for i := 1; i < len(staged); i++ {
			if bytes.Compare(staged[i].TxID[:], staged[best].TxID[:]) < 0 {
				best = i
			}
		}
		e := staged[best]
		staged[best] = staged[len(staged)-1]
		staged = staged[:len(staged)-1]
		e.mark = inAnc
		ancestors = append(ancestors, e)
		total += e.VSize
		switch {
		case e.DescSize+vsize > lim.descSize:
			return nil, fmt.Sprintf("exceeds descendant size limit for tx %s [limit: %d]", e.TxID, lim.descSize)
		case e.DescCount+count > lim.descCount:
			return nil, fmt.Sprintf("too many descendants for tx %s [limit: %d]", e.TxID, lim.descCount)
		case total > lim.ancSize:
			return nil, fmt.Sprintf("exceeds ancestor size limit [limit: %d]", lim.ancSize)
		}
		for _, pe := range e.parents {
			if pe.mark != inAnc && pe.mark != inStaged {
				pe.mark = inStaged
				staged = append(staged, pe)
			}
			if int64(len(staged)+len(ancestors))+count > lim.ancCount {
				return nil, fmt.Sprintf("too many unconfirmed ancestors [limit: %d]", lim.ancCount)
			}
		}
	}
	return ancestors, ""
}

// checkPackageLimits is Core's CheckPackageLimits: the package counted as
// one transaction of its total size against the ancestor and descendant
// limits of all its in-pool parents together, which may be stricter than
// each member's own limits.
func (p *Pool) checkPackageLimits(states []*acceptState, totalVSize int64) string {
	lim := p.defaultLimits()
	n := int64(len(states))
	switch {
	case n > lim.ancCount:
		return fmt.Sprintf("package count %d exceeds ancestor count limit [limit: %d]", n, lim.ancCount)
	case n > lim.descCount:
		return fmt.Sprintf("package count %d exceeds descendant count limit [limit: %d]", n, lim.descCount)
	case totalVSize > lim.ancSize:
		return fmt.Sprintf("package size %d exceeds ancestor size limit [limit: %d]", totalVSize, lim.ancSize)
	case totalVSize > lim.descSize:
		return fmt.Sprintf("package size %d exceeds descendant size limit [limit: %d]", totalVSize, lim.descSize)
	}
	var parents []*Entry
	for _, ws := range states {
		for i := range ws.tx.TxIn {
			pe, ok := p.byTxID[ws.tx.TxIn[i].PreviousOutPoint.Hash]
			if !ok || containsPtr(parents, pe) {
				continue
			}
			parents = append(parents, pe)
			if int64(len(parents))+n > lim.ancCount {
				return fmt.Sprintf("too many unconfirmed parents [limit: %d]", lim.ancCount)
			}
		}
	}
	if _, msg := p.calcAncestors(parents, totalVSize, n, lim); msg != "" {
		// Counting the whole package against every parent may
		// overestimate the totals.
		return "possibly " + msg
	}
	return ""
}
