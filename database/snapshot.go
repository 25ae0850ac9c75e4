package database

import (
	"bufio"
	"encoding/binary"
	"io"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// This file writes Core's UTXO snapshot format (dumptxoutset, loaded by
// loadtxoutset and read by contrib/utxo-tools):
//
//	magic 'u' 't' 'x' 'o' 0xff
//	version          uint16 LE (2)
//	network magic    4 bytes (the P2P message start)
//	base block hash  32 bytes, internal order
//	coin count       uint64 LE
//
// then, for each transaction with unspent outputs in txid order, the txid
// (32 bytes), CompactSize(number of its coins) and per coin
// CompactSize(output index) followed by the coin exactly as the
// chainstate stores it (AppendCoin, Core's Coin serialization). Within a
// transaction the coins come in key order, as Core's cursor yields them.

// SnapshotMagic opens every UTXO snapshot file.
var SnapshotMagic = [5]byte{'u', 't', 'x', 'o', 0xff}

// SnapshotVersion is the snapshot metadata version written.
const SnapshotVersion = 2

// SnapshotHeaderLen is the size of the metadata before the coins.
const SnapshotHeaderLen = len(SnapshotMagic) + 2 + 4 + wire.HashSize + 8

// snapshotCountOffset is where the coin count sits in the header.
const snapshotCountOffset = SnapshotHeaderLen - 8

// snapshotInterruptEvery is how many coins pass between interrupt checks.
const snapshotInterruptEvery = 5000

// SnapshotInfo describes a written snapshot.
type SnapshotInfo struct {
	// Base is the block the UTXO set is at.
	Base BlockMarker
	// Coins is the number of coins written.
	Coins uint64
	// HashSerialized3 is the set's hash_serialized_3 (internal order).
	HashSerialized3 wire.Hash
}

// SnapshotFile is where WriteUTXOSnapshot writes: sequential writes, plus
// one WriteAt to fill in the coin count at the end.
type SnapshotFile interface {
	io.Writer
	io.WriterAt
}

// WriteUTXOSnapshot writes the flushed UTXO set to f as a UTXO snapshot
// for network net, and computes its hash_serialized_3 in the same pass.
// It reads one LevelDB snapshot, so flushes that run meanwhile do not
// affect it (flush the cache first so that the set is the tip's). The
// count is not known until the end, so it is written as zero first and
// filled in afterwards. interrupt, if not nil, is polled every few
// thousand coins; its error stops the dump. A LevelDB snapshot taken
// between the batches of a multi-batch flush is ErrFlushInProgress, as
// for HashUtxoSet.
func (cs *ChainState) WriteUTXOSnapshot(f SnapshotFile, net wire.BitcoinNet, interrupt func() error) (SnapshotInfo, error) {
	info := SnapshotInfo{Base: BlockMarker{Height: -1}}
	snap, err := cs.db.GetSnapshot()
	if err != nil {
		return info, levelErr(err, "snapshot")
	}
	defer snap.Release()
	best, found, err := snapshotBest(snap)
	if err != nil {
		return info, err
	}
	if !found {
		return info, newErr(ErrInvalidArg, "the chainstate has no best block yet")
	}
	info.Base = best

	w := bufio.NewWriterSize(f, 1<<20)
	hdr := make([]byte, 0, SnapshotHeaderLen)
	hdr = append(hdr, SnapshotMagic[:]...)
	hdr = binary.LittleEndian.AppendUint16(hdr, SnapshotVersion)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(net))
	hdr = append(hdr, info.Base.Hash[:]...)
	hdr = binary.LittleEndian.AppendUint64(hdr, 0)
	if _, err := w.Write(hdr); err != nil {
		return info, wrapErr(ErrIO, err, "write snapshot header")
	}

	h := newUtxoHasher(HashSerialized3)
	defer h.stop()
	var (
		txid    wire.Hash
		started bool
		coins   []byte // CompactSize(index) || coin, for txid's coins
		n       uint64 // coins of txid
		scratch []byte
	)
	flushTx := func() error {
		if !started {
			return nil
		}
		var pre [wire.HashSize + 9]byte
		copy(pre[:], txid[:])
		head := wire.AppendVarInt(pre[:wire.HashSize], n)
		if _, err := w.Write(head); err != nil {
			return err
		}
		_, err := w.Write(coins)
		return err
	}
	it := snap.NewIterator(util.BytesPrefix([]byte{prefixCoin}), nil)
	defer it.Release()
	for it.Next() {
		k, val := it.Key(), it.Value()
		if len(k) < 34 {
			return info, newErr(ErrCorrupt, "coin key of %d bytes", len(k))
		}
		idx, used, err := ReadVarInt(k[33:])
		if err != nil || 33+used != len(k) || idx > 1<<32-1 {
			return info, newErr(ErrCorrupt, "coin key with bad output index")
		}
		e, buf, used, err := DecodeCoin(val, scratch[:0])
		scratch = buf
		if err != nil {
			return info, err
		}
		if used != len(val) {
			return info, newErr(ErrCorrupt, "trailing bytes in coin value")
		}
		id := (*wire.Hash)(k[1:33])
		if !started || *id != txid {
			if err := flushTx(); err != nil {
				return info, wrapErr(ErrIO, err, "write snapshot")
			}
			txid, started, coins, n = *id, true, coins[:0], 0
		}
		h.add(id, uint32(idx), &e)
		coins = wire.AppendVarInt(coins, idx)
		coins = append(coins, val...)
		n++
		info.Coins++
		if interrupt != nil && info.Coins%snapshotInterruptEvery == 0 {
			if err := interrupt(); err != nil {
				return info, err
			}
		}
	}
	if err := it.Error(); err != nil {
		return info, levelErr(err, "scan chainstate")
	}
	if err := flushTx(); err != nil {
		return info, wrapErr(ErrIO, err, "write snapshot")
	}
	if err := w.Flush(); err != nil {
		return info, wrapErr(ErrIO, err, "write snapshot")
	}
	var cnt [8]byte
	binary.LittleEndian.PutUint64(cnt[:], info.Coins)
	if _, err := f.WriteAt(cnt[:], int64(snapshotCountOffset)); err != nil {
		return info, wrapErr(ErrIO, err, "write snapshot coin count")
	}
	var st UtxoSetInfo
	h.finish(&st)
	info.HashSerialized3 = st.HashSerialized3
	return info, nil
}
