package database

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/btcnode/btcd/internal/indexdb"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Key prefixes of the block index LevelDB (blocks/index).
const (
	prefixBlockIndex = 'b' // 'b' || block hash -> BlockIndexRecord
	prefixFileInfo   = 'f' // 'f' || uint32 BE file number -> FileInfo
	prefixTxIndex    = 't' // 't' || txid -> TxLoc, in the txindex (txindex.go); here before it had its own
	keyVersion       = 'V' // format version (uint32 LE), in both databases
)

// BlockIndexVersion is the format version of the block index database.
const BlockIndexVersion = 1

// BlockDBOptions tunes a BlockDB. Zero values select defaults.
type BlockDBOptions struct {
	// MaxFileSize is the size at which a new block file is started.
	MaxFileSize int64
	// CacheBytes is the LevelDB block cache for the index.
	CacheBytes int
	// ReadOnly opens without writing (e.g. for inspection tools).
	ReadOnly bool
	// FilesDir holds the blk and rev files when they live apart from the
	// index (bitcoind's -blocksdir); empty means dir/blocks.
	FilesDir string
	// XorFiles obfuscates new block and undo files with a random key
	// kept in xor.dat (Core's -blocksxor, xorkey.go). A key already
	// stored is used either way; files written plain stay plain.
	XorFiles bool
}

// BlockDB owns the block files (blocks/blkNNNNN.dat), the undo files
// (blocks/revNNNNN.dat), the block index LevelDB (blocks/index), which
// also holds per-file statistics used for pruning, and, once OpenTxIndex
// has opened it, the optional txindex (indexes/txindex, txindex.go).
// It is safe for concurrent use.
type BlockDB struct {
	mu      sync.Mutex
	dataDir string
	dir     string
	blk     *flatFiles
	rev     *flatFiles
	idx     *leveldb.DB
	maxSize int64

	cur   uint32              // block file currently appended to
	files map[uint32]FileInfo // statistics of every file ever written
	batch leveldb.Batch       // index updates pending until Flush
	// txdb is the txindex's database (nil until OpenTxIndex), txBatch
	// its entries pending until Flush.
	txdb    *indexdb.DB
	txBatch leveldb.Batch
	// dirtyFiles are FileInfos changed since the last flush.
	dirtyFiles map[uint32]struct{}
	closed     bool
}

// FileInfo summarises one block file: how many blocks it holds, their
// height and time range, and whether it has been pruned. The chain uses it
// to choose files to prune.
type FileInfo struct {
	Blocks    uint32
	Size      uint32 // bytes of blkNNNNN.dat
	UndoSize  uint32 // bytes of revNNNNN.dat
	MinHeight int32
	MaxHeight int32
	Pruned    bool
}

