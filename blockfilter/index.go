package blockfilter

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// IndexSubdir is where the basic filter index lives under the data
// directory.
const IndexSubdir = "indexes/blockfilter/basic"

// indexVersion is the on-disk format version; another value is
// ErrUnknownVersion.
const indexVersion = 1

// Key prefixes and value sizes (see doc.go for the layout).
const (
	keyVersion     = 'V'
	keyTip         = 'T'
	prefixHeight   = 'h'
	prefixHash     = 'H'
	prefixFilter   = 'f'
	tipLen         = wire.HashSize + 4
	heightValLen   = 3 * wire.HashSize
	hashValLen     = 4 + 2*wire.HashSize
	heightKeyLen   = 5
	hashKeyLen     = 1 + wire.HashSize
	defaultCacheMB = 8
)

// IndexOptions tune the index database.
type IndexOptions struct {
	// Sync fsyncs every block's batch. Off by default: a batch is atomic
	// in LevelDB's journal either way, so a crash can only lose the last
	// few blocks, which CatchUp indexes again.
	Sync bool
	// CacheBytes is LevelDB's block cache size (default 8 MiB).
	CacheBytes int
}

// Index is the basic block filter index. Writes (BlockConnected,
// BlockDisconnected, Rewind) are serialised; queries may run concurrently
// with them and see whole blocks only.
type Index struct {
	mu        sync.Mutex // serialises writes and guards the tip fields
	db        *leveldb.DB
	wo        *opt.WriteOptions
	tipHash   wire.Hash
	tipHeight int32 // -1 when empty
	tipHeader wire.Hash
	b         Builder
	filterBuf []byte
	batch     leveldb.Batch
}

// OpenIndex opens (creating if needed) the index under dataDir.
func OpenIndex(dataDir string, o IndexOptions) (*Index, error) {
	cache := o.CacheBytes
	if cache <= 0 {
		cache = defaultCacheMB << 20
	}
	path := filepath.Join(dataDir, filepath.FromSlash(IndexSubdir))
	db, err := leveldb.OpenFile(path, &opt.Options{
		// Filters are Golomb-coded and hashes are random: nothing to
		// compress.
		Compression:        opt.NoCompression,
		BlockCacheCapacity: cache,
		WriteBuffer:        4 << 20,
	})
	if err != nil {
		if lerrors.IsCorrupted(err) {
			return nil, wrapErr(ErrCorrupt, err, "open %s", path)
		}
		return nil, wrapErr(ErrIO, err, "open %s", path)
	}
	x := &Index{db: db, wo: &opt.WriteOptions{Sync: o.Sync}, tipHeight: -1}
	if err := x.load(); err != nil {
		db.Close()
		return nil, err
	}
	return x, nil
}

// load checks the version and reads the tip.
func (x *Index) load() error {
	v, err := x.db.Get([]byte{keyVersion}, nil)
	switch {
	case err == nil:
		if len(v) != 4 {
			return newErr(ErrCorrupt, "version value of %d bytes", len(v))
		}
		if got := binary.LittleEndian.Uint32(v); got != indexVersion {
			return newErr(ErrUnknownVersion, "format version %d, this node supports %d", got, indexVersion)
		}
	case errors.Is(err, leveldb.ErrNotFound):
		it := x.db.NewIterator(nil, nil)
		nonEmpty := it.First()
		it.Release()
		if nonEmpty {
			return newErr(ErrCorrupt, "index has data but no format version")
		}
		var buf [4]byte
		binary.LittleEndian.PutUint32(buf[:], indexVersion)
		if err := x.db.Put([]byte{keyVersion}, buf[:], &opt.WriteOptions{Sync: true}); err != nil {
			return levelErr(err, "write version")
		}
		return nil
	default:
		return levelErr(err, "read version")
	}
	t, err := x.db.Get([]byte{keyTip}, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil // versioned but nothing indexed yet
	}
	if err != nil {
		return levelErr(err, "read tip")
	}
	if len(t) != tipLen {
		return newErr(ErrCorrupt, "tip value of %d bytes", len(t))
	}
	hash := wire.Hash(t[:wire.HashSize])
	height := int32(binary.LittleEndian.Uint32(t[wire.HashSize:]))
	if height < 0 {
		return newErr(ErrCorrupt, "tip height %d", height)
	}
	e, err := mustHeightEntry(x.db, height)
	if err != nil {
		return err
	}
	if e.hash != hash {
		return newErr(ErrCorrupt, "tip %v is not the block at height %d (%v)", hash, height, e.hash)
	}
	x.tipHash, x.tipHeight, x.tipHeader = hash, height, e.header
	return nil
}

