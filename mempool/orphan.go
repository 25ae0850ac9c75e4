package mempool

import (
	"errors"
	"sort"
	"time"

	"github.com/btcnode/btcd/wire"
)

// PeerID identifies the peer a transaction came from (0 for local).
type PeerID int64

// OrphanLimits bounds the orphan pool.
type OrphanLimits struct {
	// MaxCount is the number of orphans kept (Core's
	// -maxorphantx default, 100).
	MaxCount int
	// MaxTotalWeight bounds the summed weight of all orphans.
	MaxTotalWeight int64
	// MaxPerPeer is one peer's share of MaxCount; a peer over its share
	// loses its own oldest orphan first. Whatever the share, a full pool
	// evicts from the peer holding the most orphans.
	MaxPerPeer int
	// Expiry is how long an orphan waits for its parents (20 minutes).
	Expiry time.Duration
}

// DefaultOrphanLimits returns Core's 100 orphans and 20-minute expiry and
// a total weight of ten maximum-size standard transactions (4 MWU). One
// peer may fill the pool, as in Core (whose functional tests send 100
// orphans from one peer); a full pool evicts that peer's orphans first.
func DefaultOrphanLimits() OrphanLimits {
	return OrphanLimits{
		MaxCount:       100,
		MaxTotalWeight: 10 * MaxStandardTxWeight,
		MaxPerPeer:     100,
		Expiry:         20 * time.Minute,
	}
}

// orphanSweepInterval is how often expired orphans are looked for (Core's
// ORPHAN_TX_EXPIRE_INTERVAL).
const orphanSweepInterval = 5 * time.Minute

type orphan struct {
	tx    *wire.MsgTx
	txid  wire.Hash
	wtxid wire.Hash
	peer  PeerID
	// from lists every peer that sent or announced it, peer first.
	from    []PeerID
	entered time.Time
	expires time.Time
	weight  int64
	seq     uint64
}

// maxOrphanAnnouncers bounds the announcers remembered per orphan.
const maxOrphanAnnouncers = 16

type orphanPool struct {
	lim       OrphanLimits
	byID      map[wire.Hash]*orphan
	byPrev    map[wire.OutPoint][]*orphan
	perPeer   map[PeerID]int
	weight    int64
	nextSweep time.Time
	seq       uint64
}

func (o *orphanPool) init(lim OrphanLimits) {
	o.lim = lim
	o.byID = make(map[wire.Hash]*orphan)
	o.byPrev = make(map[wire.OutPoint][]*orphan)
	o.perPeer = make(map[PeerID]int)
}

// add stores tx unless it is too heavy or already present; it then
// enforces the limits, evicting the oldest orphan of the peer with the
// most orphans first.
func (o *orphanPool) add(tx *wire.MsgTx, txid wire.Hash, peer PeerID, now time.Time) bool {
	if or, ok := o.byID[txid]; ok {
		// Another sender of a held orphan is one more announcer.
		or.addAnnouncer(peer)
		return true
	}
	w := tx.Weight()
	if w > MaxStandardTxWeight {
		return false
	}
	o.seq++
	or := &orphan{tx: tx, txid: txid, wtxid: tx.WitnessHash(), peer: peer, from: []PeerID{peer},
		entered: now, expires: now.Add(o.lim.Expiry), weight: w, seq: o.seq}
	o.byID[txid] = or
	for i := range tx.TxIn {
		op := tx.TxIn[i].PreviousOutPoint
		o.byPrev[op] = append(o.byPrev[op], or)
	}
	o.perPeer[peer]++
	o.weight += w
	o.limit(now)
	_, kept := o.byID[txid]
	return kept
}

