package blockfilter

import (
	"errors"
	"os"
	"path/filepath"
)

// formerSubdir is where the index's LevelDB lived before it took
// bitcoind's layout, which keeps it in the db directory below (beside
// the flat filter files bitcoind writes there).
const formerSubdir = "indexes/blockfilter/basic"

// moveFormerLayout moves a LevelDB left at formerSubdir by an earlier
// version into IndexSubdir, so an existing index is kept, not rebuilt.
// The move is two renames through a sibling directory; one a crash cut
// short is finished at the next open.
func moveFormerLayout(dataDir string) error {
	old := filepath.Join(dataDir, filepath.FromSlash(formerSubdir))
	dst := filepath.Join(dataDir, filepath.FromSlash(IndexSubdir))
	tmp := old + ".moving"
	if _, err := os.Stat(tmp); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(old, "CURRENT")); err != nil {
			return nil // nothing there, or already moved
		}
		if err := os.Rename(old, tmp); err != nil {
			return kinds.Wrap(ErrIO, err, "move the filter index from %s", old)
		}
	} else if err != nil {
		return kinds.Wrap(ErrIO, err, "move the filter index from %s", old)
	}
	if err := os.MkdirAll(old, 0o755); err != nil {
		return kinds.Wrap(ErrIO, err, "move the filter index to %s", dst)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return kinds.Wrap(ErrIO, err, "move the filter index to %s", dst)
	}
	log.Infof("Moved the filter index from %s to %s", old, dst)
	return nil
}
