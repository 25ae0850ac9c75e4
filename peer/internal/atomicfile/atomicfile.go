// Package atomicfile owns crash-safe file replacement for the peer
// packages' state files (banlist.json, peers.json).
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data so that readers and a crash see either the
// old or the new contents: it writes a temporary file in the same
// directory, syncs it, renames it over path and syncs the directory.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	// The rename is durable only once the directory entry is synced.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
