package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
)

// SipHash24 returns SipHash-2-4 of msg under the key (k0, k1), where k0 and
// k1 are the key's two little-endian 64-bit halves.
func SipHash24(k0, k1 uint64, msg []byte) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	n := len(msg)
	for len(msg) >= 8 {
		m := binary.LittleEndian.Uint64(msg)
		v3 ^= m
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= m
		msg = msg[8:]
	}
	last := uint64(n) << 56
	for i, c := range msg {
		last |= uint64(c) << (8 * i)
	}
	v3 ^= last
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= last
	v2 ^= 0xff
	for range 4 {
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	}
	return v0 ^ v1 ^ v2 ^ v3
}

func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13)
	v1 ^= v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16)
	v3 ^= v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21)
	v3 ^= v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17)
	v1 ^= v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}

// ShortTxIDKeys returns the BIP152 SipHash key of a compact block: the
// first two little-endian 64-bit words of sha256(header || nonce).
func ShortTxIDKeys(h *BlockHeader, nonce uint64) (k0, k1 uint64) {
	var buf [BlockHeaderSize + 8]byte
	h.AppendTo(buf[:0])
	binary.LittleEndian.PutUint64(buf[BlockHeaderSize:], nonce)
	sum := sha256.Sum256(buf[:])
	return binary.LittleEndian.Uint64(sum[0:]), binary.LittleEndian.Uint64(sum[8:])
}

// ShortTxIDMask keeps the 48 bits of a short transaction id.
const ShortTxIDMask = 1<<48 - 1

// ShortTxID returns the BIP152 short id of a transaction: SipHash-2-4 of
// its wtxid under the compact block's key, truncated to 48 bits.
func ShortTxID(k0, k1 uint64, wtxid Hash) uint64 {
	return SipHash24(k0, k1, wtxid[:]) & ShortTxIDMask
}
