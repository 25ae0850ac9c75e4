package netsync

import (
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// getDataLog records the transaction hashes a fake peer was asked for.
type getDataLog struct {
	mu    sync.Mutex
	asked map[wire.Hash]int
	stops []wire.Hash // getheaders stop hashes
}

func (g *getDataLog) askedHeadersTo(h wire.Hash) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range g.stops {
		if s == h {
			return true
		}
	}
	return false
}

func (g *getDataLog) record(msg *wire.MsgGetData) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.asked == nil {
		g.asked = make(map[wire.Hash]int)
	}
	for _, iv := range msg.InvList {
		g.asked[iv.Hash]++
	}
}

func (g *getDataLog) count(h wire.Hash) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.asked[h]
}

// txDownloadNode returns a current node with a mempool and a transaction
// it does not have yet.
func txDownloadNode(t *testing.T) (*node, *mempool.Pool, *wire.MsgTx) {
	n, pool, b := newPoolNode(t, nil)
	cb := b.MatureCoinbases(b.Tip)[0]
	tx := b.Spend([]*chaintest.Output{cb}, []wire.TxOut{{Value: cb.Value - 10_000, PkScript: opTrue}}, 0)
	// The first peer to connect (lowest id) wins ties, so the tests know
	// which announcer is asked first.
	n.m.txReqMu.Lock()
	n.m.txreq.priority = func(_ wire.Hash, peer int32) uint64 { return ^uint64(peer) }
	n.m.txReqMu.Unlock()
	return n, pool, tx
}

// fakeTxPeer links a fake peer the node treats as outbound (preferred),
// logging its getdata and, when serve is set, answering for it.
func fakeTxPeer(t *testing.T, n *node, serve *wire.MsgTx) (*peer.Peer, *peer.Peer, *getDataLog) {
	log := &getDataLog{}
	fcfg := fakeConfig(n, 102)
	fcfg.Listeners.OnGetHeaders = func(_ *peer.Peer, msg *wire.MsgGetHeaders) {
		log.mu.Lock()
		log.stops = append(log.stops, msg.HashStop)
		log.mu.Unlock()
	}
	fcfg.Listeners.OnGetData = func(p *peer.Peer, msg *wire.MsgGetData) {
		log.record(msg)
		if serve == nil {
			return
		}
		for _, iv := range msg.InvList {
			if iv.Hash == serve.TxHash() || iv.Hash == serve.WitnessHash() {
				p.QueueMessage(serve, nil)
			}
		}
	}
	fake, in := linkFake(t, n, fcfg, true)
	return fake, in, log
}

// A transaction announced by a silent peer first and an honest peer
// second is asked of the silent one, then, once GETDATA_TX_INTERVAL
// passed on the node clock, of the honest one, and arrives from it.
func TestTxFetchedFromSecondAnnouncerAfterTimeout(t *testing.T) {
	n, pool, tx := txDownloadNode(t)
	start := time.Now().Unix()
	clock.SetMock(start)
	t.Cleanup(func() { clock.SetMock(0) })

	silent, _, silentLog := fakeTxPeer(t, n, nil)
	honest, _, honestLog := fakeTxPeer(t, n, tx)
	inv := &wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: tx.WitnessHash()}}}
	silent.QueueMessage(inv, nil)
	waitCond(t, 10*time.Second, "silent peer asked", func() bool { return silentLog.count(tx.WitnessHash()) == 1 })
	honest.QueueMessage(inv, nil)
	// Several loop ticks: the honest peer must not be asked while the
	// silent one's request is outstanding.
	time.Sleep(4 * checkInterval)
	if honestLog.count(tx.WitnessHash()) != 0 {
		t.Fatal("second announcer asked before the first request expired")
	}
	clock.SetMock(start + int64(txGetDataInterval/time.Second) - 1)
	time.Sleep(4 * checkInterval)
	if honestLog.count(tx.WitnessHash()) != 0 {
		t.Fatal("second announcer asked before GETDATA_TX_INTERVAL")
	}
	clock.SetMock(start + int64(txGetDataInterval/time.Second))
	waitCond(t, 10*time.Second, "tx from the honest peer", func() bool { return pool.Has(tx.TxHash()) })
	if silentLog.count(tx.WitnessHash()) != 1 || honestLog.count(tx.WitnessHash()) != 1 {
		t.Fatalf("asked silent %d, honest %d times", silentLog.count(tx.WitnessHash()), honestLog.count(tx.WitnessHash()))
	}
	n.m.txReqMu.Lock()
	left := n.m.txreq.size()
	n.m.txReqMu.Unlock()
	if left != 0 {
		t.Fatalf("%d announcements left after the tx arrived", left)
	}
}

