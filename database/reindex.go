package database

import (
	"errors"
	"os"
	"path/filepath"
)

// ResetForReindex deletes the block index and the chainstate under datadir,
// keeping the block and undo files, so that --reindex can rebuild both from
// blkNNNNN.dat. Call it before opening either database.
func ResetForReindex(datadir string) error {
	for _, p := range []string{filepath.Join(datadir, "blocks", "index"), filepath.Join(datadir, "chainstate")} {
		if err := os.RemoveAll(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return wrapErr(ErrIO, err, "remove %s", p)
		}
	}
	return nil
}

// BlockFiles returns the numbers of the block files on disk in ascending
// order, for --reindex to read with BlockFileReader (BlockFilePath gives
// each path).
func (b *BlockDB) BlockFiles() ([]uint32, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.blk.existing()
}

// XorKey returns the key the block and undo files are obfuscated with
// (zero: plain).
func (b *BlockDB) XorKey() [XorKeySize]byte { return b.blk.key }

// FilesDir returns the directory of the block and undo files.
func (b *BlockDB) FilesDir() string { return b.dir }

// BlockFilePath returns the path of blkNNNNN.dat for file number num.
func (b *BlockDB) BlockFilePath(num uint32) string { return b.blk.path(num) }

// NoteExistingBlock records a block found in an existing block file during
// --reindex (at the location BlockFileReader reported) in the file
// statistics, without writing it again.
func (b *BlockDB) NoteExistingBlock(loc BlockLoc, height int32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fi := b.files[loc.File]
	if fi.Blocks == 0 || height < fi.MinHeight {
		fi.MinHeight = height
	}
	if fi.Blocks == 0 || height > fi.MaxHeight {
		fi.MaxHeight = height
	}
	fi.Blocks++
	fi.Size = max(fi.Size, loc.Offset+loc.Size)
	b.files[loc.File] = fi
	b.dirtyFiles[loc.File] = struct{}{}
}
