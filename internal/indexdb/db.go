package indexdb

import (
	"encoding/binary"
	"errors"
	"path/filepath"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// Keys every index keeps, and the sizes of the keys it builds.
const (
	// KeyVersion holds the format version (uint32 LE).
	KeyVersion = 'V'
	// KeyTip holds the tip: block hash || height (int32 LE).
	KeyTip = 'T'
	// TipLen is the size of the tip value.
	TipLen = wire.HashSize + 4
	// HeightKeyLen is the size of a HeightKey.
	HeightKeyLen = 5
	// HashKeyLen is the size of a HashKey.
	HashKeyLen = 1 + wire.HashSize
)

// defaultCacheBytes is LevelDB's block cache unless Options say otherwise.
const defaultCacheBytes = 8 << 20

// Options tune an index database.
type Options struct {
	// Sync fsyncs every Commit. Off by default: a batch is atomic in
	// LevelDB's journal either way, so a crash can only lose the last
	// few blocks, which CatchUp indexes again.
	Sync bool
	// CacheBytes is LevelDB's block cache size (default 8 MiB).
	CacheBytes int
}

// Tip is the last block an index recorded; Height is -1 when the index is
// empty.
type Tip struct {
	Hash   wire.Hash
	Height int32
}

// Reader is what both the database and a snapshot offer.
type Reader interface {
	Get(key []byte, ro *opt.ReadOptions) ([]byte, error)
}

// Spec names one index's database.
type Spec struct {
	// Subdir is where the LevelDB lives under the data directory
	// (slash-separated).
	Subdir string
	// Version is the format version the index writes and accepts.
	Version uint32
	// Kinds are the kinds of the errors Open and the DB return.
	Kinds *Kinds
}

// DB is an index's LevelDB, its format version checked.
type DB struct {
	*leveldb.DB
	kinds *Kinds
	wo    *opt.WriteOptions
}

// Open opens (creating if needed) the LevelDB of s under dataDir. Its
// journals are checked first (journal.go): damage fails Open with the
// Corrupt kind, a last record a crash cut short does not. A
// database that holds a version must hold s.Version; an empty one gets
// it, and one with data but no version is corrupt. When the database
// holds a tip, verify checks it against the index's own records (and
// takes what the index keeps of it); its error closes the database and
// is returned.
func Open(dataDir string, s Spec, o Options, verify func(db *DB, tip Tip) error) (*DB, error) {
	k := s.Kinds
	cache := o.CacheBytes
	if cache <= 0 {
		cache = defaultCacheBytes
	}
	path := filepath.Join(dataDir, filepath.FromSlash(s.Subdir))
	if err := checkJournals(path); err != nil {
		var ce *corruptionError
		if errors.As(err, &ce) {
			return nil, k.New(k.Corrupt, "%s%s", k.LevelCorruption, ce)
		}
		return nil, k.Wrap(k.IO, err, "read the journal of %s", path)
	}
	ldb, err := leveldb.OpenFile(path, &opt.Options{
		// Index values are hashes, digests and Golomb-coded filters:
		// nothing to compress.
		Compression:        opt.NoCompression,
		BlockCacheCapacity: cache,
		WriteBuffer:        4 << 20,
	})
	if err != nil {
		if lerrors.IsCorrupted(err) {
			if missingCurrentTarget(path) {
				// LevelDB's words for what goleveldb calls a missing
				// entry point.
				return nil, k.Wrap(k.Corrupt, err, "%sCURRENT points to a non-existent file in %s", k.LevelCorruption, path)
			}
			return nil, k.Wrap(k.Corrupt, err, "%sopen %s", k.LevelCorruption, path)
		}
		return nil, k.Wrap(k.IO, err, "open %s", path)
	}
	db := &DB{DB: ldb, kinds: k, wo: &opt.WriteOptions{Sync: o.Sync}}
	tip, err := db.load(s.Version)
	if err == nil && tip.Height >= 0 {
		err = verify(db, tip)
	}
	if err != nil {
		ldb.Close()
		return nil, err
	}
	return db, nil
}

// load checks the version (writing it into an empty database) and reads
// the tip.
func (db *DB) load(version uint32) (Tip, error) {
	k := db.kinds
	none := Tip{Height: -1}
	v, err := db.Get([]byte{KeyVersion}, nil)
	switch {
	case err == nil:
		got, err := decodeVersion(v, k)
		if err != nil {
			return none, err
		}
		if got != version {
			return none, k.New(k.UnknownVersion, "format version %d, this node supports %d", got, version)
		}
	case errors.Is(err, leveldb.ErrNotFound):
		it := db.NewIterator(nil, nil)
		nonEmpty := it.First()
		it.Release()
		if nonEmpty {
			return none, k.New(k.Corrupt, "index has data but no format version")
		}
		var buf [4]byte
		binary.LittleEndian.PutUint32(buf[:], version)
		// Synced whatever Options say: a later crash must not leave
		// data behind without its version.
		if err := db.Put([]byte{KeyVersion}, buf[:], &opt.WriteOptions{Sync: true}); err != nil {
			return none, k.Level(err, "write version")
		}
		return none, nil
	default:
		return none, k.Level(err, "read version")
	}
	t, err := db.Get([]byte{KeyTip}, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return none, nil // versioned but nothing indexed yet
	}
	if err != nil {
		return none, k.Level(err, "read tip")
	}
	return decodeTip(t, k)
}

func decodeVersion(v []byte, k *Kinds) (uint32, error) {
	if len(v) != 4 {
		return 0, k.New(k.Corrupt, "version value of %d bytes", len(v))
	}
	return binary.LittleEndian.Uint32(v), nil
}

func decodeTip(t []byte, k *Kinds) (Tip, error) {
	none := Tip{Height: -1}
	if len(t) != TipLen {
		return none, k.New(k.Corrupt, "tip value of %d bytes", len(t))
	}
	height := int32(binary.LittleEndian.Uint32(t[wire.HashSize:]))
	if height < 0 {
		return none, k.New(k.Corrupt, "tip height %d", height)
	}
	return Tip{Hash: wire.Hash(t[:wire.HashSize]), Height: height}, nil
}

// Close closes the database; later use fails with the Closed kind.
func (db *DB) Close() error {
	if err := db.DB.Close(); err != nil {
		return db.kinds.Level(err, "close")
	}
	return nil
}

// Commit writes b atomically, with the sync setting of the Options the
// database was opened with; what says what the batch holds.
func (db *DB) Commit(b *leveldb.Batch, what string) error {
	if err := db.Write(b, db.wo); err != nil {
		return db.kinds.Level(err, what)
	}
	return nil
}

// PutTip sets the tip in b.
func PutTip(b *leveldb.Batch, hash *wire.Hash, height int32) {
	var t [TipLen]byte
	copy(t[:], hash[:])
	binary.LittleEndian.PutUint32(t[wire.HashSize:], uint32(height))
	b.Put([]byte{KeyTip}, t[:])
}

// DeleteTip removes the tip in b: the index becomes empty.
func DeleteTip(b *leveldb.Batch) { b.Delete([]byte{KeyTip}) }

// HeightKey is prefix || height (BE), so that an iterator visits heights
// in order.
func HeightKey(prefix byte, height int32) [HeightKeyLen]byte {
	var k [HeightKeyLen]byte
	k[0] = prefix
	binary.BigEndian.PutUint32(k[1:], uint32(height))
	return k
}

// HashKey is prefix || block hash.
func HashKey(prefix byte, h *wire.Hash) [HashKeyLen]byte {
	var k [HashKeyLen]byte
	k[0] = prefix
	copy(k[1:], h[:])
	return k
}
