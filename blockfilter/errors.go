package blockfilter

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
	// ErrMalformedFilter means serialized filter bytes (from a peer, or a
	// caller) do not decode as a GCS filter with the given parameters.
	ErrMalformedFilter ErrorKind = "malformed filter"

	// ErrCorrupt means a stored index value could not be decoded. The
	// filter index must be rebuilt.
	ErrCorrupt ErrorKind = "block filter index corrupt"

	// ErrUnknownVersion means the index was written by an incompatible
	// format version. The filter index must be rebuilt.
	ErrUnknownVersion ErrorKind = "unknown block filter index version"

	// ErrNotFound means the index has no filter for the block asked for,
	// or a range request's stop block is not on the indexed main chain.
	ErrNotFound ErrorKind = "block filter not found"

	// ErrBadRange means a range request is invalid: its start is above
	// its stop block or it spans more blocks than the protocol allows (a
	// protocol violation by the peer).
	ErrBadRange ErrorKind = "invalid block filter range"

	// ErrNotContiguous means a connected block does not extend the index
	// tip (the caller must run CatchUp) or a disconnected block is not the
	// tip.
	ErrNotContiguous ErrorKind = "block does not extend the filter index tip"

	// ErrInvalidArg means the caller passed inconsistent arguments.
	ErrInvalidArg ErrorKind = "invalid argument"

	// ErrIO wraps LevelDB and file system failures that are not corruption.
	ErrIO ErrorKind = "block filter index I/O error"

	// ErrClosed means the index was used after Close.
	ErrClosed ErrorKind = "block filter index closed"
)

// Error is the concrete error type: a kind, what was being done, and the
// underlying cause if any.
type Error struct {
	Kind ErrorKind
	Desc string
	Err  error
}

// Error formats the error. Kinds that need a rebuild say how, so that an
// operator reading the log knows the remedy.
func (e *Error) Error() string {
	s := string(e.Kind) + ": " + e.Desc
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Kind == ErrCorrupt || e.Kind == ErrUnknownVersion {
		s += " (rebuild the filter index: restart with --reindex, or delete " +
			IndexSubdir + " in the data directory and restart with --blockfilterindex)"
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