// OpenBlockDB opens (creating if needed) the block store under dir/blocks
// for the network net.
func OpenBlockDB(dir string, net wire.BitcoinNet, o BlockDBOptions) (*BlockDB, error) {
	bdir := filepath.Join(dir, "blocks")
	if err := os.MkdirAll(bdir, 0o755); err != nil {
		return nil, wrapErr(ErrIO, err, "create %s", bdir)
	}
	fdir := bdir
	if o.FilesDir != "" {
		fdir = o.FilesDir
		if err := os.MkdirAll(fdir, 0o755); err != nil {
			return nil, wrapErr(ErrIO, err, "create %s", fdir)
		}
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxBlockFileSize
	}
	// Offsets are uint32 (as in Core's index); keep files well below that.
	o.MaxFileSize = min(o.MaxFileSize, 1<<31)
	if o.CacheBytes <= 0 {
		o.CacheBytes = 8 << 20
	}
	db, err := openLevel(filepath.Join(bdir, "index"), &opt.Options{
		BlockCacheCapacity: o.CacheBytes,
		// Index records are small and written in batches at each flush;
		// batches beyond the memtable go straight to tables. goleveldb
		// allocates the whole memtable when it opens (4 MiB by default).
		WriteBuffer: 1 << 20,
		// As the chainstate (chainstate.go): the pool keeps compaction
		// buffers alive in open tables and in itself; during a
		// mainnet-scale sync it held 27 MB of the index's heap.
		DisableBufferPool: true,
		ReadOnly:          o.ReadOnly,
		Filter:            filter.NewBloomFilter(10),
	})
	if err != nil {
		return nil, err
	}
	if err := checkVersion(db, BlockIndexVersion, "block index", o.ReadOnly); err != nil {
		db.Close()
		return nil, err
	}
	b := &BlockDB{
		dataDir:    dir,
		dir:        fdir,
		blk:        newFlatFiles(fdir, "blk", net),
		rev:        newFlatFiles(fdir, "rev", net),
		idx:        db,
		maxSize:    o.MaxFileSize,
		files:      make(map[uint32]FileInfo),
		dirtyFiles: make(map[uint32]struct{}),
	}
	b.rev.freshReads = true
	key, err := setupXorKey(fdir, o.XorFiles, o.ReadOnly)
	if err != nil {
		db.Close()
		return nil, err
	}
	b.blk.key, b.rev.key = key, key
	if err := b.loadFileInfo(); err != nil {
		db.Close()
		return nil, err
	}
	return b, nil
}

// openLevel opens a LevelDB and maps its corruption errors to ErrCorrupt.
// Its errors are OpenFailed ones.
func openLevel(path string, o *opt.Options) (*leveldb.DB, error) {
	db, err := leveldb.OpenFile(path, o)
	if err != nil {
		kind := ErrIO
		if isLevelCorrupt(err) {
			kind = ErrCorrupt
		}
		return nil, wrapErr(kind, openFailure{err}, "open %s", path)
	}
	return db, nil
}

// openFailure marks the error of a LevelDB that would not open.
type openFailure struct{ error }

func (e openFailure) Unwrap() error { return e.error }

// OpenFailed reports whether err is a LevelDB of the store that would not
// open at all (files its manifest names missing or damaged, a lock held
// elsewhere), rather than records that failed to read once it was open:
// bitcoind words the two differently at start-up ("Error opening block
// database" and "Error loading block database").
func OpenFailed(err error) bool {
	var f openFailure
	return errors.As(err, &f)
}

func isLevelCorrupt(err error) bool {
	return lerrors.IsCorrupted(err)
}

// levelErr classifies an error from a LevelDB read or write.
func levelErr(err error, what string) error {
	if errors.Is(err, leveldb.ErrNotFound) {
		return wrapErr(ErrNotFound, err, "%s", what)
	}
	if errors.Is(err, leveldb.ErrClosed) {
		return wrapErr(ErrClosed, err, "%s", what)
	}
	if isLevelCorrupt(err) {
		return wrapErr(ErrCorrupt, err, "%s", what)
	}
	return wrapErr(ErrIO, err, "%s", what)
}

// checkVersion verifies the format version key, writing it into a new empty
// database. A non-empty database without the key is corrupt.
func checkVersion(db *leveldb.DB, want uint32, name string, readOnly bool) error {
	v, err := db.Get([]byte{keyVersion}, nil)
	if err == nil {
		if len(v) != 4 {
			return newErr(ErrCorrupt, "%s version key has %d bytes", name, len(v))
		}
		if got := binary.LittleEndian.Uint32(v); got != want {
			return newErr(ErrUnknownVersion, "%s format version %d, this node supports %d", name, got, want)
		}
		return nil
	}
	if !errors.Is(err, leveldb.ErrNotFound) {
		return levelErr(err, "read "+name+" version")
	}
	it := db.NewIterator(nil, nil)
	nonEmpty := it.First()
	it.Release()
	if nonEmpty {
		return newErr(ErrCorrupt, "%s has data but no format version", name)
	}
	if readOnly {
		return nil
	}
	var buf [4]byte
	binary.LittleEndian.PutUint32(buf[:], want)
	if err := db.Put([]byte{keyVersion}, buf[:], &opt.WriteOptions{Sync: true}); err != nil {
		return levelErr(err, "write "+name+" version")
	}
	return nil
}

