package netsync

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// p2p_permissions.py: a transaction the pool already holds is not
// validated again; from a forcerelay peer it is relayed anyway, and one
// refused before is named as not relayed.
func TestForceRelayOfKnownTx(t *testing.T) {
	out := &syncLog{}
	n, pool, b := newPoolNode(t, out)
	cb := b.MatureCoinbases(b.Tip)[0]
	tx := b.Spend([]*chaintest.Output{cb}, []wire.TxOut{{Value: cb.Value - 10_000, PkScript: opTrue}}, 0)
	addToPool(t, pool, []*wire.MsgTx{tx})
	// Pays out more than it spends: refused for good.
	bad := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: tx.TxHash()}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: cb.Value, PkScript: opTrue}}}

	fake, in := linkFakeWith(t, n, fakeConfig(n, 103), func(p *peer.Peer) {
		p.SetPermissions(peer.PermForceRelay | peer.PermNoBan)
	})
	fake.QueueMessage(tx, nil)
	want := fmt.Sprintf("Force relaying tx %v (wtxid=%v) from peer=%d", tx.TxHash(), tx.WitnessHash(), in.ID())
	waitCond(t, 10*time.Second, "force relay logged", func() bool { return strings.Contains(out.String(), want) })
	if strings.Contains(out.String(), "was not accepted: txn-already-in-mempool") {
		t.Fatal("known transaction validated again")
	}
	for i := 0; i < 2; i++ {
		fake.QueueMessage(bad, nil)
	}
	want = fmt.Sprintf("Not relaying non-mempool transaction %v (wtxid=%v) from forcerelay peer=%d", bad.TxHash(), bad.WitnessHash(), in.ID())
	waitCond(t, 10*time.Second, "refused tx named", func() bool { return strings.Contains(out.String(), want) })
}
