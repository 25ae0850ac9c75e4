package blockfilter

import "github.com/btcnode/btcd/internal/indexdb"

// ErrorKind identifies a class of failure. Every error this package returns
// wraps exactly one kind, so callers test with errors.Is.
type ErrorKind = indexdb.ErrorKind

// Error is the concrete error type: a kind, what was being done, and the
// underlying cause if any. Kinds that need a rebuild say how, so that an
// operator reading the log knows the remedy.
type Error = indexdb.Error

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

// kinds are this index's kinds for the shared index machinery.
var kinds = indexdb.Kinds{
	Corrupt:        ErrCorrupt,
	UnknownVersion: ErrUnknownVersion,
	NotFound:       ErrNotFound,
	NotContiguous:  ErrNotContiguous,
	InvalidArg:     ErrInvalidArg,
	IO:             ErrIO,
	Closed:         ErrClosed,
	Rebuild: "rebuild the filter index: restart with --reindex, or delete " +
		IndexSubdir + " in the data directory and restart with --blockfilterindex",
	// Core's wording, which operators and its tests look for.
	LevelCorruption: "Fatal LevelDB error: Corruption: ",
}
