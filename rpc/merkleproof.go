package rpc

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/btcnode/btcd/wire"
)

// This file encodes and decodes the proofs of gettxoutproof and
// verifytxoutproof: a serialized merkle block (BIP37), that is a block
// header followed by a partial merkle tree: the block's transaction count
// (uint32), the hashes of the pruned subtrees and matched leaves in
// depth-first order (CompactSize count, 32 bytes each), and one flag bit per
// visited node, packed least significant bit first (CompactSize byte count,
// then the bytes).

// ErrBadProof is the kind of every proof decoding or verification failure.
var ErrBadProof = errors.New("bad merkle proof")

// ErrProofEncoding additionally marks proofs whose bytes end early (a
// stream error in bitcoind, -1) as opposed to well-formed proofs whose tree
// does not verify (an empty result in bitcoind).
var ErrProofEncoding = errors.New("merkle proof ends early")

// maxProofTxs bounds a proof's transaction count as Core does: no block
// can hold more than MaxBlockWeight / (weight of the smallest possible
// transaction, 60 bytes * 4) transactions.
const maxProofTxs = wire.MaxBlockWeight / 240

// TxOutProof is a decoded gettxoutproof proof.
type TxOutProof struct {
	Header wire.BlockHeader
	// NumTx is the block's transaction count the proof claims.
	NumTx uint32
	// Matches are the proven txids, Indexes their positions in the
	// block.
	Matches []wire.Hash
	Indexes []uint32
	// Root is the merkle root the proof's hashes produce; a valid proof
	// has Root == Header.MerkleRoot.
	Root wire.Hash
}

// treeWidth is the number of nodes at height h of a tree over n leaves.
func treeWidth(n uint32, h uint) uint32 {
	return uint32((uint64(n) + (1 << h) - 1) >> h)
}

func hashPair(l, r *wire.Hash) wire.Hash {
	var buf [64]byte
	copy(buf[:32], l[:])
	copy(buf[32:], r[:])
	first := sha256.Sum256(buf[:])
	return wire.Hash(sha256.Sum256(first[:]))
}

// proofBuilder walks the full tree, emitting flag bits and hashes.
type proofBuilder struct {
	txids  []wire.Hash
	match  []bool
	n      uint32
	bits   []bool
	hashes []wire.Hash
}

func (b *proofBuilder) subtreeHash(h uint, pos uint32) wire.Hash {
	if h == 0 {
		return b.txids[pos]
	}
	l := b.subtreeHash(h-1, pos*2)
	r := l
	if pos*2+1 < treeWidth(b.n, h-1) {
		r = b.subtreeHash(h-1, pos*2+1)
	}
	return hashPair(&l, &r)
}

func (b *proofBuilder) walk(h uint, pos uint32) {
	parentOfMatch := false
	end := min(uint64(pos+1)<<h, uint64(b.n))
	for p := uint64(pos) << h; p < end && !parentOfMatch; p++ {
		parentOfMatch = b.match[p]
	}
	b.bits = append(b.bits, parentOfMatch)
	if h == 0 || !parentOfMatch {
		b.hashes = append(b.hashes, b.subtreeHash(h, pos))
		return
	}
	b.walk(h-1, pos*2)
	if pos*2+1 < treeWidth(b.n, h-1) {
		b.walk(h-1, pos*2+1)
	}
}

// AppendTxOutProof appends the proof that the transactions of the block
// (header, all txids in order) marked in match are in it. len(match) must
// equal len(txids), which must not be empty.
func AppendTxOutProof(dst []byte, header *wire.BlockHeader, txids []wire.Hash, match []bool) []byte {
	b := proofBuilder{txids: txids, match: match, n: uint32(len(txids))}
	var h uint
	for treeWidth(b.n, h) > 1 {
		h++
	}
	b.walk(h, 0)
	dst = header.AppendTo(dst)
	dst = binary.LittleEndian.AppendUint32(dst, b.n)
	dst = wire.AppendVarInt(dst, uint64(len(b.hashes)))
	for i := range b.hashes {
		dst = append(dst, b.hashes[i][:]...)
	}
	nbytes := (len(b.bits) + 7) / 8
	dst = wire.AppendVarInt(dst, uint64(nbytes))
	start := len(dst)
	dst = append(dst, make([]byte, nbytes)...)
	for i, bit := range b.bits {
		if bit {
			dst[start+i/8] |= 1 << (i % 8)
		}
	}
	return dst
}

