// Package blockfilter owns BIP157/158 compact block filters: the
// Golomb-coded set (GCS) encoding, the basic filter of a block, the filter
// header chain, and the LevelDB-backed index the node serves light clients
// from (getcfilters, getcfheaders, getcfcheckpt and the getblockfilter RPC).
//
// # Filters
//
// A GCS filter hashes every item with SipHash-2-4 keyed by the first 16
// bytes of the block hash, maps the 64-bit hash into [0, N*M) with a 64-bit
// multiply (the high word of hash*N*M), sorts the values and Golomb-Rice
// codes their differences with parameter P. The serialized filter is
// CompactSize(N) followed by the bit stream, padded with zero bits to a
// whole byte. The basic filter (BasicParams: P=19, M=784931) holds every
// output script of the block except empty ones and those starting with
// OP_RETURN, plus every script spent by the block's inputs (same
// exclusions), each distinct script once.
//
// NewFilter builds a filter from items, FromBytes parses and fully
// validates a serialized one (N is checked against the bytes present
// before anything is allocated, as in Core every element must decode and
// no whole byte may follow the last one), and Match/MatchAny query it.
// Builder reuses its scratch memory, so the index builds a block's filter
// with no allocations once warm. Items are deduplicated by content (two
// different scripts whose values collide both count, as BIP158 requires);
// keys are sorted with an LSD radix sort (linear whatever the miner-chosen
// block hash makes the hashes) and the values of hashes that agree in all
// but their low bits are fixed up with an insertion pass.
//
// # Header chain
//
// FilterHeader(filterBytes, prev) = sha256d(sha256d(filterBytes) || prev);
// the genesis block's previous header is all zeroes.
//
// # Index
//
// OpenIndex(dataDir) opens DATADIR/indexes/blockfilter/basic/db, a LevelDB
// (an index an earlier version kept in indexes/blockfilter/basic is moved
// there first):
//
//	'V'               -> format version (uint32 LE)
//	'T'               -> tip: block hash || height (int32 LE)
//	'h' + height (BE) -> block hash || filter hash || filter header  (main chain)
//	'H' + block hash  -> height (LE) || filter hash || filter header
//	'f' + block hash  -> serialized filter
//
// The version and tip records, the checks Open makes of them, the error
// kinds' plumbing and the catch-up walk are shared with the other indexes
// (internal/indexdb); this package holds the filter records.
//
// Every block's entries and the new tip are written in one LevelDB batch,
// so after a crash the index is at some block it fully recorded and the
// node resumes from Tip. Disconnecting a block deletes only its height
// entry (its filter stays retrievable by hash, and is rewritten if the
// block is connected again). Values that do not decode return ErrCorrupt,
// whose message tells the operator to rebuild the index.
//
// Range queries (FilterHeadersRange, FiltersRange, Checkpoints) read one
// LevelDB snapshot, so they see whole blocks and never block writers.
// ServeGetCFilters, ServeGetCFHeaders and ServeGetCFCheckpt turn them into
// the wire replies; BlockFilter is the getblockfilter RPC's lookup.
//
// # Wiring
//
// The index is fed BlockConnected(block, height, prevScripts) and
// BlockDisconnected(hash, height) in chain order; CatchUp brings it from
// its tip to the chain's (after a restart, when it was enabled late, or
// driven from a worker goroutine on every tip change), rewinding first if
// the chain reorganised meanwhile. ScriptsFromUndo and ScriptsFromEntries
// turn a block's spent outputs into prevScripts.
package blockfilter
