package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"sync"
)

// HashSize is the size in bytes of a Hash.
const HashSize = 32

// MaxHashStringSize is the length of a hash in hex.
const MaxHashStringSize = HashSize * 2

// Hash is a double-SHA256 (or tagged) hash in internal byte order. Bitcoin
// displays hashes byte-reversed; String and NewHashFromStr use that form.
type Hash [HashSize]byte

// String returns the hash as byte-reversed hex, as Bitcoin displays it.
func (h Hash) String() string {
	var r [HashSize]byte
	for i := range HashSize {
		r[i] = h[HashSize-1-i]
	}
	return hex.EncodeToString(r[:])
}

// IsEqual reports whether h and other hold the same bytes. A nil other is
// equal only to a nil receiver.
func (h *Hash) IsEqual(other *Hash) bool {
	if h == nil || other == nil {
		return h == other
	}
	return *h == *other
}

// NewHashFromStr parses a byte-reversed hex hash as displayed by Bitcoin.
// Shorter strings are zero-extended at the high end, as bitcoind accepts.
func NewHashFromStr(s string) (Hash, error) {
	var h Hash
	if len(s) > MaxHashStringSize {
		return h, messageError(ErrMalformed, "hash string of %d characters is longer than %d", len(s), MaxHashStringSize)
	}
	if len(s)%2 != 0 {
		s = "0" + s
	}
	var r [HashSize]byte
	n, err := hex.Decode(r[HashSize-len(s)/2:], []byte(s))
	if err != nil {
		return h, messageError(ErrMalformed, "hash string: %v", err)
	}
	_ = n
	for i := range HashSize {
		h[i] = r[HashSize-1-i]
	}
	return h, nil
}

// DoubleHashH returns sha256(sha256(b)).
func DoubleHashH(b []byte) Hash {
	first := sha256.Sum256(b)
	return Hash(sha256.Sum256(first[:]))
}

// DoubleHashB returns sha256(sha256(b)) as a new slice.
func DoubleHashB(b []byte) []byte {
	h := DoubleHashH(b)
	return h[:]
}

// hasher is a pooled streaming SHA256 state for hashes computed from several
// pieces (segwit txids skip the marker, flag and witness).
type hasher struct {
	h   hash.Hash
	sum [HashSize]byte
}

var hasherPool = sync.Pool{New: func() any { return &hasher{h: sha256.New()} }}

// doubleHashPieces returns sha256d of the concatenation of the pieces
// without copying them together.
func doubleHashPieces(a, b, c []byte) Hash {
	hs := hasherPool.Get().(*hasher)
	hs.h.Reset()
	hs.h.Write(a)
	hs.h.Write(b)
	hs.h.Write(c)
	hs.h.Sum(hs.sum[:0])
	out := Hash(sha256.Sum256(hs.sum[:]))
	hasherPool.Put(hs)
	return out
}

// tagHashes caches sha256(tag) for each BIP340 tag seen.
var tagHashes sync.Map // string -> [32]byte

// TaggedHash returns the BIP340 tagged hash
// sha256(sha256(tag) || sha256(tag) || msgs...).
func TaggedHash(tag string, msgs ...[]byte) Hash {
	var th [HashSize]byte
	if v, ok := tagHashes.Load(tag); ok {
		th = v.([HashSize]byte)
	} else {
		th = sha256.Sum256([]byte(tag))
		tagHashes.Store(tag, th)
	}
	hs := hasherPool.Get().(*hasher)
	hs.h.Reset()
	hs.h.Write(th[:])
	hs.h.Write(th[:])
	for _, m := range msgs {
		hs.h.Write(m)
	}
	hs.h.Sum(hs.sum[:0])
	out := Hash(hs.sum)
	hasherPool.Put(hs)
	return out
}
