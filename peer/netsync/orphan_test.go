package netsync

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// opTrue is OP_TRUE padded with OP_TRUE OP_DROP pairs, so transactions
// paying to it are not refused as too small.
var opTrue = append(bytes.Repeat([]byte{0x51, 0x75}, 15), 0x51)

// newPoolNode is a current node with a test mempool (newOrphanTestPool),
// logging to out when it is not nil, on a chain of 101 blocks whose first
// coinbase is mature.
func newPoolNode(t *testing.T, out *syncLog) (*node, *mempool.Pool, *chaintest.Builder) {
	t.Helper()
	var mgr *Manager
	var pool *mempool.Pool
	mod := func(c *Config) {
		pool = newOrphanTestPool(c.Chain, &mgr)
		c.Mempool = pool
	}
	if out != nil {
		mod = withLog(out, mod)
	}
	n := newNode(t, mod)
	mgr = n.m
	b := buildChain(t, n.chain, 101)
	makeCurrent(t, n, b)
	return n, pool, b
}

// newOrphanTestPool is newTestPool with the orphan rejection hook wired to
// the manager *m points to once it exists.
func newOrphanTestPool(c *blockchain.BlockChain, m **Manager) *mempool.Pool {
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
	mc.OnOrphanRejected = func(r mempool.RejectedOrphan) {
		if *m != nil {
			(*m).OrphanRejected(r)
		}
	}
	return mempool.New(mc)
}

// p2p_invalid_tx.py: an orphan found invalid once its parent arrives is
// logged with its reason and gets the peer that sent it disconnected,
// not the sender of the parent; a transaction spending it is then not
// kept as an orphan.
func TestInvalidOrphanPunishesSender(t *testing.T) {
	out := &syncLog{}
	n, pool, b := newPoolNode(t, out)

	cb := b.MatureCoinbases(b.Tip)[0]
	parent := b.Spend([]*chaintest.Output{cb}, []wire.TxOut{{Value: cb.Value - 10_000, PkScript: opTrue}}, 0)
	bad := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: parent.TxHash()}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: cb.Value, PkScript: opTrue}}}
	grandchild := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: bad.TxHash()}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: 1000, PkScript: opTrue}}}

	honest, inHonest := linkFakeWith(t, n, fakeConfig(n, 103), nil)
	liar, inLiar := linkFakeWith(t, n, fakeConfig(n, 103), nil)
	liar.QueueMessage(bad, nil)
	waitCond(t, 10*time.Second, "orphan kept", func() bool { return pool.HaveOrphan(bad.TxHash()) })
	if !inLiar.Connected() {
		t.Fatal("sender of a mere orphan dropped")
	}
	// p2p_ibd_txrelay.py: an orphan is logged as not accepted, as by
	// bitcoind, though it is kept.
	want := fmt.Sprintf("%v (wtxid=%v) from peer=%d was not accepted: bad-txns-inputs-missingorspent", bad.TxHash(), bad.WitnessHash(), inLiar.ID())
	if !strings.Contains(out.String(), want) {
		t.Fatalf("no rejection line for the orphan in\n%s", out.String())
	}
	honest.QueueMessage(parent, nil)
	want = fmt.Sprintf("invalid orphan tx %v (wtxid=%v) from peer=%d: bad-txns-in-belowout", bad.TxHash(), bad.WitnessHash(), inLiar.ID())
	waitCond(t, 10*time.Second, "orphan rejection logged", func() bool { return strings.Contains(out.String(), want) })
	waitCond(t, 5*time.Second, "orphan sender dropped", func() bool { return !inLiar.Connected() })
	if !pool.Has(parent.TxHash()) || pool.HaveOrphan(bad.TxHash()) {
		t.Fatal("parent not accepted or bad orphan still held")
	}

	honest.QueueMessage(grandchild, nil)
	want = fmt.Sprintf("not keeping orphan with rejected parents %v", grandchild.TxHash())
	waitCond(t, 10*time.Second, "rejected-parent line", func() bool { return strings.Contains(out.String(), want) })
	if pool.HaveOrphan(grandchild.TxHash()) {
		t.Fatal("child of a rejected transaction kept as an orphan")
	}
	if !inHonest.Connected() {
		t.Fatal("sender of the parent dropped")
	}
}

