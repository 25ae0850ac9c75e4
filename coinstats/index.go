package coinstats

import (
	"errors"
	"strconv"
	"sync"

	"github.com/btcnode/btcd/internal/indexdb"
	"github.com/btcnode/btcd/internal/muhash"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

// IndexSubdir is where the index's LevelDB lives under the network's data
// directory (where Core's functional tests of this era look for it).
const IndexSubdir = "indexes/coinstats/db"

// indexVersion is the on-disk format version; another value is
// ErrUnknownVersion.
const indexVersion = 1

// Keys (see doc.go for the layout).
const (
	keyVersion   = indexdb.KeyVersion
	keyMuHash    = 'M'
	prefixHeight = 't'
	prefixHash   = 's'
)

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
	db      *indexdb.DB
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
		return nil, kinds.New(ErrInvalidArg, "halving interval %d", o.HalvingInterval)
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	x := &Index{o: o, running: muhash.New()}
	db, err := indexdb.Open(dataDir, spec, indexdb.Options{Sync: o.Sync, CacheBytes: o.CacheBytes}, x.load)
	if err != nil {
		return nil, err
	}
	x.db = db
	return x, nil
}

// spec is the index's database for the shared index machinery.
var spec = indexdb.Spec{Subdir: IndexSubdir, Version: indexVersion, Kinds: &kinds}

// load restores the stored tip's record and the running MuHash, which
// must agree with the tip's recorded digest.
func (x *Index) load(db *indexdb.DB, tip indexdb.Tip) error {
	st, err := mustHeightRecord(db, tip.Height)
	if err != nil {
		return err
	}
	if st.Hash != tip.Hash {
		return kinds.New(ErrCorrupt, "tip %v is not the block recorded at height %d (%v)", tip.Hash, tip.Height, st.Hash)
	}
	m, err := db.Get([]byte{keyMuHash}, nil)
	if err != nil {
		return kinds.Level(err, "read MuHash state")
	}
	if err := x.running.UnmarshalBinary(m); err != nil {
		return kinds.Wrap(ErrCorrupt, err, "MuHash state")
	}
	if wire.Hash(x.running.Finalize()) != st.MuHash {
		return kinds.New(ErrCorrupt, "MuHash state does not match the tip's digest")
	}
	x.tip, x.tipOK = st, true
	return nil
}

// Close closes the database.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.db.Close()
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
	case err != nil && !errors.Is(err, errNotFound):
		return st, false, err
	}
	k := hashKey(&hash)
	v, err := x.db.Get(k[:], nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return Stats{}, false, nil
	}
	if err != nil {
		return Stats{}, false, kinds.Level(err, "record of block "+hash.String())
	}
	if st, err = DecodeRecord(v); err != nil {
		return st, false, err
	}
	if st.Hash != hash || st.Height != height {
		return Stats{}, false, kinds.New(ErrCorrupt, "record kept for block %v names block %v at height %d",
			hash, st.Hash, st.Height)
	}
	return st, true, nil
}

func heightKey(height int32) [indexdb.HeightKeyLen]byte {
	return indexdb.HeightKey(prefixHeight, height)
}

func hashKey(h *wire.Hash) [indexdb.HashKeyLen]byte {
	return indexdb.HashKey(prefixHash, h)
}

// reader is what both the database and a snapshot offer.
type reader = indexdb.Reader

// getHeightRecord reads the indexed chain's record at height.
func getHeightRecord(r reader, height int32) (Stats, error) {
	k := heightKey(height)
	v, err := r.Get(k[:], nil)
	if err != nil {
		return Stats{}, kinds.Level(err, "coinstats record at height "+strconv.Itoa(int(height)))
	}
	st, err := DecodeRecord(v)
	if err != nil {
		return st, err
	}
	if st.Height != height {
		return Stats{}, kinds.New(ErrCorrupt, "record at height %d names height %d", height, st.Height)
	}
	return st, nil
}

// mustHeightRecord reads a record at or below the tip, which must exist.
func mustHeightRecord(r reader, height int32) (Stats, error) {
	st, err := getHeightRecord(r, height)
	if errors.Is(err, errNotFound) {
		return st, kinds.New(ErrCorrupt, "record at height %d missing", height)
	}
	return st, err
}
