package database

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestXorBlockFiles: with XorFiles a fresh block directory gets a random
// key in xor.dat; blocks and undo records read back unchanged while the
// files hold obfuscated bytes; turning obfuscation off with the key stored
// is refused; files restored by hand and the key removed open plain (the
// stored key is then zero).
func TestXorBlockFiles(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.MainNet, BlockDBOptions{XorFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	key := db.XorKey()
	if key == ([XorKeySize]byte{}) {
		t.Fatal("fresh directory got a zero key")
	}
	blk := fakeBlock(rand.New(rand.NewPCG(7, 8)), 1000)
	loc, err := db.WriteBlock(blk, 1)
	if err != nil {
		t.Fatal(err)
	}
	prev := wire.Hash{3}
	undo := bytes.Repeat([]byte{0xab}, 100)
	uloc, err := db.WriteUndo(loc.File, undo, &prev)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	check := func(db *BlockDB) {
		t.Helper()
		got, err := db.ReadBlock(loc, nil)
		if err != nil || !bytes.Equal(got, blk) {
			t.Fatalf("block read back: %v", err)
		}
		u, err := db.ReadUndo(uloc, &prev, nil)
		if err != nil || !bytes.Equal(u, undo) {
			t.Fatalf("undo read back: %v", err)
		}
	}
	check(db)
	blkPath := db.BlockFilePath(loc.File)
	revPath := db.rev.path(loc.File)
	db.Close()
	raw, _ := os.ReadFile(blkPath)
	if bytes.Contains(raw, blk[:64]) {
		t.Fatal("block stored in the clear")
	}

	if _, err := OpenBlockDB(dir, wire.MainNet, BlockDBOptions{}); !errors.Is(err, ErrXorKeyStored) {
		t.Fatalf("obfuscation off with a stored key: %v", err)
	}
	// Restore the files by hand, as an operator could, and drop the key.
	for _, p := range []string{blkPath, revPath} {
		b, _ := os.ReadFile(p)
		xorAt(&key, b, 0)
		os.WriteFile(p, b, 0o644)
	}
	os.Remove(filepath.Join(filepath.Dir(blkPath), XorKeyFile))
	db, err = OpenBlockDB(dir, wire.MainNet, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.XorKey() != ([XorKeySize]byte{}) {
		t.Fatal("plain files got a key")
	}
	check(db)
	if k, err := ReadXorKey(filepath.Dir(blkPath)); err != nil || k != ([XorKeySize]byte{}) {
		t.Fatalf("recreated key %x, %v", k, err)
	}
}

// TestXorAtOffsets: obfuscating a file piecewise at any offsets gives the
// same bytes as at once, and XorReader restores them.
func TestXorAtOffsets(t *testing.T) {
	key := [XorKeySize]byte{1, 2, 3, 4, 5, 6, 7, 8}
	r := rand.New(rand.NewPCG(9, 10))
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	whole := bytes.Clone(data)
	xorAt(&key, whole, 0)
	pieces := bytes.Clone(data)
	for off := 0; off < len(pieces); {
		n := min(1+r.IntN(23), len(pieces)-off)
		xorAt(&key, pieces[off:off+n], int64(off))
		off += n
	}
	if !bytes.Equal(whole, pieces) {
		t.Fatal("piecewise obfuscation differs")
	}
	back := make([]byte, len(data))
	xr := &XorReader{R: bytes.NewReader(whole), Key: key}
	for off := 0; off < len(back); {
		n, err := xr.Read(back[off:min(off+17, len(back))])
		if err != nil {
			t.Fatal(err)
		}
		off += n
	}
	if !bytes.Equal(back, data) {
		t.Fatal("XorReader did not restore the data")
	}
}
