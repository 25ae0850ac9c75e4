package chaincfg

import (
	"math/big"
	"math/bits"
)

// The compact ("nBits") encoding packs a 256-bit target into 32 bits: the top
// byte is a length in bytes, bit 23 is a sign bit, and the low 23 bits are
// the most significant bytes of the value. It is a floating-point format whose
// quirks (a sign bit, lengths that overflow 256 bits, mantissas that lose the
// low bytes) are consensus-relevant, so the functions here reproduce the
// behaviour of Bitcoin Core's arith_uint256 SetCompact/GetCompact exactly.

const (
	compactSignBit  = 0x00800000
	compactMantissa = 0x007fffff
)

// oneLsh256 is 2^256, the numerator of the block-proof formula.
var oneLsh256 = new(big.Int).Lsh(big.NewInt(1), 256)

// DecodeCompact expands bits into the non-negative magnitude it encodes and
// reports the two flags Core's SetCompact sets: negative (sign bit set with a
// non-zero mantissa) and overflow (the value does not fit in 256 bits). The
// magnitude is exact; callers that need Core's validity test should use
// TargetFromBits instead of inspecting the flags themselves.
func DecodeCompact(bits uint32) (magnitude *big.Int, negative, overflow bool) {
	size := bits >> 24
	word := bits & compactMantissa
	magnitude = new(big.Int)
	if size <= 3 {
		// Small sizes drop the low mantissa bytes rather than shifting left.
		word >>= 8 * (3 - size)
		magnitude.SetUint64(uint64(word))
	} else {
		magnitude.SetUint64(uint64(word))
		magnitude.Lsh(magnitude, uint(8*(size-3)))
	}
	negative = word != 0 && bits&compactSignBit != 0
	overflow = word != 0 && (size > 34 ||
		(word > 0xff && size > 33) ||
		(word > 0xffff && size > 32))
	return magnitude, negative, overflow
}

// CompactToBig converts compact bits to the signed integer they encode: the
// magnitude from DecodeCompact, negated when the sign flag is set. Overflowing
// encodings are returned at full precision rather than truncated to 256 bits.
func CompactToBig(bits uint32) *big.Int {
	n, negative, _ := DecodeCompact(bits)
	if negative {
		n.Neg(n)
	}
	return n
}

// BigToCompact encodes n in compact form the way Core's GetCompact does: the
// mantissa keeps the three most significant bytes, and a mantissa whose top
// bit is set is shifted down a byte so it is not mistaken for the sign bit. A
// negative n sets the sign bit unless its encoded mantissa is zero. n must be
// smaller than 2^256 in magnitude for the result to be meaningful.
func BigToCompact(n *big.Int) uint32 {
	if n.Sign() == 0 {
		return 0
	}
	negative := n.Sign() < 0
	mag := n
	if negative {
		mag = new(big.Int).Neg(n)
	}
	size := uint32((mag.BitLen() + 7) / 8)
	var compact uint32
	if size <= 3 {
		compact = uint32(mag.Uint64()) << (8 * (3 - size))
	} else {
		compact = top24(mag, uint(8*(size-3)))
	}
	if compact&compactSignBit != 0 {
		compact >>= 8
		size++
	}
	compact |= size << 24
	if negative && compact&compactMantissa != 0 {
		compact |= compactSignBit
	}
	return compact
}

// top24 returns bits [shift, shift+24) of n's magnitude without allocating.
func top24(n *big.Int, shift uint) uint32 {
	words := n.Bits()
	idx, off := shift/bits.UintSize, shift%bits.UintSize
	if int(idx) >= len(words) {
		return 0
	}
	v := uint64(words[idx] >> off)
	if off+24 > bits.UintSize && int(idx)+1 < len(words) {
		v |= uint64(words[idx+1]) << (bits.UintSize - off)
	}
	return uint32(v & 0xffffff)
}

// TargetFromBits returns the proof-of-work target encoded by bits and whether
// it is acceptable under powLimit, mirroring Core's DeriveTarget: negative,
// zero, overflowing, and above-limit encodings are all rejected (ok false).
func TargetFromBits(bits uint32, powLimit *big.Int) (target *big.Int, ok bool) {
	target, negative, overflow := DecodeCompact(bits)
	if negative || overflow || target.Sign() == 0 || target.Cmp(powLimit) > 0 {
		return target, false
	}
	return target, true
}

// CalcWork returns the expected number of hashes needed to find a block with
// the given bits, 2^256 / (target + 1), as Core's GetBlockProof computes it.
// Encodings Core treats as invalid (negative, overflowing, zero) count as no
// work at all.
func CalcWork(bits uint32) *big.Int {
	target, negative, overflow := DecodeCompact(bits)
	if negative || overflow || target.Sign() == 0 {
		return new(big.Int)
	}
	// Core computes ~target/(target+1)+1 in 256-bit arithmetic, which equals
	// floor(2^256/(target+1)) for every target below 2^256.
	target.Add(target, bigOne)
	return target.Quo(oneLsh256, target)
}

var bigOne = big.NewInt(1)
