package wire

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// vectorsDir is the shared consensus vectors folder seen from this package.
const vectorsDir = "../../shared/vectors"

// readBlkFile reads a bzip2 blk-file vector and returns its raw blocks.
func readBlkFile(t testing.TB, name string) [][]byte {
	t.Helper()
	path := filepath.Join(vectorsDir, "mainnet", name)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skip("../shared/vectors not present")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(bzip2.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]byte
	for len(data) >= 8 {
		if BitcoinNet(binary.LittleEndian.Uint32(data)) != MainNet {
			t.Fatalf("bad magic at record %d", len(blocks))
		}
		n := binary.LittleEndian.Uint32(data[4:])
		blocks = append(blocks, data[8:8+n])
		data = data[8+n:]
	}
	return blocks
}

func TestMainnetBlocks(t *testing.T) {
	blocks := readBlkFile(t, "blocks1-256.dat.bz2")
	if len(blocks) < 255 {
		t.Fatalf("got %d blocks, want at least 255", len(blocks))
	}
	genesis, _ := NewHashFromStr("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f")
	prev := genesis
	for i, raw := range blocks {
		var b MsgBlock
		n, err := b.Decode(raw)
		if err != nil {
			t.Fatalf("block %d: %v", i+1, err)
		}
		if n != len(raw) {
			t.Fatalf("block %d: used %d of %d bytes", i+1, n, len(raw))
		}
		if b.Header.PrevBlock != prev {
			t.Fatalf("block %d: prev %v, want %v", i+1, b.Header.PrevBlock, prev)
		}
		root, mutated := b.MerkleRoot()
		if root != b.Header.MerkleRoot || mutated {
			t.Fatalf("block %d: merkle root %v (mutated %v), header says %v", i+1, root, mutated, b.Header.MerkleRoot)
		}
		// The decode-time txids must equal hashing the re-serialized txs.
		for j, tx := range b.Transactions {
			if tx.TxHash() != b.TxHashes()[j] {
				t.Fatalf("block %d tx %d: cached txid differs", i+1, j)
			}
		}
		if !bytes.Equal(b.Bytes(), raw) {
			t.Fatalf("block %d: re-encoding differs", i+1)
		}
		prev = b.BlockHash()
	}
	// Block 1's hash is well known.
	var b1 MsgBlock
	b1.Decode(blocks[0])
	if got := b1.BlockHash().String(); got != "00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048" {
		t.Fatalf("block 1 hash %s", got)
	}
}

func TestMainnetHeaders(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(vectorsDir, "mainnet", "headers-1-11.txt"))
	if os.IsNotExist(err) {
		t.Skip("../shared/vectors not present")
	}
	if err != nil {
		t.Fatal(err)
	}
	blocks := readBlkFile(t, "blocks1-256.dat.bz2")
	lines := bytes.Fields(data)
	for i, line := range lines {
		raw := make([]byte, len(line)/2)
		if _, err := hexDecode(raw, line); err != nil {
			t.Fatal(err)
		}
		var h BlockHeader
		if err := h.Decode(raw); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw[:BlockHeaderSize], blocks[i][:BlockHeaderSize]) {
			t.Fatalf("header %d differs from block file", i+1)
		}
		if !bytes.Equal(h.AppendTo(nil), raw[:BlockHeaderSize]) {
			t.Fatalf("header %d round trip", i+1)
		}
	}
}
