package netsync

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"time"

	"github.com/btcnode/btcd/wire"
)

// Transaction request policy (Core's values of the same names).
const (
	// txGetDataInterval is how long a requested peer has to answer
	// before the transaction is asked of another announcer
	// (GETDATA_TX_INTERVAL).
	txGetDataInterval = 60 * time.Second
	// nonPrefPeerTxDelay holds back requests to peers we do not prefer,
	// so a preferred announcer arriving shortly after is asked first
	// (NONPREF_PEER_TX_DELAY).
	nonPrefPeerTxDelay = 2 * time.Second
	// txidRelayDelay holds back txid announcements while wtxid-relay
	// peers exist: those announce by wtxid, which cannot be malleated
	// (TXID_RELAY_DELAY).
	txidRelayDelay = 2 * time.Second
	// overloadedPeerTxDelay holds back requests to a peer that already
	// has maxPeerTxRequestInFlight unanswered (OVERLOADED_PEER_TX_DELAY).
	overloadedPeerTxDelay = 2 * time.Second
	// maxPeerTxRequestInFlight is the in-flight count above which a
	// peer counts as overloaded (MAX_PEER_TX_REQUEST_IN_FLIGHT).
	maxPeerTxRequestInFlight = 100
	// maxPeerTxAnnouncements bounds the announcements remembered per
	// peer without the relay permission (MAX_PEER_TX_ANNOUNCEMENTS):
	// this is what bounds the tracker's memory per peer.
	maxPeerTxAnnouncements = 5000
)

// genTxID names a transaction by txid or by wtxid (BIP339), as announced.
type genTxID struct {
	hash  wire.Hash
	wtxid bool
}

// annState is where one peer's announcement of a transaction stands.
type annState uint8

const (
	// annDelayed: not to be requested before its request time.
	annDelayed annState = iota
	// annReady: may be requested, but another announcer is better or a
	// request for the transaction is outstanding.
	annReady
	// annBest: the announcer the transaction is to be requested from.
	annBest
	// annRequested: asked for, waiting for an answer until its expiry.
	annRequested
	// annCompleted: answered (notfound), timed out, or otherwise done;
	// kept so the same peer is not asked again while others are tried.
	annCompleted
)

// txAnn is one peer's announcement of one transaction.
type txAnn struct {
	peer      int32
	gtx       genTxID
	preferred bool
	state     annState
	// at is the request time of a delayed announcement and the expiry
	// of a requested one.
	at time.Time
	// seq orders announcements by arrival: a peer's requests go out in
	// the order it announced them.
	seq uint64
	// prio ranks equally preferred ready announcers of the same
	// transaction (higher first): a salted hash of the transaction and
	// the peer, as Core's, so a peer cannot win every request by
	// announcing first.
	prio uint64
}

// txReqPeer is a peer's share of the tracker.
type txReqPeer struct {
	anns map[wire.Hash]*txAnn
	// inFlight counts the peer's requested announcements, nBest those
	// it is the best announcer of (so most polls find nothing at once).
	inFlight int
	nBest    int
}

// txTimeout names a request that expired unanswered.
type txTimeout struct {
	peer int32
	gtx  genTxID
}

// txRequestTracker decides which peer each announced transaction is
// requested from and when, following Bitcoin Core's TxRequestTracker:
// every announcer is remembered, preferred announcers are tried first,
// an unanswered request moves on to the next announcer after
// txGetDataInterval, and per-peer limits bound what one peer can make
// it hold. It does no I/O and reads no clock: callers pass the time,
// so tests can drive it. It is not safe for concurrent use.
type txRequestTracker struct {
	byTx  map[wire.Hash][]*txAnn
	peers map[int32]*txReqPeer
	seq   uint64
	// priority computes txAnn.prio; tests may replace it.
	priority func(h wire.Hash, peer int32) uint64
	// timed holds the announcements waiting for a time to pass
	// (delayed or requested); next is a lower bound of their times.
	timed   map[*txAnn]struct{}
	next    time.Time
	hasNext bool
}

// newTxRequestTracker returns an empty tracker.
func newTxRequestTracker() *txRequestTracker {
	seed := maphash.MakeSeed()
	return &txRequestTracker{
		byTx:  make(map[wire.Hash][]*txAnn),
		peers: make(map[int32]*txReqPeer),
		timed: make(map[*txAnn]struct{}),
		priority: func(h wire.Hash, peer int32) uint64 {
			var b [36]byte
			copy(b[:], h[:])
			binary.LittleEndian.PutUint32(b[32:], uint32(peer))
			return maphash.Bytes(seed, b[:])
		},
	}
}

