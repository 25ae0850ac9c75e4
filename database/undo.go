package database

import (
	"github.com/btcnode/btcd/wire"
)

// This file encodes a block's undo record in Core's CBlockUndo layout:
// CompactSize(number of non-coinbase transactions), then per transaction
// CompactSize(number of inputs) followed by each spent output as
// VARINT(height*2+coinbase), a VARINT(0) legacy version placeholder when
// height > 0, VARINT(CompressAmount(amount)) and the compressed script.

// minUndoEntrySize is the smallest encoded spent output (code, amount,
// script code with an empty script), used to bound counts before
// allocating.
const minUndoEntrySize = 3

// AppendBlockUndo appends the undo record of a block whose non-coinbase
// transactions have txInputs[i] inputs each, spending spent in order
// (len(spent) must equal the sum of txInputs).
func AppendBlockUndo(dst []byte, txInputs []uint32, spent []UtxoEntry) []byte {
	dst = wire.AppendVarInt(dst, uint64(len(txInputs)))
	k := 0
	for _, n := range txInputs {
		dst = wire.AppendVarInt(dst, uint64(n))
		for _, e := range spent[k : k+int(n)] {
			code := uint64(uint32(e.Height)) << 1
			if e.IsCoinBase {
				code |= 1
			}
			dst = AppendVarInt(dst, code)
			if e.Height > 0 {
				dst = append(dst, 0)
			}
			dst = AppendVarInt(dst, CompressAmount(uint64(e.Amount)))
			dst = AppendCompressedScript(dst, e.PkScript)
		}
		k += int(n)
	}
	return dst
}

// BlockUndo is a decoded undo record. Spent holds the spent outputs of all
// transactions in order; TxInputs[i] says how many belong to the i-th
// non-coinbase transaction. Scripts alias one shared buffer. A BlockUndo can
// be reused across decodes to avoid allocations.
type BlockUndo struct {
	TxInputs []uint32
	Spent    []UtxoEntry
	scripts  []byte
}

// Decode parses an undo record, replacing u's contents. Counts are checked
// against the remaining bytes before anything is allocated.
func (u *BlockUndo) Decode(b []byte) error {
	u.TxInputs = u.TxInputs[:0]
	u.Spent = u.Spent[:0]
	u.scripts = u.scripts[:0]
	// Decompressed scripts are at most about twice their stored size (33
	// bytes become 67), so this reservation usually avoids regrowth; if
	// the buffer does grow, earlier PkScripts keep the old array alive and
	// stay valid. The size comes from our own input, not from a count.
	if cap(u.scripts) < 2*len(b)+64 {
		u.scripts = make([]byte, 0, 2*len(b)+64)
	}
	ntx, n, err := wire.ReadVarInt(b)
	if err != nil {
		return wrapErr(ErrCorrupt, err, "undo tx count")
	}
	b = b[n:]
	if ntx > uint64(len(b)) {
		return newErr(ErrCorrupt, "undo tx count %d exceeds %d bytes", ntx, len(b))
	}
	for range ntx {
		nin, n, err := wire.ReadVarInt(b)
		if err != nil {
			return wrapErr(ErrCorrupt, err, "undo input count")
		}
		b = b[n:]
		if nin > uint64(len(b)/minUndoEntrySize) {
			return newErr(ErrCorrupt, "undo input count %d exceeds %d bytes", nin, len(b))
		}
		u.TxInputs = append(u.TxInputs, uint32(nin))
		for range nin {
			code, n, err := ReadVarInt(b)
			if err != nil {
				return err
			}
			b = b[n:]
			if code>>1 > maxCoinHeight {
				return newErr(ErrCorrupt, "undo height %d out of range", code>>1)
			}
			if code>>1 > 0 {
				// Legacy transaction version; Core ignores its value.
				if _, n, err = ReadVarInt(b); err != nil {
					return err
				}
				b = b[n:]
			}
			amt, n, err := ReadVarInt(b)
			if err != nil {
				return err
			}
			b = b[n:]
			v := DecompressAmount(amt)
			if v > maxMoney {
				return newErr(ErrCorrupt, "undo amount %d out of range", v)
			}
			start := len(u.scripts)
			u.scripts, n, err = DecodeCompressedScript(u.scripts, b)
			if err != nil {
				return err
			}
			b = b[n:]
			u.Spent = append(u.Spent, UtxoEntry{
				Amount:     int64(v),
				PkScript:   u.scripts[start:len(u.scripts):len(u.scripts)],
				Height:     int32(code >> 1),
				IsCoinBase: code&1 == 1,
			})
		}
	}
	if len(b) != 0 {
		return newErr(ErrCorrupt, "%d trailing bytes after undo record", len(b))
	}
	return nil
}
