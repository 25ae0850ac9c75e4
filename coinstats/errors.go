package coinstats

import "github.com/btcnode/btcd/internal/indexdb"

// ErrorKind identifies a class of failure. Every error this package returns
// wraps exactly one kind, so callers test with errors.Is.
type ErrorKind = indexdb.ErrorKind

// Error is the concrete error type: a kind, what was being done, and the
// underlying cause if any. Kinds that need a rebuild name the remedy, so
// that an operator reading the log knows what to do.
type Error = indexdb.Error

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

// errNotFound is internal: a key that is absent, which callers either
// tolerate or turn into ErrCorrupt.
const errNotFound ErrorKind = "not found"

// kinds are this index's kinds for the shared index machinery.
var kinds = indexdb.Kinds{
	Corrupt:        ErrCorrupt,
	UnknownVersion: ErrUnknownVersion,
	NotFound:       errNotFound,
	NotContiguous:  ErrNotContiguous,
	InvalidArg:     ErrInvalidArg,
	IO:             ErrIO,
	Closed:         ErrClosed,
	Rebuild: "rebuild the index: restart with -reindex, or delete " + IndexSubdir +
		" in the data directory and restart with -coinstatsindex",
	// Core's wording, which operators and its tests look for.
	LevelCorruption: "Fatal LevelDB error: Corruption: ",
}
