package netsync

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// withLog gives the manager a debug logger writing to the returned log.
func withLog(out *syncLog, mod func(*Config)) func(*Config) {
	return func(c *Config) {
		lg := btclog.NewBackend(out).Logger("SYNC")
		lg.SetLevel(btclog.LevelDebug)
		c.Log = lg
		if mod != nil {
			mod(c)
		}
	}
}

// p2p_invalid_tx.py expects bitcoind's rejection line, with the reject
// reason, even when the sender is dropped for the transaction.
func TestRejectedTxLogLine(t *testing.T) {
	out := &syncLog{}
	n := newNode(t, withLog(out, func(c *Config) { c.Mempool = newTestPool(c.Chain) }))
	makeCurrent(t, n, buildChain(t, n.chain, 3))
	fake, in := linkFakeWith(t, n, fakeConfig(n, 4), nil)
	tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{7}}}}}
	fake.QueueMessage(tx, nil)
	want := fmt.Sprintf("%v (wtxid=%v) from peer=%d was not accepted: bad-txns-vout-empty", tx.TxHash(), tx.WitnessHash(), in.ID())
	waitCond(t, 10*time.Second, "rejection logged", func() bool { return strings.Contains(out.String(), want) })
	waitCond(t, 5*time.Second, "sender dropped", func() bool { return !in.Connected() })
}

// p2p_invalid_block.py: while a block is being fetched, a sibling header
// of equal work from the same peer is fetched at once too (Core's
// headers direct fetch), although the best header stays the first one.
func TestDirectFetchOfSibling(t *testing.T) {
	n := newNode(t, nil)
	b := buildChain(t, n.chain, 5)
	clock.SetMock(int64(b.Tip.Block.Header.Timestamp) + 60)
	t.Cleanup(func() { clock.SetMock(0) })
	base := b.Tip
	first := b.NextBlock(base, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue})
	b.Tip = base
	second := b.NextBlock(base, nil, &chaintest.BlockOpts{CoinbaseKind: chaintest.OpTrue, CoinbaseExtra: -1})

	asked := make(chan wire.Hash, 16)
	fcfg := fakeConfig(n, 6)
	fcfg.Listeners.OnGetData = func(_ *peer.Peer, msg *wire.MsgGetData) {
		for _, iv := range msg.InvList {
			asked <- iv.Hash
		}
	}
	fcfg.Listeners.OnGetHeaders = func(*peer.Peer, *wire.MsgGetHeaders) {}
	fake, _ := linkFakeWith(t, n, fcfg, nil)
	wait := func(h wire.Hash) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case got := <-asked:
				if got == h {
					return
				}
			case <-deadline:
				t.Fatalf("block %v never requested", h)
			}
		}
	}
	fake.QueueMessage(&wire.MsgHeaders{Headers: []wire.BlockHeader{first.Block.Header}}, nil)
	wait(first.Hash)
	fake.QueueMessage(&wire.MsgHeaders{Headers: []wire.BlockHeader{second.Block.Header}}, nil)
	wait(second.Hash)
}
