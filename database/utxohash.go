package database

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"runtime"
	"slices"

	"github.com/btcnode/btcd/internal/muhash"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// ErrFlushInProgress means a scan of the chainstate saw the middle of a
// multi-batch flush (the head-blocks marker without a best block), so the
// set it read belongs to no block. Wait for the flush (UtxoCache.WaitFlush
// or a synchronous Flush) and scan again.
const ErrFlushInProgress ErrorKind = "chainstate flush in progress"

// UtxoHashKind selects the UTXO set digests HashUtxoSet computes.
type UtxoHashKind uint8

const (
	// HashSerialized3 is Core's hash_serialized_3: sha256d of every
	// coin's TxOutSer (see AppendTxOutSer) in Core's cursor order.
	HashSerialized3 UtxoHashKind = 1 << iota
	// HashMuHash is Core's muhash: the MuHash3072 of the set of the
	// coins' TxOutSer serializations.
	HashMuHash
)

// UtxoSetInfo is what gettxoutsetinfo reports about the flushed UTXO set,
// computed from a single LevelDB snapshot so that every field describes
// the same set.
type UtxoSetInfo struct {
	Best        BlockMarker // from the snapshot's best-block marker
	Outputs     uint64
	Txs         uint64 // distinct transactions with unspent outputs
	TotalAmount int64
	// BogoSize is Core's database-independent size metric: 50 bytes plus
	// the script length for every coin.
	BogoSize  uint64
	DiskBytes int64 // encoded key+value bytes
	// HashSerialized3 and MuHash are set when requested; like block
	// hashes they are in internal byte order (String reverses them, as
	// Core displays them).
	HashSerialized3 wire.Hash
	MuHash          wire.Hash
}

// coinBogoOverhead is Core's GetBogoSize without the script: txid 32,
// index 4, height and coinbase 4, amount 8, script length 2.
const coinBogoOverhead = 32 + 4 + 4 + 8 + 2

// AppendTxOutSer appends Core's TxOutSer serialization of an unspent
// output, the preimage of both UTXO set hashes: the outpoint (txid in
// internal order, uint32 LE index), uint32 LE height*2+coinbase, then the
// output (int64 LE amount, CompactSize script length, script).
func AppendTxOutSer(dst []byte, txid *wire.Hash, index uint32, e *UtxoEntry) []byte {
	dst = append(dst, txid[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, index)
	code := uint32(e.Height) << 1
	if e.IsCoinBase {
		code |= 1
	}
	dst = binary.LittleEndian.AppendUint32(dst, code)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(e.Amount))
	dst = wire.AppendVarInt(dst, uint64(len(e.PkScript)))
	return append(dst, e.PkScript...)
}

// utxoHasher feeds coins to the requested digests in Core's order.
//
// Core's cursor walks the same key layout as ours ('C' || txid ||
// VARINT(index)) and so visits transactions in ascending txid byte order,
// but it collects each transaction's outputs in a map ordered by the
// numeric index before hashing them. The MSB base-128 VARINT does not sort
// bytewise like the number once lengths differ in the leading byte (16512
// sorts before 16511), so the outputs of one transaction are buffered and
// sorted when they arrive out of order. The buffer holds one
// transaction's unspent outputs at a time: at most the outputs a single
// block can create (a few MiB in the worst case), reused across
// transactions.
type utxoHasher struct {
	ser hash.Hash
	mu  *muWorkers

	txid    wire.Hash
	started bool       // txid holds the current transaction
	buf     []byte     // TxOutSer of the current transaction's coins
	recs    []coinSpan // where each coin sits in buf
	// sorted is false once an index arrived below its predecessor.
	sorted bool
}

type coinSpan struct {
	index      uint32
	start, end int
}

func newUtxoHasher(kinds UtxoHashKind) *utxoHasher {
	h := &utxoHasher{sorted: true}
	if kinds&HashSerialized3 != 0 {
		h.ser = sha256.New()
	}
	if kinds&HashMuHash != 0 {
		h.mu = newMuWorkers(min(runtime.GOMAXPROCS(0), maxMuWorkers))
	}
	return h
}

// add buffers one coin; coins of one transaction must be added together.
// It reports whether the coin started a new transaction.
func (h *utxoHasher) add(txid *wire.Hash, index uint32, e *UtxoEntry) bool {
	newTx := !h.started || *txid != h.txid
	if newTx {
		h.flushTx()
		h.txid, h.started = *txid, true
	}
	if h.ser == nil && h.mu == nil {
		return newTx
	}
	if n := len(h.recs); n > 0 && index < h.recs[n-1].index {
		h.sorted = false
	}
	start := len(h.buf)
	h.buf = AppendTxOutSer(h.buf, txid, index, e)
	h.recs = append(h.recs, coinSpan{index: index, start: start, end: len(h.buf)})
	return newTx
}

