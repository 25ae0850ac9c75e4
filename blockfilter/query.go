package blockfilter

import (
	"errors"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// BIP157 request limits.
const (
	// MaxFiltersRange is the most filters one getcfilters may ask for.
	MaxFiltersRange = wire.MaxGetCFiltersReqRange
	// MaxHeadersRange is the most filter hashes one cfheaders carries.
	MaxHeadersRange = wire.MaxCFHeadersPerMsg
	// CheckpointInterval is the spacing of getcfcheckpt headers.
	CheckpointInterval = wire.CFCheckptInterval
)

// FilterByHash returns the serialized basic filter of block hash
// (ErrNotFound if it was never indexed).
func (x *Index) FilterByHash(hash wire.Hash) ([]byte, error) {
	k := hashKey(prefixFilter, &hash)
	v, err := x.db.Get(k[:], nil)
	if err != nil {
		return nil, kinds.Level(err, "filter of block "+hash.String())
	}
	if err := checkFilterValue(v, &hash); err != nil {
		return nil, err
	}
	return v, nil
}

// FilterHeaderByHash returns the filter header of block hash.
func (x *Index) FilterHeaderByHash(hash wire.Hash) (wire.Hash, error) {
	e, err := getHashEntry(x.db, &hash)
	if err != nil {
		return wire.Hash{}, err
	}
	return e.header, nil
}

// HeadersRange answers a getcfheaders request.
type HeadersRange struct {
	// PrevHeader is the filter header of the block below the range (zero
	// when the range starts at the genesis block).
	PrevHeader wire.Hash
	// FilterHashes and Headers are the range's filter hashes and filter
	// headers in height order.
	FilterHashes []wire.Hash
	Headers      []wire.Hash
}

// stopHeight resolves a request's stop hash in a snapshot and checks the
// range [start, stop] holds at most max blocks.
func stopHeight(s *leveldb.Snapshot, start uint32, stop *wire.Hash, max int) (int32, error) {
	e, err := getHashEntry(s, stop)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return 0, kinds.New(ErrNotFound, "stop block %v is not indexed", stop)
		}
		return 0, err
	}
	at, err := getHeightEntry(s, e.height)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return 0, kinds.New(ErrNotFound, "stop block %v is not in the indexed main chain", stop)
		}
		return 0, err
	}
	if at.hash != *stop {
		return 0, kinds.New(ErrNotFound, "stop block %v is not in the indexed main chain", stop)
	}
	if int64(start) > int64(e.height) {
		return 0, kinds.New(ErrBadRange, "start height %d above stop height %d", start, e.height)
	}
	if int64(e.height)-int64(start)+1 > int64(max) {
		return 0, kinds.New(ErrBadRange, "%d blocks requested, limit %d", int64(e.height)-int64(start)+1, max)
	}
	return e.height, nil
}

// scanHeights calls fn for every main-chain entry from start to stop in
// order, and checks none is missing.
func scanHeights(s *leveldb.Snapshot, start, stop int32, fn func(height int32, e heightEntry) error) error {
	lo, hi := heightKey(start), heightKey(stop+1)
	it := s.NewIterator(&util.Range{Start: lo[:], Limit: hi[:]}, nil)
	defer it.Release()
	want := start
	for it.Next() {
		e, err := decodeHeightEntry(it.Value(), want)
		if err != nil {
			return err
		}
		if h := int32(be32(it.Key()[1:])); h != want {
			return kinds.New(ErrCorrupt, "main chain entry for height %d missing", want)
		}
		if err := fn(want, e); err != nil {
			return err
		}
		want++
	}
	if err := it.Error(); err != nil {
		return kinds.Level(err, "scan filter index")
	}
	if want != stop+1 {
		return kinds.New(ErrCorrupt, "main chain entry for height %d missing", want)
	}
	return nil
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// FilterHeadersRange answers getcfheaders: the filter hashes and headers
// of the main-chain blocks from startHeight to stopHash (at most
// MaxHeadersRange), and the header below them. A stop block that is not
// on the indexed main chain is ErrNotFound (not necessarily the peer's
// fault: it may have raced a reorganisation or the indexing); a start
// above the stop or an oversized range is ErrBadRange.
func (x *Index) FilterHeadersRange(startHeight uint32, stopHash wire.Hash) (HeadersRange, error) {
	s, err := x.db.GetSnapshot()
	if err != nil {
		return HeadersRange{}, kinds.Level(err, "snapshot")
	}
	defer s.Release()
	stop, err := stopHeight(s, startHeight, &stopHash, MaxHeadersRange)
	if err != nil {
		return HeadersRange{}, err
	}
	start := int32(startHeight)
	var r HeadersRange
	if start > 0 {
		prev, err := mustHeightEntry(s, start-1)
		if err != nil {
			return HeadersRange{}, err
		}
		r.PrevHeader = prev.header
	}
	n := int(stop - start + 1)
	r.FilterHashes = make([]wire.Hash, 0, n)
	r.Headers = make([]wire.Hash, 0, n)
	err = scanHeights(s, start, stop, func(_ int32, e heightEntry) error {
		r.FilterHashes = append(r.FilterHashes, e.filterHash)
		r.Headers = append(r.Headers, e.header)
		return nil
	})
	if err != nil {
		return HeadersRange{}, err
	}
	return r, nil
}

// FiltersRange answers getcfilters: it calls fn with the hash and
// serialized filter of every main-chain block from startHeight to
// stopHash (at most MaxFiltersRange), in height order, from one consistent
// view of the index. filter is fn's to keep. An error from fn stops the
// walk and is returned.
func (x *Index) FiltersRange(startHeight uint32, stopHash wire.Hash, fn func(blockHash wire.Hash, filter []byte) error) error {
	s, err := x.db.GetSnapshot()
	if err != nil {
		return kinds.Level(err, "snapshot")
	}
	defer s.Release()
	stop, err := stopHeight(s, startHeight, &stopHash, MaxFiltersRange)
	if err != nil {
		return err
	}
	return scanHeights(s, int32(startHeight), stop, func(_ int32, e heightEntry) error {
		k := hashKey(prefixFilter, &e.hash)
		v, err := s.Get(k[:], nil)
		if err != nil {
			if errors.Is(kinds.Level(err, ""), ErrNotFound) {
				return kinds.New(ErrCorrupt, "main chain block %v has no filter", e.hash)
			}
			return kinds.Level(err, "filter of block "+e.hash.String())
		}
		if err := checkFilterValue(v, &e.hash); err != nil {
			return err
		}
		return fn(e.hash, v)
	})
}

// Checkpoints answers getcfcheckpt: the filter headers of the main-chain
// blocks at heights 1000, 2000, ... up to stopHash.
func (x *Index) Checkpoints(stopHash wire.Hash) ([]wire.Hash, error) {
	s, err := x.db.GetSnapshot()
	if err != nil {
		return nil, kinds.Level(err, "snapshot")
	}
	defer s.Release()
	stop, err := stopHeight(s, 0, &stopHash, 1<<31-1)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Hash, 0, stop/CheckpointInterval)
	for h := int32(CheckpointInterval); h <= stop; h += CheckpointInterval {
		e, err := mustHeightEntry(s, h)
		if err != nil {
			return nil, err
		}
		out = append(out, e.header)
	}
	return out, nil
}
