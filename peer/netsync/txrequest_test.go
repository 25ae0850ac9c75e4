package netsync

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// Unit tests of the transaction request tracker, one rule each.

var t0 = time.Unix(1_700_000_000, 0)

// newOrderedTracker is a tracker whose priority ranks lower peer ids
// first, so tests know which of equally preferred announcers is asked.
func newOrderedTracker() *txRequestTracker {
	tr := newTxRequestTracker()
	tr.priority = func(_ wire.Hash, peer int32) uint64 { return ^uint64(peer) }
	return tr
}

func hashN(n uint64) wire.Hash {
	var h wire.Hash
	binary.LittleEndian.PutUint64(h[:], n)
	h[31] = 0xaa
	return h
}

func wtx(n uint64) genTxID  { return genTxID{hash: hashN(n), wtxid: true} }
func txid(n uint64) genTxID { return genTxID{hash: hashN(n)} }

var (
	outA = announcer{id: 1, preferred: true}
	outB = announcer{id: 2, preferred: true}
	inC  = announcer{id: 3}
)

// due returns the hashes requestable from peer at now.
func due(tr *txRequestTracker, peer int32, now time.Time) []wire.Hash {
	g, _ := tr.requestable(peer, now)
	out := make([]wire.Hash, len(g))
	for i := range g {
		out[i] = g[i].hash
	}
	return out
}

// checkCounts verifies the per-peer counts against the announcements.
func checkCounts(t *testing.T, tr *txRequestTracker) {
	t.Helper()
	for id, p := range tr.peers {
		inFlight, best := 0, 0
		for _, a := range p.anns {
			switch a.state {
			case annRequested:
				inFlight++
			case annBest:
				best++
			}
		}
		if inFlight != p.inFlight || best != p.nBest || len(p.anns) == 0 {
			t.Fatalf("peer %d: in flight %d/%d, best %d/%d, %d anns", id, p.inFlight, inFlight, p.nBest, best, len(p.anns))
		}
	}
}

func wantDue(t *testing.T, tr *txRequestTracker, peer int32, now time.Time, want ...wire.Hash) {
	t.Helper()
	got := due(tr, peer, now)
	checkCounts(t, tr)
	if len(got) != len(want) {
		t.Fatalf("peer %d at +%v: due %d txs, want %d", peer, now.Sub(t0), len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("peer %d at +%v: due[%d] = %v, want %v", peer, now.Sub(t0), i, got[i], want[i])
		}
	}
}

func wantState(t *testing.T, tr *txRequestTracker, peer int32, h wire.Hash, want annState) {
	t.Helper()
	got, ok := tr.state(peer, h)
	if !ok || got != want {
		t.Fatalf("peer %d: state %v (held %v), want %v", peer, got, ok, want)
	}
}

// Every announcer is remembered; a preferred one is asked at once and
// in announcement order.
func TestTxReqRemembersAnnouncers(t *testing.T) {
	tr := newOrderedTracker()
	tr.receivedInv(outA, wtx(1), true, t0)
	tr.receivedInv(outA, wtx(2), true, t0)
	tr.receivedInv(outB, wtx(1), true, t0)
	tr.receivedInv(inC, wtx(1), true, t0)
	if tr.receivedInv(outA, wtx(1), true, t0) {
		t.Fatal("repeated announcement accepted")
	}
	if tr.size() != 4 || tr.count(1) != 2 {
		t.Fatalf("size %d count(A) %d", tr.size(), tr.count(1))
	}
	wantDue(t, tr, 1, t0, hashN(1), hashN(2))
	wantDue(t, tr, 2, t0)
	wantState(t, tr, 2, hashN(1), annReady)
	wantState(t, tr, 3, hashN(1), annDelayed)
}

// A non-preferred announcer waits NONPREF_PEER_TX_DELAY; a preferred
// one announcing within that time is asked instead.
func TestTxReqPreferredFirst(t *testing.T) {
	tr := newOrderedTracker()
	tr.receivedInv(inC, wtx(1), true, t0)
	wantDue(t, tr, 3, t0)
	tr.receivedInv(outA, wtx(1), true, t0.Add(time.Second))
	wantDue(t, tr, 3, t0.Add(3*time.Second))
	wantDue(t, tr, 1, t0.Add(3*time.Second), hashN(1))

	// Alone, the inbound peer is asked once its delay passed.
	tr.receivedInv(inC, wtx(2), true, t0)
	wantDue(t, tr, 3, t0.Add(nonPrefPeerTxDelay-time.Millisecond))
	wantDue(t, tr, 3, t0.Add(nonPrefPeerTxDelay), hashN(2))
}

