package wire

import (
	"encoding/binary"
	"math"
)

// VarIntSerializeSize returns the number of bytes the CompactSize encoding
// of v takes.
func VarIntSerializeSize(v uint64) int {
	switch {
	case v < 0xfd:
		return 1
	case v <= math.MaxUint16:
		return 3
	case v <= math.MaxUint32:
		return 5
	default:
		return 9
	}
}

// AppendVarInt appends the CompactSize encoding of v to dst.
func AppendVarInt(dst []byte, v uint64) []byte {
	switch {
	case v < 0xfd:
		return append(dst, byte(v))
	case v <= math.MaxUint16:
		return binary.LittleEndian.AppendUint16(append(dst, 0xfd), uint16(v))
	case v <= math.MaxUint32:
		return binary.LittleEndian.AppendUint32(append(dst, 0xfe), uint32(v))
	default:
		return binary.LittleEndian.AppendUint64(append(dst, 0xff), v)
	}
}

// ReadVarInt decodes a CompactSize integer from the front of b and returns
// it with the number of bytes used. Non-canonical encodings (a value that
// would fit a shorter form) are rejected, as Bitcoin Core does.
func ReadVarInt(b []byte) (v uint64, n int, err error) {
	if len(b) == 0 {
		return 0, 0, messageError(ErrTruncated, "var-int")
	}
	switch d := b[0]; d {
	case 0xfd:
		if len(b) < 3 {
			return 0, 0, messageError(ErrTruncated, "var-int")
		}
		v, n = uint64(binary.LittleEndian.Uint16(b[1:])), 3
		if v < 0xfd {
			return 0, 0, messageError(ErrNonCanonical, "value %d encoded in 3 bytes", v)
		}
	case 0xfe:
		if len(b) < 5 {
			return 0, 0, messageError(ErrTruncated, "var-int")
		}
		v, n = uint64(binary.LittleEndian.Uint32(b[1:])), 5
		if v <= math.MaxUint16 {
			return 0, 0, messageError(ErrNonCanonical, "value %d encoded in 5 bytes", v)
		}
	case 0xff:
		if len(b) < 9 {
			return 0, 0, messageError(ErrTruncated, "var-int")
		}
		v, n = binary.LittleEndian.Uint64(b[1:]), 9
		if v <= math.MaxUint32 {
			return 0, 0, messageError(ErrNonCanonical, "value %d encoded in 9 bytes", v)
		}
	default:
		v, n = uint64(d), 1
	}
	return v, n, nil
}

// AppendVarBytes appends b prefixed by its CompactSize length.
func AppendVarBytes(dst, b []byte) []byte {
	return append(AppendVarInt(dst, uint64(len(b))), b...)
}

// AppendVarString appends s prefixed by its CompactSize length.
func AppendVarString(dst []byte, s string) []byte {
	return append(AppendVarInt(dst, uint64(len(s))), s...)
}
