package node

import (
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// --maxorphantx bounds the orphans kept from relay; 0 keeps none.
func TestMaxOrphanTx(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want int
	}{{"--maxorphantx=2", 2}, {"--maxorphantx=0", 0}} {
		n, w := mempoolNode(t, 101, tc.arg)
		p := dialRelayPeer(t, n)
		for i := range 4 {
			// Each spends an output of a transaction nobody has.
			tx := w.build([]mpCoin{{op: wire.OutPoint{Hash: wire.Hash{byte(i + 1)}}, value: 100_000}},
				[]wire.TxOut{{Value: 90_000, PkScript: w.pkScript}})
			p.send(t, tx)
		}
		// A transaction the pool accepts after them: once it is in, the
		// orphans before it were handled.
		cb := n.coinbaseCoin(t, 1)
		ok := w.build([]mpCoin{cb}, []wire.TxOut{{Value: cb.value - 10_000, PkScript: w.pkScript}})
		p.send(t, ok)
		waitFor(t, 10*time.Second, "the last transaction accepted", func() bool { return n.s.pool.Has(ok.TxHash()) })
		if got := n.s.pool.OrphanCount(); got != tc.want {
			t.Errorf("%s: %d orphans kept, want %d", tc.arg, got, tc.want)
		}
	}
}
