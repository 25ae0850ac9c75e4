package blockfilter

import "github.com/btcnode/btcd/wire"

// This file answers the BIP157 P2P requests from the index, so the peer
// code only routes messages. ErrBadRange and ErrInvalidArg mean the
// request was invalid (Core disconnects such a peer); ErrNotFound means
// the stop block is not (or no longer, or not yet) on the indexed main
// chain, so there is nothing to send; others are local failures.

// BlockFilter returns the serialized basic filter of hash and its header,
// the getblockfilter RPC result.
func (x *Index) BlockFilter(hash wire.Hash) (filter []byte, header wire.Hash, err error) {
	header, err = x.FilterHeaderByHash(hash)
	if err != nil {
		return nil, wire.Hash{}, err
	}
	filter, err = x.FilterByHash(hash)
	if err != nil {
		return nil, wire.Hash{}, err
	}
	return filter, header, nil
}

func checkType(t wire.FilterType) error {
	if t != wire.GCSFilterRegular {
		return kinds.New(ErrInvalidArg, "filter type %d", t)
	}
	return nil
}

// ServeGetCFilters answers getcfilters by calling send with one cfilter
// message per block, in height order. send may keep the message.
func (x *Index) ServeGetCFilters(m *wire.MsgGetCFilters, send func(*wire.MsgCFilter) error) error {
	if err := checkType(m.FilterType); err != nil {
		return err
	}
	return x.FiltersRange(m.StartHeight, m.StopHash, func(h wire.Hash, f []byte) error {
		return send(&wire.MsgCFilter{FilterType: m.FilterType, BlockHash: h, Data: f})
	})
}

// ServeGetCFHeaders answers getcfheaders.
func (x *Index) ServeGetCFHeaders(m *wire.MsgGetCFHeaders) (*wire.MsgCFHeaders, error) {
	if err := checkType(m.FilterType); err != nil {
		return nil, err
	}
	r, err := x.FilterHeadersRange(m.StartHeight, m.StopHash)
	if err != nil {
		return nil, err
	}
	return &wire.MsgCFHeaders{
		FilterType:       m.FilterType,
		StopHash:         m.StopHash,
		PrevFilterHeader: r.PrevHeader,
		FilterHashes:     r.FilterHashes,
	}, nil
}

// ServeGetCFCheckpt answers getcfcheckpt.
func (x *Index) ServeGetCFCheckpt(m *wire.MsgGetCFCheckpt) (*wire.MsgCFCheckpt, error) {
	if err := checkType(m.FilterType); err != nil {
		return nil, err
	}
	cp, err := x.Checkpoints(m.StopHash)
	if err != nil {
		return nil, err
	}
	return &wire.MsgCFCheckpt{FilterType: m.FilterType, StopHash: m.StopHash, FilterHeaders: cp}, nil
}
