package coinstats

import (
	"errors"
	"fmt"
)

// ErrorKind identifies a class of failure. Every error this package returns
// wraps exactly one kind, so callers test with errors.Is.
type ErrorKind string

// Error makes ErrorKind usable as an error and as an errors.Is target.
func (k ErrorKind) Error() string { return string(k) }

const (
	// ErrCorrupt means a stored value did not decode or contradicts the
	// rest of the index. The index must be rebuilt.
	ErrCorrupt ErrorKind = "coinstats index corrupt"

	// ErrUnknownVersion means the index was written in another format
	// version. The index must be rebuilt.
	ErrUnknownVersion ErrorKind = "unknown coinstats index version"

	// ErrNotContiguous means a block given to BlockConnected does not
	// extend the index tip; the caller should run CatchUp, which rewinds
	// first.
	ErrNotContiguous ErrorKind = "block does not extend the coinstats index tip"

	// ErrInvalidArg means the caller passed inconsistent arguments, for
	// example spent outputs that do not match the block's inputs.
	ErrInvalidArg ErrorKind = "invalid argument"

	// ErrIO wraps LevelDB and file system failures that are not corruption.
	ErrIO ErrorKind = "coinstats index I/O error"

	// ErrClosed means the index was used after Close.
	ErrClosed ErrorKind = "coinstats index closed"
)

// Error is the concrete error type: a kind, what was being done, and the
// underlying cause if any.
type Error struct {
	Kind ErrorKind
	Desc string
	Err  error
}

// Error formats the error. Kinds that need a rebuild name the remedy, so
// that an operator reading the log knows what to do.
func (e *Error) Error() string {
	s := string(e.Kind) + ": " + e.Desc
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Kind == ErrCorrupt || e.Kind == ErrUnknownVersion {
		s += " (rebuild the index: restart with -reindex, or delete " + IndexSubdir +
			" in the data directory and restart with -coinstatsindex)"
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

func newErr(kind ErrorKind, format string, args ...any) error {
	return &Error{Kind: kind, Desc: fmt.Sprintf(format, args...)}
}

func wrapErr(kind ErrorKind, err error, format string, args ...any) error {
	return &Error{Kind: kind, Desc: fmt.Sprintf(format, args...), Err: err}
}

func isKind(err error, k ErrorKind) bool { return errors.Is(err, k) }
