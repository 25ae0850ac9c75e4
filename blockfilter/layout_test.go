package blockfilter

import (
	"os"
	"path/filepath"
	"testing"
)

// An index an earlier version kept at indexes/blockfilter/basic moves to
// bitcoind's indexes/blockfilter/basic/db and keeps its filters, also
// when a crash cut the move short.
func TestOpenMovesFormerLayout(t *testing.T) {
	for _, cut := range []bool{false, true} {
		dir := t.TempDir()
		var c testChain
		c.extend(5, 0)
		x := openTest(t, dir)
		connectAll(t, x, &c, 0)
		x.Close()
		// Put it where the earlier version kept it.
		cur := filepath.Join(dir, filepath.FromSlash(IndexSubdir))
		old := filepath.Join(dir, filepath.FromSlash(formerSubdir))
		tmp := filepath.Join(dir, "indexes", "blockfilter", "former")
		if err := os.Rename(cur, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(old); err != nil {
			t.Fatal(err)
		}
		if cut {
			// The first rename happened, the second did not.
			if err := os.Rename(tmp, old+".moving"); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Rename(tmp, old); err != nil {
			t.Fatal(err)
		}

		x = openTest(t, dir)
		if _, h := x.Tip(); h != 4 {
			t.Fatalf("cut %v: tip height %d after the move, want 4", cut, h)
		}
		x.Close()
		if _, err := os.Stat(filepath.Join(cur, "CURRENT")); err != nil {
			t.Fatalf("cut %v: no LevelDB at %s: %v", cut, IndexSubdir, err)
		}
		if _, err := os.Stat(old + ".moving"); !os.IsNotExist(err) {
			t.Fatalf("cut %v: the move's directory is left: %v", cut, err)
		}
	}
}
