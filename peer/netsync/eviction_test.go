package netsync

import (
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// evictionFixture is a current node with the mock clock at start and one
// fake peer that the node treats as an outbound connection of type ct.
type evictionFixture struct {
	n     *node
	b     *chaintest.Builder
	start int64
	fake  *peer.Peer
	mu    sync.Mutex
	locs  []wire.Hash // first locator hash of each getheaders received
}

func newEvictionFixture(t *testing.T, ct peer.ConnType) *evictionFixture {
	f := &evictionFixture{n: newNode(t, nil)}
	// The clock jumps by more than the peer layer's own idle and ping
	// time-outs; only the chain-sync timer is under test.
	f.n.pcfg.IdleTimeout, f.n.pcfg.PingTimeout = time.Hour, time.Hour
	f.b = buildChain(t, f.n.chain, 5)
	makeCurrent(t, f.n, f.b)
	f.start = time.Now().Unix()
	clock.SetMock(f.start)
	t.Cleanup(func() { clock.SetMock(0) })
	fcfg := fakeConfig(f.n, 0)
	fcfg.IdleTimeout, fcfg.PingTimeout = time.Hour, time.Hour
	fcfg.Listeners.OnGetHeaders = func(_ *peer.Peer, m *wire.MsgGetHeaders) {
		f.mu.Lock()
		f.locs = append(f.locs, m.BlockLocatorHashes[0])
		f.mu.Unlock()
	}
	f.fake, _ = linkFake(t, f.n, fcfg, true, func(in *peer.Peer) { in.SetConnType(ct) })
	f.waitAsks(t, 1)
	return f
}

func (f *evictionFixture) waitAsks(t *testing.T, n int) wire.Hash {
	t.Helper()
	var last wire.Hash
	waitCond(t, 10*time.Second, "getheaders", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.locs) >= n {
			last = f.locs[n-1]
			return true
		}
		return false
	})
	return last
}

func (f *evictionFixture) asks() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.locs)
}

// at sets the mock clock to start plus d.
func (f *evictionFixture) at(d time.Duration) { clock.SetMock(f.start + int64(d/time.Second)) }

// tipParent returns our tip's parent hash.
func (f *evictionFixture) tipParent(t *testing.T) wire.Hash {
	tip := f.n.chain.BestSnapshot().Hash
	h, _, ok := f.n.chain.HeaderByHash(&tip)
	if !ok {
		t.Fatal("no tip header")
	}
	return h.PrevBlock
}

// TestOutboundEvictionOldChain: an outbound peer that shows no chain with
// our tip's work gets, after Core's 20 minutes, one getheaders from our
// tip's parent, and after 2 more minutes without an answer is dropped.
func TestOutboundEvictionOldChain(t *testing.T) {
	f := newEvictionFixture(t, peer.ConnFullRelay)
	if got, want := f.waitAsks(t, 1), f.tipParent(t); got != want {
		t.Fatalf("initial getheaders from %v, want our tip's parent %v", got, want)
	}
	f.at(chainSyncTimeout - time.Minute)
	time.Sleep(300 * time.Millisecond)
	if f.asks() != 1 || !f.fake.Connected() {
		t.Fatalf("before the time-out: %d getheaders, connected %v", f.asks(), f.fake.Connected())
	}
	f.at(chainSyncTimeout + time.Second)
	if got, want := f.waitAsks(t, 2), f.tipParent(t); got != want {
		t.Fatalf("last-call getheaders from %v, want %v", got, want)
	}
	if !f.fake.Connected() {
		t.Fatal("dropped before its time to answer")
	}
	f.at(chainSyncTimeout + headersResponseTime + 2*time.Second)
	waitCond(t, 10*time.Second, "old-chain peer dropped", func() bool { return !f.fake.Connected() })
}

// TestOutboundEvictionProtected: a full-relay outbound peer that once
// showed our tip is kept when our chain moves ahead of it; a
// block-relay-only peer in the same place is dropped (Core protects only
// full-relay peers).
func TestOutboundEvictionProtected(t *testing.T) {
	for _, c := range []struct {
		ct   peer.ConnType
		kept bool
	}{{peer.ConnFullRelay, true}, {peer.ConnBlockRelay, false}} {
		t.Run(string(c.ct), func(t *testing.T) {
			f := newEvictionFixture(t, c.ct)
			tip := f.n.chain.BestSnapshot().Hash
			h, _, _ := f.n.chain.HeaderByHash(&tip)
			f.fake.QueueMessage(&wire.MsgHeaders{Headers: []wire.BlockHeader{h}}, nil)
			waitCond(t, 10*time.Second, "peer's best block noted", func() bool {
				var best wire.Hash
				f.n.m.runOnLoop(func() {
					for _, ps := range f.n.m.peers {
						best = ps.bestHash
					}
				})
				return best == tip
			})
			// Our chain moves one block ahead of the peer.
			e := f.b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue, Time: uint32(f.start)})
			if _, err := f.n.chain.ProcessBlock(e.Block); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			f.at(chainSyncTimeout + time.Second)
			time.Sleep(300 * time.Millisecond)
			f.at(chainSyncTimeout + headersResponseTime + 2*time.Second)
			if c.kept {
				time.Sleep(500 * time.Millisecond)
				if !f.fake.Connected() {
					t.Fatal("protected peer dropped")
				}
				return
			}
			waitCond(t, 10*time.Second, "block-relay-only peer dropped", func() bool { return !f.fake.Connected() })
		})
	}
}
