package rpc

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// GetDifficulty returns the difficulty of compact target bits as bitcoind
// computes it: the ratio of the difficulty-1 target (0x1d00ffff) to the
// target, in floating point (regtest's 0x207fffff gives
// 4.656542373906925e-10).
func GetDifficulty(bits uint32) Float {
	shift := int(bits>>24) & 0xff
	mant := bits & 0x00ffffff
	if mant == 0 {
		// Core divides by zero here and returns inf; report 0 rather than
		// a value JSON cannot carry.
		return 0
	}
	diff := float64(0x0000ffff) / float64(mant)
	for ; shift < 29; shift++ {
		diff *= 256.0
	}
	for ; shift > 29; shift-- {
		diff /= 256.0
	}
	return Float(diff)
}

// TargetHex returns the target encoded by compact bits as 64 hex digits,
// as bitcoind's "target" fields (negative or overflowing encodings give
// zero).
func TargetHex(bits uint32) string {
	exp := uint(bits >> 24)
	mant := int64(bits & 0x007fffff)
	t := big.NewInt(mant)
	if exp <= 3 {
		t.Rsh(t, 8*(3-exp))
	} else {
		t.Lsh(t, 8*(exp-3))
	}
	if bits&0x00800000 != 0 || t.BitLen() > 256 {
		t.SetInt64(0)
	}
	return fmt.Sprintf("%064x", t)
}

// BitsHex returns compact bits as bitcoind prints them (8 hex digits).
func BitsHex(bits uint32) string { return fmt.Sprintf("%08x", bits) }

// Float is a JSON number printed as bitcoind prints doubles (C's %.16g),
// so results such as difficulty read the same as bitcoind's.
type Float float64

// MarshalJSON writes f with 16 significant digits.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', 16, 64), nil
}
