package txscript

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
)

// hashWriter streams data into SHA-256 through a small buffer so that the
// many tiny writes of a signature-hash serialization neither allocate nor
// pay an interface call each.
type hashWriter struct {
	h   hash.Hash
	n   int
	buf [256]byte
	// out receives Sum so that callers' result arrays do not escape
	// through the hash.Hash interface call.
	out [32]byte
}

func newHashWriter() *hashWriter { return &hashWriter{h: sha256.New()} }

func (w *hashWriter) reset() {
	w.h.Reset()
	w.n = 0
}

func (w *hashWriter) flush() {
	if w.n > 0 {
		w.h.Write(w.buf[:w.n])
		w.n = 0
	}
}

// write copies b through the buffer rather than handing it to the
// hash.Hash interface, so callers' stack arrays never escape to the heap.
func (w *hashWriter) write(b []byte) {
	for len(b) > 0 {
		if w.n == len(w.buf) {
			w.flush()
		}
		k := copy(w.buf[w.n:], b)
		w.n += k
		b = b[k:]
	}
}

func (w *hashWriter) room(k int) []byte {
	if w.n+k > len(w.buf) {
		w.flush()
	}
	b := w.buf[w.n : w.n+k]
	w.n += k
	return b
}

func (w *hashWriter) u8(v byte)    { w.room(1)[0] = v }
func (w *hashWriter) u32(v uint32) { binary.LittleEndian.PutUint32(w.room(4), v) }
func (w *hashWriter) u64(v uint64) { binary.LittleEndian.PutUint64(w.room(8), v) }

func (w *hashWriter) varInt(v uint64) {
	switch {
	case v < 0xfd:
		w.u8(byte(v))
	case v <= 0xffff:
		b := w.room(3)
		b[0] = 0xfd
		binary.LittleEndian.PutUint16(b[1:], uint16(v))
	case v <= 0xffffffff:
		w.u8(0xfe)
		w.u32(uint32(v))
	default:
		w.u8(0xff)
		w.u64(v)
	}
}

func (w *hashWriter) varBytes(b []byte) {
	w.varInt(uint64(len(b)))
	w.write(b)
}

// sum writes the SHA-256 of everything written since reset into out.
func (w *hashWriter) sum(out *[32]byte) {
	w.flush()
	w.h.Sum(w.out[:0])
	*out = w.out
}

// sumDouble writes SHA-256d of everything written since reset into out.
func (w *hashWriter) sumDouble(out *[32]byte) {
	w.sum(out)
	*out = sha256.Sum256(out[:])
}

// taggedPrefix holds sha256(tag)||sha256(tag) for the BIP340 tags used here.
type taggedPrefix [64]byte

func makeTag(tag string) *taggedPrefix {
	h := sha256.Sum256([]byte(tag))
	var p taggedPrefix
	copy(p[:32], h[:])
	copy(p[32:], h[:])
	return &p
}

var (
	tagTapSighash = makeTag("TapSighash")
	tagTapLeaf    = makeTag("TapLeaf")
	tagTapBranch  = makeTag("TapBranch")
	tagTapTweak   = makeTag("TapTweak")
)

// startTagged resets w and begins a BIP340 tagged hash.
func (w *hashWriter) startTagged(t *taggedPrefix) {
	w.reset()
	w.write(t[:])
}
