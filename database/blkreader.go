package database

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/btcnode/btcd/wire"
)

// MaxImportBlockSize bounds a block read from a block file during import;
// a larger length field is treated as garbage.
const MaxImportBlockSize = 4_000_000

// minBlockSize is the smallest possible serialized block: an 80-byte
// header, a one-byte tx count and a minimal transaction.
const minBlockSize = 80 + 1 + 60

// BlockFileReader yields the raw blocks of a Core-format block file
// (--loadblock, --reindex). It tolerates what Core leaves behind: the zero
// padding at the end of preallocated files, torn records after a crash, and
// arbitrary garbage, by scanning for the next network magic whenever a
// record does not make sense.
type BlockFileReader struct {
	r     io.Reader
	magic [4]byte
	buf   []byte // window of unread input: buf[pos:end]
	pos   int
	end   int
	base  int64 // stream offset of buf[0]
	eof   bool
	err   error

	skipped int64 // bytes skipped while resyncing
	offset  int64 // stream offset of the last block's data
	last    int   // buf index of the last returned record's magic, -1 if none
}

// readChunk is how much the reader asks for at a time.
const readChunk = 1 << 20

// NewBlockFileReader returns a reader over r for network net.
func NewBlockFileReader(r io.Reader, net wire.BitcoinNet) *BlockFileReader {
	br := &BlockFileReader{r: r, last: -1, buf: make([]byte, 0, 64<<10)}
	binary.LittleEndian.PutUint32(br.magic[:], uint32(net))
	return br
}

// fill makes at least n bytes available in the window unless the input
// ends first; it reports whether n bytes are available.
func (br *BlockFileReader) fill(n int) bool {
	for br.end-br.pos < n && !br.eof {
		if br.pos > 0 {
			// Slide the window to the front before growing the buffer.
			copy(br.buf[:cap(br.buf)], br.buf[br.pos:br.end])
			br.base += int64(br.pos)
			br.end -= br.pos
			br.pos = 0
		}
		if cap(br.buf) < n {
			// n is at most a maximum-size record, so this is bounded.
			nb := make([]byte, br.end, n+readChunk)
			copy(nb, br.buf[:br.end])
			br.buf = nb
		}
		want := br.end + readChunk
		if want > cap(br.buf) {
			want = cap(br.buf)
		}
		br.buf = br.buf[:want]
		m, err := br.r.Read(br.buf[br.end:want])
		br.end += m
		if err != nil {
			if !errors.Is(err, io.EOF) {
				br.err = wrapErr(ErrIO, err, "read block file")
			}
			br.eof = true
		}
	}
	return br.end-br.pos >= n
}

// Next returns the next block's bytes, which stay valid only until the next
// call. At the end of input it returns io.EOF (also when the file ends in a
// torn record or padding); read errors are ErrIO.
func (br *BlockFileReader) Next() ([]byte, error) {
	for {
		if br.err != nil {
			return nil, br.err
		}
		br.last = -1
		if !br.fill(recordHeaderSize) {
			br.skipped += int64(br.end - br.pos)
			br.pos = br.end
			if br.err != nil {
				return nil, br.err
			}
			return nil, io.EOF
		}
		win := br.buf[br.pos:br.end]
		if i := bytes.Index(win, br.magic[:]); i != 0 {
			if i < 0 {
				// Keep the last 3 bytes: they may start a magic that
				// continues in the next read.
				i = len(win) - 3
			}
			br.skipped += int64(i)
			br.pos += i
			continue
		}
		size := binary.LittleEndian.Uint32(win[4:8])
		if size < minBlockSize || size > MaxImportBlockSize {
			br.pos++ // not a record: resync after this magic
			br.skipped++
			continue
		}
		if !br.fill(recordHeaderSize + int(size)) {
			// Torn final record: skip its magic and look further, in
			// case the length field itself was garbage.
			br.pos++
			br.skipped++
			continue
		}
		start := br.pos + recordHeaderSize
		br.last = br.pos
		br.offset = br.base + int64(start)
		br.pos = start + int(size)
		return br.buf[start:br.pos:br.pos], nil
	}
}

// Offset returns the stream offset of the data of the block last returned
// by Next (as a BlockLoc.Offset would record it).
func (br *BlockFileReader) Offset() int64 { return br.offset }

// Skipped returns how many bytes of padding or garbage have been skipped.
func (br *BlockFileReader) Skipped() int64 { return br.skipped }

// Resync tells the reader that the block last returned by Next did not
// decode: its length field was probably garbage (a torn record followed by
// a good one). The next call to Next scans again from one byte past that
// record's magic, as Core's import does when deserialization fails.
func (br *BlockFileReader) Resync() {
	if br.last < 0 {
		return
	}
	br.skipped += int64(br.pos - br.last - 1)
	br.pos = br.last + 1
	br.last = -1
}
