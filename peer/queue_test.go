package peer

import (
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func bigInv(n int, seed byte) *wire.MsgInv {
	m := &wire.MsgInv{InvList: make([]wire.InvVect, n)}
	for i := range m.InvList {
		m.InvList[i] = wire.InvVect{Type: wire.InvTypeBlock}
		m.InvList[i].Hash[0] = seed
		m.InvList[i].Hash[1] = byte(i)
		m.InvList[i].Hash[2] = byte(i >> 8)
	}
	return m
}

// A peer that never reads is disconnected once the queue would pass the
// hard cap, and the queue never holds more than the cap.
func TestWriteQueueBound(t *testing.T) {
	cfg := baseConfig()
	cfg.MaxQueuedBytes = 200_000
	cfg.SendBufferSize = 100_000
	p, r := newInboundWithRemote(t, cfg, "203.0.113.3:1")
	r.handshake()
	if !p.WaitForHandshake() {
		t.Fatal(p.Err())
	}
	// Let the post-handshake ping out, then stop reading for good.
	r.recvUntil(wire.CmdPing)
	msg := bigInv(1000, 1) // 36 kB
	var err error
	maxSeen := 0
	for i := 0; i < 100 && err == nil; i++ {
		err = p.QueueMessage(msg, nil)
		maxSeen = max(maxSeen, p.QueuedBytes())
	}
	if !errors.Is(err, ErrSendQueueFull) {
		t.Fatalf("err %v", err)
	}
	if maxSeen > cfg.MaxQueuedBytes {
		t.Fatalf("queued %d bytes, cap %d", maxSeen, cfg.MaxQueuedBytes)
	}
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrSendQueueFull) {
		t.Fatalf("peer err %v", p.Err())
	}
	if q := p.QueuedBytes(); q != 0 {
		t.Fatalf("%d bytes still accounted after disconnect", q)
	}
}

