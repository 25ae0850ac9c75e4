package netsync

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// newTestPool returns a mempool over c without standardness or script
// checks (the chain checks the scripts when the block connects).
func newTestPool(c *blockchain.BlockChain) *mempool.Pool {
	mc := mempool.DefaultConfig()
	mc.Policy.RequireStandard = false
	mc.Chain = mempool.ChainView{
		FetchCoin: func(op wire.OutPoint) (mempool.Coin, bool) {
			e, ok, err := c.FetchUtxo(op)
			if err != nil || !ok {
				return mempool.Coin{}, false
			}
			return mempool.Coin{Value: e.Amount, PkScript: e.PkScript, Height: e.Height, IsCoinBase: e.IsCoinBase}, true
		},
		Tip: func() mempool.ChainTip {
			b := c.BestSnapshot()
			return mempool.ChainTip{Height: b.Height, Hash: b.Hash, MedianTimePast: b.MedianTime}
		},
		MedianTimePast: c.MedianTimePast,
	}
	mc.VerifyScripts = func(*wire.MsgTx, []mempool.Coin, bool) error { return nil }
	pool := mempool.New(mc)
	c.Subscribe(func(n *blockchain.Notification) {
		if n.Type == blockchain.NTBlockConnected {
			pool.BlockConnected(n.Block, n.Height)
		}
	})
	return pool
}

// cmpctFixture is a regtest chain shared by two nodes whose tip is
// recent (so both are current), plus ntx signed witness transactions
// spendable on it.
type cmpctFixture struct {
	bld *chaintest.Builder
	txs []*wire.MsgTx
}

// newCmpctFixture builds the chain and feeds it to every chain in cs.
func newCmpctFixture(t testing.TB, ntx int, cs ...*blockchain.BlockChain) *cmpctFixture {
	t.Helper()
	bld := chaintest.New(cs[0].Params())
	var blocks []*wire.MsgBlock
	for i := 0; i < 101; i++ {
		blocks = append(blocks, bld.NextBlock(nil, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue}).Block)
	}
	// Split a mature coinbase into ntx witness outputs, in a block
	// with a recent timestamp so the nodes leave initial download.
	cb := bld.MatureCoinbases(bld.Tip)[0]
	outs := make([]wire.TxOut, ntx)
	for i := range outs {
		outs[i] = wire.TxOut{Value: (cb.Value - 100_000) / int64(ntx), PkScript: bld.Script(chaintest.P2WPKH)}
	}
	split := bld.Spend([]*chaintest.Output{cb}, outs, 0)
	e := bld.NextBlock(nil, []*wire.MsgTx{split}, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue, Time: uint32(time.Now().Unix() - 3600)})
	blocks = append(blocks, e.Block)
	for _, c := range cs {
		for _, blk := range blocks {
			if _, err := c.ProcessBlock(blk); err != nil {
				t.Fatal(err)
			}
		}
	}
	f := &cmpctFixture{bld: bld}
	sid := split.TxHash()
	for i := 0; i < ntx; i++ {
		o := bld.Output(wire.OutPoint{Hash: sid, Index: uint32(i)})
		f.txs = append(f.txs, bld.Spend([]*chaintest.Output{o}, nil, 1000))
	}
	return f
}

