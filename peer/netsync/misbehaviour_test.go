package netsync

import (
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// linkFakeWith links a bare peer (listeners from fcfg) as an inbound peer
// of n, calling setup on n's side of the connection before it starts.
func linkFakeWith(t *testing.T, n *node, fcfg *peer.Config, setup func(*peer.Peer)) (fake, in *peer.Peer) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			acc <- c
		}
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	var sc net.Conn
	select {
	case sc = <-acc:
	case <-time.After(5 * time.Second):
		t.Fatal("accept timed out")
	}
	before := len(n.m.peerStates())
	in = peer.NewInbound(&n.pcfg, sc)
	if setup != nil {
		setup(in)
	}
	fake = peer.NewOutbound(fcfg, c, l.Addr().String())
	n.run(t, in)
	fake.Start()
	t.Cleanup(fake.Disconnect)
	if !fake.WaitForHandshake() {
		t.Fatal("fake peer handshake failed")
	}
	waitCond(t, 10*time.Second, "fake peer registered", func() bool { return len(n.m.peerStates()) == before+1 })
	return fake, in
}

func fakeConfig(n *node, height int32) *peer.Config {
	return &peer.Config{
		Net:        n.chain.Params().Net,
		Services:   wire.SFNodeNetwork | wire.SFNodeWitness,
		BestHeight: func() int32 { return height },
		Nonces:     peer.NewNonceSet(),
	}
}

// badBlock returns a block on the builder's tip whose coinbase pays too
// much (bad-cb-amount), fully solved so only validation rejects it.
func badBlock(b *chaintest.Builder) *wire.MsgBlock {
	e := b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue, CoinbaseExtra: 1})
	b.Tip = e.Parent
	return e.Block
}

// TestInvalidBlockFromNoBanPeer: a peer with the noban permission that
// sends an invalid block stays connected, as in Core; one without is
// dropped.
func TestInvalidBlockFromNoBanPeer(t *testing.T) {
	for _, noban := range []bool{true, false} {
		n := newNode(t, nil)
		b := buildChain(t, n.chain, 5)
		blk := badBlock(b)
		fake, in := linkFakeWith(t, n, fakeConfig(n, 6), func(p *peer.Peer) {
			if noban {
				p.SetPermissions(peer.PermNoBan)
			}
		})
		fake.QueueMessage(blk, nil)
		hash := blk.BlockHash()
		waitCond(t, 10*time.Second, "block rejected", func() bool {
			st, ok := n.chain.LookupBlock(&hash)
			return ok && st.Invalid
		})
		time.Sleep(200 * time.Millisecond)
		if noban && !in.Connected() {
			t.Fatalf("noban peer disconnected after an invalid block: %v", in.Err())
		}
		if !noban {
			waitCond(t, 5*time.Second, "plain peer dropped", func() bool { return !in.Connected() })
		}
	}
}

// TestInvalidHeaderFromNoBanPeer: a header breaking a consensus rule
// (time-too-old), sent in a headers message or as a compact block, scores
// the sender; a noban peer stays connected, as in Core, and one without
// is dropped.
func TestInvalidHeaderFromNoBanPeer(t *testing.T) {
	for _, kind := range []string{"headers", "cmpctblock"} {
		for _, noban := range []bool{true, false} {
			n := newNode(t, nil)
			b := buildChain(t, n.chain, 5)
			gen := n.chain.Params().GenesisBlock.Header.Timestamp
			e := b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue, Time: gen})
			fake, in := linkFakeWith(t, n, fakeConfig(n, 6), func(p *peer.Peer) {
				if noban {
					p.SetPermissions(peer.PermNoBan)
				}
			})
			var msg wire.Message = &wire.MsgHeaders{Headers: []wire.BlockHeader{e.Block.Header}}
			if kind == "cmpctblock" {
				msg = wire.NewMsgCmpctBlock(e.Block, 1)
			}
			fake.QueueMessage(msg, nil)
			waitCond(t, 10*time.Second, kind+": header scored", func() bool { return in.BanScore() >= PenaltyInvalid })
			time.Sleep(200 * time.Millisecond)
			if noban && !in.Connected() {
				t.Fatalf("%s: noban peer disconnected after an invalid header: %v", kind, in.Err())
			}
			if !noban {
				waitCond(t, 5*time.Second, kind+": plain peer dropped", func() bool { return !in.Connected() })
			}
		}
	}
}

// TestUnrequestedBlockNoPenalty: a block nobody asked for that extends the
// tip is connected and costs the sender nothing, as in Core.
func TestUnrequestedBlockNoPenalty(t *testing.T) {
	n := newNode(t, nil)
	b := buildChain(t, n.chain, 5)
	e := b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
	fake, in := linkFakeWith(t, n, fakeConfig(n, 5), nil)
	fake.QueueMessage(e.Block, nil)
	waitCond(t, 10*time.Second, "unrequested block connected", func() bool { return n.chain.BestSnapshot().Hash == e.Hash })
	if s := in.BanScore(); s != 0 {
		t.Fatalf("unrequested block scored the sender %d", s)
	}
}

