package netsync

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// TestInitialHeadersSyncOnePeerPerBlock (p2p_initial_headers_sync.py):
// while the best header is old only the sync peer is asked for headers;
// each newly announced block brings in at most one more peer, and a peer
// brought in that way is not asked again before its sync starts.
func TestInitialHeadersSyncOnePeerPerBlock(t *testing.T) {
	n := newNode(t, nil)
	mockHeadersClock(t, n)
	var asked [3]atomic.Int32
	var fakes [3]*peer.Peer
	for i := range fakes {
		fcfg := fakeConfig(n, 0)
		fcfg.Listeners.OnGetHeaders = func(*peer.Peer, *wire.MsgGetHeaders) { asked[i].Add(1) }
		fakes[i], _ = linkFakeWith(t, n, fcfg, nil)
		if i == 0 {
			waitCond(t, 10*time.Second, "sync peer asked", func() bool { return asked[0].Load() == 1 })
		}
	}
	// Round trips through every peer, so anything sent has arrived.
	settle := func() {
		for _, f := range fakes {
			done := make(chan struct{})
			f.QueueMessage(&wire.MsgPing{Nonce: 1}, done)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ping not sent")
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	settle()
	if asked[1].Load() != 0 || asked[2].Load() != 0 {
		t.Fatalf("peers outside the sync asked on connect: %d %d", asked[1].Load(), asked[2].Load())
	}
	announce := func(h wire.Hash) {
		for _, f := range fakes {
			f.QueueMessage(&wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeBlock, Hash: h}}}, nil)
		}
		settle()
	}
	announce(wire.Hash{1})
	waitCond(t, 10*time.Second, "sync peer asked again", func() bool { return asked[0].Load() == 2 })
	first := 1
	switch {
	case asked[1].Load() == 1 && asked[2].Load() == 0:
	case asked[1].Load() == 0 && asked[2].Load() == 1:
		first = 2
	default:
		t.Fatalf("after one block: peers asked %d and %d times, want one of them once", asked[1].Load(), asked[2].Load())
	}
	announce(wire.Hash{2})
	other := 3 - first
	waitCond(t, 10*time.Second, "remaining peer asked", func() bool { return asked[other].Load() == 1 })
	if asked[first].Load() != 1 {
		t.Errorf("peer brought in by the first block asked %d times", asked[first].Load())
	}
}
