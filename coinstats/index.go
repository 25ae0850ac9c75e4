package coinstats

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/btcnode/btcd/internal/muhash"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/opt"
)

// IndexSubdir is where the index's LevelDB lives under the network's data
// directory (where Core's functional tests of this era look for it).
const IndexSubdir = "indexes/coinstats/db"

// indexVersion is the on-disk format version; another value is
// ErrUnknownVersion.
const indexVersion = 1

// Key prefixes (see doc.go for the layout).
const (
	keyVersion   = 'V'
	keyTip       = 'T'
	keyMuHash    = 'M'
	prefixHeight = 't'
	prefixHash   = 's'
	tipLen       = wire.HashSize + 4
	heightKeyLen = 5
	hashKeyLen   = 1 + wire.HashSize
)

const defaultCacheBytes = 8 << 20

// Options configure an index.
type Options struct {
	// HalvingInterval is the network's subsidy halving interval, which
	// the per-block subsidy (and so the unclaimed rewards) follows.
	HalvingInterval int32
	// Sync fsyncs every block's batch. Off by default: a batch is atomic
	// in LevelDB's journal either way, so a crash loses at most the last
	// few blocks, which CatchUp indexes again.
	Sync bool
	// CacheBytes is LevelDB's block cache size (default 8 MiB).
	CacheBytes int
	// Workers bounds the goroutines that share a large block's MuHash
	// work (default 4; 1 keeps it on the caller's goroutine).
	Workers int
}

// Index is the coin statistics index. Writes (BlockConnected, Rewind,
// CatchUp) are serialised; lookups may run concurrently with them and see
// whole blocks only.
type Index struct {
	mu      sync.Mutex // serialises writes and guards the tip fields
	db      *leveldb.DB
	wo      *opt.WriteOptions
	o       Options
	tip     Stats // valid when tipOK
	tipOK   bool
	running *muhash.MuHash // the UTXO set's MuHash at the tip
	batch   leveldb.Batch
	elems   elemBuf
}

// OpenIndex opens (creating if needed) the index under dataDir.
func OpenIndex(dataDir string, o Options) (*Index, error) {
	if o.HalvingInterval <= 0 {
		return nil, newErr(ErrInvalidArg, "halving interval %d", o.HalvingInterval)
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = defaultCacheBytes
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	path := filepath.Join(dataDir, filepath.FromSlash(IndexSubdir))
	db, err := leveldb.OpenFile(path, &opt.Options{
		// Digests and hashes are random: nothing to compress.
		Compression:        opt.NoCompression,
		BlockCacheCapacity: o.CacheBytes,
		WriteBuffer:        4 << 20,
	})
	if err != nil {
		if lerrors.IsCorrupted(err) {
			// Core's wording, which operators and its tests look for.
			return nil, wrapErr(ErrCorrupt, err, "Fatal LevelDB error: Corruption: open %s", path)
		}
		return nil, wrapErr(ErrIO, err, "open %s", path)
	}
	x := &Index{db: db, wo: &opt.WriteOptions{Sync: o.Sync}, o: o, running: muhash.New()}
	if err := x.load(); err != nil {
		db.Close()
		return nil, err
	}
	return x, nil
}

// load checks the version and restores the tip and the running MuHash,
// which must agree with the tip's recorded digest.
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
	st, err := mustHeightRecord(x.db, height)
	if err != nil {
		return err
	}
	if st.Hash != hash {
		return newErr(ErrCorrupt, "tip %v is not the block recorded at height %d (%v)", hash, height, st.Hash)
	}
	m, err := x.db.Get([]byte{keyMuHash}, nil)
	if err != nil {
		return levelErr(err, "read MuHash state")
	}
	if err := x.running.UnmarshalBinary(m); err != nil {
		return wrapErr(ErrCorrupt, err, "MuHash state")
	}
	if wire.Hash(x.running.Finalize()) != st.MuHash {
		return newErr(ErrCorrupt, "MuHash state does not match the tip's digest")
	}
	x.tip, x.tipOK = st, true
	return nil
}