// announcer describes the peer behind an announcement.
type announcer struct {
	id int32
	// preferred: an outbound peer, or an inbound one with noban.
	preferred bool
	// relayPerm: the peer has the relay permission, which lifts the
	// announcement cap and the overload delay.
	relayPerm bool
}

// receivedInv records that peer a announced gtx at now. wtxidPeers
// reports that some peer relays by wtxid. It reports false when the
// announcement was ignored: a repeat of one already held for the peer,
// or one over the peer's cap.
func (t *txRequestTracker) receivedInv(a announcer, gtx genTxID, wtxidPeers bool, now time.Time) bool {
	p := t.peers[a.id]
	if p == nil {
		p = &txReqPeer{anns: make(map[wire.Hash]*txAnn)}
		t.peers[a.id] = p
	}
	if _, ok := p.anns[gtx.hash]; ok {
		return false
	}
	if !a.relayPerm && len(p.anns) >= maxPeerTxAnnouncements {
		return false
	}
	var delay time.Duration
	if !a.preferred {
		delay += nonPrefPeerTxDelay
	}
	if !gtx.wtxid && wtxidPeers {
		delay += txidRelayDelay
	}
	if !a.relayPerm && p.inFlight >= maxPeerTxRequestInFlight {
		delay += overloadedPeerTxDelay
	}
	t.seq++
	ann := &txAnn{peer: a.id, gtx: gtx, preferred: a.preferred, state: annDelayed, at: now.Add(delay),
		seq: t.seq, prio: t.priority(gtx.hash, a.id)}
	p.anns[gtx.hash] = ann
	t.byTx[gtx.hash] = append(t.byTx[gtx.hash], ann)
	t.addTimed(ann)
	return true
}

func (t *txRequestTracker) addTimed(ann *txAnn) {
	t.timed[ann] = struct{}{}
	if !t.hasNext || ann.at.Before(t.next) {
		t.next, t.hasNext = ann.at, true
	}
}

// advance applies the passage of time up to now: delayed announcements
// whose time came become ready, and requests past their expiry complete
// (returned, for logging) so the next announcer can be asked.
func (t *txRequestTracker) advance(now time.Time) []txTimeout {
	if !t.hasNext || now.Before(t.next) {
		return nil
	}
	var expired []txTimeout
	dirty := make(map[wire.Hash]struct{})
	t.hasNext = false
	for ann := range t.timed {
		if now.Before(ann.at) {
			if !t.hasNext || ann.at.Before(t.next) {
				t.next, t.hasNext = ann.at, true
			}
			continue
		}
		delete(t.timed, ann)
		switch ann.state {
		case annDelayed:
			t.setState(ann, annReady)
		case annRequested:
			t.setState(ann, annCompleted)
			expired = append(expired, txTimeout{peer: ann.peer, gtx: ann.gtx})
		}
		dirty[ann.gtx.hash] = struct{}{}
	}
	for h := range dirty {
		t.settle(h)
	}
	slices.SortFunc(expired, func(a, b txTimeout) int { return int(a.peer) - int(b.peer) })
	return expired
}

// setState moves ann to s, keeping its peer's counts.
func (t *txRequestTracker) setState(ann *txAnn, s annState) {
	p := t.peers[ann.peer]
	switch ann.state {
	case annRequested:
		p.inFlight--
	case annBest:
		p.nBest--
	}
	switch s {
	case annRequested:
		p.inFlight++
	case annBest:
		p.nBest++
	}
	ann.state = s
}

// settle re-derives a transaction's best announcer after a change: none
// while a request is outstanding; otherwise the ready announcer that is
// preferred, then of the highest salted priority. A transaction whose announcements
// all completed is forgotten: no one is left to ask.
func (t *txRequestTracker) settle(h wire.Hash) {
	anns := t.byTx[h]
	var best *txAnn
	requested, open := false, false
	for _, a := range anns {
		switch a.state {
		case annRequested:
			requested, open = true, true
		case annDelayed:
			open = true
		case annReady, annBest:
			open = true
			if best == nil || (a.preferred && !best.preferred) || (a.preferred == best.preferred && a.prio > best.prio) {
				best = a
			}
		}
	}
	if !open {
		t.forget(h)
		return
	}
	for _, a := range anns {
		if a.state == annBest {
			t.setState(a, annReady)
		}
	}
	if best != nil && !requested {
		t.setState(best, annBest)
	}
}

