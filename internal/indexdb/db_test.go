package indexdb

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

const testSubdir = "indexes/test/db"

func testSpec(version uint32) Spec {
	return Spec{Subdir: testSubdir, Version: version, Kinds: &testKinds}
}

// openTestDB opens the test index and returns the tip Open verified.
func openTestDB(t *testing.T, dir string, version uint32) (*DB, Tip) {
	t.Helper()
	tip := Tip{Height: -1}
	db, err := Open(dir, testSpec(version), Options{}, func(_ *DB, t Tip) error {
		tip = t
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return db, tip
}

func noVerify(*DB, Tip) error { return nil }

// rawPut writes straight into the index's LevelDB, as damage would.
func rawPut(t *testing.T, dir string, key, val []byte) {
	t.Helper()
	db, err := leveldb.OpenFile(filepath.Join(dir, filepath.FromSlash(testSubdir)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if val == nil {
		err = db.Delete(key, nil)
	} else {
		err = db.Put(key, val, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenVersionAndTip(t *testing.T) {
	dir := t.TempDir()
	db, tip := openTestDB(t, dir, 3)
	if tip.Height != -1 {
		t.Fatalf("fresh index tip %+v", tip)
	}
	v, err := db.Get([]byte{KeyVersion}, nil)
	if err != nil || !bytes.Equal(v, []byte{3, 0, 0, 0}) {
		t.Fatalf("version record %x, %v", v, err)
	}
	var b leveldb.Batch
	hash := wire.Hash{7, 8, 9}
	PutTip(&b, &hash, 41)
	if err := db.Commit(&b, "tip"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, tip = openTestDB(t, dir, 3)
	if tip != (Tip{Hash: hash, Height: 41}) {
		t.Fatalf("reopened tip %+v", tip)
	}
	b.Reset()
	DeleteTip(&b)
	if err := db.Commit(&b, "empty"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, tip = openTestDB(t, dir, 3)
	if tip.Height != -1 {
		t.Fatalf("tip after DeleteTip %+v", tip)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(&b, "after close"); !errors.Is(err, testKinds.Closed) {
		t.Fatalf("commit after close: %v", err)
	}
	if err := db.Close(); !errors.Is(err, testKinds.Closed) {
		t.Fatalf("second close: %v", err)
	}
}

func TestOpenRefusesBadRecords(t *testing.T) {
	hash := wire.Hash{1}
	var tip [TipLen]byte
	copy(tip[:], hash[:])
	negative := tip
	negative[TipLen-1] = 0x80
	for _, tc := range []struct {
		name     string
		key, val []byte
		kind     ErrorKind
	}{
		{"other version", []byte{KeyVersion}, []byte{2, 0, 0, 0}, testKinds.UnknownVersion},
		{"short version", []byte{KeyVersion}, []byte{1, 0, 0}, testKinds.Corrupt},
		{"no version", []byte{KeyVersion}, nil, testKinds.Corrupt},
		{"short tip", []byte{KeyTip}, tip[:TipLen-1], testKinds.Corrupt},
		{"negative tip height", []byte{KeyTip}, negative[:], testKinds.Corrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db, _ := openTestDB(t, dir, 1)
			if err := db.Put([]byte{'x'}, []byte{1}, nil); err != nil {
				t.Fatal(err)
			}
			db.Close()
			rawPut(t, dir, tc.key, tc.val)
			_, err := Open(dir, testSpec(1), Options{}, noVerify)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), testKinds.Rebuild) {
				t.Fatalf("open: %v, want %v with the remedy", err, tc.kind)
			}
		})
	}
}

// TestOpenCorruptFiles checks that LevelDB's own corruption report is the
// Corrupt kind with the index's wording.
func TestOpenCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	db, _ := openTestDB(t, dir, 1)
	db.Close()
	path := filepath.Join(dir, filepath.FromSlash(testSubdir))
	manifests, err := filepath.Glob(filepath.Join(path, "MANIFEST-*"))
	if err != nil || len(manifests) == 0 {
		t.Fatalf("no manifest: %v", err)
	}
	for _, m := range manifests {
		if err := os.WriteFile(m, bytes.Repeat([]byte{0xa5}, 100), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Open(dir, testSpec(1), Options{}, noVerify)
	if !errors.Is(err, testKinds.Corrupt) || !strings.Contains(err.Error(), "Fatal LevelDB error: Corruption: open ") {
		t.Fatalf("open: %v", err)
	}
}

// TestOpenVerifyClosesOnError checks that a tip the index rejects fails
// Open and leaves the database closed (so it can be opened again), and
// that verify is not asked about an empty index.
func TestOpenVerifyClosesOnError(t *testing.T) {
	dir := t.TempDir()
	bad := errors.New("tip is not ours")
	called := false
	db, err := Open(dir, testSpec(1), Options{}, func(*DB, Tip) error { called = true; return bad })
	if err != nil || called {
		t.Fatalf("empty index: %v, verify called %v", err, called)
	}
	var b leveldb.Batch
	PutTip(&b, &wire.Hash{5}, 0)
	if err := db.Commit(&b, "tip"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(dir, testSpec(1), Options{}, func(*DB, Tip) error { return bad }); !errors.Is(err, bad) {
		t.Fatalf("rejected tip: %v", err)
	}
	db, tip := openTestDB(t, dir, 1) // LevelDB's lock was released
	defer db.Close()
	if tip != (Tip{Hash: wire.Hash{5}, Height: 0}) {
		t.Fatalf("tip %+v", tip)
	}
}

func TestKeys(t *testing.T) {
	lo, hi := HeightKey('h', 255), HeightKey('h', 256)
	if lo[0] != 'h' || bytes.Compare(lo[:], hi[:]) >= 0 {
		t.Fatalf("height keys %x %x do not sort by height", lo, hi)
	}
	h := wire.Hash{0xaa, 0xbb}
	k := HashKey('H', &h)
	if k[0] != 'H' || !bytes.Equal(k[1:], h[:]) {
		t.Fatalf("hash key %x", k)
	}
}

// FuzzDecodeTip checks the tip decoder on any value: no panic, failures
// are Corrupt, and what decodes re-encodes to the same bytes.
func FuzzDecodeTip(f *testing.F) {
	var tip [TipLen]byte
	f.Add(tip[:])
	tip[0], tip[TipLen-4] = 1, 9
	f.Add(tip[:])
	tip[TipLen-1] = 0xff
	f.Add(tip[:])
	f.Add(tip[:TipLen-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, v []byte) {
		got, err := decodeTip(v, &testKinds)
		if err != nil {
			if !errors.Is(err, testKinds.Corrupt) {
				t.Fatalf("%x: %v", v, err)
			}
			return
		}
		var b leveldb.Batch
		PutTip(&b, &got.Hash, got.Height)
		var enc []byte
		if err := b.Replay(replayFunc(func(_, val []byte) { enc = append([]byte(nil), val...) })); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, v) {
			t.Fatalf("%x re-encodes to %x", v, enc)
		}
	})
}

type replayFunc func(key, val []byte)

func (f replayFunc) Put(key, val []byte) { f(key, val) }
func (f replayFunc) Delete([]byte)       {}
