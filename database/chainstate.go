package database

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Key layout of the chainstate LevelDB (dir/chainstate).
const (
	prefixCoin    = 'C' // 'C' || txid || VARINT(index) -> AppendCoin value
	keyBestBlock  = 'T' // best block hash || height (uint32 LE)
	keyHeadBlocks = 'H' // new hash || new height || old hash || old height

	// keyBestBlockV1 held the best block in format version 1. Sorting
	// before the coins while the head-blocks marker sorts after them, it
	// made each table that held both markers span every coin, and each
	// compaction of such a table rewrite the whole next level. Both
	// markers now sort after the coins.
	keyBestBlockV1 = 'B'
)

// ChainStateVersion is the chainstate format version. Opening a version 1
// chainstate upgrades it (upgradeChainState).
const ChainStateVersion = 2

// maxCoinKeyLen is 'C' + 32-byte txid + VARINT of a uint32 (at most 5).
const maxCoinKeyLen = 1 + 32 + 5

// ChainStateOptions tunes the chainstate LevelDB. Zero values pick defaults
// chosen for initial sync (see doc.go for the measurements).
type ChainStateOptions struct {
	// CacheBytes is LevelDB's block cache for data blocks. Zero (the
	// default) turns it off, and each open table then keeps its index
	// and filter blocks in memory from the moment it opens. A shared
	// block cache holds those blocks too (about 300 KiB per 8 MiB table)
	// and evicts them once the chainstate's tables outgrow it, so lookups
	// read them again (see doc.go, "Lookups past the block cache").
	CacheBytes    int
	WriteBuffer   int  // memtable size (default 64 MiB, or scaled by CacheBudget)
	TableSize     int  // compaction table size (default 8 MiB)
	Compression   bool // snappy; off by default, values are already compact
	NoSyncOnFlush bool // skip fsync of the final flush batch (tests only)
	// CacheBudget is the UTXO cache budget (UtxoCacheOptions.MaxBytes)
	// the chainstate will be used with. When set, it only scales the
	// default of WriteBuffer (see scaledLevelMem), so LevelDB's memory
	// stays proportionate to a small budget.
	CacheBudget int64
}

// scaledLevelMem picks the chainstate LevelDB's write buffer for a UTXO
// cache budget: budget/32 clamped to [12, 64] MiB. goleveldb holds up to
// two memtables (one being compacted) plus a pooled one, so the write
// buffer costs up to about 2-3 times its size; see doc.go. The lower
// bound was measured on the medium IBD at --utxocachemaxsize=10 (scripts
// skipped, write buffer/block cache): 4/4 MiB gave 6.4 s and a 152-170
// MiB peak RSS, 8/16 MiB 5.9 s and 198 MiB, 12/16 MiB 5.0 s and 216-224
// MiB, 16/16 MiB 5.0 s but 263-268 MiB (over budget + 250 MiB). The
// write buffer was budget/8; goleveldb allocates a memtable of that
// capacity when it opens, which at the default budget (57.6 MiB) was 17%
// of everything the medium IBD allocated, and 28.8 MiB (budget/16) still
// 17% of what it allocated up to the tip; budget/32 (14.4 MiB) brings it
// under 10%. The cache writes to LevelDB only when it flushes, in sorted
// batches, so a smaller memtable only means more, smaller level-0 tables.
func scaledLevelMem(budget int64) (writeBuffer int) {
	return int(min(max(budget/32, 12<<20), 64<<20))
}

// ChainState is the on-disk UTXO set. All access to coins goes through a
// UtxoCache; ChainState itself holds the markers and statistics.
type ChainState struct {
	db *leveldb.DB
	// mu guards best and head, which Flush (under the cache's lock)
	// updates while RPC may read them.
	mu       sync.Mutex
	best     BlockMarker
	head     *HeadBlocks
	syncEach bool
	// mayHaveCoins is false while the database holds no coin at all (a
	// fresh initial sync until its first flush): every cache miss is then
	// answered "not found" without a LevelDB read. Set, never cleared
	// (except by reopening), when a flush starts writing coins.
	mayHaveCoins atomic.Bool
}

// BlockMarker names a block by hash and height.
type BlockMarker struct {
	Hash   wire.Hash
	Height int32
}

// HeadBlocks is Core's marker of an interrupted multi-batch flush: the
// database holds a mix of the UTXO sets at Old and at New. To recover, the
// chain rolls forward from Old to New (adding outputs with overwrite and
// tolerating already-spent inputs) and flushes at New. If Old is not an
// ancestor of New, it first disconnects Old's blocks back to the fork
// using their undo data.
type HeadBlocks struct {
	New BlockMarker
	Old BlockMarker
}

