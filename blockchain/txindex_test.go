package blockchain

import (
	"errors"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

func withTxIndex(c *Config) { c.TxIndex = true }

// checkTxIndex looks up every transaction of the chain ending at tip
// (genesis excepted) and every transaction of the abandoned blocks.
func checkTxIndex(t *testing.T, c *BlockChain, tip *chaintest.Entry, abandoned []*chaintest.Entry) {
	t.Helper()
	onChain := make(map[wire.Hash]bool)
	for _, e := range chaintest.Chain(tip) {
		if e.Height == 0 {
			continue
		}
		for _, tx := range e.Block.Transactions {
			id := tx.TxHash()
			onChain[id] = true
			got, bh, h, err := c.TxByID(&id)
			if err != nil {
				t.Fatalf("tx %v of block %d: %v", id, e.Height, err)
			}
			if bh != e.Hash || h != e.Height || got.TxHash() != id || got.WitnessHash() != tx.WitnessHash() {
				t.Fatalf("tx %v: block %v height %d, want %v %d", id, bh, h, e.Hash, e.Height)
			}
		}
	}
	for _, e := range abandoned {
		for _, tx := range e.Block.Transactions {
			id := tx.TxHash()
			if onChain[id] {
				continue
			}
			if _, _, _, err := c.TxByID(&id); !errors.Is(err, ErrTxNotFound) {
				t.Fatalf("abandoned tx %v of block %d: %v", id, e.Height, err)
			}
		}
	}
}

func waitTxIndex(t *testing.T, c *BlockChain) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !c.TxIndexSynced() {
		if time.Now().After(deadline) {
			t.Fatal("transaction index not built in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTxIndex maintains the index on connect and disconnect, answers from
// entries not yet flushed, and keeps them over a restart.
func TestTxIndex(t *testing.T) {
	tc := newTestChain(t, regtest(t), withTxIndex)
	rc := &reorgChain{testChain: tc}
	es := rc.extendN(tc.b.Tip, 110)
	rc.process(es...)
	base := es[len(es)-1]
	if !tc.chain.TxIndexSynced() {
		t.Fatal("index of a new chain is not synced")
	}
	// Nothing flushed yet: the entries come from the pending overlay.
	checkTxIndex(t, tc.chain, base, nil)
	a := rc.extendN(base, 2)
	rc.process(a...)
	b := rc.extendN(base, 3)
	rc.process(b...)
	rc.check(b[2])
	checkTxIndex(t, tc.chain, b[2], a)
	tc.close()
	tc.open(withTxIndex)
	checkTxIndex(t, tc.chain, b[2], a)
	// Genesis and unknown transactions.
	g := tc.p.GenesisBlock.Transactions[0].TxHash()
	if _, _, _, err := tc.chain.TxByID(&g); !errors.Is(err, ErrTxNotFound) {
		t.Errorf("genesis coinbase: %v", err)
	}
	tc.close()
	tc.open(nil)
	id := b[2].Block.Transactions[0].TxHash()
	if _, _, _, err := tc.chain.TxByID(&id); !errors.Is(err, ErrTxIndexDisabled) {
		t.Errorf("disabled: %v", err)
	}
}

// TestTxIndexCatchUp enables the index on an existing chain, which is then
// indexed in the background, and again after a reorg that happened while
// the index was off.
func TestTxIndexCatchUp(t *testing.T) {
	rc, base := newReorgChain(t)
	a := rc.extendN(base, 3)
	rc.process(a...)
	rc.close()
	rc.open(withTxIndex)
	waitTxIndex(t, rc.chain)
	checkTxIndex(t, rc.chain, a[2], nil)
	// Blocks connected after catching up are indexed on connect.
	a = append(a, rc.extendN(a[2], 1)...)
	rc.process(a[3])
	checkTxIndex(t, rc.chain, a[3], nil)

	// Reorg to b while the index is off: the marker's block is no longer
	// on the main chain, so the catch-up restarts at the fork.
	rc.close()
	rc.open(nil)
	b := rc.extendN(base, 6)
	rc.process(b...)
	rc.close()
	rc.open(withTxIndex)
	waitTxIndex(t, rc.chain)
	checkTxIndex(t, rc.chain, b[5], a)
	rc.reopen()
	rc.close()
	rc.open(withTxIndex)
	if !rc.chain.TxIndexSynced() {
		t.Error("index not synced at start after a clean shutdown")
	}
}

// TestTxIndexPruneConflict refuses the combination, as the daemon does.
func TestTxIndexPruneConflict(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	cfg := &Config{Params: tc.p, BlockDB: tc.db, ChainState: tc.cs, Cache: tc.cache, TxIndex: true, PruneTarget: 1 << 30}
	if _, err := New(cfg); err == nil {
		t.Fatal("txindex with pruning accepted")
	}
}
