package chaingen

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/btcnode/btcd/wire"
)

// DefaultMaxFileSize is the size at which a block file is closed, as
// Core's MAX_BLOCKFILE_SIZE (128 MiB).
const DefaultMaxFileSize = 128 << 20

// FileWriter writes blocks in Bitcoin Core's blk?????.dat framing: the
// network magic as a little-endian uint32, the block's length as a
// little-endian uint32, then the block. A file is closed before a record
// would take it past the size limit.
type FileWriter struct {
	dir   string
	max   int64
	magic [4]byte
	f     *os.File
	w     *bufio.Writer
	n     int64
	// Files lists the paths written, in order.
	Files []string
	// Bytes counts every byte written, framing included.
	Bytes int64
}

// NewFileWriter prepares to write block files into dir, which is created
// if needed. It refuses a directory that already holds blk00000.dat, so
// that stale files of an earlier, longer run are never mixed in.
func NewFileWriter(dir string, maxFileSize int64, net wire.BitcoinNet) (*FileWriter, error) {
	if maxFileSize <= 0 {
		maxFileSize = DefaultMaxFileSize
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, wrapErr(ErrIO, err, "create %s", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "blk00000.dat")); err == nil {
		return nil, errorf(ErrConfig, "%s already holds block files", dir)
	}
	fw := &FileWriter{dir: dir, max: maxFileSize}
	binary.LittleEndian.PutUint32(fw.magic[:], uint32(net))
	return fw, nil
}

func (fw *FileWriter) next() error {
	if err := fw.closeFile(); err != nil {
		return err
	}
	path := filepath.Join(fw.dir, fmt.Sprintf("blk%05d.dat", len(fw.Files)))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return wrapErr(ErrIO, err, "create block file")
	}
	fw.f, fw.n = f, 0
	fw.w = bufio.NewWriterSize(f, 1<<20)
	fw.Files = append(fw.Files, path)
	return nil
}

// WriteBlock appends one serialized block.
func (fw *FileWriter) WriteBlock(raw []byte) error {
	rec := int64(8 + len(raw))
	if fw.f == nil || (fw.n > 0 && fw.n+rec > fw.max) {
		if err := fw.next(); err != nil {
			return err
		}
	}
	var hdr [8]byte
	copy(hdr[:4], fw.magic[:])
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(raw)))
	if _, err := fw.w.Write(hdr[:]); err != nil {
		return wrapErr(ErrIO, err, "write block file")
	}
	if _, err := fw.w.Write(raw); err != nil {
		return wrapErr(ErrIO, err, "write block file")
	}
	fw.n += rec
	fw.Bytes += rec
	return nil
}

func (fw *FileWriter) closeFile() error {
	if fw.f == nil {
		return nil
	}
	err := fw.w.Flush()
	if err2 := fw.f.Close(); err == nil {
		err = err2
	}
	fw.f, fw.w = nil, nil
	if err != nil {
		return wrapErr(ErrIO, err, "close block file")
	}
	return nil
}

// Close flushes and closes the current file.
func (fw *FileWriter) Close() error { return fw.closeFile() }
