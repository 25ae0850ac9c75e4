package wire

import "encoding/binary"

// reader is a cursor over an input slice with a sticky error: after the
// first failure every read returns zero values, so decoders check err once
// per loop iteration or at the end instead of after every field.
type reader struct {
	b   []byte
	off int
	err error
}

func newReader(b []byte) reader { return reader{b: b} }

// Reader is the exported cursor used by the message decoders of other
// files and packages that decode wire-format data (block index values, undo
// records). It has the same sticky-error behaviour.
type Reader struct{ r reader }

// NewReader returns a Reader over b. It never copies b.
func NewReader(b []byte) *Reader { return &Reader{r: newReader(b)} }

// Err returns the first error met, if any.
func (r *Reader) Err() error { return r.r.err }

// Offset returns the number of bytes consumed.
func (r *Reader) Offset() int { return r.r.off }

// Remaining returns the number of bytes not yet consumed.
func (r *Reader) Remaining() int { return r.r.remaining() }

// Uint8 reads one byte.
func (r *Reader) Uint8() uint8 { return r.r.u8() }

// Uint16 reads a little-endian uint16.
func (r *Reader) Uint16() uint16 { return r.r.u16() }

// Uint32 reads a little-endian uint32.
func (r *Reader) Uint32() uint32 { return r.r.u32() }

// Uint64 reads a little-endian uint64.
func (r *Reader) Uint64() uint64 { return r.r.u64() }

// Hash reads a 32-byte hash.
func (r *Reader) Hash() Hash { return r.r.hash() }

// VarInt reads a canonical CompactSize integer.
func (r *Reader) VarInt() uint64 { return r.r.varint() }

// Count reads a CompactSize count of items each at least minSize bytes
// long, failing if it exceeds max (named name in the error) or could not
// fit in the remaining input.
func (r *Reader) Count(name string, max uint64, minSize int) int {
	return r.r.count(name, max, minSize)
}

// Bytes returns the next n bytes without copying.
func (r *Reader) Bytes(n int) []byte { return r.r.bytes(n) }

// VarBytes reads a CompactSize length and that many bytes, without copying;
// the length must not exceed max.
func (r *Reader) VarBytes(name string, max uint64) []byte {
	n := r.r.count(name, max, 1)
	return r.r.bytes(n)
}

// Fail records err if no error is recorded yet.
func (r *Reader) Fail(err error) {
	if r.r.err == nil {
		r.r.err = err
	}
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.off = len(r.b)
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.b)-r.off < n {
		r.fail(ErrTruncated)
		return false
	}
	return true
}

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.LittleEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

func (r *reader) hash() (h Hash) {
	if !r.need(HashSize) {
		return h
	}
	copy(h[:], r.b[r.off:])
	r.off += HashSize
	return h
}

func (r *reader) varint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n, err := ReadVarInt(r.b[r.off:])
	if err != nil {
		r.fail(err)
		return 0
	}
	r.off += n
	return v
}

// count reads a var-int count and bounds it both by the protocol maximum and
// by what the remaining bytes could hold, so the caller may allocate it.
func (r *reader) count(name string, max uint64, minSize int) int {
	v := r.varint()
	if r.err != nil {
		return 0
	}
	if v > max {
		r.fail(limitError(name, v, max))
		return 0
	}
	if minSize > 0 && v > uint64(r.remaining()/minSize) {
		r.fail(messageError(ErrTruncated, "%s %d cannot fit in %d remaining bytes", name, v, r.remaining()))
		return 0
	}
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	b := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}
