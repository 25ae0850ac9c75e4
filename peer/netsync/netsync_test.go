package netsync

import (
	"bytes"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

func newChain(t *testing.T) *blockchain.BlockChain { return newChainWith(t, nil) }

// newChainWith is newChain with mod applied to the chain's config.
func newChainWith(t *testing.T, mod func(*blockchain.Config)) *blockchain.BlockChain {
	t.Helper()
	dir := t.TempDir()
	p := chaincfg.RegressionNetParams
	db, err := database.OpenBlockDB(dir, p.Net, database.BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := database.OpenChainState(dir, database.ChainStateOptions{NoSyncOnFlush: true, WriteBuffer: 1 << 20, CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cache := database.NewUtxoCache(cs, database.UtxoCacheOptions{MaxBytes: 16 << 20})
	cfg := &blockchain.Config{Params: &p, BlockDB: db, ChainState: cs, Cache: cache, Par: 1}
	if mod != nil {
		mod(cfg)
	}
	c, err := blockchain.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		cs.Close()
		db.Close()
	})
	return c
}

// node is a chain, its manager and a peer template.
type node struct {
	chain *blockchain.BlockChain
	m     *Manager
	pcfg  peer.Config
}

func newNode(t *testing.T, mod func(*Config)) *node { return newNodeOn(t, newChain(t), mod) }

// newNodeOn is newNode over the chain c.
func newNodeOn(t *testing.T, c *blockchain.BlockChain, mod func(*Config)) *node {
	n := &node{chain: c}
	cfg := Config{Chain: n.chain}
	if mod != nil {
		mod(&cfg)
	}
	n.m = New(cfg)
	n.m.Start()
	t.Cleanup(n.m.Stop)
	n.pcfg = peer.Config{
		Net:         n.chain.Params().Net,
		Services:    wire.SFNodeNetwork | wire.SFNodeWitness,
		BestHeight:  func() int32 { return n.chain.BestSnapshot().Height },
		SendHeaders: true,
		Nonces:      peer.NewNonceSet(),
	}
	n.m.SetListeners(&n.pcfg.Listeners)
	n.pcfg.Listeners.OnVerAck = n.m.NewPeer
	return n
}

// run starts p and unregisters it from the manager when it disconnects.
func (n *node) run(t *testing.T, p *peer.Peer) {
	p.Start()
	t.Cleanup(p.Disconnect)
	go func() {
		p.WaitForDisconnect()
		n.m.DonePeer(p)
	}()
}

// connect links from (outbound) to to (inbound) over loopback TCP.
func connect(t *testing.T, from, to *node) (out, in *peer.Peer) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
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
	in = peer.NewInbound(&to.pcfg, sc)
	out = peer.NewOutbound(&from.pcfg, c, l.Addr().String())
	to.run(t, in)
	from.run(t, out)
	return out, in
}

func buildChain(t *testing.T, c *blockchain.BlockChain, n int) *chaintest.Builder {
	t.Helper()
	b := chaintest.New(c.Params())
	opts := &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue}
	for i := 0; i < n; i++ {
		var txs []*wire.MsgTx
		if i >= 101 {
			cbs := b.MatureCoinbases(b.Tip)
			txs = append(txs, b.Spend(cbs[len(cbs)-1:], nil, 1000))
		}
		e := b.NextBlock(nil, txs, opts)
		if _, err := c.ProcessBlock(e.Block); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func waitTip(t *testing.T, timeout time.Duration, a, b *blockchain.BlockChain) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for a.BestSnapshot().Hash != b.BestSnapshot().Hash {
		if time.Now().After(deadline) {
			t.Fatalf("tips differ after %v: %d vs %d", timeout, a.BestSnapshot().Height, b.BestSnapshot().Height)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHeadersFirstSync: B downloads headers before any block, requests
// witness blocks with at most MaxInFlight outstanding, and reaches A's tip.
func TestHeadersFirstSync(t *testing.T) {
	a := newNode(t, nil)
	buildChain(t, a.chain, 300)
	b := newNode(t, func(c *Config) { c.MaxInFlight = 8 })

	var mu sync.Mutex
	var order []string
	var outstanding, maxOutstanding atomic.Int64
	b.pcfg.Listeners.OnRead = func(p *peer.Peer, n int, msg wire.Message, err error) {
		if msg == nil {
			return
		}
		cmd := msg.Command()
		mu.Lock()
		if len(order) < 4 && (cmd == wire.CmdHeaders || cmd == wire.CmdBlock) {
			order = append(order, msg.Command())
		}
		mu.Unlock()
		if msg.Command() == wire.CmdBlock {
			outstanding.Add(-1)
		}
	}
	a.pcfg.Listeners.OnGetData = func(p *peer.Peer, msg *wire.MsgGetData) {
		for _, iv := range msg.InvList {
			if iv.Type != wire.InvTypeWitnessBlock {
				t.Errorf("requested %v, want witness blocks", iv.Type)
			}
		}
		if v := outstanding.Add(int64(len(msg.InvList))); v > maxOutstanding.Load() {
			maxOutstanding.Store(v)
		}
		a.m.onGetData(p, msg)
	}
	connect(t, b, a)
	waitTip(t, 30*time.Second, a.chain, b.chain)
	if blocks, _ := b.m.Processed(); blocks != 300 {
		t.Fatalf("B processed %d blocks, want 300", blocks)
	}
	mu.Lock()
	defer mu.Unlock()
	firstBlock := -1
	for i, c := range order {
		if c == wire.CmdBlock {
			firstBlock = i
			break
		}
	}
	sawHeaders := false
	for i := 0; i < firstBlock; i++ {
		sawHeaders = sawHeaders || order[i] == wire.CmdHeaders
	}
	if firstBlock < 0 || !sawHeaders {
		t.Fatalf("first messages %v: want headers before blocks", order)
	}
	if m := maxOutstanding.Load(); m > 8 {
		t.Fatalf("%d blocks were in flight, cap is 8", m)
	}
}

// TestSteadyStateRelay: after the sync, blocks A connects are announced
// to B (a sendheaders peer) by the headers since the last announcement,
// which connect, and B fetches the blocks.
func TestSteadyStateRelay(t *testing.T) {
	a := newNode(t, nil)
	bld := buildChain(t, a.chain, 20)
	b := newNode(t, nil)
	var gotHeaders atomic.Int64
	b.pcfg.Listeners.OnHeaders = func(p *peer.Peer, msg *wire.MsgHeaders) {
		if len(msg.Headers) == 3 {
			gotHeaders.Add(1)
		}
		b.m.onHeaders(p, msg)
	}
	connect(t, b, a)
	waitTip(t, 20*time.Second, a.chain, b.chain)
	// Builder blocks carry 2011 timestamps, so A is not "current" and
	// would not announce by itself; announce as the tip-change hook does.
	a.m.announceTip(a.chain.BestSnapshot().Hash)
	var last wire.Hash
	for i := 0; i < 3; i++ {
		e := bld.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
		if _, err := a.chain.ProcessBlock(e.Block); err != nil {
			t.Fatal(err)
		}
		last = e.Hash
	}
	a.m.announceTip(last)
	waitTip(t, 20*time.Second, a.chain, b.chain)
	if gotHeaders.Load() != 1 {
		t.Fatalf("B got %d announcements of 3 headers, want 1", gotHeaders.Load())
	}
}

// TestRequestTimeout: a peer that announces a chain but never delivers
// blocks is disconnected after the request timeout.
func TestRequestTimeout(t *testing.T) {
	a := newNode(t, nil)
	buildChain(t, a.chain, 50)
	a.pcfg.Listeners.OnGetData = func(*peer.Peer, *wire.MsgGetData) {} // black hole
	b := newNode(t, func(c *Config) { c.RequestTimeout = 500 * time.Millisecond })
	out, _ := connect(t, b, a)
	select {
	case <-out.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("silent peer was not disconnected")
	}
	if h := b.chain.BestSnapshot().Height; h != 0 {
		t.Fatalf("B has height %d", h)
	}
	if _, h := b.chain.BestHeader(); h != 50 {
		t.Fatalf("B has headers to %d, want 50", h)
	}
}

func TestItoa(t *testing.T) {
	for v, want := range map[int64]string{0: "0", 7: "7", 450: "450", -12: "-12"} {
		if got := itoa(v); got != want {
			t.Errorf("itoa(%d) = %q", v, got)
		}
	}
}

// TestProgressLog: the periodic line reports blocks, transactions,
// height, progress and the cache fill.
func TestProgressLog(t *testing.T) {
	var buf bytes.Buffer
	a := newNode(t, nil)
	buildChain(t, a.chain, 120)
	b := newNode(t, func(c *Config) {
		c.Log = btclog.NewBackend(&buf).Logger("SYNC")
		c.ProgressInterval = 10 * time.Second
		c.CacheUsage = func() (int64, int64) { return 123 << 20, 450 << 20 }
	})
	connect(t, b, a)
	waitTip(t, 20*time.Second, a.chain, b.chain)
	b.m.Stop() // the loop owns the log state
	b.m.maybeLogProgress(b.m.lastLog.Add(10 * time.Second))
	out := buf.String()
	for _, want := range []string{"Processed 120 blocks in the last 10.00s", "139 transactions", "height 120",
		"progress 100.00%", "cache 123 MiB/450 MiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress line lacks %q:\n%s", want, out)
		}
	}
}

// TestParallelDownload: blocks are requested from every peer that has
// them, not only from the headers sync peer.
func TestParallelDownload(t *testing.T) {
	a1, a2 := newNode(t, nil), newNode(t, nil)
	buildChain(t, a1.chain, 200)
	buildChain(t, a2.chain, 200) // the builder is deterministic: same chain
	if a1.chain.BestSnapshot().Hash != a2.chain.BestSnapshot().Hash {
		t.Fatal("builder chains differ")
	}
	var served [2]atomic.Int64
	for i, a := range []*node{a1, a2} {
		i, a := i, a
		a.pcfg.Listeners.OnGetData = func(p *peer.Peer, msg *wire.MsgGetData) {
			served[i].Add(int64(len(msg.InvList)))
			// Slow serving keeps the download going until both peers
			// are connected.
			time.Sleep(20 * time.Millisecond)
			a.m.onGetData(p, msg)
		}
	}
	b := newNode(t, func(c *Config) { c.MaxInFlight = 4 })
	connect(t, b, a1)
	connect(t, b, a2)
	waitTip(t, 30*time.Second, a1.chain, b.chain)
	if served[0].Load() == 0 || served[1].Load() == 0 {
		t.Fatalf("blocks served: %d and %d; want both peers used", served[0].Load(), served[1].Load())
	}
}

// makeCurrent extends the chain by one block stamped now, so the chain
// (and the manager, told through its tip notification) leaves initial
// block download.
func makeCurrent(t *testing.T, n *node, b *chaintest.Builder) {
	t.Helper()
	e := b.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue, Time: uint32(time.Now().Unix())})
	if _, err := n.chain.ProcessBlock(e.Block); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !n.m.IsCurrent() {
		if time.Now().After(deadline) {
			t.Fatal("manager did not become current")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoRequestsOffPeerBranch: a peer whose best block is on another
// branch is not asked for the blocks of the branch being downloaded,
// even at heights it has reached (it does not have them and would stall
// the download until it is disconnected).
func TestNoRequestsOffPeerBranch(t *testing.T) {
	a1, a2, b := newNode(t, nil), newNode(t, nil), newNode(t, nil)
	build1 := buildChain(t, a1.chain, 10)
	build2 := buildChain(t, a2.chain, 10)
	buildChain(t, b.chain, 10) // the builder is deterministic: same prefix
	extend := func(n *node, bld *chaintest.Builder, count int, step uint32) {
		for i := 0; i < count; i++ {
			e := bld.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue, Time: bld.Tip.Block.Header.Timestamp + step})
			if _, err := n.chain.ProcessBlock(e.Block); err != nil {
				t.Fatal(err)
			}
		}
	}
	extend(a1, build1, 5, 1)
	extend(a2, build2, 7, 2) // other timestamps: another branch, longer
	var wrong atomic.Int64
	a1.pcfg.Listeners.OnGetData = func(p *peer.Peer, msg *wire.MsgGetData) {
		for _, iv := range msg.InvList {
			if !a1.chain.HaveBlock(&iv.Hash) {
				wrong.Add(1)
			}
		}
		a1.m.onGetData(p, msg)
	}
	out1, _ := connect(t, b, a1)
	waitTip(t, 10*time.Second, a1.chain, b.chain)
	connect(t, b, a2)
	waitTip(t, 10*time.Second, a2.chain, b.chain)
	if n := wrong.Load(); n != 0 {
		t.Fatalf("%d blocks of the other branch requested from a peer without them", n)
	}
	if !out1.Connected() {
		t.Fatal("peer on the other branch was disconnected")
	}
}
