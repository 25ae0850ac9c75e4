package indexdb

import (
	"errors"
	"strings"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/storage"
)

// testKinds are a made-up index's kinds, with Core-style wording for
// LevelDB corruption.
var testKinds = Kinds{
	Corrupt:         "test index corrupt",
	UnknownVersion:  "unknown test index version",
	NotFound:        "not found",
	NotContiguous:   "block does not extend the test index tip",
	InvalidArg:      "invalid argument",
	IO:              "test index I/O error",
	Closed:          "test index closed",
	Rebuild:         "rebuild the test index",
	LevelCorruption: "Fatal LevelDB error: Corruption: ",
}

func TestErrorKindsAndRemedy(t *testing.T) {
	k := &testKinds
	cause := errors.New("disk on fire")
	for _, tc := range []struct {
		kind   ErrorKind
		remedy bool
	}{
		{k.Corrupt, true}, {k.UnknownVersion, true}, {k.NotFound, false},
		{k.NotContiguous, false}, {k.InvalidArg, false}, {k.IO, false}, {k.Closed, false},
	} {
		err := k.Wrap(tc.kind, cause, "doing %s", "things")
		if !errors.Is(err, tc.kind) || !errors.Is(err, cause) {
			t.Errorf("%s: errors.Is fails on %v", tc.kind, err)
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != tc.kind || e.Desc != "doing things" {
			t.Errorf("%s: errors.As gives %#v", tc.kind, e)
		}
		want := string(tc.kind) + ": doing things: disk on fire"
		if tc.remedy {
			want += " (rebuild the test index)"
		}
		if err.Error() != want {
			t.Errorf("%s: message %q, want %q", tc.kind, err.Error(), want)
		}
		if got := k.New(tc.kind, "x").Error(); strings.Contains(got, "rebuild") != tc.remedy {
			t.Errorf("%s: New message %q", tc.kind, got)
		}
	}
	if errors.Is(k.New(k.Corrupt, "x"), k.IO) {
		t.Error("a Corrupt error matches IO")
	}
}

func TestLevelClassifies(t *testing.T) {
	k := &testKinds
	for _, tc := range []struct {
		err  error
		kind ErrorKind
		desc string
	}{
		{leveldb.ErrNotFound, k.NotFound, "read x"},
		{leveldb.ErrClosed, k.Closed, "read x"},
		{lerrors.NewErrCorrupted(storage.FileDesc{}, errors.New("bad block")), k.Corrupt, "Fatal LevelDB error: Corruption: read x"},
		{errors.New("EIO"), k.IO, "read x"},
	} {
		err := k.Level(tc.err, "read x")
		var e *Error
		if !errors.As(err, &e) || e.Kind != tc.kind || e.Desc != tc.desc || !errors.Is(err, tc.err) {
			t.Errorf("%v: got %v", tc.err, err)
		}
	}
}
