package node

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// fakePeer speaks the P2P protocol over raw TCP with wire.WriteMessage. It
// serves headers from src's chain and answers getdata as onGetData says.
type fakePeer struct {
	conn     net.Conn
	net      wire.BitcoinNet
	src      *testNode
	gotData  chan struct{}
	closed   chan struct{}
	onGetDat func(f *fakePeer, m *wire.MsgGetData)
	// headers, when set, answers every getheaders instead of src.
	headers func() []wire.BlockHeader
}

func dialFakePeer(t *testing.T, to string, src *testNode, onGetData func(*fakePeer, *wire.MsgGetData)) *fakePeer {
	return dialFakePeerWith(t, to, src, onGetData, nil)
}

// dialBlockServer dials a fake peer that announces hdrs and answers
// getdata with the blocks of byHash (whatever they hold).
func dialBlockServer(t *testing.T, to string, src *testNode, byHash map[wire.Hash]*wire.MsgBlock, hdrs []wire.BlockHeader) *fakePeer {
	t.Helper()
	return dialFakePeerWith(t, to, src, func(f *fakePeer, m *wire.MsgGetData) {
		for _, iv := range m.InvList {
			if blk := byHash[iv.Hash]; blk != nil {
				f.send(nil, blk)
			}
		}
	}, func() []wire.BlockHeader { return hdrs })
}

func dialFakePeerWith(t *testing.T, to string, src *testNode, onGetData func(*fakePeer, *wire.MsgGetData), headers func() []wire.BlockHeader) *fakePeer {
	t.Helper()
	c, err := net.DialTimeout("tcp", to, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakePeer{conn: c, net: src.s.cfg.params.Net, src: src, gotData: make(chan struct{}, 1),
		closed: make(chan struct{}), onGetDat: onGetData, headers: headers}
	t.Cleanup(func() { c.Close() })
	ap := netip.MustParseAddrPort(to)
	ver := &wire.MsgVersion{
		ProtocolVersion: int32(wire.ProtocolVersion),
		Services:        wire.SFNodeNetwork | wire.SFNodeWitness,
		Timestamp:       time.Now().Unix(),
		AddrYou:         wire.NetAddress{Addr: ap.Addr(), Port: ap.Port()},
		Nonce:           0x1234567890,
		UserAgent:       "/fake:0.1/",
		LastBlock:       src.s.chain.BestSnapshot().Height,
	}
	f.send(t, ver)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	for {
		_, msg, err := wire.ReadMessage(c, wire.ProtocolVersion, f.net, wire.WitnessEncoding)
		if err != nil {
			t.Fatalf("fake peer handshake: %v", err)
		}
		if _, ok := msg.(*wire.MsgVerAck); ok {
			break
		}
	}
	f.send(t, &wire.MsgVerAck{})
	c.SetDeadline(time.Time{})
	go f.serve()
	return f
}

func (f *fakePeer) send(t *testing.T, m wire.Message) {
	if _, err := wire.WriteMessage(f.conn, m, wire.ProtocolVersion, f.net, wire.WitnessEncoding); err != nil && t != nil {
		t.Fatalf("fake peer send %s: %v", m.Command(), err)
	}
}

// serve answers until the node hangs up; the loop ends with the conn.
func (f *fakePeer) serve() {
	defer close(f.closed)
	for {
		f.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		_, msg, err := wire.ReadMessage(f.conn, wire.ProtocolVersion, f.net, wire.WitnessEncoding)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return
			}
			if _, ok := err.(*wire.UnknownCommandError); ok {
				continue
			}
			return
		}
		switch m := msg.(type) {
		case *wire.MsgPing:
			f.send(nil, &wire.MsgPong{Nonce: m.Nonce})
		case *wire.MsgGetHeaders:
			var hs []wire.BlockHeader
			if f.headers != nil {
				hs = f.headers()
			} else {
				hs = f.src.s.chain.LocateHeaders(m.BlockLocatorHashes, nil, wire.MaxBlockHeadersPerMsg)
			}
			f.send(nil, &wire.MsgHeaders{Headers: hs})
		case *wire.MsgGetData:
			select {
			case f.gotData <- struct{}{}:
			default:
			}
			if f.onGetDat != nil {
				f.onGetDat(f, m)
			}
		}
	}
}

// waitClosed waits for the node to drop the fake peer.
func (f *fakePeer) waitClosed(t *testing.T, timeout time.Duration) {
	t.Helper()
	select {
	case <-f.closed:
	case <-time.After(timeout):
		t.Fatalf("node did not disconnect the fake peer within %v", timeout)
	}
}