func (b *BlockDB) loadFileInfo() error {
	it := b.idx.NewIterator(util.BytesPrefix([]byte{prefixFileInfo}), nil)
	defer it.Release()
	for it.Next() {
		k := it.Key()
		if len(k) != 5 {
			return newErr(ErrCorrupt, "file info key of %d bytes", len(k))
		}
		fi, err := decodeFileInfo(it.Value())
		if err != nil {
			return err
		}
		b.files[binary.BigEndian.Uint32(k[1:])] = fi
	}
	if err := it.Error(); err != nil {
		return levelErr(err, "read file info")
	}
	// The append position is the highest block file on disk, whether or
	// not its info was flushed; an unflushed tail is harmless garbage.
	nums, err := b.blk.existing()
	if err != nil {
		return err
	}
	if len(nums) > 0 {
		b.cur = nums[len(nums)-1]
	}
	for n := range b.files {
		if n > b.cur {
			b.cur = n
		}
	}
	return nil
}

func appendFileInfo(dst []byte, fi FileInfo) []byte {
	dst = AppendVarInt(dst, 1)
	dst = AppendVarInt(dst, uint64(fi.Blocks))
	dst = AppendVarInt(dst, uint64(fi.Size))
	dst = AppendVarInt(dst, uint64(fi.UndoSize))
	dst = AppendVarInt(dst, uint64(uint32(fi.MinHeight)))
	dst = AppendVarInt(dst, uint64(uint32(fi.MaxHeight)))
	p := uint64(0)
	if fi.Pruned {
		p = 1
	}
	return AppendVarInt(dst, p)
}

func decodeFileInfo(b []byte) (FileInfo, error) {
	var fi FileInfo
	d := varDecoder{b: b}
	if v := d.next(); v != 1 && d.err == nil {
		return fi, newErr(ErrUnknownVersion, "file info version %d", v)
	}
	fi.Blocks = d.u32()
	fi.Size = d.u32()
	fi.UndoSize = d.u32()
	fi.MinHeight = int32(d.u32())
	fi.MaxHeight = int32(d.u32())
	fi.Pruned = d.next() != 0
	if err := d.finish("file info"); err != nil {
		return FileInfo{}, err
	}
	return fi, nil
}

// WriteBlock appends a serialized block at height to the current block file,
// starting a new file when it would grow past the size limit. The data is
// durable only after Flush.
func (b *BlockDB) WriteBlock(raw []byte, height int32) (BlockLoc, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return BlockLoc{}, newErr(ErrClosed, "write block")
	}
	if len(raw) == 0 || len(raw) > maxRecordSize {
		return BlockLoc{}, newErr(ErrInvalidArg, "block of %d bytes", len(raw))
	}
	size, err := b.blk.size(b.cur)
	if err != nil {
		return BlockLoc{}, err
	}
	if size > 0 && size+recordHeaderSize+int64(len(raw)) > b.maxSize {
		// Make the finished file durable before moving on, as Core does
		// when it finalises a file.
		if err := b.blk.sync(); err != nil {
			return BlockLoc{}, err
		}
		b.cur++
	}
	off, err := b.blk.appendRecord(b.cur, raw, nil)
	if err != nil {
		return BlockLoc{}, err
	}
	if off == recordHeaderSize {
		// A new block file gets its undo file at once, as in Core, even
		// if no block in it ever has undo data (the genesis block).
		if _, err := b.rev.handle(b.cur, true); err != nil {
			return BlockLoc{}, err
		}
	}
	fi := b.files[b.cur]
	if fi.Blocks == 0 || height < fi.MinHeight {
		fi.MinHeight = height
	}
	if fi.Blocks == 0 || height > fi.MaxHeight {
		fi.MaxHeight = height
	}
	fi.Blocks++
	fi.Size = off + uint32(len(raw))
	b.files[b.cur] = fi
	b.dirtyFiles[b.cur] = struct{}{}
	return BlockLoc{File: b.cur, Offset: off, Size: uint32(len(raw))}, nil
}