// mine builds the next block holding txs (without connecting it).
func (f *cmpctFixture) mine(txs []*wire.MsgTx) *chaintest.Entry {
	return f.bld.NextBlock(nil, txs, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
}

// addToPool puts txs into n's mempool.
func addToPool(t testing.TB, pool *mempool.Pool, txs []*wire.MsgTx) {
	t.Helper()
	for _, tx := range txs {
		if _, _, err := pool.ProcessTransaction(tx, 0, false); err != nil {
			t.Fatalf("mempool refused %v: %v", tx.TxHash(), err)
		}
	}
}

// msgLog counts messages by command and remembers the sizes of blocks
// and compact blocks received.
type msgLog struct {
	mu        sync.Mutex
	recv      map[string]int
	sent      map[string]int
	cmpctSize map[wire.Hash]int
	blockRecv map[wire.Hash]int
	// cmpctAsked counts getdata(MSG_CMPCT_BLOCK) entries A served.
	cmpctAsked atomic.Int64
}

func newMsgLog(cfg *peer.Config) *msgLog {
	l := &msgLog{recv: map[string]int{}, sent: map[string]int{}, cmpctSize: map[wire.Hash]int{}, blockRecv: map[wire.Hash]int{}}
	cfg.Listeners.OnRead = func(p *peer.Peer, n int, msg wire.Message, err error) {
		if msg == nil {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.recv[msg.Command()]++
		switch m := msg.(type) {
		case *wire.MsgCmpctBlock:
			l.cmpctSize[m.Header.BlockHash()] = n
		case *wire.MsgBlock:
			l.blockRecv[m.BlockHash()]++
		}
	}
	cfg.Listeners.OnWrite = func(p *peer.Peer, n int, cmd string, err error) {
		l.mu.Lock()
		l.sent[cmd]++
		l.mu.Unlock()
	}
	return l
}

func (l *msgLog) get(f func(l *msgLog) int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return f(l)
}

func waitCond(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// peerStates returns the manager's peer states (test helper; the flags
// read are atomics).
func (m *Manager) peerStates() []*peerState {
	m.peersMu.RLock()
	defer m.peersMu.RUnlock()
	var out []*peerState
	for _, ps := range m.peers {
		out = append(out, ps)
	}
	return out
}

// cmpctPair sets up nodes A (miner) and B (with a mempool and a message
// log) sharing a recent chain, B connected to A and compact negotiation
// done. With hb, B has selected A as a high-bandwidth peer.
func cmpctPair(t *testing.T, ntx int, hb bool) (a, b *node, f *cmpctFixture, lg *msgLog) {
	t.Helper()
	a = newNode(t, nil)
	b = newNode(t, func(c *Config) { c.Mempool = newTestPool(c.Chain) })
	f = newCmpctFixture(t, ntx, a.chain, b.chain)
	lg = newMsgLog(&b.pcfg)
	a.pcfg.Listeners.OnGetData = func(p *peer.Peer, msg *wire.MsgGetData) {
		for _, iv := range msg.InvList {
			if iv.Type == wire.InvTypeCmpctBlock {
				lg.cmpctAsked.Add(1)
			}
		}
		a.m.onGetDataCmpct(p, msg)
	}
	if !hb {
		// A refuses to push: B stays in low-bandwidth mode.
		a.pcfg.Listeners.OnSendCmpct = func(p *peer.Peer, msg *wire.MsgSendCmpct) {
			m := *msg
			m.AnnounceHighBandwidth = false
			a.m.onSendCmpct(p, &m)
		}
	}
	connect(t, b, a)
	waitCond(t, 10*time.Second, "compact negotiation", func() bool {
		as, bs := a.m.peerStates(), b.m.peerStates()
		return len(as) == 1 && len(bs) == 1 && as[0].cmpct.provides.Load() && bs[0].cmpct.provides.Load()
	})
	// A new block from A makes B pick A as high-bandwidth peer.
	e := f.mine(nil)
	if _, err := a.chain.ProcessBlock(e.Block); err != nil {
		t.Fatal(err)
	}
	waitTip(t, 10*time.Second, a.chain, b.chain)
	if hb {
		waitCond(t, 10*time.Second, "B selecting A as high-bandwidth peer", func() bool {
			return a.m.peerStates()[0].cmpct.wantsHB.Load()
		})
		if got := b.m.HighBandwidthPeers(); len(got) != 1 {
			t.Fatalf("B has %d high-bandwidth peers, want 1", len(got))
		}
		if to, from := b.m.PeerCompactState(b.m.peerStates()[0].p); !to || from {
			t.Fatalf("B's view of A: hb_to %v hb_from %v, want true false", to, from)
		}
		if to, from := a.m.PeerCompactState(a.m.peerStates()[0].p); to || !from {
			t.Fatalf("A's view of B: hb_to %v hb_from %v, want false true", to, from)
		}
	}
	return a, b, f, lg
}

// TestCmpctHighBandwidth: B, holding A's mempool transactions, receives
// A's new 100-transaction block as an unannounced cmpctblock and rebuilds
// it without any block or getblocktxn message.
func TestCmpctHighBandwidth(t *testing.T) {
	a, b, f, lg := cmpctPair(t, 100, true)
	addToPool(t, b.m.pool, f.txs)
	before := lg.get(func(l *msgLog) int { return l.sent[wire.CmdGetData] })
	e := f.mine(f.txs)
	if _, err := a.chain.ProcessBlock(e.Block); err != nil {
		t.Fatal(err)
	}
	waitTip(t, 10*time.Second, a.chain, b.chain)
	if n := lg.get(func(l *msgLog) int { return l.blockRecv[e.Hash] }); n != 0 {
		t.Fatalf("B received the block whole %d times", n)
	}
	if n := lg.get(func(l *msgLog) int { return l.sent[wire.CmdGetBlockTxn] }); n > 1 {
		t.Fatalf("B sent %d getblocktxn", n)
	}
	if n := lg.get(func(l *msgLog) int { return l.sent[wire.CmdGetData] }); n != before {
		t.Fatalf("B sent getdata for a pushed compact block")
	}
	cs := lg.get(func(l *msgLog) int { return l.cmpctSize[e.Hash] })
	if cs == 0 {
		t.Fatal("no cmpctblock received")
	}
	full := 24 + e.Block.SerializeSize()
	t.Logf("100-tx block: cmpctblock %d bytes, block %d bytes (%.1f%%)", cs, full, 100*float64(cs)/float64(full))
	if b.m.pool.Count() != 0 {
		t.Fatalf("B's mempool keeps %d mined transactions", b.m.pool.Count())
	}
}

// TestCmpctMissingTxs: B lacks some transactions and fetches exactly
// those with one getblocktxn/blocktxn round trip.
func TestCmpctMissingTxs(t *testing.T) {
	a, b, f, lg := cmpctPair(t, 100, true)
	addToPool(t, b.m.pool, f.txs[:90])
	e := f.mine(f.txs)
	if _, err := a.chain.ProcessBlock(e.Block); err != nil {
		t.Fatal(err)
	}
	waitTip(t, 10*time.Second, a.chain, b.chain)
	if n := lg.get(func(l *msgLog) int { return l.blockRecv[e.Hash] }); n != 0 {
		t.Fatalf("B received the block whole %d times", n)
	}
	if n := lg.get(func(l *msgLog) int { return l.sent[wire.CmdGetBlockTxn] }); n != 1 {
		t.Fatalf("B sent %d getblocktxn, want 1", n)
	}
	if n := lg.get(func(l *msgLog) int { return l.recv[wire.CmdBlockTxn] }); n != 1 {
		t.Fatalf("B received %d blocktxn, want 1", n)
	}
}

// TestCmpctLowBandwidth: with A not pushing, B learns of the block from
// a headers announcement and asks for it with getdata(MSG_CMPCT_BLOCK).
func TestCmpctLowBandwidth(t *testing.T) {
	a, b, f, lg := cmpctPair(t, 20, false)
	asked := lg.cmpctAsked.Load()
	addToPool(t, b.m.pool, f.txs)
	e := f.mine(f.txs)
	if _, err := a.chain.ProcessBlock(e.Block); err != nil {
		t.Fatal(err)
	}
	waitTip(t, 10*time.Second, a.chain, b.chain)
	if lg.cmpctAsked.Load() != asked+1 {
		t.Fatalf("B asked %d times for a compact block, want 1", lg.cmpctAsked.Load()-asked)
	}
	if n := lg.get(func(l *msgLog) int { return l.blockRecv[e.Hash] }); n != 0 {
		t.Fatalf("B received the block whole %d times", n)
	}
	if n := lg.get(func(l *msgLog) int { return l.cmpctSize[e.Hash] }); n == 0 {
		t.Fatal("B did not receive the block as cmpctblock")
	}
	if n := lg.get(func(l *msgLog) int { return l.recv[wire.CmdHeaders] }); n == 0 {
		t.Fatal("A did not announce by headers")
	}
	if a.m.peerStates()[0].cmpct.wantsHB.Load() {
		t.Fatal("A believes B wants high-bandwidth relay")
	}
}

// connectFake links a bare peer (no manager, listeners from fcfg) as an
// inbound peer of n.
func connectFake(t *testing.T, n *node, fcfg *peer.Config) (fake, in *peer.Peer) {
	return linkFake(t, n, fcfg, false)
}

// linkFake links a bare peer to n; with nodeOutbound n dials it. in is
// n's side of the connection; setup runs on it before it starts.
func linkFake(t *testing.T, n *node, fcfg *peer.Config, nodeOutbound bool, setup ...func(*peer.Peer)) (fake, in *peer.Peer) {
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
	if nodeOutbound {
		in = peer.NewOutbound(&n.pcfg, c, l.Addr().String())
		fake = peer.NewInbound(fcfg, sc)
	} else {
		in = peer.NewInbound(&n.pcfg, sc)
		fake = peer.NewOutbound(fcfg, c, l.Addr().String())
	}
	for _, f := range setup {
		f(in)
	}
	n.run(t, in)
	fake.Start()
	t.Cleanup(fake.Disconnect)
	if !fake.WaitForHandshake() {
		t.Fatal("fake peer handshake failed")
	}
	waitCond(t, 10*time.Second, "fake peer registered", func() bool { return len(n.m.peerStates()) == before+1 })
	return fake, in
}

// TestCmpctCorrupted: a compact block whose prefilled transaction was
// altered does not reconstruct to the header's merkle root; B fetches the
// block whole from the same peer without scoring it or marking the block
// invalid. A compact block with a prefilled index past its end scores
// the sender and drops it.
func TestCmpctCorrupted(t *testing.T) {
	b := newNode(t, func(c *Config) { c.Mempool = newTestPool(c.Chain) })
	f := newCmpctFixture(t, 3, b.chain)
	e := f.mine(f.txs)
	blk := e.Block

	var getdata, getblocktxn atomic.Int64
	var fake *peer.Peer
	fcfg := peer.Config{
		Net:      b.chain.Params().Net,
		Services: wire.SFNodeNetwork | wire.SFNodeWitness,
		Nonces:   peer.NewNonceSet(),
	}
	fcfg.Listeners.OnGetData = func(p *peer.Peer, msg *wire.MsgGetData) {
		for _, iv := range msg.InvList {
			if iv.Type == wire.InvTypeWitnessBlock && iv.Hash == e.Hash {
				getdata.Add(1)
				p.QueueMessage(blk, nil)
			}
		}
	}
	fcfg.Listeners.OnGetBlockTxn = func(*peer.Peer, *wire.MsgGetBlockTxn) { getblocktxn.Add(1) }
	fake, in := connectFake(t, b, &fcfg)

	// Every transaction prefilled, one of them altered.
	bad := &wire.MsgCmpctBlock{Header: blk.Header, Nonce: 7}
	for i, tx := range blk.Transactions {
		if i == 2 {
			c := *tx
			c.TxOut = append([]wire.TxOut(nil), tx.TxOut...)
			c.TxOut[0].Value--
			tx = &c
		}
		bad.PrefilledTxs = append(bad.PrefilledTxs, wire.PrefilledTx{Index: uint32(i), Tx: tx})
	}
	if err := fake.QueueMessage(bad, nil); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 10*time.Second, "B connecting the block", func() bool { return b.chain.BestSnapshot().Hash == e.Hash })
	if getdata.Load() != 1 || getblocktxn.Load() != 0 {
		t.Fatalf("B sent %d getdata and %d getblocktxn, want 1 and 0", getdata.Load(), getblocktxn.Load())
	}
	if s := in.BanScore(); s != 0 {
		t.Fatalf("B scored the peer %d for a failed reconstruction", s)
	}

	// A prefilled index beyond the block's transactions.
	e2 := f.mine(nil)
	mal := &wire.MsgCmpctBlock{Header: e2.Block.Header, Nonce: 1, PrefilledTxs: []wire.PrefilledTx{
		{Index: 0, Tx: e2.Block.Transactions[0]}, {Index: 5, Tx: e2.Block.Transactions[0]}}}
	if err := fake.QueueMessage(mal, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-in.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("peer sending a malformed compact block was not dropped")
	}
	if s := in.BanScore(); s < PenaltyBadCmpct {
		t.Fatalf("ban score %d, want at least %d", s, PenaltyBadCmpct)
	}
}

// TestCmpctBadBlockTxn: a blocktxn with the wrong number of transactions
// scores the peer; one for a block we did not ask about is ignored, as in
// Core.
func TestCmpctBadBlockTxn(t *testing.T) {
	b := newNode(t, func(c *Config) { c.Mempool = newTestPool(c.Chain) })
	f := newCmpctFixture(t, 3, b.chain)
	e := f.mine(f.txs)
	reqs := make(chan *wire.MsgGetBlockTxn, 1)
	fcfg := peer.Config{
		Net:      b.chain.Params().Net,
		Services: wire.SFNodeNetwork | wire.SFNodeWitness,
		Nonces:   peer.NewNonceSet(),
	}
	fcfg.Listeners.OnGetBlockTxn = func(_ *peer.Peer, m *wire.MsgGetBlockTxn) { reqs <- m }
	fake, in := connectFake(t, b, &fcfg)

	fake.QueueMessage(&wire.MsgBlockTxn{BlockHash: e.Hash, Transactions: f.txs[:1]}, nil)
	fake.QueueMessage(wire.NewMsgCmpctBlock(e.Block, 99), nil)
	var req *wire.MsgGetBlockTxn
	select {
	case req = <-reqs:
	case <-time.After(10 * time.Second):
		t.Fatal("no getblocktxn")
	}
	if len(req.Indexes) != 3 || req.Indexes[0] != 1 || req.Indexes[2] != 3 {
		t.Fatalf("getblocktxn indexes %v, want [1 2 3]", req.Indexes)
	}
	if s := in.BanScore(); s != 0 {
		t.Fatalf("unexpected blocktxn scored %d", s)
	}
	fake.QueueMessage(&wire.MsgBlockTxn{BlockHash: e.Hash, Transactions: f.txs[:2]}, nil)
	select {
	case <-in.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("peer sending a short blocktxn was not dropped")
	}
	if s := in.BanScore(); s < PenaltyBadCmpct {
		t.Fatalf("ban score %d, want at least %d", s, PenaltyBadCmpct)
	}
}

// TestPartialBlock: reconstruction from the pool, shape checks and short
// id collisions in the message.
func TestPartialBlock(t *testing.T) {
	b := newNode(t, func(c *Config) { c.Mempool = newTestPool(c.Chain) })
	f := newCmpctFixture(t, 4, b.chain)
	addToPool(t, b.m.pool, f.txs)
	blk := f.mine(f.txs).Block
	c := wire.NewMsgCmpctBlock(blk, 5)

	pb, err := newPartialBlock(c, b.m.pool, nil)
	if err != nil || len(pb.missing) != 0 {
		t.Fatalf("full pool: err %v, missing %v", err, pb.missing)
	}
	got, err := pb.block()
	if err != nil || got.BlockHash() != blk.BlockHash() {
		t.Fatalf("rebuilt block: %v", err)
	}
	if r, _ := got.MerkleRoot(); r != blk.Header.MerkleRoot {
		t.Fatal("rebuilt block has another merkle root")
	}

	dup := *c
	dup.ShortIDs = append([]uint64(nil), c.ShortIDs...)
	dup.ShortIDs[1] = dup.ShortIDs[0]
	if _, err := newPartialBlock(&dup, b.m.pool, nil); err != errCmpctCollision {
		t.Fatalf("duplicate short ids: %v", err)
	}

	for _, bad := range []wire.MsgCmpctBlock{
		{Header: blk.Header},
		{Header: blk.Header, PrefilledTxs: []wire.PrefilledTx{{Index: 0}}},
		{Header: blk.Header, ShortIDs: []uint64{1}, PrefilledTxs: []wire.PrefilledTx{{Index: 2, Tx: blk.Transactions[0]}}},
	} {
		if _, err := newPartialBlock(&bad, b.m.pool, nil); err != errBadCmpct {
			t.Fatalf("malformed %+v: %v", bad, err)
		}
	}

	// Transactions are placed by short id, not by pool order. (Two pool
	// transactions sharing a short id cannot be made without grinding
	// 48 bits; newPartialBlock leaves such a slot missing.)
	amb := *c
	amb.ShortIDs = append([]uint64(nil), c.ShortIDs...)
	k0, k1 := amb.SipHashKeys()
	amb.ShortIDs[0] = wire.ShortTxID(k0, k1, f.txs[1].WitnessHash())
	amb.ShortIDs[1] = wire.ShortTxID(k0, k1, f.txs[0].WitnessHash())
	pb, err = newPartialBlock(&amb, b.m.pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pb.missing) != 0 || pb.txs[1].TxHash() != f.txs[1].TxHash() || pb.txs[2].TxHash() != f.txs[0].TxHash() {
		t.Fatalf("swapped ids: missing %v", pb.missing)
	}
	if err := pb.fill(nil); err != nil {
		t.Fatal(err)
	}
	if err := (&partialBlock{missing: []uint32{1}, txs: make([]*wire.MsgTx, 2)}).fill(nil); err != errBadCmpct {
		t.Fatalf("short fill: %v", err)
	}
}

// FuzzPartialBlock feeds arbitrary compact blocks to the reconstruction
// (without a pool) and fills what is missing.
func FuzzPartialBlock(f *testing.F) {
	p := chaincfg.RegressionNetParams
	bld := chaintest.New(&p)
	e := bld.NextBlock(nil, nil, nil)
	seed, _ := wire.NewMsgCmpctBlock(e.Block, 3).BtcEncode(nil, wire.ProtocolVersion, wire.WitnessEncoding)
	f.Add(seed)
	f.Add(append(append([]byte(nil), seed[:88]...), 2, 0, 5))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c wire.MsgCmpctBlock
		if c.BtcDecode(b, wire.ProtocolVersion, wire.WitnessEncoding) != nil {
			return
		}
		pb, err := newPartialBlock(&c, nil, nil)
		if err != nil {
			return
		}
		if len(pb.missing) != len(c.ShortIDs) {
			t.Fatalf("%d missing for %d short ids", len(pb.missing), len(c.ShortIDs))
		}
		fill := make([]*wire.MsgTx, len(pb.missing))
		for i := range fill {
			fill[i] = e.Block.Transactions[0]
		}
		if err := pb.fill(fill); err != nil {
			t.Fatal(err)
		}
		pb.block()
	})
}

