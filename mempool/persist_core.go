package mempool

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/btcnode/btcd/wire"
)

// mempool.dat is written in Bitcoin Core's format, so that a dump moves
// between this node and bitcoind in both directions. All integers are
// little-endian:
//
//	version  uint64                    1, or 2 with an obfuscation key
//	key      CompactSize 8, 8 bytes    (version 2 only)
//	-- from here on (version 2) the byte at file offset p is XORed with key[p%8] --
//	count    uint64
//	count × { tx (BIP144 serialization with witness), time int64 (Unix seconds), fee delta int64 }
//	deltas   CompactSize n, n × { txid 32 bytes, delta int64 }
//	unbroadcast  CompactSize n, n × txid 32 bytes
//
// The per-transaction fee delta is the prioritisetransaction delta of a
// pool transaction; the separate delta list holds those of transactions
// not in the pool. Bytes after the unbroadcast set are ignored, as Core
// does. The key only keeps the file's bytes from looking like the
// transactions it holds (to scanners); it is no secret.

// Versions of Core's mempool.dat.
const (
	// MempoolFileV1 is the format without an obfuscation key, written
	// with -persistmempoolv1 for Core releases before 28.
	MempoolFileV1 = 1
	// MempoolFileV2 is the obfuscated format, the default since Core 28.
	MempoolFileV2 = 2
)

// mempoolKeySize is the length of a version 2 file's obfuscation key.
const mempoolKeySize = 8

// MempoolFile is the content of a mempool.dat.
type MempoolFile struct {
	// Version is MempoolFileV1 or MempoolFileV2; a file of this node's
	// former format decodes with version 0 and cannot be written again.
	Version uint64
	// Key is a version 2 file's obfuscation key.
	Key [mempoolKeySize]byte
	// Txs are the pool's transactions, parents before children.
	Txs []FileTx
	// Deltas are the fee deltas of transactions not among Txs.
	Deltas []FeeDelta
	// Unbroadcast is the unbroadcast set.
	Unbroadcast []wire.Hash
}

// FileTx is one transaction record of a mempool.dat.
type FileTx struct {
	Tx *wire.MsgTx
	// Time is the entry time in Unix seconds.
	Time int64
	// FeeDelta is the transaction's prioritisetransaction delta in
	// satoshis.
	FeeDelta int64
}

// FeeDelta is a prioritisetransaction delta of a transaction not in the
// file's pool.
type FeeDelta struct {
	TxID  wire.Hash
	Delta int64
}

// EncodeMempoolFile serializes f in Core's format, version f.Version.
func EncodeMempoolFile(f *MempoolFile) ([]byte, error) {
	b := binary.LittleEndian.AppendUint64(nil, f.Version)
	switch f.Version {
	case MempoolFileV1:
	case MempoolFileV2:
		b = wire.AppendVarInt(b, mempoolKeySize)
		b = append(b, f.Key[:]...)
	default:
		return nil, fmt.Errorf("mempool: cannot write mempool.dat version %d", f.Version)
	}
	start := len(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(f.Txs)))
	for _, e := range f.Txs {
		b = e.Tx.AppendTo(b, true)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.Time))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.FeeDelta))
	}
	b = wire.AppendVarInt(b, uint64(len(f.Deltas)))
	for _, d := range f.Deltas {
		b = append(b, d.TxID[:]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(d.Delta))
	}
	b = wire.AppendVarInt(b, uint64(len(f.Unbroadcast)))
	for _, h := range f.Unbroadcast {
		b = append(b, h[:]...)
	}
	if f.Version == MempoolFileV2 {
		obfuscate(b, start, f.Key)
	}
	return b, nil
}

// obfuscate XORs b[from:] with key, indexed by the offset in the file:
// the same call undoes it.
func obfuscate(b []byte, from int, key [mempoolKeySize]byte) {
	for i := from; i < len(b); i++ {
		b[i] ^= key[i%mempoolKeySize]
	}
}

