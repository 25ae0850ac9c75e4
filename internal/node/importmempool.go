package node

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// This file is importmempool's backend: it reads a mempool.dat written by
// Bitcoin Core (format versions 1 and 2) or by this node's savemempool,
// applies the options, and hands the transactions to the pool's own
// mempool.dat loader, which enters them as at start-up (with their entry
// times, skipping expired ones, not announcing them).
//
// Core's format, all integers little-endian:
//
//	version  uint64            1, or 2 with an obfuscation key
//	key      CompactSize 8, 8 bytes   (version 2 only)
//	-- from here on (version 2) the byte at file offset p is XORed with key[p%8] --
//	count    uint64
//	count × { tx (BIP144 serialization), time int64, fee delta int64 }
//	deltas   CompactSize n, n × { txid 32 bytes, delta int64 }
//	unbroadcast  CompactSize n, n × txid 32 bytes
//
// Bytes after the unbroadcast set are ignored, as Core does.

// maxImportFileBytes bounds the file importmempool reads into memory: a
// full default-size (300 MB) mempool's dump fits several times over.
const maxImportFileBytes = 1 << 30

// coreMempoolTx is one transaction record of a Core mempool.dat.
type coreMempoolTx struct {
	tx       *wire.MsgTx
	time     int64
	feeDelta int64
}

// coreFeeDelta is one entry of a Core mempool.dat's fee-delta map.
type coreFeeDelta struct {
	txid  wire.Hash
	delta int64
}

// coreMempool is a decoded Core mempool.dat.
type coreMempool struct {
	txs         []coreMempoolTx
	deltas      []coreFeeDelta
	unbroadcast []wire.Hash
}

// errCoreMempool is the kind of every Core mempool.dat decoding error.
var errCoreMempool = errors.New("bad Core mempool file")

func coreCorrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errCoreMempool}, args...)...)
}

// decodeCoreMempool parses a Core mempool.dat. Every count is checked
// against the bytes left before anything is allocated for it.
func decodeCoreMempool(b []byte) (*coreMempool, error) {
	if len(b) < 8 {
		return nil, coreCorrupt("truncated version")
	}
	version := binary.LittleEndian.Uint64(b)
	pos := 8
	switch version {
	case 1:
	case 2:
		n, used, err := wire.ReadVarInt(b[pos:])
		if err != nil || n != 8 || len(b) < pos+used+8 {
			return nil, coreCorrupt("bad obfuscation key")
		}
		pos += used
		var key [8]byte
		copy(key[:], b[pos:pos+8])
		pos += 8
		plain := make([]byte, len(b))
		copy(plain, b[:pos])
		for i := pos; i < len(b); i++ {
			plain[i] = b[i] ^ key[i%8]
		}
		b = plain
	default:
		return nil, coreCorrupt("unknown version %d", version)
	}
	r := coreReader{b: b, pos: pos}
	count := r.uint64()
	const minRecord = wire.MinTxSize + 16
	if r.err == nil && count > uint64(r.left()/minRecord) {
		return nil, coreCorrupt("transaction count %d exceeds the file", count)
	}
	out := &coreMempool{txs: make([]coreMempoolTx, 0, count)}
	for i := uint64(0); i < count && r.err == nil; i++ {
		tx := new(wire.MsgTx)
		used, err := tx.Decode(r.b[r.pos:])
		if err != nil {
			return nil, coreCorrupt("transaction %d: %v", i, err)
		}
		r.pos += used
		t, d := int64(r.uint64()), int64(r.uint64())
		out.txs = append(out.txs, coreMempoolTx{tx: tx, time: t, feeDelta: d})
	}
	n := r.compact(wire.HashSize + 8)
	for i := uint64(0); i < n && r.err == nil; i++ {
		out.deltas = append(out.deltas, coreFeeDelta{txid: r.hash(), delta: int64(r.uint64())})
	}
	n = r.compact(wire.HashSize)
	for i := uint64(0); i < n && r.err == nil; i++ {
		out.unbroadcast = append(out.unbroadcast, r.hash())
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// coreReader reads the fixed-size fields of a Core mempool.dat; the first
// failure sticks.
type coreReader struct {
	b   []byte
	pos int
	err error
}

func (r *coreReader) left() int { return len(r.b) - r.pos }

func (r *coreReader) need(n int) bool {
	if r.err == nil && r.left() < n {
		r.err = coreCorrupt("truncated at offset %d", r.pos)
	}
	return r.err == nil
}

func (r *coreReader) uint64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.pos:])
	r.pos += 8
	return v
}

