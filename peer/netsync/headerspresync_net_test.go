package netsync

import (
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// newMinWorkNode is newNode on a regtest chain whose minimum chain work is
// that of minHeaders headers on genesis.
func newMinWorkNode(t *testing.T, minHeaders int, mod func(*Config)) *node {
	t.Helper()
	p := chaincfg.RegressionNetParams
	mw := workAfter(&p, minHeaders)
	c := newChainWith(t, func(c *blockchain.Config) { c.MinimumChainWork = &mw })
	return newNodeOn(t, c, mod)
}

// headerServer answers getheaders from fixed header chains on genesis.
// pick chooses the chain for a request whose locator starts at genesis
// (the n-th such request, from 0); later requests follow the chain their
// locator's first hash is on.
type headerServer struct {
	genesis wire.Hash
	chains  [][]wire.BlockHeader
	pick    func(n int) int
	// stopAfter, when positive, leaves requests unanswered once that many
	// headers were sent.
	stopAfter int

	// gate, when set, holds every answer until it is closed.
	gate chan struct{}

	mu      sync.Mutex
	index   []map[wire.Hash]int
	fromGen int
	sent    int
}

func newHeaderServer(g wire.Hash, pick func(int) int, chains ...[]wire.BlockHeader) *headerServer {
	hs := &headerServer{genesis: g, chains: chains, pick: pick}
	for _, c := range chains {
		m := make(map[wire.Hash]int, len(c))
		for i := range c {
			m[c[i].BlockHash()] = i
		}
		hs.index = append(hs.index, m)
	}
	return hs
}

func (hs *headerServer) onGetHeaders(p *peer.Peer, msg *wire.MsgGetHeaders) {
	if hs.gate != nil {
		select {
		case <-hs.gate:
		case <-time.After(10 * time.Second):
			return
		}
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if len(msg.BlockLocatorHashes) == 0 || hs.stopAfter > 0 && hs.sent >= hs.stopAfter {
		return
	}
	first := msg.BlockLocatorHashes[0]
	c, from := -1, 0
	if first == hs.genesis {
		c = hs.pick(hs.fromGen)
		hs.fromGen++
	} else {
		for i, m := range hs.index {
			if at, ok := m[first]; ok {
				c, from = i, at+1
				break
			}
		}
	}
	if c < 0 {
		return
	}
	end := min(from+wire.MaxBlockHeadersPerMsg, len(hs.chains[c]))
	hs.sent += end - from
	p.QueueMessage(&wire.MsgHeaders{Headers: hs.chains[c][from:end]}, nil)
}

// TestPresyncLowWorkPeerDoesNotStopSync: a peer pushing a long header
// chain below the minimum work gets none of it stored, is not punished
// for the headers, and the node still syncs (through presync and redownload) the
// honest peer's chain, which has the minimum work.
func TestPresyncLowWorkPeerDoesNotStopSync(t *testing.T) {
	const honestLen, minHeaders, attackLen = 2100, 2050, 2049
	honest := newNode(t, nil)
	buildChain(t, honest.chain, honestLen)
	n := newMinWorkNode(t, minHeaders, nil)
	connect(t, n, honest)
	p := n.chain.Params()
	attack := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, attackLen, 9)
	hs := newHeaderServer(p.GenesisHash, func(int) int { return 0 }, attack)
	fcfg := fakeConfig(n, attackLen)
	fcfg.Listeners.OnGetHeaders = hs.onGetHeaders
	fake, in := linkFakeWith(t, n, fcfg, nil)
	// Unasked, as an attacker would.
	fake.QueueMessage(&wire.MsgHeaders{Headers: attack[:wire.MaxBlockHeadersPerMsg]}, nil)

	waitTip(t, 60*time.Second, n.chain, honest.chain)
	last := attack[len(attack)-1].BlockHash()
	waitCond(t, 20*time.Second, "attacker presync ended", func() bool {
		hs.mu.Lock()
		defer hs.mu.Unlock()
		return n.m.PresyncedHeaders(in) == -1 && hs.sent >= attackLen-wire.MaxBlockHeadersPerMsg
	})
	for _, h := range []wire.Hash{attack[0].BlockHash(), last} {
		if _, _, ok := n.chain.HeaderByHash(&h); ok {
			t.Fatalf("low-work header %v stored", h)
		}
	}
	// It may be dropped for stalling the blocks it claims to have, but
	// its low-work headers are no misbehaviour.
	if s := in.BanScore(); s != 0 {
		t.Fatalf("peer with a low-work chain scored %d", s)
	}
}

// TestPresyncMismatchDisconnects: a peer whose redownloaded headers are a
// different chain from the one it presynced is disconnected and none of
// either chain is stored.
func TestPresyncMismatchDisconnects(t *testing.T) {
	const chainLen, minHeaders = 2100, 2050
	n := newMinWorkNode(t, minHeaders, func(c *Config) { c.PresyncCommitPeriod = 1 })
	p := n.chain.Params()
	a := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, chainLen, 1)
	other := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, chainLen, 2)
	// The first request from genesis is the presync's, the second the
	// redownload's.
	hs := newHeaderServer(p.GenesisHash, func(i int) int { return min(i, 1) }, a, other)
	// Held until the peer is registered, which the disconnect would
	// otherwise race.
	hs.gate = make(chan struct{})
	fcfg := fakeConfig(n, chainLen)
	fcfg.Listeners.OnGetHeaders = hs.onGetHeaders
	fake, in := linkFakeWith(t, n, fcfg, nil)
	close(hs.gate)
	waitCond(t, 30*time.Second, "peer disconnected", func() bool { return !fake.Connected() })
	if _, h := n.chain.BestHeader(); h != 0 {
		t.Fatalf("best header at height %d, want genesis", h)
	}
	if s := in.BanScore(); s < PenaltyInvalid {
		t.Fatalf("ban score %d, want at least %d", s, PenaltyInvalid)
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.fromGen < 2 {
		t.Fatalf("disconnected before the redownload (%d requests from genesis)", hs.fromGen)
	}
}