// ReadBlock reads the block at loc into dst (grown if needed) and returns
// the block's bytes, which alias dst.
func (b *BlockDB) ReadBlock(loc BlockLoc, dst []byte) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return dst, newErr(ErrClosed, "read block")
	}
	buf, err := b.blk.readRecord(loc.File, loc.Offset, loc.Size, 0, dst)
	if err != nil {
		return dst, err
	}
	return buf[recordHeaderSize:], nil
}

// WriteUndo appends a block's undo record to revNNNNN.dat of the block's
// file blkFile, followed by Core's checksum over the previous block hash and
// the undo bytes.
func (b *BlockDB) WriteUndo(blkFile uint32, undo []byte, prevHash *wire.Hash) (UndoLoc, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return UndoLoc{}, newErr(ErrClosed, "write undo")
	}
	if len(undo) > maxRecordSize {
		return UndoLoc{}, newErr(ErrInvalidArg, "undo record of %d bytes", len(undo))
	}
	sum := undoChecksum(prevHash, undo)
	off, err := b.rev.appendRecord(blkFile, undo, sum[:])
	if err != nil {
		return UndoLoc{}, err
	}
	fi := b.files[blkFile]
	fi.UndoSize = off + uint32(len(undo)) + 32
	b.files[blkFile] = fi
	b.dirtyFiles[blkFile] = struct{}{}
	return UndoLoc{File: blkFile, Offset: off, Size: uint32(len(undo))}, nil
}

// ReadUndo reads the undo record at loc into dst and verifies its checksum
// against prevHash. A mismatch is ErrCorrupt.
func (b *BlockDB) ReadUndo(loc UndoLoc, prevHash *wire.Hash, dst []byte) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return dst, newErr(ErrClosed, "read undo")
	}
	buf, err := b.rev.readRecord(loc.File, loc.Offset, loc.Size, 32, dst)
	if err != nil {
		return dst, err
	}
	undo := buf[recordHeaderSize : recordHeaderSize+int(loc.Size)]
	if undoChecksum(prevHash, undo) != [32]byte(buf[recordHeaderSize+int(loc.Size):]) {
		return dst, newErr(ErrCorrupt, "undo checksum mismatch at rev%05d:%d", loc.File, loc.Offset)
	}
	return undo, nil
}

// PutBlockIndex queues a block index record; it is written by the next
// Flush (after the block files are synced, so the index never points at
// data that is not on disk).
func (b *BlockDB) PutBlockIndex(hash *wire.Hash, rec *BlockIndexRecord) {
	var key [33]byte
	key[0] = prefixBlockIndex
	copy(key[1:], hash[:])
	var val [blockIndexMaxLen]byte
	b.mu.Lock()
	b.batch.Put(key[:], rec.AppendTo(val[:0]))
	b.mu.Unlock()
}

// BlockIndex returns the stored record of hash (ErrNotFound if none). Records
// queued but not yet flushed are not visible.
func (b *BlockDB) BlockIndex(hash *wire.Hash) (BlockIndexRecord, error) {
	var key [33]byte
	key[0] = prefixBlockIndex
	copy(key[1:], hash[:])
	v, err := b.idx.Get(key[:], nil)
	if err != nil {
		return BlockIndexRecord{}, levelErr(err, "block index "+hash.String())
	}
	return DecodeBlockIndexRecord(v)
}

// ForEachBlockIndex calls fn for every stored record, in hash order (used at
// startup to rebuild the in-memory chain). Returning an error from fn stops
// the walk and returns that error.
func (b *BlockDB) ForEachBlockIndex(fn func(hash wire.Hash, rec BlockIndexRecord) error) error {
	it := b.idx.NewIterator(util.BytesPrefix([]byte{prefixBlockIndex}), nil)
	defer it.Release()
	for it.Next() {
		k := it.Key()
		if len(k) != 33 {
			return newErr(ErrCorrupt, "block index key of %d bytes", len(k))
		}
		rec, err := DecodeBlockIndexRecord(it.Value())
		if err != nil {
			return err
		}
		if err := fn(wire.Hash(k[1:]), rec); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return levelErr(err, "iterate block index")
	}
	return nil
}