// OpenChainState opens (creating if needed) the chainstate under
// dir/chainstate.
func OpenChainState(dir string, o ChainStateOptions) (*ChainState, error) {
	wb := 64 << 20
	if o.CacheBudget > 0 {
		wb = scaledLevelMem(o.CacheBudget)
	}
	if o.WriteBuffer <= 0 {
		o.WriteBuffer = wb
	}
	if o.TableSize <= 0 {
		o.TableSize = 8 << 20
	}
	db, err := openLevel(filepath.Join(dir, "chainstate"), chainStateLevelOptions(o))
	if err != nil {
		return nil, err
	}
	cs := &ChainState{db: db, best: BlockMarker{Height: -1}, syncEach: !o.NoSyncOnFlush}
	if err := upgradeChainState(db); err != nil {
		db.Close()
		return nil, err
	}
	if err := checkVersion(db, ChainStateVersion, "chainstate", false); err != nil {
		db.Close()
		return nil, err
	}
	if err := cs.loadMarkers(); err != nil {
		db.Close()
		return nil, err
	}
	it := db.NewIterator(util.BytesPrefix([]byte{prefixCoin}), nil)
	cs.mayHaveCoins.Store(it.First())
	it.Release()
	if err := it.Error(); err != nil {
		db.Close()
		return nil, levelErr(err, "scan chainstate")
	}
	return cs, nil
}

// Level 0 table counts at which the chainstate's writes slow down and
// stop until compaction catches up (goleveldb's defaults are 8 and 12).
const (
	chainStateL0Slowdown = 16
	chainStateL0Pause    = 24
)

// chainStateLevelOptions are the chainstate LevelDB's options; o has its
// defaults filled in.
func chainStateLevelOptions(o ChainStateOptions) *opt.Options {
	comp := opt.NoCompression
	if o.Compression {
		comp = opt.SnappyCompression
	}
	return &opt.Options{
		BlockCacheCapacity: o.CacheBytes,
		DisableBlockCache:  o.CacheBytes <= 0,
		// goleveldb's buffer pool hands a table reader's index or filter
		// block (100-300 KiB) whatever larger buffer a compaction's
		// table writer returned (8 MiB, CompactionTableSize), and the
		// open table keeps it: ~900 MiB at 115 tables. Without the pool
		// each block gets a buffer of its own size.
		DisableBufferPool:   true,
		WriteBuffer:         o.WriteBuffer,
		CompactionTableSize: o.TableSize,
		Compression:         comp,
		// Most reads are of keys present in only one table; a bloom
		// filter (10 bits/key, as Core uses) skips the others.
		Filter: filter.NewBloomFilter(10),
		// Writes arrive in large sorted batches; seek-triggered compaction
		// would only add work during sync.
		DisableSeeksCompaction: true,
		// A flush writes its coins in key order, so its level 0 tables
		// (two per 16 MiB batch) overlap neither each other nor much of
		// level 1, and each compaction takes one of them. At goleveldb's
		// default triggers (slow down at 8 tables, stop at 12) a flush of
		// a few dozen tables outran compaction: at a 100 MiB cache the
		// mainnet-scale sync's writes waited 19 s in all and two blocks
		// took over 1 s. A lookup reads only the level 0 tables whose
		// range holds its key (one per flush), so more tables cost little.
		WriteL0SlowdownTrigger: chainStateL0Slowdown,
		WriteL0PauseTrigger:    chainStateL0Pause,
	}
}

// upgradeChainState moves a version 1 chainstate's best-block marker to
// its current key, in one synced batch with the new version number. Other
// versions are left to checkVersion.
func upgradeChainState(db *leveldb.DB) error {
	v, err := db.Get([]byte{keyVersion}, nil)
	switch {
	case errors.Is(err, leveldb.ErrNotFound):
		return nil
	case err != nil:
		return levelErr(err, "read chainstate version")
	case len(v) != 4 || binary.LittleEndian.Uint32(v) != 1:
		return nil
	}
	var b leveldb.Batch
	best, err := db.Get([]byte{keyBestBlockV1}, nil)
	switch {
	case err == nil:
		b.Put([]byte{keyBestBlock}, best)
		b.Delete([]byte{keyBestBlockV1})
	case !errors.Is(err, leveldb.ErrNotFound):
		return levelErr(err, "read version 1 best block")
	}
	b.Put([]byte{keyVersion}, binary.LittleEndian.AppendUint32(nil, ChainStateVersion))
	if err := db.Write(&b, &opt.WriteOptions{Sync: true}); err != nil {
		return levelErr(err, "upgrade chainstate to version 2")
	}
	return nil
}

