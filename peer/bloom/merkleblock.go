package bloom

import (
	"crypto/sha256"

	"github.com/btcnode/btcd/wire"
)

// NewMerkleBlock matches every transaction of block against f (updating
// the filter as MatchTxAndUpdate does) and returns the merkleblock that
// proves the matches, with the indexes of the matched transactions in
// block order: what a node sends for getdata(MSG_FILTERED_BLOCK), followed
// by those transactions.
func NewMerkleBlock(block *wire.MsgBlock, f *Filter) (*wire.MsgMerkleBlock, []int) {
	txids := make([]wire.Hash, len(block.Transactions))
	match := make([]bool, len(block.Transactions))
	var matched []int
	for i, tx := range block.Transactions {
		txids[i] = tx.TxHash()
		if f.MatchTxAndUpdate(tx) {
			match[i] = true
			matched = append(matched, i)
		}
	}
	mb := BuildMerkleBlock(&block.Header, txids, match)
	return mb, matched
}

// BuildMerkleBlock returns the merkleblock for a block with the given
// header and txids (in block order, at least one) proving those marked in
// match (BIP37's partial merkle tree: a depth-first walk that keeps the
// hash of every subtree without a match and descends into the others, one
// flag bit per node visited).
func BuildMerkleBlock(header *wire.BlockHeader, txids []wire.Hash, match []bool) *wire.MsgMerkleBlock {
	t := newTree(txids, match)
	b := treeBuilder{t: t}
	if len(txids) > 0 {
		b.walk(len(t.hashes)-1, 0)
	}
	flags := make([]byte, (len(b.bits)+7)/8)
	for i, bit := range b.bits {
		if bit {
			flags[i/8] |= 1 << (i % 8)
		}
	}
	return &wire.MsgMerkleBlock{
		Header:       *header,
		Transactions: uint32(len(txids)),
		Hashes:       b.hashes,
		Flags:        flags,
	}
}

// tree holds every level of the merkle tree, leaves first, and for each
// node whether a matched leaf lies below it.
type tree struct {
	hashes  [][]wire.Hash
	matched [][]bool
}

func newTree(txids []wire.Hash, match []bool) *tree {
	t := &tree{hashes: [][]wire.Hash{txids}, matched: [][]bool{match}}
	for level := txids; len(level) > 1; {
		m := t.matched[len(t.matched)-1]
		next := make([]wire.Hash, (len(level)+1)/2)
		nextMatch := make([]bool, len(next))
		for i := range next {
			l, r := &level[2*i], &level[2*i]
			if 2*i+1 < len(level) {
				// An odd node out is paired with itself.
				r = &level[2*i+1]
				nextMatch[i] = m[2*i+1]
			}
			next[i] = hashPair(l, r)
			nextMatch[i] = nextMatch[i] || m[2*i]
		}
		t.hashes = append(t.hashes, next)
		t.matched = append(t.matched, nextMatch)
		level = next
	}
	return t
}

func hashPair(l, r *wire.Hash) wire.Hash {
	var buf [2 * wire.HashSize]byte
	copy(buf[:wire.HashSize], l[:])
	copy(buf[wire.HashSize:], r[:])
	first := sha256.Sum256(buf[:])
	return wire.Hash(sha256.Sum256(first[:]))
}

type treeBuilder struct {
	t      *tree
	bits   []bool
	hashes []wire.Hash
}

func (b *treeBuilder) walk(height, pos int) {
	parentOfMatch := b.t.matched[height][pos]
	b.bits = append(b.bits, parentOfMatch)
	if height == 0 || !parentOfMatch {
		b.hashes = append(b.hashes, b.t.hashes[height][pos])
		return
	}
	b.walk(height-1, 2*pos)
	if 2*pos+1 < len(b.t.hashes[height-1]) {
		b.walk(height-1, 2*pos+1)
	}
}
