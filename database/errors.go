package database

import "fmt"

// ErrorKind identifies a class of database failure. Every error returned by
// this package wraps exactly one kind, so callers test with errors.Is, e.g.
// errors.Is(err, database.ErrCorrupt).
type ErrorKind string

// Error makes ErrorKind usable as an error and as an errors.Is target.
func (k ErrorKind) Error() string { return string(k) }

const (
	// ErrCorrupt means stored bytes could not be decoded or failed a
	// checksum. The node must stop and be restarted with --reindex.
	ErrCorrupt ErrorKind = "database corrupt"

	// ErrUnknownVersion means a database was written by an unknown (newer
	// or older incompatible) format version. The node must stop; --reindex
	// rebuilds it.
	ErrUnknownVersion ErrorKind = "unknown database format version"

	// ErrNotFound means the requested record does not exist.
	ErrNotFound ErrorKind = "not found"

	// ErrReplayNeeded means the chainstate was interrupted in the middle of
	// a multi-batch flush; the chain must replay blocks between the two
	// head blocks (see ChainState.HeadBlocks) before flushing again.
	ErrReplayNeeded ErrorKind = "chainstate flush interrupted, blocks must be replayed"

	// ErrInvalidArg means a caller passed an argument the database cannot
	// store (e.g. a block larger than the file size limit).
	ErrInvalidArg ErrorKind = "invalid argument"

	// ErrIO wraps failures of the file system or of LevelDB that are not
	// corruption.
	ErrIO ErrorKind = "database I/O error"

	// ErrClosed means the store was used after Close.
	ErrClosed ErrorKind = "database closed"
)

// Error is the concrete error type: a kind, a description of what was being
// done, and the underlying cause if any.
type Error struct {
	Kind ErrorKind
	Desc string
	Err  error
}

// Error formats the error. Kinds that require a rebuild name --reindex so
// that an operator reading the log knows the remedy.
func (e *Error) Error() string {
	s := string(e.Kind) + ": " + e.Desc
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Kind == ErrCorrupt || e.Kind == ErrUnknownVersion {
		s += " (restart with --reindex to rebuild the block index and chainstate)"
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
