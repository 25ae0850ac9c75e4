package mempool

import (
	"sort"

	"github.com/btcnode/btcd/wire"
)

// maxTriedPairs bounds the remembered failed pairs; they are only
// remembered while they are few.
const maxTriedPairs = 1000

// reconsiderable remembers the parent and child pairs already tried as
// one-parent-one-child packages without success, so a peer resending them
// cannot make us evaluate them again. A transaction refused for its fee
// rate alone is not kept: as in Core, the node asks the sender of an
// orphan for its missing parents again, even one it refused for its fee
// rate, and the parent then meets its orphan child here.
type reconsiderable struct {
	tried map[[2]wire.Hash]struct{} // wtxids of failed pairs
}

// reset forgets everything: after a new block a pair may pass, and Core
// forgets its reconsiderable rejects then too.
func (r *reconsiderable) reset() {
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
// orphan spending it that the same peer sent or announced, as Core's
// Find1P1CPackage: a pair from two peers is not tried, so one peer cannot
// spoil another's package with a bad child (or get the other punished for
// it). Only one pair is tried per arrival, the oldest orphan first.
func (p *Pool) parentWithOrphanLocked(tx *wire.MsgTx, peer PeerID) []*Entry {
	children := p.orphans.children(tx.TxHash(), len(tx.TxOut))
	sort.SliceStable(children, func(i, j int) bool { return children[i].seq < children[j].seq })
	for _, or := range children {
		if !or.announcedBy(peer) || p.recon.wasTried(tx, or.tx) {
			continue
		}
		if added := p.tryPairLocked(tx, or, peer); added != nil {
			return added
		}
		break
	}
	return nil
}

// tryPairLocked submits parent and the orphan child as a package, from
// peer, and returns the live entries that entered (nil when none did). A
// child found invalid in its own right (not for its fee rate or a missing
// input) leaves the orphan pool and is reported against peer, as Core
// punishes the peer that offered the package.
func (p *Pool) tryPairLocked(parent *wire.MsgTx, or *orphan, peer PeerID) []*Entry {
	child := or.tx
	res, added := p.acceptPackageLocked([]*wire.MsgTx{parent, child}, PackageOptions{})
	childID := child.TxHash()
	if _, ok := p.byTxID[childID]; ok {
		p.orphans.remove(or)
	} else {
		p.recon.markTried(parent, child)
		if r := res.Results[or.wtxid]; r != nil && r.Kind == TxInvalid && r.Err != nil &&
			r.Err.Kind != ErrReconsiderable && r.Err.Kind != ErrMissingInputs {
			p.orphans.remove(or)
			p.queueOrphanReject(RejectedOrphan{Tx: child, TxID: or.txid, WTxID: or.wtxid, From: peer, Err: r.Err})
		}
	}
	if len(added) == 0 {
		return nil
	}
	return added
}