// Txid announcements wait TXID_RELAY_DELAY while wtxid peers exist.
func TestTxReqTxidDelay(t *testing.T) {
	tr := newOrderedTracker()
	tr.receivedInv(outA, txid(1), true, t0)
	tr.receivedInv(outA, txid(2), false, t0)
	wantDue(t, tr, 1, t0, hashN(2))
	tr.requested(1, hashN(2), t0.Add(txGetDataInterval))
	wantDue(t, tr, 1, t0.Add(txidRelayDelay), hashN(1))
	// Both delays add up for an inbound peer.
	tr.receivedInv(inC, txid(3), true, t0)
	wantDue(t, tr, 3, t0.Add(3*time.Second))
	wantDue(t, tr, 3, t0.Add(4*time.Second), hashN(3))
}

// A peer with MAX_PEER_TX_REQUEST_IN_FLIGHT unanswered requests gets
// new announcements delayed by OVERLOADED_PEER_TX_DELAY, unless it has
// the relay permission.
func TestTxReqOverloaded(t *testing.T) {
	for _, relay := range []bool{false, true} {
		tr := newOrderedTracker()
		a := announcer{id: 1, preferred: true, relayPerm: relay}
		for i := uint64(0); i < maxPeerTxRequestInFlight; i++ {
			tr.receivedInv(a, wtx(i), true, t0)
		}
		for _, h := range due(tr, 1, t0) {
			tr.requested(1, h, t0.Add(txGetDataInterval))
		}
		if n := tr.countInFlight(1); n != maxPeerTxRequestInFlight {
			t.Fatalf("in flight %d", n)
		}
		tr.receivedInv(a, wtx(1000), true, t0)
		if relay {
			wantDue(t, tr, 1, t0, hashN(1000))
			continue
		}
		wantDue(t, tr, 1, t0)
		wantDue(t, tr, 1, t0.Add(overloadedPeerTxDelay), hashN(1000))
	}
}

// An unanswered request expires after GETDATA_TX_INTERVAL and moves to
// the next announcer; the silent one is not asked again.
func TestTxReqTimeout(t *testing.T) {
	tr := newOrderedTracker()
	tr.receivedInv(outA, wtx(1), true, t0)
	tr.receivedInv(outB, wtx(1), true, t0)
	wantDue(t, tr, 1, t0, hashN(1))
	tr.requested(1, hashN(1), t0.Add(txGetDataInterval))
	wantDue(t, tr, 2, t0.Add(txGetDataInterval-time.Second))
	wantState(t, tr, 1, hashN(1), annRequested)
	g, exp := tr.requestable(2, t0.Add(txGetDataInterval))
	if len(g) != 1 || g[0].hash != hashN(1) {
		t.Fatalf("after timeout: %v", g)
	}
	if len(exp) != 1 || exp[0].peer != 1 || exp[0].gtx.hash != hashN(1) {
		t.Fatalf("expired: %v", exp)
	}
	wantState(t, tr, 1, hashN(1), annCompleted)
	if tr.countInFlight(1) != 0 {
		t.Fatal("expired request still in flight")
	}
	// When the last announcer times out too, the transaction goes.
	tr.requested(2, hashN(1), t0.Add(2*txGetDataInterval))
	tr.requestable(2, t0.Add(2*txGetDataInterval))
	if tr.size() != 0 {
		t.Fatalf("size %d after all timed out", tr.size())
	}
}

// A notfound moves the request on at once.
func TestTxReqNotFound(t *testing.T) {
	tr := newOrderedTracker()
	tr.receivedInv(outA, wtx(1), true, t0)
	tr.receivedInv(outB, wtx(1), true, t0)
	wantDue(t, tr, 1, t0, hashN(1))
	tr.requested(1, hashN(1), t0.Add(txGetDataInterval))
	wantDue(t, tr, 2, t0)
	tr.receivedResponse(1, hashN(1))
	wantDue(t, tr, 2, t0, hashN(1))
	if tr.countInFlight(1) != 0 {
		t.Fatal("answered request still in flight")
	}
	// A late re-announcement by the peer that answered is ignored.
	if tr.receivedInv(outA, wtx(1), true, t0) {
		t.Fatal("re-announcement after notfound accepted")
	}
}

