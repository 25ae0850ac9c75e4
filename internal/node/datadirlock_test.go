package node

import (
	"errors"
	"strings"
	"testing"
)

// TestDataDirLock: a second lock on the same directory fails with
// bitcoind's message until the first is released.
func TestDataDirLock(t *testing.T) {
	dir := t.TempDir()
	release, err := lockDataDir(dir, "Bitcoin Core")
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockDataDir(dir, "Bitcoin Core")
	want := "Cannot obtain a lock on directory " + dir + ". Bitcoin Core is probably already running."
	if err == nil || err.Error() != want || !errors.Is(err, errDataDirLocked) {
		t.Fatalf("second lock: %v, want %q", err, want)
	}
	if ErrorText(err) != want || strings.HasPrefix(ErrorText(err), "data directory") {
		t.Fatalf("ErrorText %q", ErrorText(err))
	}
	release()
	again, err := lockDataDir(dir, "Bitcoin Core")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}
