package mempool

import (
	"sort"

	"github.com/btcnode/btcd/wire"
)

// Bounds of the reconsiderable cache: what a peer can make us hold by
// sending transactions too cheap to enter is a hundred of them and 4 MWU,
// as for orphans; the pairs already tried are only remembered while they
// are few.
const (
	maxReconsiderable       = 100
	maxReconsiderableWeight = 10 * MaxStandardTxWeight
	maxTriedPairs           = 1000
)

// reconsiderable remembers transactions rejected for their fee rate alone
// so that a child arriving later can be tried with its parent at once
// (Core keeps only their wtxids and asks a peer for the parent again; the
// node's transaction requests do not re-request rejected transactions, so
// the parent itself is kept, bounded like the orphans).
type reconsiderable struct {
	byTxID map[wire.Hash]*reconTx
	order  []*reconTx // oldest first
	weight int64
	tried  map[[2]wire.Hash]struct{} // wtxids of failed pairs
}

type reconTx struct {
	tx     *wire.MsgTx
	txid   wire.Hash
	weight int64
}

func (r *reconsiderable) add(tx *wire.MsgTx) {
	txid := tx.TxHash()
	if r.byTxID == nil {
		r.byTxID = make(map[wire.Hash]*reconTx)
	}
	if _, ok := r.byTxID[txid]; ok {
		return
	}
	w := tx.Weight()
	if w > MaxStandardTxWeight {
		return
	}
	rt := &reconTx{tx: tx, txid: txid, weight: w}
	r.byTxID[txid] = rt
	r.order = append(r.order, rt)
	r.weight += w
	for len(r.order) > maxReconsiderable || r.weight > maxReconsiderableWeight {
		r.remove(r.order[0].txid)
	}
}

func (r *reconsiderable) remove(txid wire.Hash) {
	rt, ok := r.byTxID[txid]
	if !ok {
		return
	}
	delete(r.byTxID, txid)
	for i, x := range r.order {
		if x == rt {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	r.weight -= rt.weight
}

// reset forgets everything: after a new block a rejected transaction may
// pass on its own, and Core forgets its reconsiderable rejects then too.
func (r *reconsiderable) reset() {
	clear(r.byTxID)
	r.order = r.order[:0]
	r.weight = 0
	clear(r.tried)
}

func pairKey(parent, child *wire.MsgTx) [2]wire.Hash {
	return [2]wire.Hash{parent.WitnessHash(), child.WitnessHash()}
}

func (r *reconsiderable) wasTried(parent, child *wire.MsgTx) bool {
	_, ok := r.tried[pairKey(parent, child)]
	return ok
}

func (r *reconsiderable) markTried(parent, child *wire.MsgTx) {
	if r.tried == nil || len(r.tried) >= maxTriedPairs {
		r.tried = make(map[[2]wire.Hash]struct{})
	}
	r.tried[pairKey(parent, child)] = struct{}{}
}

// parentWithOrphanLocked tries tx, just rejected for its fee rate, with an
// orphan spending it: one from the same peer first, as Core's
// Find1P1CPackage prefers (a peer flooding fake children cannot crowd
// out an honest sender), else one from any peer. Only one pair is tried
// per arrival. Without success tx is remembered for a later child.
func (p *Pool) parentWithOrphanLocked(tx *wire.MsgTx, peer PeerID) []*Entry {
	children := p.orphans.children(tx.TxHash(), len(tx.TxOut))
	sort.SliceStable(children, func(i, j int) bool {
		a, b := children[i].peer == peer, children[j].peer == peer
		if a != b {
			return a
		}
		return children[i].seq < children[j].seq
	})
	for _, or := range children {
		if p.recon.wasTried(tx, or.tx) {
			continue
		}
		if added := p.tryPairLocked(tx, or.tx); added != nil {
			return added
		}
		break
	}
	p.recon.add(tx)
	return nil
}

// childWithRejectedParentLocked tries tx, just found to miss inputs, with
// the one remembered low-fee parent it spends. With two such parents a
// pair cannot succeed (Core gives up then too).
func (p *Pool) childWithRejectedParentLocked(tx *wire.MsgTx) []*Entry {
	var parent *reconTx
	for i := range tx.TxIn {
		rt := p.recon.byTxID[tx.TxIn[i].PreviousOutPoint.Hash]
		if rt == nil || rt == parent {
			continue
		}
		if parent != nil {
			return nil
		}
		parent = rt
	}
	if parent == nil || p.recon.wasTried(parent.tx, tx) {
		return nil
	}
	return p.tryPairLocked(parent.tx, tx)
}

// tryPairLocked submits parent and child as a package and returns the
// live entries that entered (nil when none did).
func (p *Pool) tryPairLocked(parent, child *wire.MsgTx) []*Entry {
	_, added := p.acceptPackageLocked([]*wire.MsgTx{parent, child}, PackageOptions{})
	childID := child.TxHash()
	if _, ok := p.byTxID[childID]; ok {
		if or, ok := p.orphans.byID[childID]; ok {
			p.orphans.remove(or)
		}
		p.recon.remove(parent.TxHash())
	} else {
		p.recon.markTried(parent, child)
	}
	if len(added) == 0 {
		return nil
	}
	return added
}
