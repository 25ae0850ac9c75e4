package muhash

import (
	"errors"
	"math/big"
)

// StateSize is the length of a serialized MuHash state: the numerator and
// the denominator, each a 3072-bit little-endian number (the layout of
// Core's MuHash3072 serialization).
const StateSize = 2 * numBits / 8

// MarshalBinary returns m's state, so that a set maintained across blocks
// (the coinstats index) survives a restart: the digest alone cannot be
// extended.
func (m *MuHash) MarshalBinary() ([]byte, error) {
	m.init()
	out := make([]byte, StateSize)
	putLE(out[:numBits/8], &m.num)
	putLE(out[numBits/8:], &m.den)
	return out, nil
}

// UnmarshalBinary replaces m's state with one MarshalBinary wrote. The
// bytes usually come from disk, so both numbers must be nonzero and below
// the modulus (which every state MarshalBinary writes satisfies).
func (m *MuHash) UnmarshalBinary(b []byte) error {
	if len(b) != StateSize {
		return errors.New("muhash: state of wrong length")
	}
	var num, den big.Int
	getLE(&num, b[:numBits/8])
	getLE(&den, b[numBits/8:])
	for _, x := range []*big.Int{&num, &den} {
		if x.Sign() == 0 || x.Cmp(modulus) >= 0 {
			return errors.New("muhash: state number out of range")
		}
	}
	m.init()
	m.num.Set(&num)
	m.den.Set(&den)
	return nil
}

// putLE writes x into dst as a little-endian number of len(dst) bytes.
func putLE(dst []byte, x *big.Int) {
	x.FillBytes(dst)
	for i, j := 0, len(dst)-1; i < j; i, j = i+1, j-1 {
		dst[i], dst[j] = dst[j], dst[i]
	}
}

// getLE sets x to the little-endian number in src.
func getLE(x *big.Int, src []byte) {
	be := make([]byte, len(src))
	for i := range src {
		be[len(src)-1-i] = src[i]
	}
	x.SetBytes(be)
}
