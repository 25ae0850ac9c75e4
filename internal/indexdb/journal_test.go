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

// journalTestDB opens the test index, writes a few tips (which stay in
// the journal: goleveldb does not move it to a table on close) and
// closes it; it returns the journal's path.
func journalTestDB(t *testing.T, dir string) string {
	t.Helper()
	db, _ := openTestDB(t, dir, 1)
	for i := range 20 {
		var b leveldb.Batch
		h := wire.Hash{byte(i)}
		PutTip(&b, &h, int32(i))
		b.Put([]byte{'x', byte(i)}, bytes.Repeat([]byte{byte(i)}, 40))
		if err := db.Commit(&b, "tip"); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	logs, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(testSubdir), "*.log"))
	if len(logs) != 1 {
		t.Fatalf("journals %v", logs)
	}
	if st, err := os.Stat(logs[0]); err != nil || st.Size() < 400 {
		t.Fatalf("journal %v: %v", st, err)
	}
	return logs[0]
}

// perturb writes 200 bytes of '1' at offset 150, as Core's feature_init.py
// damages files.
func perturb(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{'1'}, 200), 150); err != nil {
		t.Fatal(err)
	}
}

// A damaged journal fails Open as LevelDB's corruption, where goleveldb
// alone would drop the damaged block and open.
func TestOpenRefusesDamagedJournal(t *testing.T) {
	dir := t.TempDir()
	perturb(t, journalTestDB(t, dir))
	_, err := Open(dir, testSpec(1), Options{}, noVerify)
	if !errors.Is(err, testKinds.Corrupt) || !strings.Contains(err.Error(), "Corruption: ") {
		t.Fatalf("damaged journal: %v", err)
	}
}

// An empty journal grown by damage (zeros, then data) is corrupt too.
func TestOpenRefusesDamagedEmptyJournal(t *testing.T) {
	dir := t.TempDir()
	db, _ := openTestDB(t, dir, 1)
	db.Close()
	// Opening moved the journal into a table; the new one is empty.
	db, _ = openTestDB(t, dir, 1)
	db.Close()
	logs, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(testSubdir), "*.log"))
	if len(logs) != 1 {
		t.Fatalf("journals %v", logs)
	}
	perturb(t, logs[0])
	if _, err := Open(dir, testSpec(1), Options{}, noVerify); !errors.Is(err, testKinds.Corrupt) {
		t.Fatalf("damaged empty journal: %v", err)
	}
}

// A journal whose last record a crash cut short opens, with the records
// before it.
func TestOpenAcceptsJournalCutShort(t *testing.T) {
	dir := t.TempDir()
	p := journalTestDB(t, dir)
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, st.Size()-5); err != nil {
		t.Fatal(err)
	}
	db, tip := openTestDB(t, dir, 1)
	defer db.Close()
	if tip.Height != 18 {
		t.Fatalf("tip %+v after the last record was cut, want height 18", tip)
	}
}

// A manifest gone from under CURRENT is named in LevelDB's words.
func TestOpenMissingManifest(t *testing.T) {
	dir := t.TempDir()
	db, _ := openTestDB(t, dir, 1)
	db.Close()
	ms, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(testSubdir), "MANIFEST-*"))
	for _, m := range ms {
		if err := os.Remove(m); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Open(dir, testSpec(1), Options{}, noVerify)
	if !errors.Is(err, testKinds.Corrupt) || !strings.Contains(err.Error(), "CURRENT points to a non-existent file") {
		t.Fatalf("missing manifest: %v", err)
	}
}

func TestCheckJournal(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		bad  string
	}{
		{"empty", nil, ""},
		{"header cut", []byte{1, 2, 3}, ""},
		{"zeros to the end", make([]byte, 100), ""},
		{"zeros then data", append(make([]byte, 100), '1'), "zero-length record followed by data"},
		{"unknown type", []byte{0, 0, 0, 0, 1, 0, 9, 'a'}, "unknown record type 9"},
		{"payload cut", []byte{0, 0, 0, 0, 10, 0, 1, 'a'}, ""},
		{"bad checksum", []byte{1, 2, 3, 4, 1, 0, 1, 'a'}, "checksum mismatch"},
		{"past the block", append([]byte{0, 0, 0, 0, 0xff, 0xff, 1}, make([]byte, journalBlockSize)...), "bad record length"},
	} {
		if got := checkJournal(c.data); got != c.bad {
			t.Errorf("%s: %q, want %q", c.name, got, c.bad)
		}
	}
}
