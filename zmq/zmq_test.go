package zmq

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

const testTimeout = 10 * time.Second

// freeAddr picks a loopback port that is free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return "tcp://127.0.0.1:" + strconv.Itoa(port)
}

func newNotifier(t *testing.T, cfg Config) *Notifier {
	t.Helper()
	n, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(n.Close)
	return n
}

// dialSub connects a real zmq4 SUB socket and subscribes to topics, then
// waits until the publisher has registered the subscriptions (ZeroMQ
// subscriptions are asynchronous).
func dialSub(t *testing.T, n *Notifier, addr string, topics ...string) zmq4.Socket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	sub := zmq4.NewSub(ctx)
	t.Cleanup(func() { sub.Close() })
	if err := sub.Dial(addr); err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	for _, tp := range topics {
		if err := sub.SetOption(zmq4.OptionSubscribe, tp); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool {
		for _, p := range n.pubs {
			if p.address != addr {
				continue
			}
			for _, tp := range topics {
				if bytes.HasPrefix([]byte(topicNames[p.topic]), []byte(tp)) && !p.sock.wants(p.topic) {
					return false
				}
			}
		}
		return true
	})
	return sub
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// expect receives one message and checks its three frames.
func expect(t *testing.T, sub zmq4.Socket, topic string, body []byte, seq uint32) {
	t.Helper()
	msg, err := sub.Recv()
	if err != nil {
		t.Fatalf("recv %s: %v", topic, err)
	}
	if len(msg.Frames) != 3 {
		t.Fatalf("got %d frames, want 3", len(msg.Frames))
	}
	if got := string(msg.Frames[0]); got != topic {
		t.Fatalf("topic %q, want %q", got, topic)
	}
	if !bytes.Equal(msg.Frames[1], body) {
		t.Fatalf("%s body %x, want %x", topic, msg.Frames[1], body)
	}
	if len(msg.Frames[2]) != 4 || binary.LittleEndian.Uint32(msg.Frames[2]) != seq {
		t.Fatalf("%s sequence frame %x, want %d", topic, msg.Frames[2], seq)
	}
}

func testTx(tag byte, witness bool, scriptLen int) *wire.MsgTx {
	tx := &wire.MsgTx{Version: 2, LockTime: uint32(tag)}
	in := wire.TxIn{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{tag, 1}, Index: 1}, Sequence: 0xfffffffd}
	if witness {
		in.Witness = [][]byte{bytes.Repeat([]byte{tag}, 72), {2, 3}}
	}
	tx.TxIn = []wire.TxIn{in}
	tx.TxOut = []wire.TxOut{{Value: 5000, PkScript: bytes.Repeat([]byte{0x51}, scriptLen)}}
	return tx
}

func testBlock() *wire.MsgBlock {
	cb := &wire.MsgTx{Version: 1, TxIn: []wire.TxIn{{
		PreviousOutPoint: wire.OutPoint{Index: 0xffffffff},
		SignatureScript:  []byte{1, 2, 3},
		Sequence:         0xffffffff,
	}}, TxOut: []wire.TxOut{{Value: 50e8, PkScript: []byte{0x51}}}}
	return &wire.MsgBlock{
		Header:       wire.BlockHeader{Version: 4, Timestamp: 1700000000, Bits: 0x207fffff, Nonce: 7},
		Transactions: []*wire.MsgTx{cb, testTx(9, true, 300)},
	}
}

func rev(h wire.Hash) []byte {
	b := make([]byte, 32)
	for i := range b {
		b[i] = h[31-i]
	}
	return b
}

func seqBody(h wire.Hash, label byte, mseq uint64, withSeq bool) []byte {
	b := append(rev(h), label)
	if withSeq {
		b = binary.LittleEndian.AppendUint64(b, mseq)
	}
	return b
}

