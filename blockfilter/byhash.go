package blockfilter

import "github.com/btcnode/btcd/wire"

// Lookups by block hash for BIP157 requests along any branch: the peer
// code resolves a request's blocks on the chain (a recent fork as well as
// the main chain) and reads their entries here.

// HeadersByHash returns the filter hashes and filter headers of the given
// blocks, in order, from one consistent view of the index. A block of any
// branch the index ever connected is found, so a peer may ask along a
// recent fork as well as the main chain; one never indexed is ErrNotFound.
func (x *Index) HeadersByHash(hashes []wire.Hash) (filterHashes, headers []wire.Hash, err error) {
	s, err := x.db.GetSnapshot()
	if err != nil {
		return nil, nil, kinds.Level(err, "snapshot")
	}
	defer s.Release()
	filterHashes = make([]wire.Hash, len(hashes))
	headers = make([]wire.Hash, len(hashes))
	for i := range hashes {
		e, err := getHashEntry(s, &hashes[i])
		if err != nil {
			return nil, nil, err
		}
		filterHashes[i], headers[i] = e.filterHash, e.header
	}
	return filterHashes, headers, nil
}

// FiltersByHash calls fn with the serialized filter of each given block,
// in order, from one consistent view of the index (see HeadersByHash).
// filter is fn's to keep. An error from fn stops the walk and is
// returned.
func (x *Index) FiltersByHash(hashes []wire.Hash, fn func(blockHash wire.Hash, filter []byte) error) error {
	s, err := x.db.GetSnapshot()
	if err != nil {
		return kinds.Level(err, "snapshot")
	}
	defer s.Release()
	for i := range hashes {
		k := hashKey(prefixFilter, &hashes[i])
		v, err := s.Get(k[:], nil)
		if err != nil {
			return kinds.Level(err, "filter of block "+hashes[i].String())
		}
		if err := checkFilterValue(v, &hashes[i]); err != nil {
			return err
		}
		if err := fn(hashes[i], v); err != nil {
			return err
		}
	}
	return nil
}