// A notfound from the first announcer has the second asked at once.
func TestTxNotFoundAsksNextAnnouncer(t *testing.T) {
	n, pool, tx := txDownloadNode(t)
	first, _, firstLog := fakeTxPeer(t, n, nil)
	second, _, _ := fakeTxPeer(t, n, tx)
	inv := &wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: tx.WitnessHash()}}}
	first.QueueMessage(inv, nil)
	waitCond(t, 10*time.Second, "first peer asked", func() bool { return firstLog.count(tx.WitnessHash()) == 1 })
	second.QueueMessage(inv, nil)
	time.Sleep(2 * checkInterval)
	first.QueueMessage(&wire.MsgNotFound{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: tx.WitnessHash()}}}, nil)
	waitCond(t, 10*time.Second, "tx from the second peer", func() bool { return pool.Has(tx.TxHash()) })
}

// A peer announcing 100,000 transactions does not push out another
// peer's outstanding request: the transaction is not asked of it as
// well, and the tracker holds no more than its cap for it.
func TestTxAnnouncementFloodKeepsOtherRequests(t *testing.T) {
	n, _, tx := txDownloadNode(t)
	holder, holderIn, holderLog := fakeTxPeer(t, n, nil)
	flooder, flooderIn, flooderLog := fakeTxPeer(t, n, nil)
	x := tx.WitnessHash()
	holder.QueueMessage(&wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: x}}}, nil)
	waitCond(t, 10*time.Second, "holder asked", func() bool { return holderLog.count(x) == 1 })

	const flood = 100_000
	for sent := 0; sent < flood; {
		msg := &wire.MsgInv{}
		for len(msg.InvList) < wire.MaxInvPerMsg && sent < flood {
			msg.InvList = append(msg.InvList, wire.InvVect{Type: wire.InvTypeWTx, Hash: hashN(uint64(sent) + 1<<32)})
			sent++
		}
		flooder.QueueMessage(msg, nil)
	}
	flooder.QueueMessage(&wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: x}}}, nil)
	// An unknown block announced last has the node ask for headers up
	// to it: once that getheaders comes, every inv before was handled.
	marker := hashN(7)
	flooder.QueueMessage(&wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeBlock, Hash: marker}}}, nil)
	waitCond(t, 30*time.Second, "flood handled", func() bool { return flooderLog.askedHeadersTo(marker) })
	if flooderLog.count(hashN(1<<32)) != 1 {
		t.Fatal("flooding peer's first announcement not requested")
	}
	time.Sleep(4 * checkInterval)
	if c := flooderLog.count(x); c != 0 {
		t.Fatalf("flooding peer asked for the held transaction %d times", c)
	}
	n.m.txReqMu.Lock()
	st, ok := n.m.txreq.state(holderIn.ID(), x)
	cnt := n.m.txreq.count(flooderIn.ID())
	n.m.txReqMu.Unlock()
	if !ok || st != annRequested {
		t.Fatalf("holder's request state %v (held %v)", st, ok)
	}
	if cnt > maxPeerTxAnnouncements {
		t.Fatalf("flooding peer holds %d announcements", cnt)
	}
}

// An orphan's parent is requested through the tracker: its sender is
// asked first, and when it does not answer within GETDATA_TX_INTERVAL,
// a peer that announced the orphan since is asked, and the parent and
// then the orphan enter the pool.
func TestOrphanParentFromNextAnnouncerAfterTimeout(t *testing.T) {
	n, pool, parent := txDownloadNode(t)
	child := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: parent.TxHash()}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: parent.TxOut[0].Value - 10_000, PkScript: opTrue}}}
	start := time.Now().Unix()
	clock.SetMock(start)
	t.Cleanup(func() { clock.SetMock(0) })

	sender, _, senderLog := fakeTxPeer(t, n, nil)
	other, _, otherLog := fakeTxPeer(t, n, parent)
	sender.QueueMessage(child, nil)
	waitCond(t, 10*time.Second, "orphan kept", func() bool { return pool.HaveOrphan(child.TxHash()) })
	other.QueueMessage(&wire.MsgInv{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: child.WitnessHash()}}}, nil)
	// Past any txid-relay delay: the sender is asked, the other not.
	clock.SetMock(start + int64((txidRelayDelay+nonPrefPeerTxDelay)/time.Second))
	waitCond(t, 10*time.Second, "sender asked for the parent", func() bool { return senderLog.count(parent.TxHash()) == 1 })
	time.Sleep(4 * checkInterval)
	if otherLog.count(parent.TxHash()) != 0 || otherLog.count(child.WitnessHash()) != 0 {
		t.Fatal("orphan announcer asked while the sender's request is outstanding")
	}
	clock.SetMock(start + int64((txidRelayDelay+nonPrefPeerTxDelay+txGetDataInterval)/time.Second))
	waitCond(t, 10*time.Second, "parent and orphan in the pool", func() bool {
		return pool.Has(parent.TxHash()) && pool.Has(child.TxHash())
	})
	if otherLog.count(parent.TxHash()) != 1 || senderLog.count(parent.TxHash()) != 1 {
		t.Fatalf("parent asked of sender %d, of the other %d times", senderLog.count(parent.TxHash()), otherLog.count(parent.TxHash()))
	}
}
