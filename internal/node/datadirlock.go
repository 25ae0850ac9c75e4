package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFileName is the lock in the network's data directory, as bitcoind's.
const lockFileName = ".lock"

// errDataDirLocked means another process holds the data directory.
var errDataDirLocked = errors.New("data directory locked")

// lockError is a held lock, reported with bitcoind's message.
type lockError struct{ msg string }

func (e *lockError) Error() string { return e.msg }
func (e *lockError) Unwrap() error { return errDataDirLocked }

// lockDataDir takes an exclusive advisory lock on dir/.lock, so a second
// node on the same data directory stops at once with a clear message
// instead of failing later inside LevelDB. The lock ends with the
// process; release drops it earlier.
func lockDataDir(dir, program string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("Cannot write to directory '%s'; check permissions.", dir)
	}
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("Cannot write to directory '%s'; check permissions.", dir)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, &lockError{fmt.Sprintf("Cannot obtain a lock on directory %s. %s is probably already running.", dir, program)}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
