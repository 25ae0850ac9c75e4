package blockfilter

import (
	"encoding/binary"
	"math/bits"
)

// bitWriter appends a big-endian (most significant bit first) bit stream
// to buf, as BIP158's Golomb-Rice coding requires. Pending bits sit in the
// low n bits of acc; n stays below 32 between calls, so one write of up to
// 32 bits never overflows the 64-bit accumulator.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint
}

// write appends the low k bits of v (k <= 32; higher bits of v must be 0).
func (w *bitWriter) write(v uint64, k uint) {
	w.acc = w.acc<<k | v
	w.n += k
	if w.n >= 32 {
		w.n -= 32
		w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(w.acc>>w.n))
	}
}

// golombRice appends x as a unary quotient x>>p (that many 1 bits, then a
// 0) followed by the p low bits of x.
func (w *bitWriter) golombRice(x uint64, p uint) {
	q := x >> p
	low := x & (1<<p - 1)
	if q+1+uint64(p) <= 32 {
		// Common case (q is about 1.5 on average): one write.
		w.write((1<<(q+1)-2)<<p|low, uint(q)+1+p)
		return
	}
	for q >= 32 {
		w.write(0xffffffff, 32)
		q -= 32
	}
	w.write(1<<(q+1)-2, uint(q)+1)
	w.write(low, p)
}

// flush pads the stream with zero bits to a whole byte and returns it.
func (w *bitWriter) flush() []byte {
	for w.n >= 8 {
		w.n -= 8
		w.buf = append(w.buf, byte(w.acc>>w.n))
	}
	if w.n > 0 {
		w.buf = append(w.buf, byte(w.acc<<(8-w.n)))
		w.n = 0
	}
	w.acc = 0
	return w.buf
}

// bitReader reads a big-endian bit stream. The next nb bits are the top
// bits of acc; the bits below them are zero.
type bitReader struct {
	data []byte
	pos  int
	acc  uint64
	nb   uint
}

// refill loads whole bytes into acc until it holds more than 55 bits or
// the data ends. nb must be at most 56.
func (r *bitReader) refill() {
	if r.pos+8 <= len(r.data) {
		// Load a whole word and keep as many whole bytes as fit; the
		// mask clears the bits of the partial byte below them.
		k := (63 - r.nb) >> 3
		w := binary.BigEndian.Uint64(r.data[r.pos:])
		nb := r.nb + 8*k
		r.acc = (r.acc | w>>r.nb) & (^uint64(0) << (64 - nb))
		r.pos += int(k)
		r.nb = nb
		return
	}
	for r.nb <= 56 && r.pos < len(r.data) {
		r.acc |= uint64(r.data[r.pos]) << (56 - r.nb)
		r.pos++
		r.nb += 8
	}
}

// unary counts 1 bits up to and including the terminating 0 bit and
// returns the count of 1 bits; ok is false if the data ends first.
func (r *bitReader) unary() (q uint64, ok bool) {
	for {
		if r.nb == 0 {
			r.refill()
			if r.nb == 0 {
				return q, false
			}
		}
		// The zero bits below the valid ones stop the count at nb.
		ones := uint(bits.LeadingZeros64(^r.acc))
		if ones < r.nb {
			q += uint64(ones)
			r.acc <<= ones + 1
			r.nb -= ones + 1
			return q, true
		}
		q += uint64(r.nb)
		r.acc, r.nb = 0, 0
	}
}

// read returns the next k bits (1 <= k <= 32); ok is false if the data
// ends first.
func (r *bitReader) read(k uint) (v uint64, ok bool) {
	if r.nb < k {
		r.refill()
		if r.nb < k {
			return 0, false
		}
	}
	v = r.acc >> (64 - k)
	r.acc <<= k
	r.nb -= k
	return v, true
}

// golombRice decodes one value coded by bitWriter.golombRice.
func (r *bitReader) golombRice(p uint) (uint64, bool) {
	if r.nb < 32 {
		r.refill()
	}
	// Fast path: the whole code is in acc (always, for P=19 and a
	// quotient below 12, unless the data ends).
	ones := uint(bits.LeadingZeros64(^r.acc))
	if n := ones + 1 + p; n <= r.nb {
		v := uint64(ones)<<p | r.acc<<(ones+1)>>(64-p)
		r.acc <<= n
		r.nb -= n
		return v, true
	}
	q, ok := r.unary()
	if !ok {
		return 0, false
	}
	low, ok := r.read(p)
	if !ok {
		return 0, false
	}
	return q<<p | low, true
}

// bytesUsed is the number of bytes touched by the bits consumed so far.
func (r *bitReader) bytesUsed() int {
	consumed := 8*r.pos - int(r.nb)
	return (consumed + 7) / 8
}
