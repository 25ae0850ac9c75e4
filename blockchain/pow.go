package blockchain

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"sync/atomic"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// Work is an unsigned 256-bit integer held in four little-endian 64-bit
// limbs. Cumulative chain work is added for every header, so it is kept in
// a fixed array rather than a *big.Int to keep the header tree free of
// per-node heap objects.
type Work [4]uint64

// WorkFromBig converts a non-negative integer below 2^256.
func WorkFromBig(n *big.Int) Work {
	var b [32]byte
	n.FillBytes(b[:])
	return WorkFromBytes(b)
}

// WorkFromBytes converts a 32-byte big-endian integer.
func WorkFromBytes(b [32]byte) Work {
	return Work{
		binary.BigEndian.Uint64(b[24:]),
		binary.BigEndian.Uint64(b[16:]),
		binary.BigEndian.Uint64(b[8:]),
		binary.BigEndian.Uint64(b[0:]),
	}
}

// Bytes returns w as 32 big-endian bytes (the block index's encoding).
func (w Work) Bytes() [32]byte {
	var b [32]byte
	binary.BigEndian.PutUint64(b[24:], w[0])
	binary.BigEndian.PutUint64(b[16:], w[1])
	binary.BigEndian.PutUint64(b[8:], w[2])
	binary.BigEndian.PutUint64(b[0:], w[3])
	return b
}

// Big returns w as a new big.Int.
func (w Work) Big() *big.Int {
	b := w.Bytes()
	return new(big.Int).SetBytes(b[:])
}

// Add returns w+v modulo 2^256 (chain work cannot reach 2^256).
func (w Work) Add(v Work) Work {
	var r Work
	var c uint64
	r[0], c = bits.Add64(w[0], v[0], 0)
	r[1], c = bits.Add64(w[1], v[1], c)
	r[2], c = bits.Add64(w[2], v[2], c)
	r[3], _ = bits.Add64(w[3], v[3], c)
	return r
}

// Sub returns w-v modulo 2^256.
func (w Work) Sub(v Work) Work {
	var r Work
	var b uint64
	r[0], b = bits.Sub64(w[0], v[0], 0)
	r[1], b = bits.Sub64(w[1], v[1], b)
	r[2], b = bits.Sub64(w[2], v[2], b)
	r[3], _ = bits.Sub64(w[3], v[3], b)
	return r
}

// Cmp returns -1, 0 or +1 as w is less than, equal to or greater than v.
func (w Work) Cmp(v Work) int {
	for i := 3; i >= 0; i-- {
		if w[i] != v[i] {
			if w[i] < v[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// String returns w in hex as bitcoind's "chainwork" field shows it.
func (w Work) String() string {
	b := w.Bytes()
	const digits = "0123456789abcdef"
	out := make([]byte, 64)
	for i, c := range b {
		out[2*i] = digits[c>>4]
		out[2*i+1] = digits[c&15]
	}
	return string(out)
}

// bitsWork caches the work and target of one compact value: consecutive
// headers almost always share their bits, so the big-number arithmetic is
// done once per retarget instead of once per header.
type bitsWork struct {
	bits     uint32
	work     Work
	powLimit *big.Int
	targetOK bool
	target   [32]byte // big-endian
}

var lastBits atomic.Pointer[bitsWork]

// lookupBits returns the cached entry for bits, computing it if needed.
func lookupBits(bits uint32, powLimit *big.Int) *bitsWork {
	if c := lastBits.Load(); c != nil && c.bits == bits && c.powLimit == powLimit {
		return c
	}
	c := &bitsWork{bits: bits, powLimit: powLimit, work: WorkFromBig(chaincfg.CalcWork(bits))}
	if powLimit != nil {
		t, ok := chaincfg.TargetFromBits(bits, powLimit)
		c.targetOK = ok
		if ok {
			t.FillBytes(c.target[:])
		}
	}
	lastBits.Store(c)
	return c
}

// CalcWork returns the work a header with the given bits proves (see
// chaincfg.CalcWork).
func CalcWork(bits uint32) Work {
	if c := lastBits.Load(); c != nil && c.bits == bits {
		return c.work
	}
	return WorkFromBig(chaincfg.CalcWork(bits))
}

// HashToBig interprets a block hash as the little-endian 256-bit number the
// proof-of-work rule compares against the target.
func HashToBig(h *wire.Hash) *big.Int {
	var be [32]byte
	for i := range be {
		be[i] = h[31-i]
	}
	return new(big.Int).SetBytes(be[:])
}

// hashAboveTarget compares a hash (little-endian) with a big-endian
// target without allocating.
func hashAboveTarget(h *wire.Hash, tb *[32]byte) bool {
	for i := 0; i < 32; i++ {
		hb := h[31-i]
		if hb != tb[i] {
			return hb > tb[i]
		}
	}
	return false
}

// CheckProofOfWork checks that bits encodes a valid target no easier than
// powLimit and that hash does not exceed it, as Core's CheckProofOfWork
// does; Core reports both failures as "high-hash" from CheckBlockHeader,
// with the same debug text, and so does this function.
func CheckProofOfWork(hash *wire.Hash, bits uint32, powLimit *big.Int) error {
	c := lookupBits(bits, powLimit)
	if !c.targetOK {
		return ruleError(ErrHighHash, "proof of work failed")
	}
	if hashAboveTarget(hash, &c.target) {
		return ruleError(ErrHighHash, "proof of work failed")
	}
	return nil
}
