package mempool

import (
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestUnbroadcastSet(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(a)
	h.mustAccept(b)
	h.pool.AddUnbroadcast(a.TxHash())
	h.pool.AddUnbroadcast(b.TxHash())
	h.pool.AddUnbroadcast(wire.Hash{1}) // not in the pool: ignored
	if n := h.pool.Info().Unbroadcast; n != 2 {
		t.Fatalf("unbroadcast count %d, want 2", n)
	}
	if !h.pool.IsUnbroadcast(a.TxHash()) || len(h.pool.Unbroadcast()) != 2 {
		t.Fatal("a not in the unbroadcast set")
	}

	// The set survives a save and reload.
	path := filepath.Join(t.TempDir(), "mempool.dat")
	if err := h.pool.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	h2 := newHarness(t, nil)
	h2.chain = h.chain
	h2.pool.cfg.Chain = h.chain.view()
	h2.now = h.now
	if st, err := h2.pool.LoadFile(path); err != nil || st.Accepted != 2 {
		t.Fatalf("load: %+v %v", st, err)
	}
	if !h2.pool.IsUnbroadcast(a.TxHash()) || !h2.pool.IsUnbroadcast(b.TxHash()) {
		t.Fatal("unbroadcast set lost across mempool.dat")
	}

	// A peer asking for a transaction takes it out of the set.
	h.pool.RemoveUnbroadcast(a.TxHash())
	if h.pool.IsUnbroadcast(a.TxHash()) || h.pool.Info().Unbroadcast != 1 {
		t.Fatal("requested transaction still unbroadcast")
	}

	// So does leaving the pool, here by confirmation.
	blk := h.chain.connect(b)
	h.pool.BlockConnected(blk, h.chain.height)
	if h.pool.IsUnbroadcast(b.TxHash()) || h.pool.Info().Unbroadcast != 0 {
		t.Fatal("confirmed transaction still unbroadcast")
	}
}