// flushTx hashes the buffered transaction's coins in index order.
func (h *utxoHasher) flushTx() {
	if !h.sorted {
		slices.SortFunc(h.recs, func(a, b coinSpan) int {
			return int(int64(a.index) - int64(b.index))
		})
	}
	for _, r := range h.recs {
		b := h.buf[r.start:r.end]
		if h.ser != nil {
			h.ser.Write(b)
		}
		if h.mu != nil {
			h.mu.insert(b)
		}
	}
	h.buf, h.recs, h.sorted = h.buf[:0], h.recs[:0], true
}

// finish hashes the last transaction and stores the digests in info.
func (h *utxoHasher) finish(info *UtxoSetInfo) {
	h.flushTx()
	if h.ser != nil {
		var first [sha256.Size]byte
		h.ser.Sum(first[:0])
		info.HashSerialized3 = sha256.Sum256(first[:])
	}
	if h.mu != nil {
		info.MuHash = h.mu.finish()
	}
}

// stop ends the muhash workers of an abandoned scan.
func (h *utxoHasher) stop() {
	if h.mu != nil {
		h.mu.stop()
	}
}

// maxMuWorkers caps the goroutines HashUtxoSet uses for muhash.
const maxMuWorkers = 8

// muBatchBytes is the size of the batches of serialized coins handed to
// the muhash workers (a variable so that tests can force many batches).
var muBatchBytes = 64 << 10

// muWorkers spreads MuHash insertions over several cores. An insertion
// costs about 2.5 us, several times what reading, decoding and
// serializing a coin costs, so one goroutine would leave the other cores
// idle for minutes on mainnet. The digest is a product, so each worker
// multiplies its share of the coins and the shares are combined at the
// end. Batches are recycled through free: memory stays at two batches per
// worker and nothing is allocated per coin.
type muWorkers struct {
	work, free chan *muBatch
	done       chan *muhash.MuHash
	n          int
	cur        *muBatch
	single     *muhash.MuHash // with one core: no goroutines
}

// muBatch holds serialized coins back to back; ends[i] is where coin i
// ends in buf.
type muBatch struct {
	buf  []byte
	ends []int
}

func newMuWorkers(n int) *muWorkers {
	w := &muWorkers{}
	if n <= 1 {
		w.single = muhash.New()
		return w
	}
	w.n = n
	w.work = make(chan *muBatch, n)
	w.free = make(chan *muBatch, 2*n)
	w.done = make(chan *muhash.MuHash, n)
	for range 2 * n {
		// A coin is at least 50 bytes; its script may overshoot the
		// batch size once.
		w.free <- &muBatch{buf: make([]byte, 0, muBatchBytes+1024), ends: make([]int, 0, muBatchBytes/50+1)}
	}
	for range n {
		go func() {
			m := muhash.New()
			for b := range w.work {
				start := 0
				for _, end := range b.ends {
					m.Insert(b.buf[start:end])
					start = end
				}
				b.buf, b.ends = b.buf[:0], b.ends[:0]
				w.free <- b // never blocks: free holds every batch
			}
			w.done <- m
		}()
	}
	w.cur = <-w.free
	return w
}

func (w *muWorkers) insert(b []byte) {
	if w.single != nil {
		w.single.Insert(b)
		return
	}
	w.cur.buf = append(w.cur.buf, b...)
	w.cur.ends = append(w.cur.ends, len(w.cur.buf))
	if len(w.cur.buf) >= muBatchBytes {
		w.work <- w.cur
		w.cur = <-w.free
	}
}

// finish hands over the last batch, waits for the workers and returns the
// digest of everything inserted.
func (w *muWorkers) finish() [muhash.Size]byte {
	if w.single != nil {
		return w.single.Finalize()
	}
	if len(w.cur.ends) > 0 {
		w.work <- w.cur
	}
	w.cur = nil
	close(w.work)
	total := muhash.New()
	for range w.n {
		total.Combine(<-w.done)
	}
	w.work = nil
	return total.Finalize()
}

// stop ends the workers if finish has not (a failed scan).
func (w *muWorkers) stop() {
	if w.work == nil {
		return
	}
	close(w.work)
	for range w.n {
		<-w.done
	}
	w.work = nil
}

