package chaingen_test

import (
	"bytes"
	"testing"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/chaingen"
	"github.com/btcnode/btcd/wire"
)

// TestBlockchainAcceptsChain feeds a generated chain through the node's
// own validation (full script checks: regtest has no assume-valid block)
// and expects every block to extend the main chain.
func TestBlockchainAcceptsChain(t *testing.T) {
	p := &chaincfg.RegressionNetParams
	dir := t.TempDir()
	db, err := database.OpenBlockDB(dir, p.Net, database.BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cs, err := database.OpenChainState(dir, database.ChainStateOptions{NoSyncOnFlush: true, WriteBuffer: 1 << 20, CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cache := database.NewUtxoCache(cs, database.UtxoCacheOptions{MaxBytes: 64 << 20})
	chain, err := blockchain.New(&blockchain.Config{Params: p, BlockDB: db, ChainState: cs, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := chain.Close(); err != nil {
			t.Error(err)
		}
	}()

	txs := 2000
	if testing.Short() {
		txs = 600
	}
	st, err := chaingen.Generate(chaingen.Config{Txs: txs, TxPerBlock: 1000, Seed: 11}, func(h int32, _ *wire.MsgBlock, raw []byte) error {
		// Give the chain a decoded block, as the block file importer does.
		b := new(wire.MsgBlock)
		if _, err := b.Decode(bytes.Clone(raw)); err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		res, err := chain.ProcessBlock(b)
		if err != nil {
			t.Fatalf("block %d rejected: %v", h, err)
		}
		if !res.MainChain || res.Orphan || res.Duplicate {
			t.Fatalf("block %d: %+v", h, res)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	best := chain.BestSnapshot()
	if best.Height != st.Height || best.Hash.String() != st.Tip {
		t.Fatalf("tip %d %v, generated %d %s", best.Height, best.Hash, st.Height, st.Tip)
	}
	t.Logf("accepted %d blocks, %d transactions, %d inputs", st.Blocks, st.Transactions, st.Inputs)
}
