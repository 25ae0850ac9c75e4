package netsync

import (
	"testing"
	"time"
)

// FuzzTxRequest drives the request tracker with announcements, requests,
// notfounds, arrivals, disconnections and the clock from the input, as
// peers could: it never panics, its counts stay consistent, a peer
// without the relay permission never holds more than
// maxPeerTxAnnouncements, and a transaction is never in flight from two
// peers at once.
func FuzzTxRequest(f *testing.F) {
	f.Add([]byte{0, 1, 1, 0, 2, 1, 3, 0, 4, 10, 1, 1, 5, 0})
	f.Add([]byte{0, 1, 1, 0, 2, 1, 7, 200, 3, 2, 6, 0, 3, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		tr := newOrderedTracker()
		now := time.Unix(1_700_000_000, 0)
		for i := 0; i+2 < len(ops) && i < 3*2000; i += 3 {
			peer := int32(ops[i+1] % 4)
			h := uint64(ops[i+2] % 16)
			switch ops[i] % 8 {
			case 0, 1: // announcement by wtxid or txid
				g := wtx(h)
				if ops[i]%8 == 1 {
					g = txid(h)
				}
				a := announcer{id: peer, preferred: peer%2 == 0, relayPerm: peer == 3}
				tr.receivedInv(a, g, true, now)
			case 2: // the peer is asked for what is due
				d, _ := tr.requestable(peer, now)
				for _, g := range d {
					tr.requested(peer, g.hash, now.Add(txGetDataInterval))
				}
			case 3:
				tr.receivedResponse(peer, hashN(h))
			case 4:
				now = now.Add(time.Duration(ops[i+2]) * time.Second)
			case 5:
				tr.forget(hashN(h))
			case 6:
				tr.disconnectedPeer(peer)
			case 7: // a flood of announcements
				a := announcer{id: peer, relayPerm: peer == 3}
				for k := uint64(0); k < uint64(ops[i+2])*30; k++ {
					tr.receivedInv(a, wtx(1000+k), true, now)
				}
			}
			checkCounts(t, tr)
			for p := int32(0); p < 3; p++ {
				if n := tr.count(p); n > maxPeerTxAnnouncements {
					t.Fatalf("peer %d holds %d announcements", p, n)
				}
			}
			for k := uint64(0); k < 16; k++ {
				inFlight := 0
				for p := int32(0); p < 4; p++ {
					if st, ok := tr.state(p, hashN(k)); ok && st == annRequested {
						inFlight++
					}
				}
				if inFlight > 1 {
					t.Fatalf("tx %d in flight from %d peers", k, inFlight)
				}
			}
		}
	})
}