// p2p_opportunistic_1p1c.py: the sender of an orphan is asked for its
// parent even when that parent was just refused for its fee rate, and the
// parent sent again enters with the child as a package.
func TestOrphanParentRequestedAfterFeeRejection(t *testing.T) {
	n, pool, b := newPoolNode(t, nil)

	cb := b.MatureCoinbases(b.Tip)[0]
	// TRUC, so the fee-less parent is refused as reconsiderable (below
	// the relay floor, which only a TRUC child may pay for).
	parent := b.Spend([]*chaintest.Output{cb}, []wire.TxOut{{Value: cb.Value, PkScript: opTrue}}, 0)
	parent.Version = mempool.TRUCVersion
	child := &wire.MsgTx{Version: mempool.TRUCVersion,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: parent.TxHash()}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: cb.Value - 100_000, PkScript: opTrue}}}

	asked := make(chan wire.Hash, 16)
	fcfg := fakeConfig(n, 103)
	fcfg.Listeners.OnGetData = func(_ *peer.Peer, msg *wire.MsgGetData) {
		for _, iv := range msg.InvList {
			asked <- iv.Hash
		}
	}
	fake, _ := linkFakeWith(t, n, fcfg, nil)
	fake.QueueMessage(parent, nil)
	fake.QueueMessage(child, nil)
	deadline := time.After(10 * time.Second)
	for got := false; !got; {
		select {
		case h := <-asked:
			got = h == parent.TxHash()
		case <-deadline:
			t.Fatal("parent refused for its fee rate not asked for again")
		}
	}
	if pool.Has(parent.TxHash()) || !pool.HaveOrphan(child.TxHash()) {
		t.Fatal("child not waiting as an orphan")
	}
	fake.QueueMessage(parent, nil)
	waitCond(t, 10*time.Second, "package accepted", func() bool { return pool.Has(parent.TxHash()) && pool.Has(child.TxHash()) })
}

// p2p_opportunistic_1p1c.py: a child of two parents both refused for
// their fee rate cannot be paid for as one-parent-one-child, so it is not
// kept and neither parent is asked for.
func TestOrphanOfTwoCheapParentsDropped(t *testing.T) {
	var mgr *Manager
	var pool *mempool.Pool
	out := &syncLog{}
	n := newNode(t, withLog(out, func(c *Config) {
		pool = newOrphanTestPool(c.Chain, &mgr)
		c.Mempool = pool
	}))
	mgr = n.m
	b := buildChain(t, n.chain, 101)
	cb := b.MatureCoinbases(b.Tip)[0]
	half := cb.Value/2 - 1000
	split := b.Spend([]*chaintest.Output{cb}, []wire.TxOut{{Value: half, PkScript: opTrue}, {Value: half, PkScript: opTrue}}, 0)
	e := b.NextBlock(nil, []*wire.MsgTx{split}, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
	if _, err := n.chain.ProcessBlock(e.Block); err != nil {
		t.Fatal(err)
	}
	makeCurrent(t, n, b)

	var parents []*wire.MsgTx
	child := &wire.MsgTx{Version: mempool.TRUCVersion, TxOut: []wire.TxOut{{Value: 1000, PkScript: opTrue}}}
	for i := uint32(0); i < 2; i++ {
		p := &wire.MsgTx{Version: mempool.TRUCVersion,
			TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: split.TxHash(), Index: i}, Sequence: wire.MaxTxInSequenceNum}},
			TxOut: []wire.TxOut{{Value: half, PkScript: opTrue}}}
		parents = append(parents, p)
		child.TxIn = append(child.TxIn, wire.TxIn{PreviousOutPoint: wire.OutPoint{Hash: p.TxHash()}, Sequence: wire.MaxTxInSequenceNum})
	}
	asked := make(chan wire.Hash, 16)
	fcfg := fakeConfig(n, 105)
	fcfg.Listeners.OnGetData = func(_ *peer.Peer, msg *wire.MsgGetData) {
		for _, iv := range msg.InvList {
			asked <- iv.Hash
		}
	}
	fake, _ := linkFakeWith(t, n, fcfg, nil)
	for _, p := range parents {
		fake.QueueMessage(p, nil)
	}
	defer func() {
		if t.Failed() {
			t.Log(out.String())
		}
	}()
	waitCond(t, 10*time.Second, "parents refused", func() bool {
		return n.m.isRejected(parents[0].TxHash()) && n.m.isRejected(parents[1].TxHash())
	})
	fake.QueueMessage(child, nil)
	waitCond(t, 10*time.Second, "child refused", func() bool { return n.m.isRejected(child.TxHash()) })
	if pool.HaveOrphan(child.TxHash()) {
		t.Fatal("child of two cheap parents kept as an orphan")
	}
	select {
	case h := <-asked:
		t.Fatalf("asked for %v", h)
	default:
	}
}