func (o *orphanPool) remove(or *orphan) {
	if _, ok := o.byID[or.txid]; !ok {
		return
	}
	delete(o.byID, or.txid)
	for i := range or.tx.TxIn {
		op := or.tx.TxIn[i].PreviousOutPoint
		list := o.byPrev[op]
		for j, x := range list {
			if x == or {
				list[j] = list[len(list)-1]
				list = list[:len(list)-1]
				break
			}
		}
		if len(list) == 0 {
			delete(o.byPrev, op)
		} else {
			o.byPrev[op] = list
		}
	}
	if o.perPeer[or.peer]--; o.perPeer[or.peer] <= 0 {
		delete(o.perPeer, or.peer)
	}
	o.weight -= or.weight
}

// limit expires old orphans (every sweep interval) and evicts until the
// count, weight and per-peer limits hold. Both are logged in Core's words,
// which its functional tests wait for.
func (o *orphanPool) limit(now time.Time) {
	if !now.Before(o.nextSweep) {
		expired := 0
		for _, or := range o.byID {
			if now.After(or.expires) {
				o.remove(or)
				expired++
			}
		}
		o.nextSweep = now.Add(orphanSweepInterval)
		if expired > 0 {
			log.Debugf("Erased %d orphan tx due to expiration", expired)
		}
	}
	if n := o.evict(); n > 0 {
		log.Debugf("orphanage overflow, removed %d tx", n)
	}
}

// evict removes orphans until the count, weight and per-peer limits hold
// and returns how many it removed.
func (o *orphanPool) evict() int {
	evicted := 0
	for len(o.byID) > 0 {
		var heavy PeerID
		most := 0
		for peer, n := range o.perPeer {
			if n > most || (n == most && peer < heavy) {
				heavy, most = peer, n
			}
		}
		if len(o.byID) <= o.lim.MaxCount && o.weight <= o.lim.MaxTotalWeight && most <= o.lim.MaxPerPeer {
			break
		}
		var oldest *orphan
		for _, or := range o.byID {
			if or.peer == heavy && (oldest == nil || or.seq < oldest.seq) {
				oldest = or
			}
		}
		o.remove(oldest)
		evicted++
	}
	return evicted
}

// children returns the orphans spending an output of txid (outputs
// numbered below n).
func (o *orphanPool) children(txid wire.Hash, n int) []*orphan {
	var out []*orphan
	for i := 0; i < n; i++ {
		for _, or := range o.byPrev[wire.OutPoint{Hash: txid, Index: uint32(i)}] {
			if !containsOrphan(out, or) {
				out = append(out, or)
			}
		}
	}
	return out
}

func containsOrphan(s []*orphan, x *orphan) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// removeForBlock drops orphans that the block confirms or that spend an
// output the block spends (they can never be valid) and returns how many
// it dropped.
func (o *orphanPool) removeForBlock(block *wire.MsgBlock, txids []wire.Hash) int {
	n := 0
	for i, tx := range block.Transactions {
		if or, ok := o.byID[txids[i]]; ok {
			o.remove(or)
			n++
		}
		for j := range tx.TxIn {
			for _, or := range append([]*orphan(nil), o.byPrev[tx.TxIn[j].PreviousOutPoint]...) {
				o.remove(or)
				n++
			}
		}
	}
	return n
}

