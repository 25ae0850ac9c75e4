package mempool

import (
	"errors"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// A child arriving after its low-fee parent was refused waits as an
// orphan; the parent sent again enters with it (Core's flow, which
// p2p_opportunistic_1p1c.py follows: the node asks for the parent again).
func TestOneParentOneChildParentFirst(t *testing.T) {
	h := newHarness(t, nil)
	parent := v3(spend([]wire.OutPoint{h.coin(100_000)}, 100_000))
	child := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 99_000))
	if _, _, err := h.pool.ProcessTransaction(parent, 3, true); !IsReconsiderable(err) {
		t.Fatalf("parent alone: %v", err)
	}
	acc, orphaned, err := h.pool.ProcessTransaction(child, 3, true)
	if err != nil || !orphaned || len(acc) != 0 {
		t.Fatalf("child: %d %v %v", len(acc), orphaned, err)
	}
	acc, _, err = h.pool.ProcessTransaction(parent, 3, true)
	if err != nil || len(acc) != 2 || acc[0].TxID != parent.TxHash() {
		t.Fatalf("parent again: %d %v", len(acc), err)
	}
	if h.pool.OrphanCount() != 0 || len(h.ann) != 2 {
		t.Fatalf("orphans %d announced %d", h.pool.OrphanCount(), len(h.ann))
	}
	h.check()
}

func TestOneParentOneChildChildFirst(t *testing.T) {
	h := newHarness(t, nil)
	parent := v3(spend([]wire.OutPoint{h.coin(100_000)}, 100_000))
	child := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 99_000))
	if _, orphaned, err := h.pool.ProcessTransaction(child, 4, true); err != nil || !orphaned {
		t.Fatalf("child: %v %v", orphaned, err)
	}
	// From another peer the pair is not tried (Core's Find1P1CPackage
	// looks only at the parent sender's orphans).
	if _, _, err := h.pool.ProcessTransaction(parent, 5, true); !IsReconsiderable(err) || !h.pool.HaveOrphan(child.TxHash()) {
		t.Fatalf("parent from another peer: %v", err)
	}
	acc, _, err := h.pool.ProcessTransaction(parent, 4, true)
	if err != nil || len(acc) != 2 {
		t.Fatalf("parent: %d %v", len(acc), err)
	}
	if h.pool.OrphanCount() != 0 {
		t.Fatal("child still an orphan")
	}
	h.check()
}

func TestOneParentOneChildFailureKeepsOrphan(t *testing.T) {
	h := newHarness(t, nil)
	parent := v3(spend([]wire.OutPoint{h.coin(100_000)}, 100_000))
	// Pays too little for both.
	child := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 99_990))
	h.pool.ProcessTransaction(child, 4, true)
	if _, _, err := h.pool.ProcessTransaction(parent, 4, true); !IsReconsiderable(err) {
		t.Fatalf("parent: %v", err)
	}
	if h.pool.Count() != 0 || !h.pool.HaveOrphan(child.TxHash()) {
		t.Fatal("failed pair changed the pools")
	}
	// The same pair is not tried again.
	if !h.pool.recon.wasTried(parent, child) {
		t.Fatal("pair not remembered")
	}
}

func TestOrphanListing(t *testing.T) {
	h := newHarness(t, nil)
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	child := spend([]wire.OutPoint{outpoint(parent, 0)}, 98_000)
	h.pool.ProcessTransaction(child, 6, true)
	if tx, added := h.pool.AddOrphanAnnouncer(child.WitnessHash(), 9); tx != child || !added {
		t.Fatal("announcer by wtxid")
	}
	if tx, added := h.pool.AddOrphanAnnouncer(child.TxHash(), 9); tx != child || added {
		t.Fatal("second announcement by txid counted as a new announcer")
	}
	if tx, added := h.pool.AddOrphanAnnouncer(child.TxHash(), 6); tx != child || added {
		t.Fatal("the sender counted as a new announcer")
	}
	if tx, _ := h.pool.AddOrphanAnnouncer(parent.TxHash(), 9); tx != nil {
		t.Fatal("not an orphan")
	}
	list := h.pool.Orphans()
	if len(list) != 1 {
		t.Fatal(len(list))
	}
	o := list[0]
	if o.TxID != child.TxHash() || o.WTxID != child.WitnessHash() || len(o.From) != 2 || o.From[0] != 6 || o.From[1] != 9 {
		t.Fatalf("%+v", o)
	}
	if !o.Entered.Equal(h.now) || !o.Expires.Equal(h.now.Add(20*time.Minute)) {
		t.Fatalf("times %v %v", o.Entered, o.Expires)
	}
}

func TestOrphanResentByAnotherPeer(t *testing.T) {
	h := newHarness(t, nil)
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	child := spend([]wire.OutPoint{outpoint(parent, 0)}, 98_000)
	h.pool.ProcessTransaction(child, 6, true)
	if _, orphaned, err := h.pool.ProcessTransaction(child, 7, true); !orphaned || err != nil {
		t.Fatalf("%v %v", orphaned, err)
	}
	if from := h.pool.Orphans()[0].From; len(from) != 2 || from[1] != 7 {
		t.Fatalf("from %v", from)
	}
}

// A child that fails the package on its own account (here a script
// failure) leaves the orphan pool and is reported against the peer that
// sent the pair (p2p_opportunistic_1p1c.py's orphan consensus failure).
func TestOneParentOneChildInvalidChildReported(t *testing.T) {
	var got []RejectedOrphan
	h := newHarness(t, func(c *Config) { c.OnOrphanRejected = func(r RejectedOrphan) { got = append(got, r) } })
	parent := v3(spend([]wire.OutPoint{h.coin(100_000)}, 100_000))
	child := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 99_000))
	h.scripts.consensusFail[child.TxHash()] = true
	if _, orphaned, err := h.pool.ProcessTransaction(child, 6, true); err != nil || !orphaned {
		t.Fatalf("child: %v %v", orphaned, err)
	}
	if _, _, err := h.pool.ProcessTransaction(parent, 6, true); !IsReconsiderable(err) {
		t.Fatalf("parent: %v", err)
	}
	if len(got) != 1 || got[0].From != 6 || got[0].TxID != child.TxHash() || !errors.Is(got[0].Err, ErrConsensus) {
		t.Fatalf("reported %+v", got)
	}
	if h.pool.HaveOrphan(child.TxHash()) || h.pool.Count() != 0 {
		t.Fatal("invalid child kept or pair entered")
	}
}
