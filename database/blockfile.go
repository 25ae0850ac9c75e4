package database

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// DefaultMaxBlockFileSize is the size at which a new blkNNNNN.dat is started
// (Core's MAX_BLOCKFILE_SIZE, 128 MiB).
const DefaultMaxBlockFileSize = 128 << 20

// maxRecordSize bounds one framed record (block or undo data). Blocks are at
// most 4,000,000 bytes; undo data of a block is smaller than the block's
// worst case of spent outputs, so a larger length field is garbage.
const maxRecordSize = 32 << 20

// recordHeaderSize is the framing before every block or undo record: the
// 4-byte network magic and a uint32 LE length.
const recordHeaderSize = RecordHeaderSize

// BlockLoc is where a block's serialized bytes live: file number, offset of
// the first byte after the 8-byte framing header, and length.
type BlockLoc struct {
	File   uint32
	Offset uint32
	Size   uint32
}

// UndoLoc is where a block's undo record lives in revNNNNN.dat: offset of the
// undo bytes (after the framing) and their length, excluding the trailing
// 32-byte checksum.
type UndoLoc struct {
	File   uint32
	Offset uint32
	Size   uint32
}

// flatFiles appends framed records to numbered files (blk or rev) and reads
// them back. It is not safe for concurrent use; BlockDB serialises access.
type flatFiles struct {
	dir    string
	prefix string // "blk" or "rev"
	magic  [4]byte

	// open holds read/write handles by file number. It is bounded by
	// maxOpenFiles; least useful handles are closed when it overflows.
	open map[uint32]*os.File
	// sizes caches each file's current length (the append position).
	sizes map[uint32]int64
	// unsynced lists files written since the last sync.
	unsynced map[uint32]struct{}
	// freshReads opens the file anew for every read instead of reusing
	// a cached handle, so a file deleted or replaced on disk is noticed
	// (an open handle would go on reading the unlinked file). Undo files
	// are read so: rarely (reorganisations, verification) and where
	// reading stale data would be worse than failing.
	freshReads bool
	// key obfuscates the files' bytes (xorkey.go); zero leaves them plain.
	key [XorKeySize]byte
	// scratch holds an obfuscated record while it is written.
	scratch []byte
}

const maxOpenFiles = 32

func newFlatFiles(dir, prefix string, net wire.BitcoinNet) *flatFiles {
	f := &flatFiles{
		dir:      dir,
		prefix:   prefix,
		open:     make(map[uint32]*os.File),
		sizes:    make(map[uint32]int64),
		unsynced: make(map[uint32]struct{}),
	}
	binary.LittleEndian.PutUint32(f.magic[:], uint32(net))
	return f
}

func (f *flatFiles) path(num uint32) string {
	return filepath.Join(f.dir, fmt.Sprintf("%s%05d.dat", f.prefix, num))
}

// existing lists the numbers of the files present on disk, ascending.
func (f *flatFiles) existing() ([]uint32, error) {
	ents, err := os.ReadDir(f.dir)
	if err != nil {
		return nil, wrapErr(ErrIO, err, "list %s", f.dir)
	}
	var nums []uint32
	for _, e := range ents {
		name := e.Name()
		var n uint32
		if !strings.HasPrefix(name, f.prefix) || len(name) != len(f.prefix)+9 {
			continue
		}
		if _, err := fmt.Sscanf(name[len(f.prefix):], "%05d.dat", &n); err == nil {
			nums = append(nums, n)
		}
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	return nums, nil
}

func (f *flatFiles) handle(num uint32, create bool) (*os.File, error) {
	if h, ok := f.open[num]; ok {
		return h, nil
	}
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	h, err := os.OpenFile(f.path(num), flags, 0o644)
	if err != nil && !create && errors.Is(err, os.ErrPermission) {
		// A finished file the operator made read-only (or immutable)
		// is still readable; only the file being appended to must be
		// writable.
		h, err = os.Open(f.path(num))
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, wrapErr(ErrNotFound, err, "open %s", f.path(num))
		}
		return nil, wrapErr(ErrIO, err, "open %s", f.path(num))
	}
	if len(f.open) >= maxOpenFiles {
		// Close some handle that has no unsynced data; which one does not
		// matter much because reads are mostly of recent files.
		for n, o := range f.open {
			if _, dirty := f.unsynced[n]; !dirty {
				o.Close()
				delete(f.open, n)
				break
			}
		}
	}
	f.open[num] = h
	return h, nil
}

// openForRead opens file num read-only, outside the handle cache.
func (f *flatFiles) openForRead(num uint32) (*os.File, error) {
	h, err := os.Open(f.path(num))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, wrapErr(ErrNotFound, err, "open %s", f.path(num))
		}
		return nil, wrapErr(ErrIO, err, "open %s", f.path(num))
	}
	return h, nil
}

func (f *flatFiles) size(num uint32) (int64, error) {
	if s, ok := f.sizes[num]; ok {
		return s, nil
	}
	st, err := os.Stat(f.path(num))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, wrapErr(ErrIO, err, "stat %s", f.path(num))
	}
	f.sizes[num] = st.Size()
	return st.Size(), nil
}