// Close closes the database.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.db.Close(); err != nil {
		return levelErr(err, "close")
	}
	return nil
}

// Tip returns the last indexed block; height is -1 when the index is
// empty.
func (x *Index) Tip() (hash wire.Hash, height int32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.tipOK {
		return wire.Hash{}, -1
	}
	return x.tip.Hash, x.tip.Height
}

// Lookup returns the statistics of the block hash at height: from the
// indexed chain, or, for a block a reorganisation took back, from the
// record kept by hash. ok is false when the index never saw the block.
func (x *Index) Lookup(hash wire.Hash, height int32) (st Stats, ok bool, err error) {
	if height < 0 {
		return st, false, nil
	}
	st, err = getHeightRecord(x.db, height)
	switch {
	case err == nil && st.Hash == hash:
		return st, true, nil
	case err != nil && !isKind(err, errNotFound):
		return st, false, err
	}
	k := hashKey(&hash)
	v, err := x.db.Get(k[:], nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return Stats{}, false, nil
	}
	if err != nil {
		return Stats{}, false, levelErr(err, "record of block "+hash.String())
	}
	if st, err = DecodeRecord(v); err != nil {
		return st, false, err
	}
	if st.Hash != hash || st.Height != height {
		return Stats{}, false, newErr(ErrCorrupt, "record kept for block %v names block %v at height %d",
			hash, st.Hash, st.Height)
	}
	return st, true, nil
}

// errNotFound is internal: a key that is absent, which callers either
// tolerate or turn into ErrCorrupt.
const errNotFound ErrorKind = "not found"

// levelErr classifies an error from LevelDB.
func levelErr(err error, what string) error {
	switch {
	case errors.Is(err, leveldb.ErrNotFound):
		return wrapErr(errNotFound, err, "%s", what)
	case errors.Is(err, leveldb.ErrClosed):
		return wrapErr(ErrClosed, err, "%s", what)
	case lerrors.IsCorrupted(err):
		return wrapErr(ErrCorrupt, err, "Fatal LevelDB error: Corruption: %s", what)
	}
	return wrapErr(ErrIO, err, "%s", what)
}

func heightKey(height int32) [heightKeyLen]byte {
	var k [heightKeyLen]byte
	k[0] = prefixHeight
	binary.BigEndian.PutUint32(k[1:], uint32(height))
	return k
}

func hashKey(h *wire.Hash) [hashKeyLen]byte {
	var k [hashKeyLen]byte
	k[0] = prefixHash
	copy(k[1:], h[:])
	return k
}

func putTip(b *leveldb.Batch, hash *wire.Hash, height int32) {
	var t [tipLen]byte
	copy(t[:], hash[:])
	binary.LittleEndian.PutUint32(t[wire.HashSize:], uint32(height))
	b.Put([]byte{keyTip}, t[:])
}

// reader is what both the database and a snapshot offer.
type reader interface {
	Get(key []byte, ro *opt.ReadOptions) ([]byte, error)
}

// getHeightRecord reads the indexed chain's record at height.
func getHeightRecord(r reader, height int32) (Stats, error) {
	k := heightKey(height)
	v, err := r.Get(k[:], nil)
	if err != nil {
		return Stats{}, levelErr(err, "coinstats record at height "+strconv.Itoa(int(height)))
	}
	st, err := DecodeRecord(v)
	if err != nil {
		return st, err
	}
	if st.Height != height {
		return Stats{}, newErr(ErrCorrupt, "record at height %d names height %d", height, st.Height)
	}
	return st, nil
}

// mustHeightRecord reads a record at or below the tip, which must exist.
func mustHeightRecord(r reader, height int32) (Stats, error) {
	st, err := getHeightRecord(r, height)
	if isKind(err, errNotFound) {
		return st, newErr(ErrCorrupt, "record at height %d missing", height)
	}
	return st, err
}
