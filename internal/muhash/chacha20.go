package muhash

import (
	"encoding/binary"
	"math/bits"
)

// chachaConst is "expand 32-byte k" as four little-endian words.
var chachaConst = [4]uint32{0x61707865, 0x3320646e, 0x79622d32, 0x6b206574}

// quarterRound is ChaCha's quarter round on four state words (RFC 8439
// section 2.1).
func quarterRound(a, b, c, d uint32) (uint32, uint32, uint32, uint32) {
	a += b
	d = bits.RotateLeft32(d^a, 16)
	c += d
	b = bits.RotateLeft32(b^c, 12)
	a += b
	d = bits.RotateLeft32(d^a, 8)
	c += d
	b = bits.RotateLeft32(b^c, 7)
	return a, b, c, d
}

// chachaBlock computes the RFC 8439 ChaCha20 block for key, counter and
// the 96-bit nonce and stores its 16 output words (to be serialized little
// endian) in out. The state lives in locals so that it stays in registers.
func chachaBlock(key *[8]uint32, counter uint32, nonce *[3]uint32, out *[16]uint32) {
	x0, x1, x2, x3 := chachaConst[0], chachaConst[1], chachaConst[2], chachaConst[3]
	x4, x5, x6, x7 := key[0], key[1], key[2], key[3]
	x8, x9, x10, x11 := key[4], key[5], key[6], key[7]
	x12, x13, x14, x15 := counter, nonce[0], nonce[1], nonce[2]
	for range 10 {
		// Column round, then diagonal round.
		x0, x4, x8, x12 = quarterRound(x0, x4, x8, x12)
		x1, x5, x9, x13 = quarterRound(x1, x5, x9, x13)
		x2, x6, x10, x14 = quarterRound(x2, x6, x10, x14)
		x3, x7, x11, x15 = quarterRound(x3, x7, x11, x15)
		x0, x5, x10, x15 = quarterRound(x0, x5, x10, x15)
		x1, x6, x11, x12 = quarterRound(x1, x6, x11, x12)
		x2, x7, x8, x13 = quarterRound(x2, x7, x8, x13)
		x3, x4, x9, x14 = quarterRound(x3, x4, x9, x14)
	}
	*out = [16]uint32{
		x0 + chachaConst[0], x1 + chachaConst[1], x2 + chachaConst[2], x3 + chachaConst[3],
		x4 + key[0], x5 + key[1], x6 + key[2], x7 + key[3],
		x8 + key[4], x9 + key[5], x10 + key[6], x11 + key[7],
		x12 + counter, x13 + nonce[0], x14 + nonce[1], x15 + nonce[2],
	}
}

// keyWords reads a 32-byte ChaCha20 key as eight little-endian words.
func keyWords(key *[32]byte) (k [8]uint32) {
	for i := range k {
		k[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	return k
}

// keystreamWords fills out with the ChaCha20 keystream of key under the
// zero nonce, starting at block 0, as little-endian 32-bit words: exactly
// the 96 words MuHash reads as a 3072-bit number.
func keystreamWords(key *[32]byte, out *[elemWords32]uint32) {
	k := keyWords(key)
	var nonce [3]uint32
	var blk [16]uint32
	for b := range elemWords32 / 16 {
		chachaBlock(&k, uint32(b), &nonce, &blk)
		copy(out[16*b:], blk[:])
	}
}