func decodeMarker(b []byte) BlockMarker {
	return BlockMarker{Hash: wire.Hash(b[:32]), Height: int32(binary.LittleEndian.Uint32(b[32:36]))}
}

func appendMarker(dst []byte, m BlockMarker) []byte {
	dst = append(dst, m.Hash[:]...)
	return binary.LittleEndian.AppendUint32(dst, uint32(m.Height))
}

func (cs *ChainState) loadMarkers() error {
	v, err := cs.db.Get([]byte{keyBestBlock}, nil)
	switch {
	case err == nil:
		if len(v) != 36 {
			return newErr(ErrCorrupt, "best block marker of %d bytes", len(v))
		}
		cs.best = decodeMarker(v)
	case !errors.Is(err, leveldb.ErrNotFound):
		return levelErr(err, "read best block")
	}
	v, err = cs.db.Get([]byte{keyHeadBlocks}, nil)
	switch {
	case err == nil:
		if len(v) != 72 {
			return newErr(ErrCorrupt, "head blocks marker of %d bytes", len(v))
		}
		cs.head = &HeadBlocks{New: decodeMarker(v), Old: decodeMarker(v[36:])}
		// The best block is what the chain must replay from.
		cs.best = cs.head.Old
	case !errors.Is(err, leveldb.ErrNotFound):
		return levelErr(err, "read head blocks")
	}
	return nil
}

// BestBlock returns the block the stored UTXO set corresponds to (height -1
// for an empty chainstate). If HeadBlocks reports an interrupted flush, the
// set is not consistent with any block until the chain replays.
func (cs *ChainState) BestBlock() BlockMarker {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.best
}

// HeadBlocks returns the interrupted-flush marker, if any.
func (cs *ChainState) HeadBlocks() (HeadBlocks, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.head == nil {
		return HeadBlocks{}, false
	}
	return *cs.head, true
}

// Close closes the database. Flush the cache first.
func (cs *ChainState) Close() error {
	if err := cs.db.Close(); err != nil {
		return levelErr(err, "close chainstate")
	}
	return nil
}

// appendCoinKey appends the chainstate key of an outpoint.
func appendCoinKey(dst []byte, k *outKey) []byte {
	dst = append(dst, prefixCoin)
	dst = append(dst, k[:32]...)
	return AppendVarInt(dst, uint64(binary.LittleEndian.Uint32(k[32:])))
}

// UtxoStats summarises the UTXO set like gettxoutsetinfo. Hash is SHA256
// over key || value of every coin record in key order, using this package's
// encodings (not Core's hash_serialized, which uses a different layout).
type UtxoStats struct {
	Best        BlockMarker
	Outputs     uint64
	Txs         uint64 // distinct transactions with unspent outputs
	TotalAmount int64
	Hash        [32]byte
	DiskBytes   int64 // encoded key+value bytes
}

// Stats scans the whole chainstate. Flush the cache first so that it is
// up to date.
func (cs *ChainState) Stats() (UtxoStats, error) {
	st := UtxoStats{Best: cs.BestBlock()}
	h := sha256.New()
	snap, err := cs.db.GetSnapshot()
	if err != nil {
		return st, levelErr(err, "snapshot")
	}
	defer snap.Release()
	it := snap.NewIterator(util.BytesPrefix([]byte{prefixCoin}), nil)
	defer it.Release()
	var lastTx [32]byte
	var scratch []byte
	for it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) < 34 {
			return st, newErr(ErrCorrupt, "coin key of %d bytes", len(k))
		}
		e, buf, n, err := DecodeCoin(v, scratch[:0])
		scratch = buf
		if err != nil {
			return st, err
		}
		if n != len(v) {
			return st, newErr(ErrCorrupt, "trailing bytes in coin value")
		}
		if st.Outputs == 0 || [32]byte(k[1:33]) != lastTx {
			st.Txs++
			lastTx = [32]byte(k[1:33])
		}
		st.Outputs++
		st.TotalAmount += e.Amount
		st.DiskBytes += int64(len(k) + len(v))
		h.Write(k)
		h.Write(v)
	}
	if err := it.Error(); err != nil {
		return st, levelErr(err, "scan chainstate")
	}
	h.Sum(st.Hash[:0])
	return st, nil
}

// LevelDBStats fills s with the chainstate LevelDB's statistics
// (compactions, level sizes, I/O) for metrics.
func (cs *ChainState) LevelDBStats(s *leveldb.DBStats) error { return cs.db.Stats(s) }
