package indexdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
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

// checkJournals checks every journal of the LevelDB in dir.
func checkJournals(dir string) error {
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return err
	}
	sort.Strings(logs)
	for _, p := range logs {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if reason := checkJournal(data); reason != "" {
			return &corruptionError{reason: reason, file: p}
		}
	}
	return nil
}

// checkJournal returns why data is not a journal a crash could have left,
// or "" when it is one.
func checkJournal(data []byte) string {
	off := 0
	for off < len(data) {
		blockEnd := off - off%journalBlockSize + journalBlockSize
		if blockEnd-off < journalHeaderSize {
			// The block's padding, or a header the end of the file cut.
			off = blockEnd
			continue
		}
		if off+journalHeaderSize > len(data) {
			return "" // a header cut short by the end of the file
		}
		h := data[off : off+journalHeaderSize]
		sum := binary.LittleEndian.Uint32(h[0:4])
		n := int(binary.LittleEndian.Uint16(h[4:6]))
		typ := h[6]
		if sum == 0 && n == 0 && typ == 0 {
			// goleveldb writes no zero chunks; zeros to the end of the
			// file are space the file system gave but the crash left
			// unwritten, anything after them is damage.
			if len(bytes.TrimLeft(data[off:], "\x00")) == 0 {
				return ""
			}
			return "zero-length record followed by data"
		}
		if typ == 0 || typ > journalLastType {
			return fmt.Sprintf("unknown record type %d", typ)
		}
		end := off + journalHeaderSize + n
		if end > blockEnd {
			return "bad record length"
		}
		if end > len(data) {
			return "" // the last record, cut short by the end of the file
		}
		if util.NewCRC(data[off+6:end]).Value() != sum {
			return "checksum mismatch"
		}
		off = end
	}
	return ""
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