// Flush makes everything written so far durable: it fsyncs the block and
// undo files, writes queued index records and file statistics in one
// synced LevelDB batch, and then the queued txindex entries (txindex.go).
// Call it before flushing the chainstate so that the chainstate never
// refers to blocks the index lacks.
func (b *BlockDB) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return newErr(ErrClosed, "flush")
	}
	if err := b.blk.sync(); err != nil {
		return err
	}
	if err := b.rev.sync(); err != nil {
		return err
	}
	var key [5]byte
	var val [64]byte
	key[0] = prefixFileInfo
	for n := range b.dirtyFiles {
		binary.BigEndian.PutUint32(key[1:], n)
		b.batch.Put(key[:], appendFileInfo(val[:0], b.files[n]))
		delete(b.dirtyFiles, n)
	}
	if b.batch.Len() > 0 {
		if err := b.idx.Write(&b.batch, &opt.WriteOptions{Sync: true}); err != nil {
			return levelErr(err, "write block index")
		}
		b.batch.Reset()
	}
	return b.commitTxIndex()
}

// FileInfo returns the statistics of block file num.
func (b *BlockDB) FileInfo(num uint32) (FileInfo, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fi, ok := b.files[num]
	return fi, ok
}

// CurrentFile returns the number of the block file being appended to.
func (b *BlockDB) CurrentFile() uint32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cur
}

// DiskUsage returns the bytes of block and undo files not yet pruned.
func (b *BlockDB) DiskUsage() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var n int64
	for _, fi := range b.files {
		if !fi.Pruned {
			n += int64(fi.Size) + int64(fi.UndoSize)
		}
	}
	return n
}

// PruneFiles deletes every block file and its undo file whose blocks are all
// at or below maxHeight, never the file being appended to. It returns the
// numbers of the files it pruned; the chain must mark the blocks in them as
// no longer having data. File statistics (with Pruned set) are kept so that
// PrunedHeight survives restarts.
func (b *BlockDB) PruneFiles(maxHeight int32) ([]uint32, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, newErr(ErrClosed, "prune")
	}
	var pruned []uint32
	for n, fi := range b.files {
		if n == b.cur || fi.Pruned || fi.Blocks == 0 || fi.MaxHeight > maxHeight {
			continue
		}
		if err := b.blk.remove(n); err != nil {
			return pruned, err
		}
		if err := b.rev.remove(n); err != nil {
			return pruned, err
		}
		fi.Pruned = true
		b.files[n] = fi
		b.dirtyFiles[n] = struct{}{}
		pruned = append(pruned, n)
	}
	return pruned, nil
}

// PrunedHeight returns the highest block height whose data has been pruned
// (every height at or below it is gone in some pruned file), or -1.
func (b *BlockDB) PrunedHeight() int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	h := int32(-1)
	for _, fi := range b.files {
		if fi.Pruned && fi.MaxHeight > h {
			h = fi.MaxHeight
		}
	}
	return h
}

// Close flushes and closes the store.
func (b *BlockDB) Close() error {
	err := b.Flush()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	if e := b.blk.close(); e != nil && err == nil {
		err = e
	}
	if e := b.rev.close(); e != nil && err == nil {
		err = e
	}
	if e := b.closeTxIndex(); e != nil && err == nil {
		err = e
	}
	if e := b.idx.Close(); e != nil && err == nil {
		err = levelErr(e, "close block index")
	}
	return err
}

// LevelDBStats fills s with the block index LevelDB's statistics for
// metrics.
func (db *BlockDB) LevelDBStats(s *leveldb.DBStats) error { return db.idx.Stats(s) }
