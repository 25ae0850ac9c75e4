package indexdb

import (
	"bytes"
	"testing"

	"github.com/syndtr/goleveldb/leveldb/journal"
)

// FuzzCheckJournal feeds arbitrary bytes to the journal check (no panic,
// whatever the file holds) and checks it against goleveldb's own journal
// writer: a journal it writes, and every prefix of one (what a crash
// leaves), passes.
func FuzzCheckJournal(f *testing.F) {
	f.Add([]byte("record"), uint16(3), uint16(0))
	f.Add([]byte{0, 0, 0, 0, 1, 0, 9, 'a'}, uint16(0), uint16(5))
	f.Fuzz(checkJournalAgainstWriter)
}

// checkJournalAgainstWriter is FuzzCheckJournal's body.
func checkJournalAgainstWriter(t *testing.T, data []byte, split, cut uint16) {
	{
		checkJournal(data)
		var buf bytes.Buffer
		w := journal.NewWriter(&buf)
		s := 0
		if len(data) > 0 {
			s = int(split) % (len(data) + 1)
		}
		for _, rec := range [][]byte{data[:s], data[s:]} {
			rw, err := w.Next()
			if err != nil {
				t.Fatal(err)
			}
			rw.Write(rec)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		j := buf.Bytes()
		if got := checkJournal(j); got != "" {
			t.Fatalf("goleveldb's journal refused: %s", got)
		}
		if c := int(cut) % (len(j) + 1); checkJournal(j[:c]) != "" {
			t.Fatalf("the journal cut at %d of %d refused: %s", c, len(j), checkJournal(j[:c]))
		}
	}
}
