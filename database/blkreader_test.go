package database

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func frame(net wire.BitcoinNet, b []byte) []byte {
	out := binary.LittleEndian.AppendUint32(nil, uint32(net))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(b)))
	return append(out, b...)
}

// readAll reads every block; valid (if non-nil) plays the block decoder
// and makes the reader resync on blocks it rejects.
func readAll(t testing.TB, r io.Reader, valid func([]byte) bool) ([][]byte, *BlockFileReader) {
	br := NewBlockFileReader(r, wire.MainNet)
	var out [][]byte
	for range 100000 {
		b, err := br.Next()
		if errors.Is(err, io.EOF) {
			return out, br
		}
		if err != nil {
			t.Fatal(err)
		}
		if valid != nil && !valid(b) {
			br.Resync()
			continue
		}
		out = append(out, bytes.Clone(b))
	}
	t.Fatal("reader did not terminate")
	return nil, nil
}

func TestBlockFileReaderPaddingAndGarbage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var blocks [][]byte
	var file []byte
	var offsets []int64
	for i := range 30 {
		b := fakeBlock(r, 200+r.IntN(5000))
		blocks = append(blocks, b)
		switch i % 5 {
		case 1: // random garbage between records
			file = append(file, fakeBlock(r, r.IntN(100))...)
		case 2: // a magic with an absurd length
			file = append(file, 0xf9, 0xbe, 0xb4, 0xd9, 0xff, 0xff, 0xff, 0x7f)
		case 3: // a torn record: magic, length, part of the data
			file = append(file, frame(wire.MainNet, b[:150])[:100]...)
		}
		offsets = append(offsets, int64(len(file)+8))
		file = append(file, frame(wire.MainNet, b)...)
	}
	// Preallocated tail, then a torn last record.
	file = append(file, make([]byte, 3<<20)...)
	file = append(file, frame(wire.MainNet, blocks[0])[:500]...)

	// Read in odd-sized chunks to exercise window refills.
	known := make(map[string]bool)
	for _, b := range blocks {
		known[string(b)] = true
	}
	valid := func(b []byte) bool { return known[string(b)] }
	got, br := readAll(t, io.LimitReader(&chunky{b: file}, int64(len(file))), valid)
	if len(got) != len(blocks) {
		t.Fatalf("got %d blocks, want %d", len(got), len(blocks))
	}
	for i := range blocks {
		if !bytes.Equal(got[i], blocks[i]) {
			t.Fatalf("block %d differs", i)
		}
	}
	if br.Skipped() < 3<<20 {
		t.Errorf("skipped %d", br.Skipped())
	}
	// Offsets of data as recorded in a BlockLoc.
	br = NewBlockFileReader(bytes.NewReader(file), wire.MainNet)
	for i := range blocks {
		b, err := br.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !valid(b) {
			br.Resync()
			if b, err = br.Next(); err != nil || !valid(b) {
				t.Fatalf("block %d not found after resync: %v", i, err)
			}
		}
		if br.Offset() != offsets[i] {
			t.Fatalf("block %d offset %d want %d", i, br.Offset(), offsets[i])
		}
	}
	// Another network's magic yields nothing.
	br = NewBlockFileReader(bytes.NewReader(file), wire.TestNet3)
	if _, err := br.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("testnet reader: %v", err)
	}
}

// chunky returns at most 777 bytes per Read.
type chunky struct{ b []byte }

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), 777, len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

func TestBlockFileReaderMainnet(t *testing.T) {
	f, err := os.Open("../../shared/vectors/mainnet/blocks1-256.dat.bz2")
	if err != nil {
		t.Skip("../shared/vectors not present")
	}
	defer f.Close()
	blocks, _ := readAll(t, bzip2.NewReader(f), nil)
	if len(blocks) != 255 { // the file holds blocks 1..255
		t.Fatalf("read %d blocks, want 255", len(blocks))
	}
	// Block 1's coinbase pays the key whose compressed coin btcd documents.
	script, _ := hex.DecodeString(block1Script)
	if !bytes.Contains(blocks[0], script) {
		t.Fatal("block 1 does not contain the documented coinbase script")
	}
	// Headers chain: each block's prev hash is the previous block's hash.
	for i := 1; i < len(blocks); i++ {
		prev := wire.DoubleHashH(blocks[i-1][:80])
		if !bytes.Equal(blocks[i][4:36], prev[:]) {
			t.Fatalf("block %d does not link to block %d", i+1, i)
		}
	}
}