// appendRecord writes magic, length, payload and an optional trailer to the
// end of file num and returns the payload's offset.
func (f *flatFiles) appendRecord(num uint32, payload, trailer []byte) (uint32, error) {
	h, err := f.handle(num, true)
	if err != nil {
		return 0, err
	}
	pos, err := f.size(num)
	if err != nil {
		return 0, err
	}
	var hdr [recordHeaderSize]byte
	copy(hdr[:4], f.magic[:])
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(payload)))
	if f.key != ([XorKeySize]byte{}) {
		// The caller's bytes stay as they are: the obfuscated record is
		// built apart and written at once.
		rec := append(append(append(f.scratch[:0], hdr[:]...), payload...), trailer...)
		xorAt(&f.key, rec, pos)
		if _, err := h.WriteAt(rec, pos); err != nil {
			return 0, wrapErr(ErrIO, err, "write %s", f.path(num))
		}
		if cap(rec) <= 4<<20 {
			f.scratch = rec[:0]
		}
		f.sizes[num] = pos + int64(len(rec))
		f.unsynced[num] = struct{}{}
		return uint32(pos + recordHeaderSize), nil
	}
	// A kill between these writes leaves a torn record at the end of the
	// file; nothing indexes it, the next append goes after it, and
	// BlockFileReader skips it by resyncing on the magic.
	if _, err := h.WriteAt(hdr[:], pos); err != nil {
		return 0, wrapErr(ErrIO, err, "write %s", f.path(num))
	}
	if _, err := h.WriteAt(payload, pos+recordHeaderSize); err != nil {
		return 0, wrapErr(ErrIO, err, "write %s", f.path(num))
	}
	if len(trailer) > 0 {
		if _, err := h.WriteAt(trailer, pos+recordHeaderSize+int64(len(payload))); err != nil {
			return 0, wrapErr(ErrIO, err, "write %s", f.path(num))
		}
	}
	f.sizes[num] = pos + recordHeaderSize + int64(len(payload)) + int64(len(trailer))
	f.unsynced[num] = struct{}{}
	return uint32(pos + recordHeaderSize), nil
}

// readRecord reads size payload bytes (plus extra trailer bytes) at offset,
// checking that the framing header in front of them matches.
func (f *flatFiles) readRecord(num, offset, size uint32, extra int, dst []byte) ([]byte, error) {
	if offset < recordHeaderSize || size > maxRecordSize {
		return dst, newErr(ErrInvalidArg, "bad record location %s%05d:%d+%d", f.prefix, num, offset, size)
	}
	var h *os.File
	var err error
	if f.freshReads {
		if h, err = f.openForRead(num); err != nil {
			return dst, err
		}
		defer h.Close()
	} else if h, err = f.handle(num, false); err != nil {
		return dst, err
	}
	n := recordHeaderSize + int(size) + extra
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	if _, err := h.ReadAt(dst, int64(offset)-recordHeaderSize); err != nil {
		if errors.Is(err, io.EOF) {
			return dst[:0], wrapErr(ErrCorrupt, err, "record %s%05d:%d+%d past end of file", f.prefix, num, offset, size)
		}
		return dst[:0], wrapErr(ErrIO, err, "read %s", f.path(num))
	}
	xorAt(&f.key, dst, int64(offset)-recordHeaderSize)
	if [4]byte(dst[:4]) != f.magic || binary.LittleEndian.Uint32(dst[4:8]) != size {
		return dst[:0], newErr(ErrCorrupt, "record header mismatch at %s%05d:%d", f.prefix, num, offset)
	}
	return dst, nil
}

// sync fsyncs every file written since the last sync.
func (f *flatFiles) sync() error {
	for num := range f.unsynced {
		if h, ok := f.open[num]; ok {
			if err := h.Sync(); err != nil {
				return wrapErr(ErrIO, err, "fsync %s", f.path(num))
			}
		}
		delete(f.unsynced, num)
	}
	return nil
}

func (f *flatFiles) remove(num uint32) error {
	if h, ok := f.open[num]; ok {
		h.Close()
		delete(f.open, num)
	}
	delete(f.sizes, num)
	delete(f.unsynced, num)
	if err := os.Remove(f.path(num)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return wrapErr(ErrIO, err, "remove %s", f.path(num))
	}
	return nil
}

func (f *flatFiles) close() error {
	err := f.sync()
	for n, h := range f.open {
		if cerr := h.Close(); cerr != nil && err == nil {
			err = wrapErr(ErrIO, cerr, "close %s", f.path(n))
		}
		delete(f.open, n)
	}
	return err
}

// undoChecksum is Core's rev-file checksum: sha256d(prevBlockHash || undo).
func undoChecksum(prev *wire.Hash, undo []byte) [32]byte {
	h := sha256.New()
	h.Write(prev[:])
	h.Write(undo)
	var first [32]byte
	h.Sum(first[:0])
	return sha256.Sum256(first[:])
}
