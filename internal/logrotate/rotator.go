package logrotate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Default limits used by the daemon: large enough to hold a few hours of
// debug logging, small enough that the whole set stays around 40 MiB.
const (
	DefaultMaxSize  = 10 << 20
	DefaultMaxFiles = 3
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("logrotate: writer closed")

// Writer is an io.WriteCloser that rotates its file by size. It is safe for
// concurrent use.
type Writer struct {
	mu       sync.Mutex
	path     string
	maxSize  int64
	maxFiles int
	f        *os.File
	size     int64
	closed   bool
}

// New opens (appending to) the file at path, creating its directory if
// needed. maxSize is the size in bytes after which the file is rotated;
// maxFiles is how many rotated files (path.1 .. path.N) are kept. A
// non-positive maxSize or negative maxFiles is replaced by the default.
func New(path string, maxSize int64, maxFiles int) (*Writer, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if maxFiles < 0 {
		maxFiles = DefaultMaxFiles
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("logrotate: %w", err)
	}
	w := &Writer{path: path, maxSize: maxSize, maxFiles: maxFiles}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Writer) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("logrotate: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("logrotate: %w", err)
	}
	w.f = f
	w.size = st.Size()
	return nil
}

// Write appends p to the current file, rotating first when p would push a
// non-empty file past the size limit. A single write is never split across
// files, so a log line always stays whole.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, ErrClosed
	}
	if w.f == nil {
		// A previous rotation failed to reopen the file; try again so a
		// transient error (e.g. disk briefly full) does not end logging.
		if err := w.open(); err != nil {
			return 0, err
		}
	}
	if w.size > 0 && w.size+int64(len(p)) > w.maxSize {
		if err := w.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	return n, err
}

// rotate shifts path.(i) to path.(i+1), drops the oldest, moves the current
// file to path.1 and starts a fresh one. Called with mu held.
func (w *Writer) rotate() error {
	if err := w.f.Close(); err != nil {
		w.f = nil
		return fmt.Errorf("logrotate: %w", err)
	}
	w.f = nil
	if w.maxFiles == 0 {
		if err := os.Remove(w.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("logrotate: %w", err)
		}
		return w.open()
	}
	// Removing the oldest first keeps the rename chain below from failing on
	// platforms where rename does not replace an existing file.
	oldest := w.name(w.maxFiles)
	if err := os.Remove(oldest); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("logrotate: %w", err)
	}
	for i := w.maxFiles - 1; i >= 1; i-- {
		err := os.Rename(w.name(i), w.name(i+1))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("logrotate: %w", err)
		}
	}
	if err := os.Rename(w.path, w.name(1)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("logrotate: %w", err)
	}
	return w.open()
}

func (w *Writer) name(i int) string {
	return fmt.Sprintf("%s.%d", w.path, i)
}

// Sync flushes the current file to stable storage.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	return w.f.Sync()
}

// Close closes the current file. Later writes return ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
