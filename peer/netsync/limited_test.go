package netsync

import (
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// newPrunedNode is newNode over a chain in prune mode (nothing is deep
// enough to be deleted yet).
func newPrunedNode(t *testing.T, out *syncLog) *node {
	t.Helper()
	c := newChainWith(t, func(c *blockchain.Config) { c.PruneTarget = 550 << 20 })
	n := newNodeOn(t, c, withLog(out, nil))
	// A pruned node announces NODE_NETWORK_LIMITED, not NODE_NETWORK.
	n.pcfg.Services = peer.Services(true, false)
	return n
}

// p2p_node_network_limited.py: a pruned node serves the last 288 (+2)
// blocks and drops a peer asking for an older one, as bitcoind does.
func TestPrunedNodeRefusesDeepBlocks(t *testing.T) {
	out := &syncLog{}
	n := newPrunedNode(t, out)
	buildChain(t, n.chain, 295)
	hash := func(h int32) wire.Hash {
		x, _ := n.chain.BlockHashByHeight(h)
		return x
	}
	got := make(chan wire.Hash, 4)
	fcfg := fakeConfig(n, 0)
	fcfg.Listeners.OnBlock = func(_ *peer.Peer, b *wire.MsgBlock) { got <- b.BlockHash() }
	fake, in := linkFakeWith(t, n, fcfg, nil)

	fake.QueueMessage(&wire.MsgGetData{InvList: []wire.InvVect{{Type: wire.InvTypeWitnessBlock, Hash: hash(295 - 290)}}}, nil)
	select {
	case h := <-got:
		if h != hash(295-290) {
			t.Fatalf("got block %v", h)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("block at the limit not served")
	}
	fake.QueueMessage(&wire.MsgGetData{InvList: []wire.InvVect{{Type: wire.InvTypeWitnessBlock, Hash: hash(295 - 291)}}}, nil)
	waitCond(t, 10*time.Second, "peer dropped", func() bool { return !in.Connected() })
	if want := "Ignore block request below NODE_NETWORK_LIMITED threshold, disconnecting peer="; !strings.Contains(out.String(), want) {
		t.Fatalf("log lacks %q:\n%s", want, out)
	}
	select {
	case <-got:
		t.Fatal("deep block served")
	default:
	}
}

// p2p_node_network_limited.py: out of the initial download, a pruned peer
// is asked for blocks, but only for the ones within its 288 (less 2)
// most recent; in the initial download it is not asked at all.
func TestFetchFromPrunedPeer(t *testing.T) {
	for _, current := range []bool{true, false} {
		t.Run(map[bool]string{true: "current", false: "initial download"}[current], func(t *testing.T) { testFetchFromPrunedPeer(t, current) })
	}
}

func testFetchFromPrunedPeer(t *testing.T, current bool) {
	n := newNode(t, nil)
	b := buildChain(t, n.chain, 5)
	if current {
		// The manager learns it is current when a block connects.
		clock.SetMock(int64(b.Tip.Block.Header.Timestamp) + 60)
		t.Cleanup(func() { clock.SetMock(0) })
		e := b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
		if _, err := n.chain.ProcessBlock(e.Block); err != nil {
			t.Fatal(err)
		}
		waitCond(t, 5*time.Second, "current", n.m.IsCurrent)
	}
	tip := b.Tip.Height
	heights := map[wire.Hash]int32{}
	var headers []wire.BlockHeader
	for range 300 {
		e := b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
		heights[e.Hash] = e.Height
		headers = append(headers, e.Block.Header)
	}
	asked := make(chan int32, 1024)
	fcfg := fakeConfig(n, tip+300)
	fcfg.Services = wire.SFNodeNetworkLimited | wire.SFNodeWitness
	fcfg.Listeners.OnGetData = func(_ *peer.Peer, msg *wire.MsgGetData) {
		for _, iv := range msg.InvList {
			asked <- heights[iv.Hash]
		}
	}
	fcfg.Listeners.OnGetHeaders = func(*peer.Peer, *wire.MsgGetHeaders) {}
	fake, _ := linkFakeWith(t, n, fcfg, nil)
	fake.QueueMessage(&wire.MsgHeaders{Headers: headers}, nil)
	select {
	case h := <-asked:
		if !current {
			t.Fatalf("pruned peer asked for block %d during the initial download", h)
		}
		if h != tip+300-limitedFetchDepth+1 {
			t.Fatalf("first block asked of the pruned peer is at %d", h)
		}
	case <-time.After(2 * time.Second):
		if current {
			t.Fatal("pruned peer never asked for blocks")
		}
	}
}
