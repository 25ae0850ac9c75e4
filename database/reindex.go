package database

import (
	"errors"
	"os"
	"path/filepath"
)

// ResetForReindex deletes the block index, the chainstate and the txindex
// under datadir, keeping the block and undo files, so that --reindex can
// rebuild them from blkNNNNN.dat. Call it before opening any of them.
func ResetForReindex(datadir string) error {
	// The txindex names blocks by their place in the block files, so it
	// is rebuilt with the block index, as Core's -reindex wipes it.
	for _, p := range []string{filepath.Join(datadir, "blocks", "index"), filepath.Join(datadir, "chainstate"),
		filepath.Join(datadir, filepath.FromSlash(TxIndexSubdir))} {
		if err := os.RemoveAll(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return wrapErr(ErrIO, err, "remove %s", p)
		}
	}
	return nil
}

// RecordHeaderSize is the size of a block or undo record's header (magic
// and length) in the flat files: the offset of a file's first block.
const RecordHeaderSize = 8

// ResetForReindexInPlace deletes the block index, the chainstate and the
// undo files, keeping the block files (in filesDir, "" for datadir/blocks)
// to be read again where they are, as Core's -reindex does; the undo
// files are rewritten as the blocks connect again.
//
// With wipeBlocks the block files go too: a pruned node cannot rebuild from
// what is left of its files, and Core's -reindex then starts over from
// the genesis block.
func ResetForReindexInPlace(datadir, filesDir string, wipeBlocks bool) error {
	if err := ResetForReindex(datadir); err != nil {
		return err
	}
	if filesDir == "" {
		filesDir = filepath.Join(datadir, "blocks")
	}
	revs, err := filepath.Glob(filepath.Join(filesDir, "rev[0-9][0-9][0-9][0-9][0-9].dat"))
	if err != nil {
		return wrapErr(ErrIO, err, "list undo files")
	}
	if wipeBlocks {
		blks, err := filepath.Glob(filepath.Join(filesDir, "blk[0-9][0-9][0-9][0-9][0-9].dat"))
		if err != nil {
			return wrapErr(ErrIO, err, "list block files")
		}
		revs = append(revs, blks...)
	}
	for _, p := range revs {
		if err := os.Remove(p); err != nil {
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