// DecodeMempoolFile parses a mempool.dat: Core's format (versions 1 and
// 2) or this node's former one (which starts with "BNMP"). Every count is
// checked against the bytes left before anything is allocated for it.
// Errors are of kind ErrCorruptFile.
func DecodeMempoolFile(b []byte) (*MempoolFile, error) {
	if bytes.HasPrefix(b, []byte(legacyMagic)) {
		return decodeLegacyMempool(b)
	}
	if len(b) < 8 {
		return nil, corrupt("truncated version")
	}
	f := &MempoolFile{Version: binary.LittleEndian.Uint64(b)}
	pos := 8
	switch f.Version {
	case MempoolFileV1:
	case MempoolFileV2:
		n, used, err := wire.ReadVarInt(b[pos:])
		if err != nil || n != mempoolKeySize || len(b) < pos+used+mempoolKeySize {
			return nil, corrupt("bad obfuscation key")
		}
		pos += used
		copy(f.Key[:], b[pos:])
		pos += mempoolKeySize
		// A copy: the caller's bytes stay as they were.
		plain := append([]byte(nil), b...)
		obfuscate(plain, pos, f.Key)
		b = plain
	default:
		return nil, corrupt("unknown mempool file version %d", f.Version)
	}
	r := fileReader{b: b, pos: pos}
	count := r.uint64()
	const minRecord = wire.MinTxSize + 16
	if r.err == nil && count > uint64(r.left()/minRecord) {
		return nil, corrupt("transaction count %d exceeds the file", count)
	}
	f.Txs = make([]FileTx, 0, count)
	for i := uint64(0); i < count && r.err == nil; i++ {
		tx := new(wire.MsgTx)
		used, err := tx.Decode(r.b[r.pos:])
		if err != nil {
			return nil, corrupt("transaction %d: %v", i, err)
		}
		r.pos += used
		t, d := int64(r.uint64()), int64(r.uint64())
		f.Txs = append(f.Txs, FileTx{Tx: tx, Time: t, FeeDelta: d})
	}
	if n := r.compact(wire.HashSize + 8); n > 0 {
		f.Deltas = make([]FeeDelta, 0, n)
		for i := uint64(0); i < n && r.err == nil; i++ {
			f.Deltas = append(f.Deltas, FeeDelta{TxID: r.hash(), Delta: int64(r.uint64())})
		}
	}
	if n := r.compact(wire.HashSize); n > 0 {
		f.Unbroadcast = make([]wire.Hash, 0, n)
		for i := uint64(0); i < n && r.err == nil; i++ {
			f.Unbroadcast = append(f.Unbroadcast, r.hash())
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return f, nil
}

// fileReader reads the fixed-size fields of a mempool.dat; the first
// failure sticks.
type fileReader struct {
	b   []byte
	pos int
	err error
}

func (r *fileReader) left() int { return len(r.b) - r.pos }

func (r *fileReader) need(n int) bool {
	if r.err == nil && r.left() < n {
		r.err = corrupt("truncated at offset %d", r.pos)
	}
	return r.err == nil
}

func (r *fileReader) uint64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.pos:])
	r.pos += 8
	return v
}

func (r *fileReader) hash() wire.Hash {
	var h wire.Hash
	if r.need(wire.HashSize) {
		copy(h[:], r.b[r.pos:])
		r.pos += wire.HashSize
	}
	return h
}

// compact reads a CompactSize count of elements of size bytes each,
// refusing one the rest of the file cannot hold.
func (r *fileReader) compact(size int) uint64 {
	if r.err != nil {
		return 0
	}
	n, used, err := wire.ReadVarInt(r.b[r.pos:])
	if err != nil {
		r.err = corrupt("count at offset %d: %v", r.pos, err)
		return 0
	}
	r.pos += used
	if n > uint64(r.left()/size) {
		r.err = corrupt("count %d exceeds the file", n)
		return 0
	}
	return n
}
