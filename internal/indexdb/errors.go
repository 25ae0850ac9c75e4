package indexdb

import (
	"errors"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
)

// ErrorKind identifies a class of failure. Every error an index returns
// wraps exactly one kind, so callers test with errors.Is.
type ErrorKind string

// Error makes ErrorKind usable as an error and as an errors.Is target.
func (k ErrorKind) Error() string { return string(k) }

// Error is the concrete error type: a kind, what was being done, the
// underlying cause if any, and how to recover if the operator must act.
type Error struct {
	Kind ErrorKind
	Desc string
	Err  error
	// Remedy, when set, ends the message in parentheses: what the
	// operator reading the log has to do.
	Remedy string
}

// Error formats the error.
func (e *Error) Error() string {
	s := string(e.Kind) + ": " + e.Desc
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Remedy != "" {
		s += " (" + e.Remedy + ")"
	}
	return s
}

// Unwrap exposes both the kind and the cause to errors.Is / errors.As.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// Kinds are one index's error kinds. The shared code reports in them, so
// each index's callers test against that index's own kinds and its log
// lines name the index that failed.
type Kinds struct {
	// Corrupt: a stored value did not decode or contradicts the rest of
	// the index, which must be rebuilt.
	Corrupt ErrorKind
	// UnknownVersion: the index was written in another format version
	// and must be rebuilt.
	UnknownVersion ErrorKind
	// NotFound: a key is absent.
	NotFound ErrorKind
	// NotContiguous: a block does not extend the index tip; CatchUp
	// starts over on it.
	NotContiguous ErrorKind
	// InvalidArg: the caller passed inconsistent arguments.
	InvalidArg ErrorKind
	// IO: LevelDB and file system failures that are not corruption.
	IO ErrorKind
	// Closed: the index was used after Close.
	Closed ErrorKind

	// Rebuild is the Remedy of Corrupt and UnknownVersion errors: how
	// to rebuild the index.
	Rebuild string
	// LevelCorruption prefixes the description of corruption LevelDB
	// itself reports (an index may use Core's wording, which operators
	// and tests look for).
	LevelCorruption string
}

// New returns an error of kind.
func (k *Kinds) New(kind ErrorKind, format string, args ...any) error {
	return &Error{Kind: kind, Desc: fmt.Sprintf(format, args...), Remedy: k.remedy(kind)}
}

// Wrap returns an error of kind caused by err.
func (k *Kinds) Wrap(kind ErrorKind, err error, format string, args ...any) error {
	return &Error{Kind: kind, Desc: fmt.Sprintf(format, args...), Err: err, Remedy: k.remedy(kind)}
}

func (k *Kinds) remedy(kind ErrorKind) string {
	if kind == k.Corrupt || kind == k.UnknownVersion {
		return k.Rebuild
	}
	return ""
}

// Level classifies an error from LevelDB; what says what was being done.
func (k *Kinds) Level(err error, what string) error {
	switch {
	case errors.Is(err, leveldb.ErrNotFound):
		return k.Wrap(k.NotFound, err, "%s", what)
	case errors.Is(err, leveldb.ErrClosed):
		return k.Wrap(k.Closed, err, "%s", what)
	case lerrors.IsCorrupted(err):
		return k.Wrap(k.Corrupt, err, "%s%s", k.LevelCorruption, what)
	}
	return k.Wrap(k.IO, err, "%s", what)
}