// TestSyncInvalidBlockPeerBanned: a peer that answers getdata with a block
// whose transactions do not match its header is scored to the ban
// threshold and dropped, the block is not marked invalid (it may be a
// malleation), and the node syncs it from another peer.
func TestSyncInvalidBlockPeerBanned(t *testing.T) {
	a := newTestNode(t)
	a.mine(t, 150)
	b := newTestNode(t)
	f := dialFakePeer(t, b.s.p2pAddr(), a, func(f *fakePeer, m *wire.MsgGetData) {
		iv := m.InvList[0]
		blk, err := f.src.s.chain.BlockByHash(&iv.Hash)
		if err != nil {
			return
		}
		var bad wire.MsgBlock
		if _, err := bad.Decode(blk.Bytes()); err != nil {
			return
		}
		bad.Transactions[0].TxOut[0].Value++
		bad.ClearHashCache()
		f.send(nil, &bad)
	})
	select {
	case <-f.gotData:
	case <-time.After(20 * time.Second):
		t.Fatal("node never asked the fake peer for blocks")
	}
	// Scored 100 (the ban threshold) and dropped; the peer package does
	// not ban loopback peers, as Core does not discourage local ones.
	f.waitClosed(t, 10*time.Second)
	if err := b.s.connect(a.s.p2pAddr(), true); err != nil {
		t.Fatal(err)
	}
	sameTip(t, 30*time.Second, a, b)
}

// TestSyncStallingPeerDropped: a peer that stops answering mid-download is
// disconnected once another peer is idle waiting on it, and its blocks are
// fetched from the other peer.
func TestSyncStallingPeerDropped(t *testing.T) {
	a := newTestNode(t)
	a.mine(t, 150)
	b := newTestNode(t)
	f := dialFakePeer(t, b.s.p2pAddr(), a, nil) // never answers getdata
	select {
	case <-f.gotData:
	case <-time.After(20 * time.Second):
		t.Fatal("node never asked the fake peer for blocks")
	}
	if err := b.s.connect(a.s.p2pAddr(), true); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f.waitClosed(t, 20*time.Second)
	t.Logf("stalling peer dropped after %v", time.Since(start).Round(time.Millisecond))
	sameTip(t, 30*time.Second, a, b)
	if len(b.s.bans.List()) != 0 {
		t.Fatal("a stalling peer should be disconnected, not banned")
	}
}

// TestSyncConsensusInvalidBlock: a peer serving a chain whose block breaks
// a consensus rule (coinbase pays too much) is dropped at the ban
// threshold, the block is marked invalid, and the node syncs another
// peer's chain.
func TestSyncConsensusInvalidBlock(t *testing.T) {
	a := newTestNode(t)
	a.mine(t, 30)
	b := newTestNode(t)
	bld := chaintest.New(b.s.cfg.params)
	var blocks []*wire.MsgBlock
	for i := 0; i < 5; i++ {
		o := &chaintest.BlockOpts{}
		if i == 2 {
			o.CoinbaseExtra = 1
		}
		blocks = append(blocks, bld.NextBlock(nil, nil, o).Block)
	}
	byHash := map[wire.Hash]*wire.MsgBlock{}
	var hdrs []wire.BlockHeader
	for _, blk := range blocks {
		byHash[blk.BlockHash()] = blk
		hdrs = append(hdrs, blk.Header)
	}
	f := dialBlockServer(t, b.s.p2pAddr(), a, byHash, hdrs)
	f.waitClosed(t, 20*time.Second)
	bad := blocks[2].BlockHash()
	if st, ok := b.s.chain.LookupBlock(&bad); !ok || !st.Invalid {
		t.Fatalf("invalid block not marked invalid: %+v", st)
	}
	if h := b.s.chain.BestSnapshot().Height; h != 2 {
		t.Fatalf("B tip height %d, want 2 (the blocks before the invalid one)", h)
	}
	if err := b.s.connect(a.s.p2pAddr(), true); err != nil {
		t.Fatal(err)
	}
	sameTip(t, 30*time.Second, a, b)
}

