package database

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// countTxRecords counts the 't' records of the LevelDB at path.
func countTxRecords(t *testing.T, path string) int {
	t.Helper()
	ldb, err := leveldb.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ldb.Close()
	it := ldb.NewIterator(util.BytesPrefix([]byte{prefixTxIndex}), nil)
	defer it.Release()
	n := 0
	for it.Next() {
		n++
	}
	return n
}

// The txindex is a LevelDB of its own at indexes/txindex: its entries
// survive a restart there and never reach the block index.
func TestTxIndexOwnDatabase(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tx := wire.Hash{7}
	if _, err := db.TxLoc(&tx); !errors.Is(err, ErrClosed) {
		t.Fatalf("lookup before OpenTxIndex: %v", err)
	}
	if err := db.OpenTxIndex(); err != nil {
		t.Fatal(err)
	}
	tl := TxLoc{Block: BlockLoc{File: 1, Offset: 8, Size: 1000}, TxOffset: 81, TxSize: 200}
	db.PutTxLoc(&tx, &tl)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "indexes", "txindex", "CURRENT")); err != nil {
		t.Fatalf("no LevelDB at indexes/txindex: %v", err)
	}
	if n := countTxRecords(t, filepath.Join(dir, "indexes", "txindex")); n != 1 {
		t.Fatalf("%d records in indexes/txindex, want 1", n)
	}
	if n := countTxRecords(t, filepath.Join(dir, "blocks", "index")); n != 0 {
		t.Fatalf("%d txindex records in the block index", n)
	}
	db, err = OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.OpenTxIndex(); err != nil {
		t.Fatal(err)
	}
	if got, err := db.TxLoc(&tx); err != nil || got != tl {
		t.Fatalf("after restart %+v %v", got, err)
	}
}

// Records an earlier version kept in the block index move to the
// txindex's own database at its first open.
func TestTxIndexMovesFormerRecords(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ldb, err := leveldb.OpenFile(filepath.Join(dir, "blocks", "index"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	want := map[wire.Hash]TxLoc{}
	const n = txIndexMoveBatch + 17 // more than one batch
	var b leveldb.Batch
	for range n {
		var id wire.Hash
		for i := range id {
			id[i] = byte(r.Uint32())
		}
		l := TxLoc{Block: BlockLoc{File: r.Uint32N(9), Offset: r.Uint32N(1 << 20), Size: 1000}, TxOffset: 100, TxSize: 50}
		want[id] = l
		key := txIndexKey(&id)
		b.Put(key[:], appendTxLoc(nil, &l))
	}
	if err := ldb.Write(&b, nil); err != nil {
		t.Fatal(err)
	}
	ldb.Close()

	db, err = OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.OpenTxIndex(); err != nil {
		t.Fatal(err)
	}
	for id, l := range want {
		if got, err := db.TxLoc(&id); err != nil || got != l {
			t.Fatalf("moved %v: %+v %v, want %+v", id, got, err, l)
		}
	}
	db.Close()
	if n := countTxRecords(t, filepath.Join(dir, "blocks", "index")); n != 0 {
		t.Fatalf("%d txindex records left in the block index", n)
	}
	if got := countTxRecords(t, filepath.Join(dir, "indexes", "txindex")); got != n {
		t.Fatalf("%d records in indexes/txindex, want %d", got, n)
	}
}

// A txindex whose manifest is gone fails to open in Core's words, as its
// own error (not the block index's --reindex remedy).
func TestTxIndexOpenCorrupt(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.OpenTxIndex(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ms, _ := filepath.Glob(filepath.Join(dir, "indexes", "txindex", "MANIFEST-*"))
	for _, m := range ms {
		os.Remove(m)
	}
	db, err = OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.OpenTxIndex()
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "Fatal LevelDB error: Corruption: CURRENT points to a non-existent file") ||
		strings.Contains(err.Error(), "--reindex") {
		t.Fatalf("missing manifest: %v", err)
	}
}

// --reindex rebuilds the txindex with the block index.
func TestResetForReindexRemovesTxIndex(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.OpenTxIndex(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := ResetForReindex(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "indexes", "txindex")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("indexes/txindex after reset: %v", err)
	}
}

// A block file gone from disk is reported; one that was pruned is not.
func TestMissingBlockFiles(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.RegTest, BlockDBOptions{MaxFileSize: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(3, 4))
	for h := range 8 {
		if _, err := db.WriteBlock(fakeBlock(r, 3000), int32(h)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if m := db.MissingBlockFiles(); len(m) != 0 {
		t.Fatalf("missing %v with every file present", m)
	}
	first, _ := db.FileInfo(0)
	if _, err := db.PruneFiles(first.MaxHeight); err != nil {
		t.Fatal(err)
	}
	blk := filepath.Join(dir, "blocks", "blk00001.dat")
	if err := os.Rename(blk, blk+".moved"); err != nil {
		t.Fatal(err)
	}
	if m := db.MissingBlockFiles(); len(m) != 1 || m[0] != blk {
		t.Fatalf("missing %v, want [%s]", m, blk)
	}
}

// OpenFailed tells a LevelDB that would not open from records that would
// not read.
func TestOpenFailed(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ldb, err := leveldb.OpenFile(filepath.Join(dir, "blocks", "index"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ldb.Put([]byte{keyVersion}, []byte{1}, nil)
	ldb.Close()
	_, err = OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if !errors.Is(err, ErrCorrupt) || OpenFailed(err) {
		t.Fatalf("bad version record: %v (OpenFailed %v)", err, OpenFailed(err))
	}
	ms, _ := filepath.Glob(filepath.Join(dir, "blocks", "index", "MANIFEST-*"))
	for _, m := range ms {
		os.Remove(m)
	}
	_, err = OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if !errors.Is(err, ErrCorrupt) || !OpenFailed(err) {
		t.Fatalf("missing manifest: %v (OpenFailed %v)", err, OpenFailed(err))
	}
}
