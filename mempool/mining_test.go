package mempool

import (
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// TestCandidates: the copy block assembly works on carries each
// transaction's fees, size, sigops and ancestor statistics, and its
// in-pool parents by index.
func TestCandidates(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 50_000, 49_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 49_000)
	c := spend([]wire.OutPoint{outpoint(a, 1), outpoint(b, 0)}, 97_000)
	for _, tx := range []*wire.MsgTx{a, b, c} {
		h.mustAccept(tx)
	}
	h.pool.PrioritiseTransaction(b.TxHash(), 500)
	cands := h.pool.Candidates()
	if cands.Sequence != h.pool.Sequence() || cands.Tip.Height != h.chain.height || len(cands.Txs) != 3 {
		t.Fatalf("sequence %d/%d tip %d entries %d", cands.Sequence, h.pool.Sequence(), cands.Tip.Height, len(cands.Txs))
	}
	at := map[wire.Hash]int32{}
	for i, x := range cands.Txs {
		at[x.TxID] = int32(i)
	}
	for _, tx := range []*wire.MsgTx{a, b, c} {
		x := cands.Txs[at[tx.TxHash()]]
		e, _ := h.pool.Get(tx.TxHash())
		if x.Tx != e.Tx || x.Fee != e.Fee || x.ModFee != e.ModFee || x.VSize != e.VSize || x.Weight != e.Weight ||
			x.SigOpCost != e.SigOpCost || x.AncCount != e.AncCount || x.AncSize != e.AncSize ||
			x.AncFees != e.AncFees || x.AncSigOps != e.AncSigOps {
			t.Errorf("%v: candidate %+v entry %+v", tx.TxHash(), x, e)
		}
	}
	if x := cands.Txs[at[b.TxHash()]]; x.ModFee != x.Fee+500 || len(x.Parents) != 1 || x.Parents[0] != at[a.TxHash()] {
		t.Errorf("b: %+v", x)
	}
	if x := cands.Txs[at[c.TxHash()]]; len(x.Parents) != 2 || x.AncCount != 3 {
		t.Errorf("c: %+v", x)
	}
}

// TestSequenceChanged: the channel is closed by the next acceptance or
// removal, and at once for a sequence already passed.
func TestSequenceChanged(t *testing.T) {
	h := newHarness(t, nil)
	seq := h.pool.Sequence()
	ch := h.pool.SequenceChanged(seq)
	select {
	case <-ch:
		t.Fatal("closed before any change")
	default:
	}
	tx := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(tx)
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("acceptance did not wake the waiter")
	}
	select {
	case <-h.pool.SequenceChanged(seq):
	default:
		t.Fatal("a passed sequence is not reported at once")
	}
	ch = h.pool.SequenceChanged(h.pool.Sequence())
	h.pool.RemoveTransaction(tx.TxHash())
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("removal did not wake the waiter")
	}
}
