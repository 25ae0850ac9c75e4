package blockchain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/internal/chaintest"
)

// TestReorgWithoutUndoIsFatal: a reorganisation that cannot disconnect a
// block (its undo file deleted) reports "Failed to disconnect block." to
// OnFatal, as Core's AbortNode, instead of leaving the node quietly on the
// weaker chain.
func TestReorgWithoutUndoIsFatal(t *testing.T) {
	p := chaincfg.RegressionNetParams
	var fatal []string
	tc := newTestChain(t, &p, func(c *Config) {
		c.OnFatal = func(msg string, err error) { fatal = append(fatal, msg) }
	})
	e1 := tc.b.NextBlock(nil, nil, nil)
	tc.accept(e1)
	tc.mine(2)
	revs, _ := filepath.Glob(filepath.Join(tc.dir, "*", "rev00000.dat"))
	if len(revs) == 0 {
		revs, _ = filepath.Glob(filepath.Join(tc.dir, "rev00000.dat"))
	}
	if len(revs) != 1 {
		t.Fatalf("rev00000.dat not found under %s", tc.dir)
	}
	if err := os.Remove(revs[0]); err != nil {
		t.Fatal(err)
	}
	parent := e1
	for i := 0; i < 3; i++ {
		e := tc.b.NextBlock(parent, nil, &chaintest.BlockOpts{Time: parent.Block.Header.Timestamp + 7})
		_, err := tc.chain.ProcessBlock(e.Block)
		if i < 2 && err != nil {
			t.Fatalf("side block %d: %v", i, err)
		}
		if i == 2 && err == nil {
			t.Fatal("reorg without undo data succeeded")
		}
		parent = e
	}
	if len(fatal) != 1 || fatal[0] != "Failed to disconnect block." {
		t.Fatalf("OnFatal got %q", fatal)
	}
}
