package mempool

import (
	"encoding/binary"

	"github.com/btcnode/btcd/wire"
)

// The node once wrote mempool.dat in a format of its own. It is still
// read, so that a data directory from before the switch to Core's format
// keeps its mempool across the upgrade, but never written. All integers
// little-endian:
//
//	magic   "BNMP"            4 bytes
//	version 0x01 or 0x02      1 byte
//	saved   int64             Unix time of the save (unused)
//	count   varint            number of transactions
//	count × { time int64 (Unix entry time), flags byte (version 2 only), size varint, tx (BIP144 serialization, size bytes) }
//
// flags bit 0 marks a transaction of the unbroadcast set; other bits must
// be zero. The format has no fee deltas.
const (
	legacyMagic = "BNMP"
	// legacyUnbroadcast is the record flag of an unbroadcast transaction.
	legacyUnbroadcast = 1
)

// decodeLegacyMempool parses a file of the former format into a
// MempoolFile of version 0.
func decodeLegacyMempool(b []byte) (*MempoolFile, error) {
	if len(b) < len(legacyMagic)+1+8 || string(b[:len(legacyMagic)]) != legacyMagic {
		return nil, corrupt("bad mempool file header")
	}
	version := b[4]
	if version != 1 && version != 2 {
		return nil, corrupt("unknown mempool file version %d", version)
	}
	b = b[len(legacyMagic)+1+8:]
	count, n, err := wire.ReadVarInt(b)
	if err != nil {
		return nil, corrupt("count: %v", err)
	}
	b = b[n:]
	const minRecord = 8 + 1 + wire.MinTxSize
	if count > uint64(len(b)/minRecord) {
		return nil, corrupt("count %d exceeds file size", count)
	}
	f := &MempoolFile{Txs: make([]FileTx, 0, count)}
	for i := uint64(0); i < count; i++ {
		if len(b) < 8 {
			return nil, corrupt("truncated record %d", i)
		}
		t := int64(binary.LittleEndian.Uint64(b))
		b = b[8:]
		var flags byte
		if version >= 2 {
			if len(b) < 1 {
				return nil, corrupt("truncated record %d", i)
			}
			flags, b = b[0], b[1:]
			if flags&^legacyUnbroadcast != 0 {
				return nil, corrupt("record %d: unknown flags %#x", i, flags)
			}
		}
		size, n, err := wire.ReadVarInt(b)
		if err != nil {
			return nil, corrupt("record %d size: %v", i, err)
		}
		b = b[n:]
		if size > wire.MaxBlockSerializedSize || size > uint64(len(b)) {
			return nil, corrupt("record %d size %d out of range", i, size)
		}
		tx := new(wire.MsgTx)
		used, err := tx.Decode(b[:size])
		if err != nil {
			return nil, corrupt("record %d: %v", i, err)
		}
		if uint64(used) != size {
			return nil, corrupt("record %d: %d trailing bytes", i, size-uint64(used))
		}
		b = b[size:]
		f.Txs = append(f.Txs, FileTx{Tx: tx, Time: t})
		if flags&legacyUnbroadcast != 0 {
			f.Unbroadcast = append(f.Unbroadcast, tx.TxHash())
		}
	}
	if len(b) != 0 {
		return nil, corrupt("%d trailing bytes", len(b))
	}
	return f, nil
}
