package logrotate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRotateKeepsNewestFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "btcd.log")
	w, err := New(path, 100, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Each 40-byte line fits twice in 100 bytes, so every third line opens a
	// new file: lines 0-1, 2-3, 4-5, 6-7, 8-9 end up in five files, of
	// which the current one plus three old ones survive.
	for i := 0; i < 10; i++ {
		line := fmt.Sprintf("%-39d\n", i)
		if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("write %d: n=%d err=%v", i, n, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		path:        "8 9",
		path + ".1": "6 7",
		path + ".2": "4 5",
		path + ".3": "2 3",
	}
	for p, lines := range want {
		got := readFile(t, p)
		var a, b int
		if _, err := fmt.Sscanf(string(got), "%d\n%d\n", &a, &b); err != nil {
			t.Fatalf("%s: %q: %v", p, got, err)
		}
		if fmt.Sprintf("%d %d", a, b) != lines {
			t.Errorf("%s holds %d %d, want %s", p, a, b, lines)
		}
		if len(got) > 100 {
			t.Errorf("%s is %d bytes, over the limit", p, len(got))
		}
	}
	if _, err := os.Stat(path + ".4"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s.4 should not exist: %v", path, err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("write after close: %v, want ErrClosed", err)
	}
}

func TestAppendsToExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.log")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := New(path, 1<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("new\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := readFile(t, path); string(got) != "old\nnew\n" {
		t.Fatalf("got %q", got)
	}
}

func TestOversizedWriteStaysWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.log")
	w, err := New(path, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("y"), 50)
	w.Write([]byte("a\n"))
	w.Write(big)
	w.Close()
	if got := readFile(t, path); !bytes.Equal(got, big) {
		t.Fatalf("current file %q", got)
	}
	if got := readFile(t, path+".1"); string(got) != "a\n" {
		t.Fatalf("rotated file %q", got)
	}
}

func TestZeroOldFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.log")
	w, err := New(path, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("abc\n"))
	w.Write([]byte("def\n"))
	w.Close()
	if got := readFile(t, path); string(got) != "def\n" {
		t.Fatalf("got %q", got)
	}
	if _, err := os.Stat(path + ".1"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("unexpected rotated file: %v", err)
	}
}

func TestConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.log")
	w, err := New(path, 1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				w.Write([]byte("0123456789\n"))
			}
		}()
	}
	wg.Wait()
	w.Close()
	for _, p := range []string{path, path + ".1", path + ".2"} {
		b := readFile(t, p)
		if len(b) == 0 || len(b) > 1000 || len(b)%11 != 0 {
			t.Errorf("%s: %d bytes", p, len(b))
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	w, err := New(filepath.Join(b.TempDir(), "a.log"), 1<<20, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	line := []byte("2026-01-01 00:00:00.000 [INF] SYNC: Processed 1 block in the last 10s\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for i := 0; i < b.N; i++ {
		w.Write(line)
	}
}
