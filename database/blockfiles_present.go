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
	return db.missingFiles(height, true)
}

// MissingBlockFiles lists the block files (blkNNNNN.dat) that hold blocks
// and are gone from disk although they were never pruned. The chain checks
// them once it has loaded the block index, as bitcoind does at start-up,
// so a lost file stops the node at once rather than at the first read of
// one of its blocks.
func (db *BlockDB) MissingBlockFiles() []string {
	return db.missingFiles(-1, false)
}

// missingFiles lists the unpruned files holding blocks above height that
// are gone: block files, and with undo their undo files.
func (db *BlockDB) missingFiles(height int32, undo bool) []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	var missing []string
	for n, fi := range db.files {
		if fi.Pruned || fi.Blocks == 0 || fi.MaxHeight <= height {
			continue
		}
		paths := []string{db.blk.path(n)}
		if undo && fi.UndoSize > 0 {
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