// TestSyncMutatedBlockPeerDropped: a peer answering getdata with a block
// whose transactions do not match its header's merkle root (the check
// the sync manager runs on the peer's goroutine) is dropped, the hash is
// not marked invalid (the header may be fine), and the node syncs it from
// another peer.
func TestSyncMutatedBlockPeerDropped(t *testing.T) {
	a := newTestNode(t)
	a.mine(t, 5)
	b := newTestNode(t)
	var hdrs []wire.BlockHeader
	byHash := map[wire.Hash]*wire.MsgBlock{}
	for h := int32(1); h <= 5; h++ {
		hash, ok := a.s.chain.BlockHashByHeight(h)
		if !ok {
			t.Fatalf("no block at %d", h)
		}
		good, err := a.s.chain.BlockByHash(&hash)
		if err != nil {
			t.Fatal(err)
		}
		blk := good
		if h == 3 {
			// Same header, different coinbase: the merkle root no
			// longer matches.
			cp := *good
			cb := *good.Transactions[0]
			cb.TxOut = append([]wire.TxOut(nil), cb.TxOut...)
			cb.TxOut[0].Value--
			cp.Transactions = append([]*wire.MsgTx{&cb}, good.Transactions[1:]...)
			cp.ClearHashCache()
			blk = &cp
		}
		byHash[hash] = blk
		hdrs = append(hdrs, good.Header)
	}
	f := dialBlockServer(t, b.s.p2pAddr(), a, byHash, hdrs)
	f.waitClosed(t, 20*time.Second)
	bad := hdrs[2].BlockHash()
	if st, ok := b.s.chain.LookupBlock(&bad); ok && st.Invalid {
		t.Fatalf("mutated block's hash marked invalid: %+v", st)
	}
	if h := b.s.chain.BestSnapshot().Height; h != 2 {
		t.Fatalf("B tip height %d, want 2 (the blocks before the mutated one)", h)
	}
	if err := b.s.connect(a.s.p2pAddr(), true); err != nil {
		t.Fatal(err)
	}
	sameTip(t, 30*time.Second, a, b)
}

// TestSyncInvalidHeadersPeerDropped: headers that fail proof of work are
// scored to the ban threshold and the peer is dropped without any of
// them entering the header tree.
func TestSyncInvalidHeadersPeerDropped(t *testing.T) {
	a := newTestNode(t)
	a.mine(t, 20)
	b := newTestNode(t)
	hdrs := a.s.chain.LocateHeaders(nil, nil, 2000)
	// Regtest's target admits about every other hash: grind the nonce of
	// the third header until its hash fails the target.
	for {
		hdrs[2].Nonce++
		h := hdrs[2].BlockHash()
		if h[31] >= 0x80 {
			break
		}
	}
	f := dialFakePeerWith(t, b.s.p2pAddr(), a, nil, func() []wire.BlockHeader { return hdrs })
	f.waitClosed(t, 20*time.Second)
	if _, h := b.s.chain.BestHeader(); h != 2 {
		t.Fatalf("best header height %d, want 2 (the headers before the bad one)", h)
	}
}

// utxoStats flushes a node and returns its UTXO set statistics.
func utxoStats(t testing.TB, n *testNode) (outputs uint64, amount int64, hash [32]byte) {
	t.Helper()
	if err := n.s.chain.Flush(); err != nil {
		t.Fatal(err)
	}
	st, err := n.s.cs.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return st.Outputs, st.TotalAmount, st.Hash
}

// TestSyncFollowAndReorg: node B syncs A's chain (with transactions)
// through headers-first download, follows new blocks, and both reorganize
// to a longer chain mined by C.
func TestSyncFollowAndReorg(t *testing.T) {
	a := newTestNode(t)
	a.mine(t, 110)
	txs := 0
	for h := int32(1); h <= 10; h++ {
		txs += a.addTxs(t, h, 8)
		a.mine(t, 1)
	}
	a.mine(t, 80)
	if a.s.pool.Count() != 0 {
		t.Fatalf("mempool not emptied by mining: %d", a.s.pool.Count())
	}

	b := newTestNode(t, "--connect="+a.s.p2pAddr())
	sameTip(t, 60*time.Second, a, b)
	oa, va, ha := utxoStats(t, a)
	ob, vb, hb := utxoStats(t, b)
	if oa != ob || va != vb || ha != hb {
		t.Fatalf("UTXO sets differ: A %d/%d/%x B %d/%d/%x", oa, va, ha, ob, vb, hb)
	}
	blocks, btxs := b.s.sync.Processed()
	t.Logf("B synced %d blocks, %d transactions (%d non-coinbase made)", blocks, btxs, txs)

	// B follows blocks A mines now, with transactions relayed to B's
	// mempool first.
	a.addTxs(t, 20, 4)
	waitFor(t, 60*time.Second, "transactions relayed to B", func() bool { return b.s.pool.Count() == 5 })
	a.mine(t, 3)
	sameTip(t, 20*time.Second, a, b)
	if b.s.pool.Count() != 0 {
		t.Fatalf("B's mempool keeps %d mined transactions", b.s.pool.Count())
	}

	// C mines a longer chain of its own and connects to A; A and B
	// reorganize to it.
	c := newTestNode(t)
	ha0 := a.s.chain.BestSnapshot().Height
	c.mine(t, int(ha0)+5)
	if err := c.s.connect(a.s.p2pAddr(), true); err != nil {
		t.Fatal(err)
	}
	sameTip(t, 60*time.Second, c, a)
	sameTip(t, 60*time.Second, c, b)
}
