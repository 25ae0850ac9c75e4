package rpc

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func loadMerkleVectors(t testing.TB) map[string][]byte {
	f, err := os.Open("testdata/merkleblock_core.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, h, _ := strings.Cut(line, " ")
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	return out
}

func decodeTestBlock(t testing.TB, b []byte) *wire.MsgBlock {
	var blk wire.MsgBlock
	if n, err := blk.Decode(b); err != nil || n != len(b) {
		t.Fatalf("decode block: %v", err)
	}
	return &blk
}

// TestTxOutProofCoreVector: our encoding of the one-transaction block
// equals Core's serialized CMerkleBlock byte for byte, and decodes back.
func TestTxOutProofCoreVector(t *testing.T) {
	v := loadMerkleVectors(t)
	blk := decodeTestBlock(t, v["block3"])
	got := AppendTxOutProof(nil, &blk.Header, blk.TxHashes(), []bool{true})
	if !bytes.Equal(got, v["proof3"]) {
		t.Fatalf("proof\n got %x\nwant %x", got, v["proof3"])
	}
	p, err := ParseTxOutProof(v["proof3"])
	if err != nil {
		t.Fatal(err)
	}
	want := "63194f18be0af63f2c6bc9dc0f777cbefed3d9415c4af83f3ee3a3d669c00cb5"
	if p.Root != blk.Header.MerkleRoot || len(p.Matches) != 1 || p.Matches[0].String() != want || p.Indexes[0] != 0 {
		t.Fatalf("parsed %+v", p)
	}
}

// TestTxOutProofSubsets proves every subset of the four transactions of a
// real block and of synthetic blocks of odd sizes: the recomputed root is
// the block's and the matches are exactly the chosen ones.
func TestTxOutProofSubsets(t *testing.T) {
	v := loadMerkleVectors(t)
	blk := decodeTestBlock(t, v["block2"])
	ids := blk.TxHashes()
	if ids[1].String() != "28204cad1d7fc1d199e8ef4fa22f182de6258a3eaafe1bbe56ebdcacd3069a5f" {
		t.Fatalf("txid 1 %v", ids[1])
	}
	check := func(hdr *wire.BlockHeader, ids []wire.Hash) {
		t.Helper()
		n := len(ids)
		for mask := 0; mask < 1<<min(n, 10); mask++ {
			match := make([]bool, n)
			var want []wire.Hash
			for i := range n {
				if i < 10 && mask&(1<<i) != 0 || i >= 10 && mask == 0 {
					match[i] = true
					want = append(want, ids[i])
				}
			}
			p, err := ParseTxOutProof(AppendTxOutProof(nil, hdr, ids, match))
			if err != nil {
				t.Fatalf("n=%d mask=%b: %v", n, mask, err)
			}
			if p.Root != hdr.MerkleRoot || p.NumTx != uint32(n) || len(p.Matches) != len(want) {
				t.Fatalf("n=%d mask=%b: root %v want %v, %d matches", n, mask, p.Root, hdr.MerkleRoot, len(p.Matches))
			}
			for i := range want {
				if p.Matches[i] != want[i] || ids[p.Indexes[i]] != want[i] {
					t.Fatalf("n=%d mask=%b: match %d", n, mask, i)
				}
			}
		}
	}
	check(&blk.Header, ids)
	for _, n := range []int{1, 2, 3, 5, 7, 9, 17} {
		ids := make([]wire.Hash, n)
		for i := range ids {
			ids[i] = wire.DoubleHashH([]byte{byte(i), byte(n)})
		}
		root, _ := wire.CalcMerkleRoot(ids)
		check(&wire.BlockHeader{MerkleRoot: root}, ids)
	}
}

// TestTxOutProofMalformed: truncations, trailing bytes, absurd counts and
// unused data are all ErrBadProof.
func TestTxOutProofMalformed(t *testing.T) {
	v := loadMerkleVectors(t)
	good := v["proof3"]
	for i := 0; i < len(good); i++ {
		if _, err := ParseTxOutProof(good[:i]); !errors.Is(err, ErrBadProof) {
			t.Fatalf("truncated to %d: %v", i, err)
		}
	}
	for i := 0; i < len(good); i++ {
		if _, err := ParseTxOutProof(good[:i]); !errors.Is(err, ErrProofEncoding) {
			t.Fatalf("truncated to %d is not an encoding error: %v", i, err)
		}
	}
	// Trailing bytes are ignored, as bitcoind's stream decoding does.
	if _, err := ParseTxOutProof(append(bytes.Clone(good), 0)); err != nil {
		t.Fatalf("trailing byte: %v", err)
	}
	// A flag bit left over (a second flag byte) is a tree error, not an
	// encoding one.
	extra := append(bytes.Clone(good[:len(good)-2]), 2, 1, 0)
	if _, err := ParseTxOutProof(extra); !errors.Is(err, ErrBadProof) || errors.Is(err, ErrProofEncoding) {
		t.Fatalf("unused flag byte: %v", err)
	}
	zeroTx := bytes.Clone(good)
	copy(zeroTx[80:84], []byte{0, 0, 0, 0})
	if _, err := ParseTxOutProof(zeroTx); !errors.Is(err, ErrBadProof) {
		t.Fatalf("zero transactions: %v", err)
	}
	huge := bytes.Clone(good[:84])
	huge = append(huge, 0xfe, 0xff, 0xff, 0xff, 0x7f) // 2^31 hashes claimed
	if _, err := ParseTxOutProof(huge); !errors.Is(err, ErrBadProof) {
		t.Fatalf("huge hash count: %v", err)
	}
	// A proof with the duplicate-sibling mutation (CVE-2012-2459).
	ids := []wire.Hash{{1}, {2}, {3}, {3}}
	p := AppendTxOutProof(nil, &wire.BlockHeader{}, ids, []bool{false, false, true, true})
	if _, err := ParseTxOutProof(p); !errors.Is(err, ErrBadProof) {
		t.Fatalf("duplicate siblings: %v", err)
	}
}

func FuzzParseTxOutProof(f *testing.F) {
	v := loadMerkleVectors(f)
	f.Add(v["proof3"])
	blk := decodeTestBlock(f, v["block2"])
	f.Add(AppendTxOutProof(nil, &blk.Header, blk.TxHashes(), []bool{false, true, false, true}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseTxOutProof(b)
		if err != nil {
			if !errors.Is(err, ErrBadProof) {
				t.Fatalf("error kind %v", err)
			}
			return
		}
		if len(p.Matches) != len(p.Indexes) || len(p.Matches) > int(p.NumTx) {
			t.Fatalf("inconsistent %+v", p)
		}
	})
}

func BenchmarkAppendTxOutProof(b *testing.B) {
	ids := make([]wire.Hash, 2000)
	for i := range ids {
		ids[i] = wire.DoubleHashH([]byte{byte(i), byte(i >> 8)})
	}
	match := make([]bool, len(ids))
	match[777] = true
	hdr := &wire.BlockHeader{}
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = AppendTxOutProof(buf[:0], hdr, ids, match)
	}
}

func BenchmarkParseTxOutProof(b *testing.B) {
	ids := make([]wire.Hash, 2000)
	for i := range ids {
		ids[i] = wire.DoubleHashH([]byte{byte(i), byte(i >> 8)})
	}
	match := make([]bool, len(ids))
	match[777], match[1500] = true, true
	root, _ := wire.CalcMerkleRoot(ids)
	proof := AppendTxOutProof(nil, &wire.BlockHeader{MerkleRoot: root}, ids, match)
	b.ReportAllocs()
	for b.Loop() {
		p, err := ParseTxOutProof(proof)
		if err != nil || p.Root != root {
			b.Fatal(err)
		}
	}
}
