package bloom

import (
	"errors"
	"fmt"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// extract replays a merkleblock's partial tree, returning the merkle root
// it commits to and the matched txids with their positions (a light
// client's side, for checking what BuildMerkleBlock emits).
func extract(mb *wire.MsgMerkleBlock) (wire.Hash, []wire.Hash, []int, error) {
	n := int(mb.Transactions)
	if n == 0 {
		return wire.Hash{}, nil, nil, errors.New("no transactions")
	}
	width := func(h int) int { return (n + (1 << h) - 1) >> h }
	height := 0
	for width(height) > 1 {
		height++
	}
	var bitsUsed, hashUsed int
	var ids []wire.Hash
	var pos []int
	var walk func(h, p int) (wire.Hash, error)
	walk = func(h, p int) (wire.Hash, error) {
		if bitsUsed >= len(mb.Flags)*8 {
			return wire.Hash{}, errors.New("out of bits")
		}
		bit := mb.Flags[bitsUsed/8]&(1<<(bitsUsed%8)) != 0
		bitsUsed++
		if h == 0 || !bit {
			if hashUsed >= len(mb.Hashes) {
				return wire.Hash{}, errors.New("out of hashes")
			}
			x := mb.Hashes[hashUsed]
			hashUsed++
			if h == 0 && bit {
				ids = append(ids, x)
				pos = append(pos, p)
			}
			return x, nil
		}
		l, err := walk(h-1, 2*p)
		if err != nil {
			return l, err
		}
		r := l
		if 2*p+1 < width(h-1) {
			if r, err = walk(h-1, 2*p+1); err != nil {
				return r, err
			}
		}
		return hashPair(&l, &r), nil
	}
	root, err := walk(height, 0)
	if err != nil {
		return root, nil, nil, err
	}
	if hashUsed != len(mb.Hashes) || (bitsUsed+7)/8 != len(mb.Flags) {
		return root, nil, nil, fmt.Errorf("unused data: %d/%d hashes, %d bits of %d bytes", hashUsed, len(mb.Hashes), bitsUsed, len(mb.Flags))
	}
	return root, ids, pos, nil
}

func TestBuildMerkleBlock(t *testing.T) {
	for n := 1; n <= 40; n++ {
		txids := make([]wire.Hash, n)
		for i := range txids {
			txids[i] = wire.Hash{byte(i), byte(n), 0xaa}
		}
		root, _ := wire.CalcMerkleRoot(txids)
		hdr := wire.BlockHeader{Version: 4, MerkleRoot: root}
		for pattern := 0; pattern < 6; pattern++ {
			match := make([]bool, n)
			var want []int
			for i := range match {
				match[i] = (pattern == 1 && i == 0) || (pattern == 2 && i == n-1) ||
					(pattern == 3 && i%3 == 1) || pattern == 4 || (pattern == 5 && i == n/2)
				if match[i] {
					want = append(want, i)
				}
			}
			mb := BuildMerkleBlock(&hdr, txids, match)
			got, ids, pos, err := extract(mb)
			if err != nil {
				t.Fatalf("n=%d pattern %d: %v", n, pattern, err)
			}
			if got != root {
				t.Fatalf("n=%d pattern %d: root mismatch", n, pattern)
			}
			if fmt.Sprint(pos) != fmt.Sprint(want) {
				t.Fatalf("n=%d pattern %d: matched %v, want %v", n, pattern, pos, want)
			}
			for k, p := range pos {
				if ids[k] != txids[p] {
					t.Fatalf("n=%d pattern %d: wrong txid at %d", n, pattern, p)
				}
			}
			if pattern == 0 && (len(mb.Hashes) != 1 || mb.Hashes[0] != root) {
				t.Fatalf("n=%d: no match should leave only the root", n)
			}
		}
	}
}

func TestNewMerkleBlock(t *testing.T) {
	watched := []byte{0xde, 0xad, 0xbe, 0xef}
	mk := func(tag byte, script []byte) *wire.MsgTx {
		return &wire.MsgTx{Version: 1, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{tag}}}},
			TxOut: []wire.TxOut{{Value: 1, PkScript: script}}}
	}
	blk := &wire.MsgBlock{Transactions: []*wire.MsgTx{
		mk(1, []byte{0x51}), mk(2, append([]byte{4}, watched...)), mk(3, []byte{0x52}),
	}}
	// The third spends the second's output: caught through the update.
	blk.Transactions[2].TxIn[0].PreviousOutPoint = wire.OutPoint{Hash: blk.Transactions[1].TxHash()}
	ids := make([]wire.Hash, 3)
	for i, tx := range blk.Transactions {
		ids[i] = tx.TxHash()
	}
	blk.Header.MerkleRoot, _ = wire.CalcMerkleRoot(ids)
	f := New(5, 0.0001, 1, wire.BloomUpdateAll)
	f.Add(watched)
	mb, matched := NewMerkleBlock(blk, f)
	if fmt.Sprint(matched) != "[1 2]" {
		t.Fatalf("matched %v, want [1 2]", matched)
	}
	root, _, pos, err := extract(mb)
	if err != nil || root != blk.Header.MerkleRoot || fmt.Sprint(pos) != "[1 2]" {
		t.Fatalf("proof: root ok %v, positions %v, err %v", root == blk.Header.MerkleRoot, pos, err)
	}
	if mb.Header != blk.Header {
		t.Fatal("header not copied")
	}
}