// proofReader replays the flag bits and hashes to rebuild the root.
type proofReader struct {
	p        *TxOutProof
	hashes   []byte // 32 bytes per hash
	flags    []byte
	nbits    int
	bitsUsed int
	hashUsed int
}

func (r *proofReader) walk(h uint, pos uint32) (wire.Hash, error) {
	if r.bitsUsed >= r.nbits {
		return wire.Hash{}, fmt.Errorf("%w: ran out of flag bits", ErrBadProof)
	}
	parentOfMatch := r.flags[r.bitsUsed/8]&(1<<(r.bitsUsed%8)) != 0
	r.bitsUsed++
	if h == 0 || !parentOfMatch {
		if r.hashUsed >= len(r.hashes)/32 {
			return wire.Hash{}, fmt.Errorf("%w: ran out of hashes", ErrBadProof)
		}
		var hash wire.Hash
		copy(hash[:], r.hashes[r.hashUsed*32:])
		r.hashUsed++
		if h == 0 && parentOfMatch {
			r.p.Matches = append(r.p.Matches, hash)
			r.p.Indexes = append(r.p.Indexes, pos)
		}
		return hash, nil
	}
	l, err := r.walk(h-1, pos*2)
	if err != nil {
		return l, err
	}
	right := l
	if pos*2+1 < treeWidth(r.p.NumTx, h-1) {
		if right, err = r.walk(h-1, pos*2+1); err != nil {
			return right, err
		}
		// Equal siblings would let a proof claim a duplicated
		// transaction (CVE-2012-2459).
		if right == l {
			return l, fmt.Errorf("%w: identical sibling hashes", ErrBadProof)
		}
	}
	return hashPair(&l, &right), nil
}

// ParseTxOutProof decodes a proof and recomputes its merkle root. Errors
// are ErrBadProof, and also ErrProofEncoding when the bytes end early. It
// checks
// the structure as Core's CPartialMerkleTree::ExtractMatches does (every
// hash and flag byte used, no duplicate siblings, a sane transaction count)
// but not that Root equals Header.MerkleRoot: callers compare.
func ParseTxOutProof(b []byte) (*TxOutProof, error) {
	p := &TxOutProof{}
	if len(b) < wire.BlockHeaderSize+4 {
		return nil, fmt.Errorf("%w: %w: %d bytes", ErrBadProof, ErrProofEncoding, len(b))
	}
	if err := p.Header.Decode(b[:wire.BlockHeaderSize]); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrBadProof, err)
	}
	b = b[wire.BlockHeaderSize:]
	p.NumTx = binary.LittleEndian.Uint32(b)
	b = b[4:]
	nh, n, err := wire.ReadVarInt(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: hash count: %v", ErrBadProof, ErrProofEncoding, err)
	}
	b = b[n:]
	if nh > uint64(len(b)/32) {
		return nil, fmt.Errorf("%w: %w: %d hashes exceed %d bytes", ErrBadProof, ErrProofEncoding, nh, len(b))
	}
	r := proofReader{p: p, hashes: b[:nh*32]}
	b = b[nh*32:]
	nf, n, err := wire.ReadVarInt(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: flag byte count: %v", ErrBadProof, ErrProofEncoding, err)
	}
	b = b[n:]
	if nf > uint64(len(b)) {
		return nil, fmt.Errorf("%w: %w: %d flag bytes, %d bytes left", ErrBadProof, ErrProofEncoding, nf, len(b))
	}
	// Bytes after the flags are ignored, as bitcoind's stream decoding
	// does.
	r.flags, r.nbits = b[:nf], int(nf)*8
	switch {
	case p.NumTx == 0:
		return nil, fmt.Errorf("%w: no transactions", ErrBadProof)
	case p.NumTx > maxProofTxs:
		return nil, fmt.Errorf("%w: %d transactions is too many", ErrBadProof, p.NumTx)
	case nh > uint64(p.NumTx):
		return nil, fmt.Errorf("%w: more hashes than transactions", ErrBadProof)
	case uint64(r.nbits) < nh:
		return nil, fmt.Errorf("%w: fewer flag bits than hashes", ErrBadProof)
	}
	var h uint
	for treeWidth(p.NumTx, h) > 1 {
		h++
	}
	if p.Root, err = r.walk(h, 0); err != nil {
		return nil, err
	}
	if (r.bitsUsed+7)/8 != len(r.flags) || r.hashUsed != int(nh) {
		return nil, fmt.Errorf("%w: unused hashes or flag bytes", ErrBadProof)
	}
	return p, nil
}