// ProcessTransaction accepts tx from peer; when its inputs are missing and
// allowOrphans is set it keeps it as an orphan (orphaned is then true and
// err nil). Accepting a transaction also accepts any orphans it unlocks,
// recursively; all accepted entries are returned in acceptance order and
// announced through Config.OnAccept.
//
// A transaction too low in fee rate on its own is tried again as a
// package with an orphan child held that pays for it (opportunistic
// one-parent-one-child relay); the package's entries are then returned as
// accepted and err is nil. A child arriving after such a parent is kept as
// an orphan, and the parent must be sent again (as in Core, the node asks
// the child's sender for it).
func (p *Pool) ProcessTransaction(tx *wire.MsgTx, peer PeerID, allowOrphans bool) (accepted []*Entry, orphaned bool, err error) {
	p.mu.Lock()
	res, err := p.acceptLocked(tx, AcceptOptions{})
	if err != nil {
		var pkg []*Entry
		if errors.Is(err, ErrReconsiderable) {
			pkg = p.parentWithOrphanLocked(tx, peer)
		}
		if pkg != nil {
			accepted = p.snapshots(p.processOrphansLocked(pkg))
			p.mu.Unlock()
			p.announce(accepted)
			return accepted, false, nil
		}
		if allowOrphans && IsMissingInputs(err) {
			orphaned = p.orphans.add(tx, tx.TxHash(), peer, p.now())
			if orphaned {
				err = nil
			}
		}
		p.mu.Unlock()
		// A failed package may have shown the orphan child invalid.
		p.reportOrphanRejects()
		return nil, orphaned, err
	}
	accepted = append(accepted, res.Entry)
	accepted = p.snapshots(p.processOrphansLocked(accepted))
	p.mu.Unlock()
	p.announce(accepted)
	return accepted, false, nil
}

// processOrphansLocked tries the orphans unlocked by the entries from
// accepted[start:] onwards, appending those that enter the pool.
func (p *Pool) processOrphansLocked(accepted []*Entry) []*Entry {
	for i := 0; i < len(accepted); i++ {
		parent := accepted[i]
		accepted = p.tryOrphansLocked(accepted, parent.TxID, len(parent.Tx.TxOut))
	}
	return accepted
}

// tryOrphansLocked tries the orphans spending the first n outputs of
// txid, appending those that enter the pool to accepted. An orphan
// refused for any reason but still-missing inputs leaves the orphan pool
// and is reported through Config.OnOrphanRejected, so the peer that sent
// it can be held to account as if it had sent it with its parents.
func (p *Pool) tryOrphansLocked(accepted []*Entry, txid wire.Hash, n int) []*Entry {
	for _, or := range p.orphans.children(txid, n) {
		if _, still := p.orphans.byID[or.txid]; !still {
			continue
		}
		res, err := p.acceptLocked(or.tx, AcceptOptions{})
		if err != nil {
			if !IsMissingInputs(err) {
				p.orphans.remove(or)
				p.queueOrphanReject(RejectedOrphan{Tx: or.tx, TxID: or.txid, WTxID: or.wtxid, From: or.peer, Err: err})
			}
			continue
		}
		p.orphans.remove(or)
		accepted = append(accepted, res.Entry)
	}
	return accepted
}

// RejectedOrphan is an orphan found unacceptable once its parents
// arrived.
type RejectedOrphan struct {
	Tx    *wire.MsgTx
	TxID  wire.Hash
	WTxID wire.Hash
	// From is the peer that sent it.
	From PeerID
	// Err is why it was refused, as from ProcessTransaction.
	Err error
}

// maxPendingOrphanRejects bounds the rejections waiting for delivery; a
// pool holds at most a few hundred orphans, so this is never reached
// unless no one delivers them.
const maxPendingOrphanRejects = 1024

func (p *Pool) queueOrphanReject(r RejectedOrphan) {
	if p.cfg.OnOrphanRejected == nil {
		return
	}
	p.rejMu.Lock()
	if len(p.orphanRejects) < maxPendingOrphanRejects {
		p.orphanRejects = append(p.orphanRejects, r)
	}
	p.rejMu.Unlock()
}

// reportOrphanRejects delivers the queued rejections; it runs without the
// pool lock, so the hook may call back into the pool.
func (p *Pool) reportOrphanRejects() {
	if p.cfg.OnOrphanRejected == nil {
		return
	}
	p.rejMu.Lock()
	list := p.orphanRejects
	p.orphanRejects = nil
	p.rejMu.Unlock()
	for _, r := range list {
		p.cfg.OnOrphanRejected(r)
	}
}