// mockHeadersClock sets the node clock two days after the chain's genesis,
// so the headers sync counts as unfinished while its deadline (base plus a
// millisecond per expected header) stays short; the clock is released at
// the end of the test.
func mockHeadersClock(t *testing.T, n *node) {
	gen := n.chain.Params().GenesisBlock.Header.Timestamp
	clock.SetMock(int64(gen) + 2*24*3600)
	t.Cleanup(func() { clock.SetMock(0) })
}

// TestHeadersTimeoutKeepsOnlyPeer: a sync peer that never answers
// getheaders is not dropped while it is the only peer (Core times out a
// headers peer only when another can take over).
func TestHeadersTimeoutKeepsOnlyPeer(t *testing.T) {
	n := newNode(t, func(c *Config) { c.HeadersTimeout = 200 * time.Millisecond })
	mockHeadersClock(t, n)
	fcfg := fakeConfig(n, 100) // claims blocks we do not have
	fcfg.Listeners.OnGetHeaders = func(*peer.Peer, *wire.MsgGetHeaders) {}
	_, in := linkFakeWith(t, n, fcfg, nil)
	clock.SetMock(clock.Unix() + 10)
	time.Sleep(1500 * time.Millisecond)
	if !in.Connected() {
		t.Fatalf("the only peer was dropped for a headers time-out: %v", in.Err())
	}
}

// TestHeadersTimeoutSparesNoBan: with another preferred peer available, a
// silent sync peer is dropped unless it has the noban permission; then the
// node moves on to the other peer and keeps it.
func TestHeadersTimeoutSparesNoBan(t *testing.T) {
	for _, noban := range []bool{true, false} {
		n := newNode(t, func(c *Config) { c.HeadersTimeout = 200 * time.Millisecond })
		mockHeadersClock(t, n)
		silent := fakeConfig(n, 100)
		silent.Listeners.OnGetHeaders = func(*peer.Peer, *wire.MsgGetHeaders) {}
		_, in := linkFakeWith(t, n, silent, func(p *peer.Peer) {
			if noban {
				p.SetPermissions(peer.PermNoBan)
			}
		})
		// An inbound peer counts as a replacement only with noban (Core's
		// preferred download peers).
		other := fakeConfig(n, 100)
		other.Listeners.OnGetHeaders = func(*peer.Peer, *wire.MsgGetHeaders) {}
		linkFakeWith(t, n, other, func(p *peer.Peer) { p.SetPermissions(peer.PermNoBan) })
		clock.SetMock(clock.Unix() + 10)
		time.Sleep(1500 * time.Millisecond)
		if noban && !in.Connected() {
			t.Fatalf("noban sync peer dropped for a headers time-out: %v", in.Err())
		}
		if !noban && in.Connected() {
			// One of the two silent peers must have been dropped; the
			// first became the sync peer.
			t.Fatal("silent sync peer kept although another peer could take over")
		}
	}
}

// TestBlockRequestAllowed: main-chain blocks and recent valid forks may be
// served; a fork block that was never connected, or one more than 30
// days of work behind, is not (Core's BlockRequestAllowed).
func TestBlockRequestAllowed(t *testing.T) {
	n := newNode(t, nil)
	b := buildChain(t, n.chain, 5)
	stale := b.Tip // height 5, connected, then reorged away
	fork := b.Entry(stale.Parent.Hash)
	b.Tip = fork
	for range 2 {
		e := b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
		if _, err := n.chain.ProcessBlock(e.Block); err != nil {
			t.Fatal(err)
		}
	}
	mainTip := b.Tip
	if n.chain.BestSnapshot().Hash != mainTip.Hash {
		t.Fatal("fork did not become the main chain")
	}
	never := b.NextBlock(fork, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue, Time: fork.Block.Header.Timestamp + 7})
	if _, err := n.chain.ProcessBlock(never.Block); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		hash wire.Hash
		want bool
	}{{"main chain", mainTip.Hash, true}, {"recent valid fork", stale.Hash, true}, {"never connected", never.Hash, false}, {"unknown", wire.Hash{1}, false}} {
		h := c.hash
		if got := n.m.blockRequestAllowed(&h); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// 30 days of work later the stale block is private.
	b.Tip = mainTip
	for range int(staleRelayAgeLimit / n.chain.Params().TargetTimePerBlock) {
		e := b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
		if _, err := n.chain.ProcessBlock(e.Block); err != nil {
			t.Fatal(err)
		}
	}
	h := stale.Hash
	if n.m.blockRequestAllowed(&h) {
		t.Error("a fork 30 days of work behind is still served")
	}
}