// BenchmarkPartialBlock rebuilds a 100-transaction block from a pool
// holding its transactions.
func BenchmarkPartialBlock(bm *testing.B) {
	chain := newChainTB(bm)
	pool := newTestPool(chain)
	f := newCmpctFixture(bm, 100, chain)
	addToPool(bm, pool, f.txs)
	c := wire.NewMsgCmpctBlock(f.mine(f.txs).Block, 5)
	bm.ReportAllocs()
	bm.ResetTimer()
	for range bm.N {
		pb, err := newPartialBlock(c, pool, nil)
		if err != nil || len(pb.missing) != 0 {
			bm.Fatal(err)
		}
		if _, err := pb.block(); err != nil {
			bm.Fatal(err)
		}
	}
}

// newChainTB is newChain for benchmarks.
func newChainTB(tb testing.TB) *blockchain.BlockChain {
	tb.Helper()
	dir := tb.TempDir()
	p := chaincfg.RegressionNetParams
	db, err := database.OpenBlockDB(dir, p.Net, database.BlockDBOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := database.OpenChainState(dir, database.ChainStateOptions{NoSyncOnFlush: true, WriteBuffer: 1 << 20, CacheBytes: 1 << 20})
	if err != nil {
		tb.Fatal(err)
	}
	cache := database.NewUtxoCache(cs, database.UtxoCacheOptions{MaxBytes: 16 << 20})
	c, err := blockchain.New(&blockchain.Config{Params: &p, BlockDB: db, ChainState: cs, Cache: cache, Par: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		c.Close()
		cs.Close()
		db.Close()
	})
	return c
}

// TestCmpctSelectHighBandwidth: at most three high-bandwidth peers, the
// most recent block givers, and the last outbound one is not replaced by
// an inbound peer; selected and demoted peers are told with sendcmpct.
func TestCmpctSelectHighBandwidth(t *testing.T) {
	b := newNode(t, func(c *Config) { c.Mempool = newTestPool(c.Chain) })
	type fakeState struct {
		mu sync.Mutex
		hb []bool // AnnounceHighBandwidth of each sendcmpct received
	}
	var peers []*peer.Peer
	var states []*fakeState
	for i := 0; i < 4; i++ {
		st := &fakeState{}
		fcfg := peer.Config{
			Net:      b.chain.Params().Net,
			Services: wire.SFNodeNetwork | wire.SFNodeWitness,
			Nonces:   peer.NewNonceSet(),
		}
		fcfg.Listeners.OnSendCmpct = func(_ *peer.Peer, m *wire.MsgSendCmpct) {
			st.mu.Lock()
			st.hb = append(st.hb, m.AnnounceHighBandwidth)
			st.mu.Unlock()
		}
		fake, in := linkFake(t, b, &fcfg, i == 0)
		fake.QueueMessage(&wire.MsgSendCmpct{Version: CmpctVersion}, nil)
		// Version 1 is ignored.
		fake.QueueMessage(&wire.MsgSendCmpct{Version: 1, AnnounceHighBandwidth: true}, nil)
		peers = append(peers, in)
		states = append(states, st)
	}
	waitCond(t, 10*time.Second, "sendcmpct from every peer", func() bool {
		for _, ps := range b.m.peerStates() {
			if !ps.cmpct.provides.Load() || ps.cmpct.wantsHB.Load() {
				return false
			}
		}
		return true
	})
	sel := func(p *peer.Peer) {
		b.m.runOnLoop(func() { b.m.selectHighBandwidth(b.m.peers[p]) })
	}
	for _, p := range peers {
		sel(p)
	}
	got := b.m.HighBandwidthPeers()
	if len(got) != 3 || got[0] != peers[0] || got[1] != peers[2] || got[2] != peers[3] {
		t.Fatalf("high-bandwidth peers %v, want %v %v %v", got, peers[0], peers[2], peers[3])
	}
	// Peer 0 gives a block again: it moves to the back, nothing is sent.
	sel(peers[0])
	if got := b.m.HighBandwidthPeers(); got[2] != peers[0] {
		t.Fatalf("re-selected peer not most recent: %v", got)
	}
	want := [][]bool{{false, true}, {false, true, false}, {false, true}, {false, true}}
	waitCond(t, 10*time.Second, "sendcmpct messages", func() bool {
		for i, st := range states {
			st.mu.Lock()
			n := len(st.hb)
			st.mu.Unlock()
			if n < len(want[i]) {
				return false
			}
		}
		return true
	})
	for i, st := range states {
		st.mu.Lock()
		if len(st.hb) != len(want[i]) {
			t.Errorf("peer %d got sendcmpct %v, want %v", i, st.hb, want[i])
		}
		for j := range st.hb {
			if j < len(want[i]) && st.hb[j] != want[i][j] {
				t.Errorf("peer %d got sendcmpct %v, want %v", i, st.hb, want[i])
				break
			}
		}
		st.mu.Unlock()
	}
}

// TestCmpctServe: getdata(MSG_CMPCT_BLOCK) gets a cmpctblock for a recent
// block and the whole block for a deep one; getblocktxn gets blocktxn
// with the transactions asked for, and an index past the block's end
// scores the asker.
func TestCmpctServe(t *testing.T) {
	a := newNode(t, nil)
	f := newCmpctFixture(t, 3, a.chain)
	tip := f.mine(f.txs)
	if _, err := a.chain.ProcessBlock(tip.Block); err != nil {
		t.Fatal(err)
	}
	deep, _ := a.chain.BlockHashByHeight(tip.Height - MaxCmpctBlockDepth - 1)
	got := make(chan wire.Message, 8)
	fcfg := peer.Config{
		Net:      a.chain.Params().Net,
		Services: wire.SFNodeNetwork | wire.SFNodeWitness,
		Nonces:   peer.NewNonceSet(),
	}
	fcfg.Listeners.OnCmpctBlock = func(_ *peer.Peer, m *wire.MsgCmpctBlock) { got <- m }
	fcfg.Listeners.OnBlock = func(_ *peer.Peer, m *wire.MsgBlock) { got <- m }
	fcfg.Listeners.OnBlockTxn = func(_ *peer.Peer, m *wire.MsgBlockTxn) { got <- m }
	fake, in := connectFake(t, a, &fcfg)
	next := func() wire.Message {
		t.Helper()
		select {
		case m := <-got:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
		}
		return nil
	}
	fake.QueueMessage(&wire.MsgGetData{InvList: []wire.InvVect{
		{Type: wire.InvTypeCmpctBlock, Hash: tip.Hash}, {Type: wire.InvTypeCmpctBlock, Hash: deep}}}, nil)
	if c, ok := next().(*wire.MsgCmpctBlock); !ok || c.Header.BlockHash() != tip.Hash || len(c.ShortIDs) != 3 {
		t.Fatalf("recent block not served compact")
	}
	if b, ok := next().(*wire.MsgBlock); !ok || b.BlockHash() != deep {
		t.Fatalf("deep block not served whole")
	}
	fake.QueueMessage(&wire.MsgGetBlockTxn{BlockHash: tip.Hash, Indexes: []uint32{1, 3}}, nil)
	bt, ok := next().(*wire.MsgBlockTxn)
	if !ok || len(bt.Transactions) != 2 || bt.Transactions[0].WitnessHash() != f.txs[0].WitnessHash() ||
		bt.Transactions[1].WitnessHash() != f.txs[2].WitnessHash() {
		t.Fatalf("blocktxn does not hold transactions 1 and 3 with witnesses")
	}
	fake.QueueMessage(&wire.MsgGetBlockTxn{BlockHash: tip.Hash, Indexes: []uint32{4}}, nil)
	select {
	case <-in.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("peer asking for an out-of-range index was not dropped")
	}
	if s := in.BanScore(); s < PenaltyBadCmpct {
		t.Fatalf("ban score %d", s)
	}
}