// Close closes the database. Writes after Close return ErrClosed.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.db.Close(); err != nil {
		return levelErr(err, "close")
	}
	return nil
}

// Tip returns the last indexed main-chain block; height is -1 when the
// index is empty.
func (x *Index) Tip() (hash wire.Hash, height int32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.tipHash, x.tipHeight
}

// levelErr classifies an error from LevelDB.
func levelErr(err error, what string) error {
	switch {
	case errors.Is(err, leveldb.ErrNotFound):
		return wrapErr(ErrNotFound, err, "%s", what)
	case errors.Is(err, leveldb.ErrClosed):
		return wrapErr(ErrClosed, err, "%s", what)
	case lerrors.IsCorrupted(err):
		return wrapErr(ErrCorrupt, err, "%s", what)
	}
	return wrapErr(ErrIO, err, "%s", what)
}

func heightKey(height int32) [heightKeyLen]byte {
	var k [heightKeyLen]byte
	k[0] = prefixHeight
	binary.BigEndian.PutUint32(k[1:], uint32(height))
	return k
}

func hashKey(prefix byte, h *wire.Hash) [hashKeyLen]byte {
	var k [hashKeyLen]byte
	k[0] = prefix
	copy(k[1:], h[:])
	return k
}

// heightEntry is the main-chain record at a height.
type heightEntry struct {
	hash, filterHash, header wire.Hash
}

func decodeHeightEntry(v []byte, height int32) (heightEntry, error) {
	if len(v) != heightValLen {
		return heightEntry{}, newErr(ErrCorrupt, "height %d value of %d bytes", height, len(v))
	}
	return heightEntry{
		hash:       wire.Hash(v[:32]),
		filterHash: wire.Hash(v[32:64]),
		header:     wire.Hash(v[64:96]),
	}, nil
}

// reader is what both the database and a snapshot offer.
type reader interface {
	Get(key []byte, ro *opt.ReadOptions) ([]byte, error)
}

func getHeightEntry(r reader, height int32) (heightEntry, error) {
	k := heightKey(height)
	v, err := r.Get(k[:], nil)
	if err != nil {
		return heightEntry{}, levelErr(err, "filter index entry at height "+itoaHeight(height))
	}
	return decodeHeightEntry(v, height)
}

// hashEntry is the record of a block by hash.
type hashEntry struct {
	height             int32
	filterHash, header wire.Hash
}

func getHashEntry(r reader, h *wire.Hash) (hashEntry, error) {
	k := hashKey(prefixHash, h)
	v, err := r.Get(k[:], nil)
	if err != nil {
		return hashEntry{}, levelErr(err, "filter header of block "+h.String())
	}
	if len(v) != hashValLen {
		return hashEntry{}, newErr(ErrCorrupt, "filter header of block %v: value of %d bytes", h, len(v))
	}
	height := int32(binary.LittleEndian.Uint32(v))
	if height < 0 {
		return hashEntry{}, newErr(ErrCorrupt, "filter header of block %v: height %d", h, height)
	}
	return hashEntry{height: height, filterHash: wire.Hash(v[4:36]), header: wire.Hash(v[36:68])}, nil
}

// checkFilterValue verifies that a stored filter at least has a valid
// element count for its size, without decoding it (LevelDB's block
// checksums already catch bit rot; this catches truncated or foreign
// values).
func checkFilterValue(v []byte, h *wire.Hash) error {
	n, used, err := wire.ReadVarInt(v)
	if err != nil {
		return wrapErr(ErrCorrupt, err, "filter of block %v", h)
	}
	if n > uint64(len(v)-used)*8/(uint64(BasicParams.P)+1) {
		return newErr(ErrCorrupt, "filter of block %v: %d elements in %d bytes", h, n, len(v)-used)
	}
	return nil
}

func itoaHeight(h int32) string { return strconv.Itoa(int(h)) }

// mustHeightEntry reads the entry of a height at or below the tip, which
// must exist.
func mustHeightEntry(r reader, height int32) (heightEntry, error) {
	e, err := getHeightEntry(r, height)
	if isKind(err, ErrNotFound) {
		return e, newErr(ErrCorrupt, "main chain entry for height %d missing", height)
	}
	return e, err
}
