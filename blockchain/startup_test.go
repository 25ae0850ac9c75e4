package blockchain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// New logs bitcoind's start-up lines as it loads the chain: what
// assume-valid skips, the block index, the block files check and the
// tip it loaded.
func TestStartupLines(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(3)
	tc.close()
	out := captureChainLog(t)
	tc.open(func(c *Config) { c.AssumeValidSet = true })
	logged := out.take()
	for _, want := range []string{
		"Validating signatures for all blocks.",
		"Loading block index",
		"Checking all blk files are present",
		"Loaded best chain: hashBestChain=" + tc.chain.BestSnapshot().Hash.String() + " height=3 date=",
	} {
		if !strings.Contains(logged, want) {
			t.Errorf("start-up log lacks %q", want)
		}
	}
	tc.close()
	av := wire.Hash{1, 2, 3}
	tc.open(func(c *Config) { c.AssumeValidSet, c.AssumeValid = true, av })
	if want := "Assuming ancestors of block " + av.String() + " have valid signatures."; !strings.Contains(out.take(), want) {
		t.Errorf("start-up log lacks %q", want)
	}
	tc.close()
}

// A block file gone from disk stops New before the chain loads.
func TestNewMissingBlockFile(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(3)
	tc.close()
	blk := filepath.Join(tc.dir, "blocks", "blk00000.dat")
	if err := os.Rename(blk, blk+".moved"); err != nil {
		t.Fatal(err)
	}
	db, err := database.OpenBlockDB(tc.dir, tc.p.Net, tc.dbOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cs, err := database.OpenChainState(tc.dir, database.ChainStateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cache := database.NewUtxoCache(cs, database.UtxoCacheOptions{MaxBytes: 1 << 20})
	_, err = New(&Config{Params: tc.p, BlockDB: db, ChainState: cs, Cache: cache, Par: 1})
	var le *BlockIndexLoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), blk) {
		t.Fatalf("New with %s missing: %v", blk, err)
	}
}