func (r *coreReader) hash() wire.Hash {
	var h wire.Hash
	if r.need(wire.HashSize) {
		copy(h[:], r.b[r.pos:])
		r.pos += wire.HashSize
	}
	return h
}

// compact reads a CompactSize count of elements of size bytes each,
// refusing one the rest of the file cannot hold.
func (r *coreReader) compact(size int) uint64 {
	if r.err != nil {
		return 0
	}
	n, used, err := wire.ReadVarInt(r.b[r.pos:])
	if err != nil {
		r.err = coreCorrupt("count at offset %d: %v", r.pos, err)
		return 0
	}
	r.pos += used
	if n > uint64(r.left()/size) {
		r.err = coreCorrupt("count %d exceeds the file", n)
		return 0
	}
	return n
}

// importMempool answers importmempool.
func (s *server) importMempool(path string, opts rpc.ImportMempoolOptions) error {
	if !s.chain.IsCurrent() {
		return rpc.NewError(rpc.ErrClientInInitialDownload, "Can only import the mempool after the block download and any reindex has finished")
	}
	fail := func(err error) error {
		mempLog.Warnf("importmempool %s: %v", path, err)
		return rpc.NewError(rpc.ErrMisc, "Unable to import mempool file, see debug log for details.")
	}
	b, err := readBounded(path, maxImportFileBytes)
	if err != nil {
		return fail(err)
	}
	now := clock.Now()
	var saved []mempool.SavedTx
	var afterDeltas []coreFeeDelta
	if bytes.HasPrefix(b, []byte("BNMP")) {
		// This node's own format (savemempool): no fee deltas.
		if saved, _, err = mempool.DecodeMempool(b); err != nil {
			return fail(err)
		}
		for i := range saved {
			if opts.UseCurrentTime {
				saved[i].Time = now
			}
			saved[i].Unbroadcast = saved[i].Unbroadcast && opts.ApplyUnbroadcastSet
		}
	} else {
		f, err := decodeCoreMempool(b)
		if err != nil {
			return fail(err)
		}
		unbroadcast := map[wire.Hash]bool{}
		if opts.ApplyUnbroadcastSet {
			for _, h := range f.unbroadcast {
				unbroadcast[h] = true
			}
		}
		saved = make([]mempool.SavedTx, len(f.txs))
		for i, e := range f.txs {
			t := now
			if !opts.UseCurrentTime {
				t = unixTime(e.time)
			}
			txid := e.tx.TxHash()
			// As Core, a transaction's delta applies before it is
			// entered, so that it counts towards its acceptance.
			if e.feeDelta != 0 && opts.ApplyFeeDeltaPriority {
				s.prioritiseImported(txid, e.feeDelta)
			}
			saved[i] = mempool.SavedTx{Tx: e.tx, Time: t, Unbroadcast: unbroadcast[txid]}
		}
		if opts.ApplyFeeDeltaPriority {
			afterDeltas = f.deltas
		}
	}
	st, err := s.pool.Load(bytes.NewReader(mempool.EncodeMempool(saved, now)))
	if err != nil {
		return fail(err)
	}
	for _, d := range afterDeltas {
		s.prioritiseImported(d.txid, d.delta)
	}
	mempLog.Infof("Imported mempool transactions from file: %d succeeded, %d failed, %d expired, %d already there",
		st.Accepted, st.Failed, st.Expired, st.Known)
	return nil
}

// prioritiseImported applies a fee delta from an imported file; one the
// pool refuses is logged and skipped, as the rest of the file still
// loads.
func (s *server) prioritiseImported(txid wire.Hash, delta int64) {
	if err := s.pool.PrioritiseTransaction(txid, delta); err != nil {
		mempLog.Debugf("importmempool: fee delta of %v: %v", txid, err)
	}
}

// unixTime converts a file's entry time, clamping what time.Unix cannot
// represent sensibly.
func unixTime(sec int64) time.Time {
	const maxSec = 1 << 40
	if sec < 0 {
		sec = 0
	}
	if sec > maxSec {
		sec = maxSec
	}
	return time.Unix(sec, 0)
}

// readBounded reads a whole file of at most max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("file larger than %d bytes", max)
	}
	return b, nil
}
