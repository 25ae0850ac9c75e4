// Package coinstats is the coin statistics index (Core's -coinstatsindex):
// for every block of the chain it records the UTXO set's MuHash3072
// digest, output count, bogosize and total amount after the block, the
// subsidy paid so far and the amounts that left circulation for good,
// so that gettxoutsetinfo can answer for any block without scanning the
// UTXO set.
//
// # What a block changes
//
// A block inserts into the MuHash every output it creates (serialized as
// database.AppendTxOutSer, the preimage gettxoutsetinfo's muhash uses)
// and removes every coin its inputs spend (from its undo data), so the
// running MuHash always describes the UTXO set at the index tip. Outputs
// that can never be spent do not enter the set: their value counts as
// unspendable "scripts". The genesis coinbase never entered the set
// ("genesis_block"), nor did the coinbases of mainnet blocks 91722 and
// 91812, which later duplicates overwrote ("bip30"). Whatever the subsidy
// and the spent coins could have paid for and no output received is
// "unclaimed_rewards". Per block the index keeps these four amounts, the
// value spent, the coinbase's value and the other new outputs' value; over
// the chain, the four unspendable totals.
//
// # Layout
//
// OpenIndex(dataDir) opens DATADIR/indexes/coinstats/db, a LevelDB:
//
//	'V'               -> format version (uint32 LE)
//	'T'               -> tip: block hash || height (int32 LE)
//	'M'               -> MuHash state at the tip (muhash.StateSize bytes)
//	't' + height (BE) -> record of the indexed chain's block at height
//	's' + block hash  -> record of a block a rewind took back
//
// The version and tip records, the checks Open makes of them, the error
// kinds' plumbing and the catch-up walk are shared with the other indexes
// (internal/indexdb); this package holds the statistics records.
//
// A record (DecodeRecord) is fixed-size: block hash, height, digest, the
// output count and bogosize (uint64 LE) and thirteen amounts (uint64 LE):
// total amount, total subsidy, the four unspendable totals, then the
// block's prevout spent, coinbase, new outputs and its four unspendables.
// Values read back are checked (sizes, ranges, consistency) before use.
//
// Each block's record, the new tip and the MuHash state are written in
// one LevelDB batch, so after a crash the index is at some block it fully
// recorded; OpenIndex checks that the stored state finalizes to the tip's
// digest. Rewind undoes blocks from the top (their created coins removed,
// the coins they spent put back, which needs their undo data), checks the
// result against the digest recorded at the new tip and moves the records
// it drops under their hash, so statistics of a block that was
// reorganised out stay available, as in Core.
//
// # Wiring
//
// CatchUp brings the index from its tip to the chain's (after a restart,
// when it was enabled late, or driven from a worker goroutine on every
// tip change, off the block connection path), rewinding first if the chain
// reorganised meanwhile. Lookup is the gettxoutsetinfo query by block.
package coinstats