// snapshots replaces live entries by snapshots, in place, for handing out
// after the lock is released. Entries that already left the pool again
// (evicted by a later orphan) are still reported as accepted.
func (p *Pool) snapshots(es []*Entry) []*Entry {
	if len(es) == 0 {
		return es
	}
	for i, e := range es {
		es[i] = snapshot(e)
	}
	return es
}

// announce hands accepted entries to Config.OnAccept and delivers the
// orphan rejections their acceptance caused; call it without the lock.
func (p *Pool) announce(entries []*Entry) {
	p.reportOrphanRejects()
	if p.cfg.OnAccept == nil {
		return
	}
	for _, e := range entries {
		p.cfg.OnAccept(e)
	}
}

// HaveOrphan reports whether the orphan pool holds txid.
func (p *Pool) HaveOrphan(txid wire.Hash) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	_, ok := p.orphans.byID[txid]
	return ok
}

// OrphanCount returns the number of orphans held.
func (p *Pool) OrphanCount() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.orphans.byID)
}

// RemoveOrphansByPeer drops every orphan from peer (when it disconnects)
// and returns how many were dropped.
func (p *Pool) RemoveOrphansByPeer(peer PeerID) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, or := range p.orphans.byID {
		if or.peer == peer {
			p.orphans.remove(or)
			n++
		}
	}
	return n
}

// ExpireOrphans runs the orphan expiry sweep now.
func (p *Pool) ExpireOrphans() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.orphans.nextSweep = time.Time{}
	p.orphans.limit(p.now())
}

// OrphanInfo describes one orphan (getorphantxs).
type OrphanInfo struct {
	Tx    *wire.MsgTx
	TxID  wire.Hash
	WTxID wire.Hash
	// From lists the peers that sent or announced it.
	From []PeerID
	// Entered is when it arrived; Expires when it is dropped unless its
	// parents arrive first.
	Entered time.Time
	Expires time.Time
}

// Orphans lists the orphan pool, oldest first.
func (p *Pool) Orphans() []OrphanInfo {
	p.mu.RLock()
	defer p.mu.RUnlock()
	list := make([]*orphan, 0, len(p.orphans.byID))
	for _, or := range p.orphans.byID {
		list = append(list, or)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].seq < list[j].seq })
	out := make([]OrphanInfo, len(list))
	for i, or := range list {
		out[i] = OrphanInfo{Tx: or.tx, TxID: or.txid, WTxID: or.wtxid, From: append([]PeerID(nil), or.from...),
			Entered: or.entered, Expires: or.expires}
	}
	return out
}

// AddOrphanAnnouncer records that peer announced the orphan whose txid or
// wtxid is h (an inv for a transaction already held). It returns the
// orphan, nil when there is none, and whether peer is a new announcer of
// it: a new announcer may be asked for the orphan's missing parents too
// (Core's orphan resolution candidates).
func (p *Pool) AddOrphanAnnouncer(h wire.Hash, peer PeerID) (*wire.MsgTx, bool) {
	// Announcements are frequent and orphans rare: look without the
	// write lock first.
	p.mu.RLock()
	empty := len(p.orphans.byID) == 0
	p.mu.RUnlock()
	if empty {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if or := p.orphans.byID[h]; or != nil {
		return or.tx, or.addAnnouncer(peer)
	}
	for _, or := range p.orphans.byID {
		if or.txid == h || or.wtxid == h {
			return or.tx, or.addAnnouncer(peer)
		}
	}
	return nil, false
}

// announcedBy reports whether peer sent or announced the orphan.
func (or *orphan) announcedBy(peer PeerID) bool {
	for _, f := range or.from {
		if f == peer {
			return true
		}
	}
	return false
}

// addAnnouncer adds peer to the orphan's announcers and reports whether
// it was not one yet and there was room for it.
func (or *orphan) addAnnouncer(peer PeerID) bool {
	if or.announcedBy(peer) || len(or.from) >= maxOrphanAnnouncers {
		return false
	}
	or.from = append(or.from, peer)
	return true
}
