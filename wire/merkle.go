package wire

import (
	"crypto/sha256"
	"sync"
)

// hashPair returns sha256d(a || b) without allocating.
func hashPair(a, b *Hash) Hash {
	var buf [2 * HashSize]byte
	copy(buf[:HashSize], a[:])
	copy(buf[HashSize:], b[:])
	first := sha256.Sum256(buf[:])
	return Hash(sha256.Sum256(first[:]))
}

// merkleScratch pools the working levels of merkle computations so that
// computing a block's roots allocates nothing in the steady state.
var merkleScratch = sync.Pool{New: func() any { return new([]Hash) }}

func getScratch(n int) *[]Hash {
	sp := merkleScratch.Get().(*[]Hash)
	if cap(*sp) < n+1 {
		*sp = make([]Hash, n, n+1)
	}
	*sp = (*sp)[:n]
	return sp
}

// CalcMerkleRoot returns the merkle root of hashes as Bitcoin computes it
// (an odd level repeats its last hash) and whether the list is mutated in
// the CVE-2012-2459 sense: two equal adjacent hashes at some level, which
// lets a different transaction list produce the same root. hashes is not
// modified. The root of an empty list is the zero hash.
func CalcMerkleRoot(hashes []Hash) (root Hash, mutated bool) {
	if len(hashes) == 0 {
		return Hash{}, false
	}
	sp := getScratch(len(hashes))
	copy(*sp, hashes)
	root, mutated = merkleInPlace(*sp)
	merkleScratch.Put(sp)
	return root, mutated
}

// merkleInPlace reduces level (whose capacity must exceed its length) to
// its root, overwriting it.
func merkleInPlace(level []Hash) (root Hash, mutated bool) {
	for len(level) > 1 {
		for i := 0; i+1 < len(level); i += 2 {
			if level[i] == level[i+1] {
				mutated = true
			}
		}
		if len(level)&1 == 1 {
			level = append(level, level[len(level)-1])
		}
		half := len(level) / 2
		for i := range half {
			level[i] = hashPair(&level[2*i], &level[2*i+1])
		}
		level = level[:half]
	}
	return level[0], mutated
}

// MerkleRoot returns the merkle root of the block's txids and whether the
// transaction list is mutated (see CalcMerkleRoot).
func (b *MsgBlock) MerkleRoot() (Hash, bool) {
	return CalcMerkleRoot(b.TxHashes())
}

// CacheWitnessRoot computes the witness root now and keeps it, so that
// later WitnessMerkleRoot calls return it at once: the sync manager calls
// it on the peer's goroutine, before handing the block to the goroutine
// that connects blocks. Only the block's sole owner may call it (it writes
// the block); ClearHashCache drops it.
func (b *MsgBlock) CacheWitnessRoot() {
	b.wroot = b.WitnessMerkleRoot()
	b.hasWroot = true
}

// WitnessMerkleRoot returns the BIP141 witness root: the merkle root of the
// wtxids with the coinbase's replaced by zero.
func (b *MsgBlock) WitnessMerkleRoot() Hash {
	if b.hasWroot {
		return b.wroot
	}
	w := b.WitnessHashes()
	if len(w) == 0 {
		return Hash{}
	}
	sp := getScratch(len(w))
	hs := *sp
	hs[0] = Hash{}
	copy(hs[1:], w[1:])
	root, _ := merkleInPlace(hs)
	merkleScratch.Put(sp)
	return root
}