// requestable returns, at now, the transactions to ask peer for, in the
// order it announced them, and the requests (of any peer) that expired.
// The caller either requests each (requested) or, if it turns out to
// have it already, forgets it (forget).
func (t *txRequestTracker) requestable(peer int32, now time.Time) ([]genTxID, []txTimeout) {
	expired := t.advance(now)
	p := t.peers[peer]
	if p == nil || p.nBest == 0 {
		return nil, expired
	}
	var best []*txAnn
	for _, a := range p.anns {
		if a.state == annBest {
			best = append(best, a)
		}
	}
	slices.SortFunc(best, func(a, b *txAnn) int {
		if a.seq < b.seq {
			return -1
		}
		return 1
	})
	out := make([]genTxID, len(best))
	for i, a := range best {
		out[i] = a.gtx
	}
	return out, expired
}

// requested marks h as asked of peer, to be answered by expiry. Only an
// announcement that may be requested (not delayed, not already asked or
// done) changes; any other best announcer of h steps back.
func (t *txRequestTracker) requested(peer int32, h wire.Hash, expiry time.Time) {
	p := t.peers[peer]
	if p == nil {
		return
	}
	ann := p.anns[h]
	if ann == nil || (ann.state != annReady && ann.state != annBest) {
		return
	}
	for _, a := range t.byTx[h] {
		if a.state == annBest {
			t.setState(a, annReady)
		}
	}
	t.setState(ann, annRequested)
	ann.at = expiry
	t.addTimed(ann)
}

// receivedResponse records peer's answer about h (notfound, or the
// transaction itself): its announcement completes and, if it was the
// one asked, the next announcer becomes eligible at once.
func (t *txRequestTracker) receivedResponse(peer int32, h wire.Hash) {
	p := t.peers[peer]
	if p == nil {
		return
	}
	ann := p.anns[h]
	if ann == nil || ann.state == annCompleted {
		return
	}
	delete(t.timed, ann)
	t.setState(ann, annCompleted)
	t.settle(h)
}

// forget drops every announcement of h: the transaction arrived, or we
// have or refused it and need not fetch it from anyone.
func (t *txRequestTracker) forget(h wire.Hash) {
	for _, a := range t.byTx[h] {
		t.dropFromPeer(a)
	}
	delete(t.byTx, h)
}

// dropFromPeer removes ann from its peer's share.
func (t *txRequestTracker) dropFromPeer(ann *txAnn) {
	delete(t.timed, ann)
	p := t.peers[ann.peer]
	if p == nil {
		return
	}
	t.setState(ann, annCompleted)
	delete(p.anns, ann.gtx.hash)
	if len(p.anns) == 0 {
		delete(t.peers, ann.peer)
	}
}

// disconnectedPeer drops all of peer's announcements; transactions it
// was asked for, or was to be asked for, pass to the next ready
// announcer at once.
func (t *txRequestTracker) disconnectedPeer(peer int32) {
	p := t.peers[peer]
	if p == nil {
		return
	}
	for h, ann := range p.anns {
		delete(t.timed, ann)
		anns := t.byTx[h]
		if i := slices.Index(anns, ann); i >= 0 {
			anns = slices.Delete(anns, i, i+1)
		}
		if len(anns) == 0 {
			delete(t.byTx, h)
			continue
		}
		t.byTx[h] = anns
		t.settle(h)
	}
	delete(t.peers, peer)
}

// count returns how many announcements peer has in the tracker.
func (t *txRequestTracker) count(peer int32) int {
	if p := t.peers[peer]; p != nil {
		return len(p.anns)
	}
	return 0
}

// countInFlight returns how many of peer's requests are unanswered.
func (t *txRequestTracker) countInFlight(peer int32) int {
	if p := t.peers[peer]; p != nil {
		return p.inFlight
	}
	return 0
}

// size returns the number of announcements held over all peers.
func (t *txRequestTracker) size() int {
	n := 0
	for _, p := range t.peers {
		n += len(p.anns)
	}
	return n
}

// state returns the state of peer's announcement of h (test aid).
func (t *txRequestTracker) state(peer int32, h wire.Hash) (annState, bool) {
	if p := t.peers[peer]; p != nil {
		if a := p.anns[h]; a != nil {
			return a.state, true
		}
	}
	return 0, false
}