// TestSharedSocketFrames checks the exact frames of every event on one
// address shared by all five topics, with per-topic counters.
func TestSharedSocketFrames(t *testing.T) {
	addr := freeAddr(t)
	all := []string{addr}
	n := newNotifier(t, Config{
		PubHashBlock: all, PubHashTx: all, PubRawBlock: all, PubRawTx: all, PubSequence: all,
		PubHashBlockHWM: DefaultHWM, PubHashTxHWM: DefaultHWM, PubRawBlockHWM: DefaultHWM,
		PubRawTxHWM: DefaultHWM, PubSequenceHWM: DefaultHWM,
	})
	sub := dialSub(t, n, addr, "hashblock", "hashtx", "rawblock", "rawtx", "sequence")

	block := testBlock()
	cb, tx := block.Transactions[0], block.Transactions[1]
	raw := func(tx *wire.MsgTx) []byte { return tx.AppendTo(nil, true) }

	n.TxAccepted(tx, 7)
	expect(t, sub, "hashtx", rev(tx.TxHash()), 0)
	expect(t, sub, "rawtx", raw(tx), 0)
	expect(t, sub, "sequence", seqBody(tx.TxHash(), 'A', 7, true), 0)

	n.BlockConnected(block)

	n.TipChanged()
	expect(t, sub, "hashtx", rev(cb.TxHash()), 1)
	expect(t, sub, "rawtx", raw(cb), 1)
	expect(t, sub, "hashtx", rev(tx.TxHash()), 2)
	expect(t, sub, "rawtx", raw(tx), 2)
	expect(t, sub, "sequence", seqBody(block.BlockHash(), 'C', 0, false), 1)
	expect(t, sub, "hashblock", rev(block.BlockHash()), 0)
	expect(t, sub, "rawblock", block.AppendTo(nil, true), 0)

	removed := testTx(3, false, 10).TxHash()
	n.TxRemoved(removed, 9)
	expect(t, sub, "sequence", seqBody(removed, 'R', 9, true), 2)

	n.BlockDisconnected(block)
	expect(t, sub, "hashtx", rev(cb.TxHash()), 3)
	expect(t, sub, "rawtx", raw(cb), 3)
	expect(t, sub, "hashtx", rev(tx.TxHash()), 4)
	expect(t, sub, "rawtx", raw(tx), 4)
	expect(t, sub, "sequence", seqBody(block.BlockHash(), 'D', 0, false), 3)

	// While syncing, hashblock/rawblock stay quiet (bitcoind skips them in
	// IBD) but the block is still sequenced.
	n.SetSyncing(true)
	n.BlockConnected(block)
	n.TipChanged()
	expect(t, sub, "hashtx", rev(cb.TxHash()), 5)
	expect(t, sub, "rawtx", raw(cb), 5)
	expect(t, sub, "hashtx", rev(tx.TxHash()), 6)
	expect(t, sub, "rawtx", raw(tx), 6)
	expect(t, sub, "sequence", seqBody(block.BlockHash(), 'C', 0, false), 4)
	n.SetSyncing(false)
	n.TxRemoved(removed, 10)
	expect(t, sub, "sequence", seqBody(removed, 'R', 10, true), 5)

	st := n.Stats()
	if len(st) != 5 || st[0].Type != "pubhashblock" || st[0].Sequence != 1 || st[4].Sequence != 6 || st[4].Subscribers != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestSeparateAddresses uses a TCP and an IPC publisher and a prefix
// subscription; each address only carries its own topics and counters.
func TestSeparateAddresses(t *testing.T) {
	tcp := freeAddr(t)
	ipc := "ipc://" + filepath.Join(t.TempDir(), "zmq.sock")
	n := newNotifier(t, Config{
		PubHashBlock: []string{tcp}, PubHashTx: []string{tcp},
		PubSequence: []string{ipc}, PubRawTx: []string{ipc},
		PubHashBlockHWM: 10, PubHashTxHWM: 10, PubSequenceHWM: 10, PubRawTxHWM: 10,
	})
	hashSub := dialSub(t, n, tcp, "hash")
	seqSub := dialSub(t, n, ipc, "sequence")

	block := testBlock()
	n.BlockConnected(block)
	n.TipChanged()
	tx := testTx(4, true, 20)
	n.TxAccepted(tx, 1)

	expect(t, hashSub, "hashtx", rev(block.Transactions[0].TxHash()), 0)
	expect(t, hashSub, "hashtx", rev(block.Transactions[1].TxHash()), 1)
	expect(t, hashSub, "hashblock", rev(block.BlockHash()), 0)
	expect(t, hashSub, "hashtx", rev(tx.TxHash()), 2)

	// rawtx was published on the IPC socket too (counting 0..2) but this
	// subscriber only wants sequence.
	expect(t, seqSub, "sequence", seqBody(block.BlockHash(), 'C', 0, false), 0)
	expect(t, seqSub, "sequence", seqBody(tx.TxHash(), 'A', 1, true), 1)
	st := n.Stats()
	if st[2].Type != "pubrawtx" || st[2].Sequence != 3 {
		t.Fatalf("stats %+v", st)
	}
}

// rawSub is a hand-driven subscriber that handshakes, subscribes and then
// never reads: the slowest possible subscriber.
func rawSub(t *testing.T, addr string, topic string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr[len("tcp://"):], testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(testTimeout))
	zc, err := zmq4.Open(c, null.Security(), zmq4.Sub, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := zc.SendMsg(zmq4.NewMsg(append([]byte{1}, topic...))); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSlowSubscriberNeverBlocks publishes far more than a stalled
// subscriber's queue and the socket buffers hold; publishing must stay
// fast and the excess must be dropped and counted.
func TestSlowSubscriberNeverBlocks(t *testing.T) {
	addr := freeAddr(t)
	n := newNotifier(t, Config{PubRawTx: []string{addr}, PubHashTx: []string{addr}, PubRawTxHWM: 4, PubHashTxHWM: 4})

	// No subscriber at all: counters advance, nothing is built.
	tx := testTx(1, true, 64<<10)
	for i := range 100 {
		n.TxAccepted(tx, uint64(i))
	}
	if st := n.Stats(); st[0].Sequence != 100 || st[1].Sequence != 100 || st[1].Dropped != 0 {
		t.Fatalf("stats %+v", st)
	}

	rawSub(t, addr, "rawtx")
	waitFor(t, func() bool { return n.byTopic[topicRawTx][0].sock.wants(topicRawTx) })
	// A healthy subscriber on the same socket keeps receiving.
	fast := dialSub(t, n, addr, "hashtx")

	start := time.Now()
	const events = 400 // 400 × 64 KiB ≈ 26 MB, beyond any loopback buffer
	for i := range events {
		n.TxAccepted(tx, uint64(i))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("publishing took %v", d)
	}
	waitFor(t, func() bool { return n.Stats()[1].Dropped > 0 })
	st := n.Stats()
	if st[1].Type != "pubrawtx" || st[1].Sequence != 100+events || st[1].Dropped >= events {
		t.Fatalf("stats %+v", st)
	}
	// The fast subscriber gets hashtx messages despite its peer being
	// stuck (its own queue holds 4, the rest may drop).
	msg, err := fast.Recv()
	if err != nil || string(msg.Frames[0]) != "hashtx" {
		t.Fatalf("fast subscriber: %v %q", err, msg.Frames)
	}
	// Close must not hang on the stuck subscriber.
	done := make(chan struct{})
	go func() { n.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatal("Close hung")
	}
}

func TestBadConfig(t *testing.T) {
	cases := []struct {
		cfg  Config
		want error
		opt  string
	}{
		{Config{PubHashBlock: []string{"udp://127.0.0.1:1"}}, ErrBadAddress, "--zmqpubhashblock"},
		{Config{PubRawTx: []string{"inproc://x"}}, ErrBadAddress, "--zmqpubrawtx"},
		{Config{PubHashTx: []string{"tcp://127.0.0.1"}}, ErrBadAddress, "--zmqpubhashtx"},
		{Config{PubHashTx: []string{"tcp://:28332"}}, ErrBadAddress, "--zmqpubhashtx"},
		{Config{PubRawBlock: []string{"tcp://127.0.0.1:99999"}}, ErrBadAddress, "--zmqpubrawblock"},
		{Config{PubSequence: []string{"ipc://"}}, ErrBadAddress, "--zmqpubsequence"},
		{Config{PubSequence: []string{"127.0.0.1:28332"}}, ErrBadAddress, "--zmqpubsequence"},
		{Config{PubSequence: []string{freeAddr(t)}, PubSequenceHWM: -1}, ErrBadHWM, "--zmqpubsequencehwm"},
	}
	for _, c := range cases {
		n, err := New(c.cfg)
		if !errors.Is(err, c.want) || !bytes.Contains([]byte(err.Error()), []byte(c.opt)) {
			t.Errorf("%+v: got %v, want %v naming %s", c.cfg, err, c.want, c.opt)
		}
		if n != nil {
			n.Close()
		}
	}

	// An address already in use fails at New, and nothing stays bound.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	free := freeAddr(t)
	busy := "tcp://" + ln.Addr().String()
	if _, err := New(Config{PubHashBlock: []string{free}, PubRawBlock: []string{busy}}); !errors.Is(err, ErrBind) {
		t.Fatalf("busy address: %v", err)
	}
	n := newNotifier(t, Config{PubHashBlock: []string{free}})
	n.Close()

	// No publishers: nil notifier, all calls are no-ops.
	n, err = New(Config{})
	if n != nil || err != nil {
		t.Fatalf("empty config: %v %v", n, err)
	}
	n.BlockConnected(testBlock())
	n.TipChanged()
	n.TxAccepted(testTx(1, false, 1), 1)
	n.TxRemoved(wire.Hash{}, 1)
	n.BlockDisconnected(testBlock())
	n.Close()
	if eps := n.Endpoints(); eps == nil || len(eps) != 0 {
		t.Fatalf("nil endpoints %v", eps)
	}
}

func TestEndpoints(t *testing.T) {
	a, b := freeAddr(t), freeAddr(t)
	sock := filepath.Join(t.TempDir(), "s")
	n := newNotifier(t, Config{
		PubSequence: []string{"unix:" + sock}, PubRawTx: []string{a},
		PubHashTx: []string{a, b}, PubHashBlock: []string{b},
		PubHashTxHWM: 5, PubHashBlockHWM: DefaultHWM,
	})
	got := n.Endpoints()
	want := []Endpoint{
		{"pubhashblock", b, DefaultHWM},
		{"pubhashtx", a, 5},
		{"pubhashtx", b, 5},
		{"pubrawtx", a, 0},
		{"pubsequence", "ipc://" + sock, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("endpoint %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(n.socks) != 3 {
		t.Fatalf("%d sockets, want 3 (shared addresses)", len(n.socks))
	}
}

// TestHostileSubscriber sends an oversized frame and a malformed READY;
// the publisher drops them and keeps serving.
func TestHostileSubscriber(t *testing.T) {
	addr := freeAddr(t)
	n := newNotifier(t, Config{PubHashBlock: []string{addr}, PubHashBlockHWM: 10})
	hostPort := addr[len("tcp://"):]
	greeting := make([]byte, 64)
	greeting[0], greeting[9], greeting[10] = 0xff, 0x7f, 3
	copy(greeting[12:], "NULL")
	bad := [][]byte{
		// READY frame announcing 2^62 bytes.
		{0x06, 0x40, 0, 0, 0, 0, 0, 0, 0},
		// READY whose property length runs past the body.
		{0x04, 12, 5, 'R', 'E', 'A', 'D', 'Y', 11, 'S', 'o', 'c', 'k', 'e'},
		// Non-ZMTP garbage instead of a greeting is covered by zmq4.
	}
	for _, frame := range bad {
		c, err := net.DialTimeout("tcp", hostPort, testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(testTimeout))
		c.Write(append(append([]byte{}, greeting...), frame...))
		// The publisher must hang up on us.
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Fatal("publisher kept a hostile connection open")
				}
				break
			}
		}
		c.Close()
	}
	sub := dialSub(t, n, addr, "hashblock")
	block := testBlock()
	n.BlockConnected(block)
	n.TipChanged()
	expect(t, sub, "hashblock", rev(block.BlockHash()), 0)
}

// drainSub connects a hand-driven subscriber to every topic that reads
// and discards everything, for benchmarks.
func drainSub(b *testing.B, n *Notifier, addr string) {
	c, err := net.DialTimeout("tcp", addr[len("tcp://"):], testTimeout)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	zc, err := zmq4.Open(c, null.Security(), zmq4.Sub, nil, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := zc.SendMsg(zmq4.NewMsg([]byte{1})); err != nil {
		b.Fatal(err)
	}
	go io.Copy(io.Discard, c)
	deadline := time.Now().Add(testTimeout)
	for !n.wants(topicSequence) {
		if time.Now().After(deadline) {
			b.Fatal("no subscription")
		}
		time.Sleep(time.Millisecond)
	}
}

func benchNotifier(b *testing.B) (*Notifier, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := "tcp://" + ln.Addr().String()
	ln.Close()
	all := []string{addr}
	n, err := New(Config{PubHashBlock: all, PubHashTx: all, PubRawBlock: all, PubRawTx: all, PubSequence: all,
		PubHashBlockHWM: DefaultHWM, PubHashTxHWM: DefaultHWM, PubRawBlockHWM: DefaultHWM,
		PubRawTxHWM: DefaultHWM, PubSequenceHWM: DefaultHWM})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(n.Close)
	return n, addr
}

func BenchmarkTxAcceptedNoSubscriber(b *testing.B) {
	n, _ := benchNotifier(b)
	tx := testTx(1, true, 25)
	b.ReportAllocs()
	for i := range b.N {
		n.TxAccepted(tx, uint64(i))
	}
}

func BenchmarkTxAcceptedSubscribed(b *testing.B) {
	n, addr := benchNotifier(b)
	drainSub(b, n, addr)
	tx := testTx(1, true, 25)
	b.ReportAllocs()
	for i := range b.N {
		n.TxAccepted(tx, uint64(i))
	}
}

func BenchmarkBlockConnectedSubscribed(b *testing.B) {
	n, addr := benchNotifier(b)
	drainSub(b, n, addr)
	block := testBlock()
	for i := range 2000 {
		block.Transactions = append(block.Transactions, testTx(byte(i), i%2 == 0, 25))
	}
	b.ReportAllocs()
	b.SetBytes(int64(block.SerializeSize()))
	for range b.N {
		n.BlockConnected(block)
		n.TipChanged()
	}
}

// TestIPCStaleSocket binds over a socket file left by a dead process (as
// libzmq does) but refuses one that something still listens on.
func TestIPCStaleSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stale.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{PubRawTx: []string{"ipc://" + path}}); !errors.Is(err, ErrBind) {
		t.Fatalf("live socket file: %v", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	n := newNotifier(t, Config{PubRawTx: []string{"ipc://" + path}, PubRawTxHWM: 1})
	sub := dialSub(t, n, "ipc://"+path, "rawtx")
	tx := testTx(2, false, 5)
	n.TxAccepted(tx, 1)
	expect(t, sub, "rawtx", tx.AppendTo(nil, true), 0)
}

// TestNewTolerant: bad and busy addresses are reported and left out; the
// remaining publishers serve.
func TestNewTolerant(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	free := freeAddr(t)
	n, errs := NewTolerant(Config{PubHashBlock: []string{free}, PubRawBlock: []string{"tcp://" + ln.Addr().String()}, PubRawTx: []string{"foo"}})
	if len(errs) != 2 || !errors.Is(errs[0], ErrBadAddress) || !errors.Is(errs[1], ErrBind) {
		t.Fatalf("errors %v, want a bad address and a bind failure", errs)
	}
	if n == nil {
		t.Fatal("no notifier although one publisher could start")
	}
	defer n.Close()
	if eps := n.Endpoints(); len(eps) != 1 || eps[0].Type != "pubhashblock" {
		t.Fatalf("endpoints %+v", eps)
	}
	if n, errs := NewTolerant(Config{PubRawTx: []string{"foo"}}); n != nil || len(errs) != 1 {
		t.Fatalf("all bad: notifier %v errors %v", n, errs)
	}
}

// hashblock and rawblock announce the tip once per chain update: a reorg
// connecting two blocks publishes only the last, an update that only
// disconnects publishes none, and sequence still sees every block.
func TestHashBlockOnlyForTip(t *testing.T) {
	addr := freeAddr(t)
	all := []string{addr}
	n := newNotifier(t, Config{PubHashBlock: all, PubRawBlock: all, PubSequence: all,
		PubHashBlockHWM: DefaultHWM, PubRawBlockHWM: DefaultHWM, PubSequenceHWM: DefaultHWM})
	sub := dialSub(t, n, addr, "hashblock", "rawblock", "sequence")
	a, b := testBlock(), testBlock()
	b.Header.Nonce++
	n.BlockDisconnected(a)
	n.TipChanged() // disconnect only: no hashblock
	n.BlockConnected(a)
	n.BlockConnected(b)
	n.TipChanged()
	expect(t, sub, "sequence", seqBody(a.BlockHash(), 'D', 0, false), 0)
	expect(t, sub, "sequence", seqBody(a.BlockHash(), 'C', 0, false), 1)
	expect(t, sub, "sequence", seqBody(b.BlockHash(), 'C', 0, false), 2)
	expect(t, sub, "hashblock", rev(b.BlockHash()), 0)
	expect(t, sub, "rawblock", b.AppendTo(nil, true), 0)
}