// QueueMessageWait holds the caller while the queue is above the soft
// limit and lets it go as the remote reads.
func TestQueueMessageWait(t *testing.T) {
	cfg := baseConfig()
	cfg.SendBufferSize = 50_000
	cfg.MaxQueuedBytes = 200_000
	p, r := newInboundWithRemote(t, cfg, "203.0.113.3:1")
	r.handshake()
	if !p.WaitForHandshake() {
		t.Fatal(p.Err())
	}
	r.recvUntil(wire.CmdPing)
	msg := bigInv(1000, 2)
	const n = 20 // 720 kB in all, far over the hard cap if not paced
	done := make(chan error, 1)
	var maxSeen int
	var mu sync.Mutex
	go func() {
		for range n {
			if err := p.QueueMessageWait(msg, wire.WitnessEncoding); err != nil {
				done <- err
				return
			}
			mu.Lock()
			maxSeen = max(maxSeen, p.QueuedBytes())
			mu.Unlock()
		}
		done <- nil
	}()
	got := 0
	for got < n {
		m, err := r.recv()
		if err != nil {
			t.Fatal(err)
		}
		if m.Command() == wire.CmdInv {
			got++
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if maxSeen > cfg.SendBufferSize+36_100 {
		t.Fatalf("queue reached %d bytes", maxSeen)
	}
}

// TestControlBeforeData: a ping goes out before queued data, a pong after
// the block queued before it (Core's test framework sends getdata, then a
// ping, and expects the block before the pong), and trickled
// announcements last.
func TestControlBeforeData(t *testing.T) {
	var q writeQueue
	cfg := baseConfig()
	cfg.applyDefaults(true)
	q.init(cfg)
	mk := func(cmd string) outMsg { b := make([]byte, 10); return outMsg{buf: &b, cmd: cmd} }
	q.push(mk("inv"), prioTrickle)
	q.push(mk(wire.CmdBlock), priorityOf(wire.CmdBlock))
	q.push(mk(wire.CmdPong), priorityOf(wire.CmdPong))
	q.push(mk(wire.CmdPing), priorityOf(wire.CmdPing))
	var order []string
	for {
		m, ok := q.pop()
		if !ok {
			break
		}
		order = append(order, m.cmd)
	}
	if want := []string{wire.CmdPing, wire.CmdBlock, wire.CmdPong, "inv"}; !slices.Equal(order, want) {
		t.Fatalf("order %v", order)
	}
}

func TestTxTrickle(t *testing.T) {
	outCfg, inCfg := baseConfig(), baseConfig()
	invs := make(chan *wire.MsgInv, 10)
	inCfg.Listeners.OnInv = func(p *Peer, m *wire.MsgInv) { invs <- m }
	out, in := pipePair(t, outCfg, inCfg)
	if !out.WaitForHandshake() || !in.WaitForHandshake() {
		t.Fatal("handshake")
	}
	// Wait for in's feefilter-free state, then queue two transactions and a
	// duplicate; one announcement carries both, by wtxid.
	var txid1, wtxid1, txid2, wtxid2 wire.Hash
	txid1[0], wtxid1[0], txid2[0], wtxid2[0] = 1, 2, 3, 4
	out.QueueTxInventory(txid1, wtxid1, 1000)
	out.QueueTxInventory(txid2, wtxid2, 1000)
	out.QueueTxInventory(txid2, wtxid2, 1000)
	var got []wire.InvVect
	deadline := time.After(5 * time.Second)
	for len(got) < 2 {
		select {
		case m := <-invs:
			got = append(got, m.InvList...)
		case <-deadline:
			t.Fatalf("got %v", got)
		}
	}
	if len(got) != 2 || got[0].Type != wire.InvTypeWTx || got[0].Hash != wtxid1 || got[1].Hash != wtxid2 {
		t.Fatalf("announced %v", got)
	}
	// Known now: not announced again. Below the fee filter: not announced.
	out.QueueTxInventory(txid1, wtxid1, 1000)
	if out.PendingInventory() != 0 {
		t.Fatal("known transaction queued again")
	}
	out.feeFilter.Store(5000)
	var txid3, wtxid3 wire.Hash
	txid3[0], wtxid3[0] = 5, 6
	out.QueueTxInventory(txid3, wtxid3, 1000)
	if out.PendingInventory() != 0 {
		t.Fatal("transaction below fee filter queued")
	}
	// Blocks go at once, once.
	var bh wire.Hash
	bh[0] = 9
	out.QueueInventory(wire.InvVect{Type: wire.InvTypeBlock, Hash: bh})
	out.QueueInventory(wire.InvVect{Type: wire.InvTypeBlock, Hash: bh})
	select {
	case m := <-invs:
		if len(m.InvList) != 1 || m.InvList[0].Hash != bh {
			t.Fatalf("block inv %v", m.InvList)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no block inv")
	}
	select {
	case m := <-invs:
		t.Fatalf("duplicate inv %v", m.InvList)
	case <-time.After(100 * time.Millisecond):
	}
}

// Pending announcements are bounded however fast they are queued.
func TestPendingInventoryBound(t *testing.T) {
	outCfg, inCfg := baseConfig(), baseConfig()
	outCfg.TrickleInterval = time.Hour
	out, in := pipePair(t, outCfg, inCfg)
	if !out.WaitForHandshake() || !in.WaitForHandshake() {
		t.Fatal("handshake")
	}
	var h wire.Hash
	for i := range maxPendingInv + 100 {
		h[0], h[1], h[2], h[3] = byte(i), byte(i>>8), byte(i>>16), 1
		out.QueueTxInventory(h, h, 0)
	}
	if n := out.PendingInventory(); n != maxPendingInv {
		t.Fatalf("%d pending, want %d", n, maxPendingInv)
	}
	// One trickle sends at most MaxInvPerTrickle.
	out.flushInventory()
	if n := out.PendingInventory(); n != maxPendingInv-MaxInvPerTrickle {
		t.Fatalf("%d pending after a trickle", n)
	}
}

func TestBlocksOnlyRejectsTx(t *testing.T) {
	cfg := baseConfig()
	cfg.DisableRelayTx = true
	p, r := newInboundWithRemote(t, cfg, "203.0.113.3:1")
	r.handshake()
	r.drain()
	if !p.WaitForHandshake() {
		t.Fatal(p.Err())
	}
	r.send(&wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeWTx}}})
	waitDone(t, p, 5*time.Second)
	if !errors.Is(p.Err(), ErrProtocolViolation) {
		t.Fatalf("err %v", p.Err())
	}
}

