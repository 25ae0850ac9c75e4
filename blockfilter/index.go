package blockfilter

import (
	"encoding/binary"
	"errors"
	"strconv"
	"sync"

	"github.com/btcnode/btcd/internal/indexdb"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

// IndexSubdir is where the basic filter index's LevelDB lives under the
// data directory, as in bitcoind's layout.
const IndexSubdir = "indexes/blockfilter/basic/db"

// indexVersion is the on-disk format version; another value is
// ErrUnknownVersion.
const indexVersion = 1

// Keys and value sizes (see doc.go for the layout).
const (
	keyVersion   = indexdb.KeyVersion
	prefixHeight = 'h'
	prefixHash   = 'H'
	prefixFilter = 'f'
	heightValLen = 3 * wire.HashSize
	hashValLen   = 4 + 2*wire.HashSize
)

// IndexOptions tune the index database (Sync, CacheBytes).
type IndexOptions = indexdb.Options

// Index is the basic block filter index. Writes (BlockConnected,
// BlockDisconnected, Rewind) are serialised; queries may run concurrently
// with them and see whole blocks only.
type Index struct {
	mu        sync.Mutex // serialises writes and guards the tip fields
	db        *indexdb.DB
	tipHash   wire.Hash
	tipHeight int32 // -1 when empty
	tipHeader wire.Hash
	b         Builder
	filterBuf []byte
	batch     leveldb.Batch
}

// spec is the index's database for the shared index machinery.
var spec = indexdb.Spec{Subdir: IndexSubdir, Version: indexVersion, Kinds: &kinds}

// OpenIndex opens (creating if needed) the index under dataDir, first
// moving one an earlier version kept at formerSubdir (layout.go).
func OpenIndex(dataDir string, o IndexOptions) (*Index, error) {
	if err := moveFormerLayout(dataDir); err != nil {
		return nil, err
	}
	x := &Index{tipHeight: -1}
	db, err := indexdb.Open(dataDir, spec, o, x.load)
	if err != nil {
		return nil, err
	}
	x.db = db
	return x, nil
}

// load checks that the stored tip is the indexed block at its height and
// takes its filter header.
func (x *Index) load(db *indexdb.DB, tip indexdb.Tip) error {
	e, err := mustHeightEntry(db, tip.Height)
	if err != nil {
		return err
	}
	if e.hash != tip.Hash {
		return kinds.New(ErrCorrupt, "tip %v is not the block at height %d (%v)", tip.Hash, tip.Height, e.hash)
	}
	x.tipHash, x.tipHeight, x.tipHeader = tip.Hash, tip.Height, e.header
	return nil
}

// Close closes the database. Writes after Close return ErrClosed.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.db.Close()
}

// Tip returns the last indexed main-chain block; height is -1 when the
// index is empty.
func (x *Index) Tip() (hash wire.Hash, height int32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.tipHash, x.tipHeight
}

func heightKey(height int32) [indexdb.HeightKeyLen]byte {
	return indexdb.HeightKey(prefixHeight, height)
}

func hashKey(prefix byte, h *wire.Hash) [indexdb.HashKeyLen]byte {
	return indexdb.HashKey(prefix, h)
}

// heightEntry is the main-chain record at a height.
type heightEntry struct {
	hash, filterHash, header wire.Hash
}

func decodeHeightEntry(v []byte, height int32) (heightEntry, error) {
	if len(v) != heightValLen {
		return heightEntry{}, kinds.New(ErrCorrupt, "height %d value of %d bytes", height, len(v))
	}
	return heightEntry{
		hash:       wire.Hash(v[:32]),
		filterHash: wire.Hash(v[32:64]),
		header:     wire.Hash(v[64:96]),
	}, nil
}

// reader is what both the database and a snapshot offer.
type reader = indexdb.Reader

func getHeightEntry(r reader, height int32) (heightEntry, error) {
	k := heightKey(height)
	v, err := r.Get(k[:], nil)
	if err != nil {
		return heightEntry{}, kinds.Level(err, "filter index entry at height "+itoaHeight(height))
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
		return hashEntry{}, kinds.Level(err, "filter header of block "+h.String())
	}
	if len(v) != hashValLen {
		return hashEntry{}, kinds.New(ErrCorrupt, "filter header of block %v: value of %d bytes", h, len(v))
	}
	height := int32(binary.LittleEndian.Uint32(v))
	if height < 0 {
		return hashEntry{}, kinds.New(ErrCorrupt, "filter header of block %v: height %d", h, height)
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
		return kinds.Wrap(ErrCorrupt, err, "filter of block %v", h)
	}
	if n > uint64(len(v)-used)*8/(uint64(BasicParams.P)+1) {
		return kinds.New(ErrCorrupt, "filter of block %v: %d elements in %d bytes", h, n, len(v)-used)
	}
	return nil
}

func itoaHeight(h int32) string { return strconv.Itoa(int(h)) }

// mustHeightEntry reads the entry of a height at or below the tip, which
// must exist.
func mustHeightEntry(r reader, height int32) (heightEntry, error) {
	e, err := getHeightEntry(r, height)
	if errors.Is(err, ErrNotFound) {
		return e, kinds.New(ErrCorrupt, "main chain entry for height %d missing", height)
	}
	return e, err
}
