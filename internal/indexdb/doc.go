// Package indexdb holds what the node's optional block indexes (the BIP158
// filter index in blockfilter, the coin statistics index in coinstats)
// share, so that each index package keeps only what it records per block.
//
// # Database
//
// Each index is a LevelDB of its own under the data directory. Open opens
// it and checks two records every index keeps:
//
//	'V' -> format version (uint32 LE)
//	'T' -> tip: block hash || height (int32 LE), absent while empty
//
// A database with data but no version is corrupt; an empty one gets the
// index's version (Spec). Open hands the tip to the index, which checks
// it against its own per-height records; a tip it rejects fails Open. HeightKey and HashKey build the index's keys
// (prefix || height BE, prefix || block hash); PutTip and DeleteTip move
// the tip in the batch that writes a block, so the tip always names a
// block the index fully recorded.
//
// # Errors
//
// Every error is an *Error wrapping one ErrorKind, tested with errors.Is.
// The kinds belong to the index (Kinds): the shared code reports in the
// index's own kinds, so callers of blockfilter test blockfilter's kinds
// and an operator reading the log sees which index failed and, for the
// kinds that need a rebuild, how to rebuild it.
//
// # Catch-up
//
// CatchUp is the walk that brings an index to the chain's tip: find the
// highest height where the index and the main chain hold the same block,
// rewind to it, and connect every block above it, starting over (a
// bounded number of times) when the chain reorganises under the walk.
package indexdb
