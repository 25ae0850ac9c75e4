package database

import (
	"os"
	"sort"
)

// MissingFilesAbove lists the block and undo files that hold blocks above
// height and are gone from disk although they were never pruned. Open
// handles are cached, so a file removed behind the node's back can still
// read until its handle is evicted; a caller about to disconnect blocks
// (dumptxoutset's temporary rollback) checks first, rather than fail half
// way with the chain rolled back.
func (db *BlockDB) MissingFilesAbove(height int32) []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	var missing []string
	for n, fi := range db.files {
		if fi.Pruned || fi.Blocks == 0 || fi.MaxHeight <= height {
			continue
		}
		paths := []string{db.blk.path(n)}
		if fi.UndoSize > 0 {
			paths = append(paths, db.rev.path(n))
		}
		for _, p := range paths {
			if _, err := os.Stat(p); err != nil {
				missing = append(missing, p)
			}
		}
	}
	sort.Strings(missing)
	return missing
}