func BenchmarkQueueInv(b *testing.B) {
	cfg := baseConfig()
	cfg.MaxQueuedBytes = 1 << 30
	c1, c2 := pipeConns()
	defer c2.Close()
	p := NewInbound(cfg, c1)
	msg := bigInv(10, 3)
	b.ReportAllocs()
	for b.Loop() {
		bp, err := p.encode(msg, wire.WitnessEncoding)
		if err != nil {
			b.Fatal(err)
		}
		wire.PutBuffer(bp)
	}
}

// BenchmarkPeerInvThroughput measures one inv message end to end: encode,
// queue, write, read, decode and dispatch between two peers on a pipe.
func BenchmarkPeerInvThroughput(b *testing.B) {
	outCfg, inCfg := baseConfig(), baseConfig()
	got := make(chan struct{}, 1024)
	inCfg.Listeners.OnInv = func(*Peer, *wire.MsgInv) { got <- struct{}{} }
	c1, c2 := net.Pipe()
	out := NewOutbound(outCfg, withAddr(c1, "198.51.100.2:1"), "198.51.100.2:1")
	in := NewInbound(inCfg, withAddr(c2, "198.51.100.1:1"))
	out.Start()
	in.Start()
	defer func() { out.Disconnect(); in.Disconnect(); <-out.Done(); <-in.Done() }()
	if !out.WaitForHandshake() || !in.WaitForHandshake() {
		b.Fatal("handshake")
	}
	msg := bigInv(10, 4)
	b.ReportAllocs()
	for b.Loop() {
		if err := out.QueueMessageWait(msg, wire.WitnessEncoding); err != nil {
			b.Fatal(err)
		}
		<-got
	}
}

func TestSharedTrickleClock(t *testing.T) {
	c := NewTrickleClock(50 * time.Millisecond)
	now := time.Now()
	a := c.nextAfter(now)
	b := c.nextAfter(now.Add(time.Nanosecond))
	if !a.Equal(b) && a.After(now.Add(time.Nanosecond)) {
		t.Fatal("peers asking before the next tick got different times")
	}
	later := c.nextAfter(a.Add(time.Millisecond))
	if !later.After(a) {
		t.Fatal("clock did not advance")
	}
	// Inbound peers using the clock still announce.
	outCfg, inCfg := baseConfig(), baseConfig()
	inCfg.InboundTrickle = NewTrickleClock(10 * time.Millisecond)
	invs := make(chan *wire.MsgInv, 1)
	outCfg.Listeners.OnInv = func(p *Peer, m *wire.MsgInv) { invs <- m }
	out, in := pipePair(t, outCfg, inCfg)
	if !out.WaitForHandshake() || !in.WaitForHandshake() {
		t.Fatal("handshake")
	}
	var h wire.Hash
	h[0] = 42
	in.QueueTxInventory(h, h, 0)
	select {
	case m := <-invs:
		if m.InvList[0].Hash != h {
			t.Fatal(m.InvList)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no announcement")
	}
}

// A queue that never empties keeps a bounded backing array.
func TestFifoReclaims(t *testing.T) {
	var f fifo
	b := []byte{1}
	for range 10 {
		f.push(outMsg{buf: &b})
	}
	for range 100000 {
		f.push(outMsg{buf: &b})
		if _, ok := f.pop(); !ok {
			t.Fatal("empty")
		}
	}
	if live := len(f.items) - f.head; live != 10 || cap(f.items) > 256 {
		t.Fatalf("capacity %d for %d live items", cap(f.items), live)
	}
}

// OnQueue sees each message's encoded size as it is queued, while the
// remote has not read it yet.
func TestOnQueueBeforeWrite(t *testing.T) {
	cfg := baseConfig()
	var mu sync.Mutex
	queued := map[string]int{}
	cfg.Listeners.OnQueue = func(_ *Peer, n int, cmd string) {
		mu.Lock()
		queued[cmd] += n
		mu.Unlock()
	}
	p, r := newInboundWithRemote(t, cfg, "203.0.113.3:1")
	r.handshake()
	if !p.WaitForHandshake() {
		t.Fatal(p.Err())
	}
	r.recvUntil(wire.CmdPing)
	// The remote reads nothing more.
	msg := bigInv(1000, 3)
	if err := p.QueueMessage(msg, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := queued[wire.CmdInv]
	mu.Unlock()
	if want := wire.MessageHeaderSize + 3 + 1000*wire.InvVectSize; got != want {
		t.Fatalf("OnQueue saw %d inv bytes, want %d", got, want)
	}
}