// TestPresyncedHeaders: while a peer is presynced its height is reported
// (getpeerinfo's presynced_headers; -1 otherwise) and logged in Core's
// words.
func TestPresyncedHeaders(t *testing.T) {
	out := &syncLog{}
	n := newMinWorkNode(t, 5000, withLog(out, nil))
	p := n.chain.Params()
	a := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, 3000, 1)
	hs := newHeaderServer(p.GenesisHash, func(int) int { return 0 }, a)
	hs.stopAfter = wire.MaxBlockHeadersPerMsg
	fcfg := fakeConfig(n, 3000)
	fcfg.Listeners.OnGetHeaders = hs.onGetHeaders
	_, in := linkFakeWith(t, n, fcfg, nil)
	waitCond(t, 20*time.Second, "presync at 2000", func() bool { return n.m.PresyncedHeaders(in) == wire.MaxBlockHeadersPerMsg })
	if _, h := n.chain.BestHeader(); h != 0 {
		t.Fatalf("presynced headers stored: best header %d", h)
	}
	// Core's progress line, at the height the walk reached.
	waitCond(t, 10*time.Second, "presync progress logged", func() bool {
		return strings.Contains(out.String(), "Pre-synchronizing blockheaders, height: 2000 (~")
	})

	// A peer without presync reports -1.
	fcfg2 := fakeConfig(n, 0)
	_, in2 := linkFakeWith(t, n, fcfg2, nil)
	if got := n.m.PresyncedHeaders(in2); got != -1 {
		t.Fatalf("peer without presync: %d", got)
	}
}

// TestPresyncMismatchNoBan: a noban peer is presynced too; breaking its
// commitments ends its presync and stores nothing, but it stays connected,
// as in Core.
func TestPresyncMismatchNoBan(t *testing.T) {
	const chainLen, minHeaders = 2100, 2050
	n := newMinWorkNode(t, minHeaders, func(c *Config) { c.PresyncCommitPeriod = 1 })
	p := n.chain.Params()
	a := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, chainLen, 1)
	other := mineHeaders(p, p.GenesisHash, p.GenesisBlock.Header.Timestamp, chainLen, 2)
	hs := newHeaderServer(p.GenesisHash, func(i int) int { return min(i, 1) }, a, other)
	fcfg := fakeConfig(n, chainLen)
	fcfg.Listeners.OnGetHeaders = hs.onGetHeaders
	_, in := linkFakeWith(t, n, fcfg, func(p *peer.Peer) { p.SetPermissions(peer.PermNoBan) })
	waitCond(t, 30*time.Second, "redownload refused", func() bool { return in.BanScore() >= PenaltyInvalid })
	time.Sleep(200 * time.Millisecond)
	if !in.Connected() {
		t.Fatal("noban peer disconnected")
	}
	if _, h := n.chain.BestHeader(); h != 0 {
		t.Fatalf("best header at height %d, want genesis", h)
	}
}

// TestPresyncNearTipThreshold: on a synced chain the bar is the tip's work
// less a day of blocks, so a short fork off an old block is not stored
// even without a minimum chain work, while one near the tip is.
func TestPresyncNearTipThreshold(t *testing.T) {
	n := newNode(t, nil)
	buildChain(t, n.chain, 200)
	tip := n.chain.BestSnapshot()
	want := tip.ChainWork.Big()
	want.Sub(want, new(big.Int).Mul(blockchain.CalcWork(tip.Bits).Big(), big.NewInt(antiDoSTipBlocks)))
	if got := n.m.antiDoSWork(); got.Cmp(blockchain.WorkFromBig(want)) != 0 {
		t.Fatalf("threshold %v, want %v", got, want)
	}
	oldFork := forkAt(t, n.chain, 10, 10, 7)
	recentFork := forkAt(t, n.chain, 190, 5, 8)
	fake, _ := linkFakeWith(t, n, fakeConfig(n, 0), nil)
	fake.QueueMessage(&wire.MsgHeaders{Headers: oldFork}, nil)
	fake.QueueMessage(&wire.MsgHeaders{Headers: recentFork}, nil)
	last := recentFork[len(recentFork)-1].BlockHash()
	waitCond(t, 10*time.Second, "recent fork stored", func() bool { _, _, ok := n.chain.HeaderByHash(&last); return ok })
	h := oldFork[0].BlockHash()
	if _, _, ok := n.chain.HeaderByHash(&h); ok {
		t.Fatal("fork off height 10 stored")
	}
}

// forkAt mines n headers on the main-chain block at height, later than
// the tip so that they pass the median-time rule.
func forkAt(t *testing.T, c *blockchain.BlockChain, height int32, n int, tag byte) []wire.BlockHeader {
	t.Helper()
	h, ok := c.BlockHashByHeight(height)
	if !ok {
		t.Fatalf("no block at %d", height)
	}
	return mineHeaders(c.Params(), h, uint32(c.BestSnapshot().MedianTime)+3600, n, tag)
}
