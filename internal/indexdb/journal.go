package indexdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/syndtr/goleveldb/leveldb/util"
)

// goleveldb replays a damaged journal (*.log) by dropping the damaged
// blocks without a word unless opened with StrictJournal, and with it also
// refuses the journal a crash leaves: a last record cut short at the end
// of the file. Neither is what LevelDB itself does with paranoid checks (as
// bitcoind opens its databases): damage is corruption, a record cut short
// by the end of the file is a write the crash interrupted. checkJournals
// applies that rule before goleveldb opens the database, so a damaged
// journal fails Open instead of silently losing index entries, and a
// crash does not.

// Journal framing (LevelDB's log format): 32 KiB blocks of chunks, each
// a 7-byte header (masked CRC-32C of type and payload, payload length,
// type) and its payload; a block's last 6 bytes or less are zero padding.
const (
	journalBlockSize  = 32 << 10
	journalHeaderSize = 7
	journalLastType   = 4 // full, first, middle, last = 1..4
)

// corruptionError is damage found in a database's files, worded as LevelDB
// words it (Open puts the index's LevelCorruption before it).
type corruptionError struct {
	reason string
	file   string
}

func (e *corruptionError) Error() string {
	if e.file == "" {
		return e.reason
	}
	return e.reason + " in " + e.file
}

// checkJournals checks every journal of the LevelDB in dir, one block
// at a time, so a journal of any size takes one block of memory.
func checkJournals(dir string) error {
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return err
	}
	sort.Strings(logs)
	buf := make([]byte, journalBlockSize)
	for _, p := range logs {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		reason, err := checkJournalReader(f, buf)
		f.Close()
		if err != nil {
			return err
		}
		if reason != "" {
			return &corruptionError{reason: reason, file: p}
		}
	}
	return nil
}

// checkJournal is checkJournalReader over bytes in memory.
func checkJournal(data []byte) string {
	reason, _ := checkJournalReader(bytes.NewReader(data), make([]byte, journalBlockSize))
	return reason
}

// checkJournalReader returns why the journal read from r is not one a
// crash could have left, or "" when it is one; buf holds one block.
func checkJournalReader(r io.Reader, buf []byte) (string, error) {
	zeros := false // a zero chunk was found: all that follows must be zero
	for {
		n, err := io.ReadFull(r, buf)
		block := buf[:n]
		last := err != nil
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return "", err
		}
		if zeros {
			if len(bytes.TrimLeft(block, "\x00")) != 0 {
				return "zero-length record followed by data", nil
			}
		} else if reason, z := checkJournalBlock(block, last); reason != "" {
			return reason, nil
		} else {
			zeros = z
		}
		if last {
			return "", nil
		}
	}
}

// checkJournalBlock checks one block (the file's last, possibly short,
// when last) and reports whether it ends in the zeros a crash leaves.
func checkJournalBlock(block []byte, last bool) (reason string, zeroTail bool) {
	off := 0
	for off < len(block) {
		if journalBlockSize-off < journalHeaderSize {
			return "", false // the block's padding
		}
		if off+journalHeaderSize > len(block) {
			return "", false // a header cut short by the end of the file
		}
		h := block[off : off+journalHeaderSize]
		sum := binary.LittleEndian.Uint32(h[0:4])
		n := int(binary.LittleEndian.Uint16(h[4:6]))
		typ := h[6]
		if sum == 0 && n == 0 && typ == 0 {
			// goleveldb writes no zero chunks; zeros to the end of the
			// file are space the file system gave but the crash left
			// unwritten, anything after them is damage.
			if len(bytes.TrimLeft(block[off:], "\x00")) != 0 {
				return "zero-length record followed by data", false
			}
			return "", true
		}
		if typ == 0 || typ > journalLastType {
			return fmt.Sprintf("unknown record type %d", typ), false
		}
		end := off + journalHeaderSize + n
		if end > journalBlockSize {
			return "bad record length", false
		}
		if end > len(block) {
			if last {
				return "", false // the last record, cut short by the end of the file
			}
			return "bad record length", false
		}
		if util.NewCRC(block[off+6:end]).Value() != sum {
			return "checksum mismatch", false
		}
		off = end
	}
	return "", false
}

// missingCurrentTarget reports whether the CURRENT file of the LevelDB in
// dir names a manifest that does not exist, which goleveldb reports only
// as a missing or corrupted entry point.
func missingCurrentTarget(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
	if err != nil {
		return false
	}
	name, ok := strings.CutSuffix(string(b), "\n")
	if !ok || !strings.HasPrefix(name, "MANIFEST-") || strings.ContainsAny(name, `/\`) {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, name))
	return os.IsNotExist(err)
}
