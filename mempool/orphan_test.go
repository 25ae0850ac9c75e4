package mempool

import (
	"errors"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// An orphan its parent shows to be invalid is reported with its sender
// and reason once the parent enters, and leaves the orphan pool.
func TestOrphanRejectedReported(t *testing.T) {
	var got []RejectedOrphan
	h := newHarness(t, func(c *Config) {
		c.OnOrphanRejected = func(r RejectedOrphan) {
			got = append(got, r)
		}
	})
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	bad := spend([]wire.OutPoint{outpoint(parent, 0)}, 200_000) // pays out more than it spends
	if _, orphaned, err := h.pool.ProcessTransaction(bad, 9, true); err != nil || !orphaned {
		t.Fatalf("orphan: %v %v", orphaned, err)
	}
	if _, _, err := h.pool.ProcessTransaction(parent, 3, true); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d rejections reported", len(got))
	}
	r := got[0]
	if r.From != 9 || r.TxID != bad.TxHash() || !errors.Is(r.Err, ErrConsensus) {
		t.Fatalf("reported %+v", r)
	}
	var re *RejectError
	if !errors.As(r.Err, &re) || re.Reason != "bad-txns-in-belowout" {
		t.Fatalf("reason %v", r.Err)
	}
	if h.pool.HaveOrphan(bad.TxHash()) {
		t.Fatal("invalid orphan still held")
	}
}

// One peer may hold the whole orphan pool (Core's default, which
// p2p_invalid_tx.py relies on): the 101st orphan evicts exactly one.
func TestOrphanPoolOnePeerFills(t *testing.T) {
	h := newHarness(t, nil)
	for i := 0; i < 101; i++ {
		h.pool.ProcessTransaction(spend([]wire.OutPoint{{Index: uint32(500 + i)}}, 1000), 4, true)
	}
	if n := h.pool.OrphanCount(); n != 100 {
		t.Fatalf("%d orphans held", n)
	}
	if n := h.pool.RemoveOrphansByPeer(4); n != 100 {
		t.Fatalf("removed %d", n)
	}
}