// forEachStoredCoin calls fn for every coin of the snapshot, in key order
// (by txid, then output index), until fn returns false. The entry's
// script is only valid during the call.
func forEachStoredCoin(snap *leveldb.Snapshot, fn func(txid *wire.Hash, idx uint32, e *UtxoEntry, diskBytes int) bool) error {
	it := snap.NewIterator(util.BytesPrefix([]byte{prefixCoin}), nil)
	defer it.Release()
	var scratch []byte
	for it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) < 34 {
			return newErr(ErrCorrupt, "coin key of %d bytes", len(k))
		}
		idx, n, err := ReadVarInt(k[33:])
		if err != nil || 33+n != len(k) || idx > 1<<32-1 {
			return newErr(ErrCorrupt, "coin key with bad output index")
		}
		e, buf, n, err := DecodeCoin(v, scratch[:0])
		scratch = buf
		if err != nil {
			return err
		}
		if n != len(v) {
			return newErr(ErrCorrupt, "trailing bytes in coin value")
		}
		if !fn((*wire.Hash)(k[1:33]), uint32(idx), &e, len(k)+len(v)) {
			return nil
		}
	}
	if err := it.Error(); err != nil {
		return levelErr(err, "scan chainstate")
	}
	return nil
}

// ForEachCoin calls fn for every coin of the flushed UTXO set, from one
// snapshot, until fn returns false, and returns the block the set is at
// (flush the cache first so that it is the tip). fn's entry, script
// included, is only valid during the call. A snapshot taken between two
// batches of a flush returns ErrFlushInProgress, as HashUtxoSet.
func (cs *ChainState) ForEachCoin(fn func(op wire.OutPoint, e *UtxoEntry) bool) (BlockMarker, error) {
	best := BlockMarker{Height: -1}
	snap, err := cs.db.GetSnapshot()
	if err != nil {
		return best, levelErr(err, "snapshot")
	}
	defer snap.Release()
	v, err := snap.Get([]byte{keyBestBlock}, nil)
	switch {
	case err == nil:
		if len(v) != 36 {
			return best, newErr(ErrCorrupt, "best block marker of %d bytes", len(v))
		}
		best = decodeMarker(v)
	case !errors.Is(err, leveldb.ErrNotFound):
		return best, levelErr(err, "read best block")
	default:
		if ok, err := snap.Has([]byte{keyHeadBlocks}, nil); err != nil {
			return best, levelErr(err, "read head blocks")
		} else if ok {
			return best, newErr(ErrFlushInProgress, "chainstate snapshot is between two flush batches")
		}
	}
	err = forEachStoredCoin(snap, func(txid *wire.Hash, idx uint32, e *UtxoEntry, _ int) bool {
		return fn(wire.OutPoint{Hash: *txid, Index: idx}, e)
	})
	return best, err
}

// HashUtxoSet scans the flushed UTXO set once, in Core's order, and
// returns its statistics and the digests selected by kinds (0 for none).
// Flush the cache first so that the set is current. The scan reads one
// LevelDB snapshot, so flushes that run meanwhile do not affect it, except
// that a snapshot taken in the middle of a multi-batch flush returns
// ErrFlushInProgress. Muhash costs about 2.5 us of CPU per coin (see
// internal/muhash), spread over up to GOMAXPROCS goroutines; the scan
// itself, hash_serialized_3 included, well under 1 us.
func (cs *ChainState) HashUtxoSet(kinds UtxoHashKind) (UtxoSetInfo, error) {
	info := UtxoSetInfo{Best: BlockMarker{Height: -1}}
	snap, err := cs.db.GetSnapshot()
	if err != nil {
		return info, levelErr(err, "snapshot")
	}
	defer snap.Release()
	best, found, err := snapshotBest(snap)
	if err != nil {
		return info, err
	}
	if found {
		info.Best = best
	}

	h := newUtxoHasher(kinds)
	defer h.stop()
	err = forEachStoredCoin(snap, func(hash *wire.Hash, idx uint32, e *UtxoEntry, diskBytes int) bool {
		if h.add(hash, idx, e) {
			info.Txs++
		}
		info.Outputs++
		info.TotalAmount += e.Amount
		info.BogoSize += coinBogoOverhead + uint64(len(e.PkScript))
		info.DiskBytes += int64(diskBytes)
		return true
	})
	if err != nil {
		return info, err
	}
	h.finish(&info)
	return info, nil
}

// snapshotBest reads the best-block marker of a chainstate snapshot;
// found is false for a chainstate that has none yet. A snapshot taken
// between the batches of a multi-batch flush (head blocks recorded, no
// marker) is ErrFlushInProgress: its coins belong to no single block.
func snapshotBest(snap *leveldb.Snapshot) (m BlockMarker, found bool, err error) {
	v, err := snap.Get([]byte{keyBestBlock}, nil)
	switch {
	case err == nil:
		if len(v) != 36 {
			return m, false, newErr(ErrCorrupt, "best block marker of %d bytes", len(v))
		}
		return decodeMarker(v), true, nil
	case !errors.Is(err, leveldb.ErrNotFound):
		return m, false, levelErr(err, "read best block")
	}
	if ok, err := snap.Has([]byte{keyHeadBlocks}, nil); err != nil {
		return m, false, levelErr(err, "read head blocks")
	} else if ok {
		return m, false, newErr(ErrFlushInProgress, "chainstate snapshot is between two flush batches")
	}
	return m, false, nil
}