// Arrival (or knowing the transaction already) forgets every announcer.
func TestTxReqForget(t *testing.T) {
	tr := newOrderedTracker()
	tr.receivedInv(outA, wtx(1), true, t0)
	tr.receivedInv(outB, wtx(1), true, t0)
	tr.receivedInv(inC, wtx(1), true, t0)
	tr.requested(1, hashN(1), t0.Add(txGetDataInterval))
	tr.forget(hashN(1))
	if tr.size() != 0 || tr.countInFlight(1) != 0 || len(tr.peers) != 0 || len(tr.timed) != 0 {
		t.Fatalf("left: size %d peers %d timed %d", tr.size(), len(tr.peers), len(tr.timed))
	}
	for _, p := range []int32{1, 2, 3} {
		wantDue(t, tr, p, t0.Add(time.Hour))
	}
}

// A departing peer's requests move to other announcers at once.
func TestTxReqDisconnect(t *testing.T) {
	tr := newOrderedTracker()
	tr.receivedInv(outA, wtx(1), true, t0)
	tr.receivedInv(outA, wtx(2), true, t0)
	tr.receivedInv(outB, wtx(1), true, t0)
	tr.requested(1, hashN(1), t0.Add(txGetDataInterval))
	tr.disconnectedPeer(1)
	wantDue(t, tr, 2, t0, hashN(1))
	if tr.count(1) != 0 || tr.size() != 1 {
		t.Fatalf("count(A) %d size %d", tr.count(1), tr.size())
	}
	if _, ok := tr.byTx[hashN(2)]; ok {
		t.Fatal("transaction only the departed peer announced kept")
	}
}

// MAX_PEER_TX_ANNOUNCEMENTS caps a peer without the relay permission.
func TestTxReqAnnouncementCap(t *testing.T) {
	tr := newOrderedTracker()
	relay := announcer{id: 4, preferred: true, relayPerm: true}
	for i := uint64(0); i < maxPeerTxAnnouncements+10; i++ {
		tr.receivedInv(outA, wtx(i), true, t0)
		tr.receivedInv(relay, wtx(i), true, t0)
	}
	if n := tr.count(1); n != maxPeerTxAnnouncements {
		t.Fatalf("capped peer holds %d", n)
	}
	if n := tr.count(4); n != maxPeerTxAnnouncements+10 {
		t.Fatalf("relay peer holds %d", n)
	}
}

// A peer announcing 100,000 transactions fills only its own share: the
// request another peer holds, and its other announcements, stay.
func TestTxReqFloodDoesNotEvict(t *testing.T) {
	tr := newOrderedTracker()
	tr.receivedInv(outA, wtx(1), true, t0)
	tr.receivedInv(outA, wtx(2), true, t0)
	wantDue(t, tr, 1, t0, hashN(1), hashN(2))
	tr.requested(1, hashN(1), t0.Add(txGetDataInterval))
	for i := uint64(100); i < 100_100; i++ {
		tr.receivedInv(inC, wtx(i), true, t0)
	}
	tr.receivedInv(inC, wtx(1), true, t0)
	if n := tr.count(3); n != maxPeerTxAnnouncements {
		t.Fatalf("flooding peer holds %d", n)
	}
	wantState(t, tr, 1, hashN(1), annRequested)
	wantState(t, tr, 1, hashN(2), annBest)
	if _, ok := tr.state(3, hashN(1)); ok {
		t.Fatal("announcement over the cap kept")
	}
	if tr.size() != maxPeerTxAnnouncements+2 {
		t.Fatalf("size %d", tr.size())
	}
}

// TestTxReqPrioritySalted: among equally preferred announcers that are
// ready at once, which one is asked depends on a salted hash of the
// transaction and the peer, not on who announced first.
func TestTxReqPrioritySalted(t *testing.T) {
	tr := newTxRequestTracker()
	now := time.Unix(1_700_000_000, 0)
	const n = 64
	for i := uint64(0); i < n; i++ {
		tr.receivedInv(announcer{id: 1, preferred: true}, wtx(i), true, now)
		tr.receivedInv(announcer{id: 2, preferred: true}, wtx(i), true, now)
	}
	first := len(due(tr, 1, now))
	second := len(due(tr, 2, now))
	if first+second != n || first == 0 || second == 0 {
		t.Fatalf("peer 1 best for %d, peer 2 for %d of %d transactions", first, second, n)
	}
	checkCounts(t, tr)
}
