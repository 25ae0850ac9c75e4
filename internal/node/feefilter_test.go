package node

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestFeeFilterAtLeastMinRelayFee: with an empty mempool (minimum fee
// zero) the feefilter a new peer receives is the minimum relay fee, as
// Core's, not zero; a zero filter used to be skipped as unchanged, so the
// peer got none at all.
func TestFeeFilterAtLeastMinRelayFee(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 1) // a tip stamped now: out of initial block download
	p := dialRawPeer(t, n)
	ff := expect[*wire.MsgFeeFilter](t, p)
	if want := n.s.cfg.minRelayTxFeeSat; ff.MinFee != want || want <= 0 {
		t.Fatalf("feefilter %d, want the minimum relay fee %d", ff.MinFee, want)
	}
}
