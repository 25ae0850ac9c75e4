package netsync

import (
	"errors"

	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// BIP157 serving (getcfilters, getcfheaders, getcfcheckpt) with Core's
// checks and log lines. A request names a stop block; its blocks are the
// stop block's ancestors, found on the chain, so a recent fork is served
// as well as the main chain, and their entries are read from the filter
// index by block hash.

// setFilterListeners routes the BIP157 requests here. They are handled
// even when the node serves no filters: as Core, a peer asking a node that
// does not offer NODE_COMPACT_FILTERS is disconnected.
func (m *Manager) setFilterListeners(l *peer.MessageListeners) {
	l.OnGetCFilters = m.onGetCFilters
	l.OnGetCFHeaders = m.onGetCFHeaders
	l.OnGetCFCheckpt = m.onGetCFCheckpt
}

// filterRequest checks a request as Core's PrepareBlockFilterRequest: a
// filter type we serve, a stop block the peer may know about (main chain
// or a recent fork), a start not above it and at most maxBlocks blocks.
// Any failure disconnects the peer. It returns the stop block's height.
func (m *Manager) filterRequest(p *peer.Peer, ft wire.FilterType, start uint32, stop *wire.Hash, maxBlocks uint32) (int32, bool) {
	if ft != wire.GCSFilterRegular || m.cfg.Filters == nil {
		m.log.Debugf("peer requested unsupported block filter type: %d, disconnecting peer=%d", ft, p.ID())
		p.Disconnect()
		return 0, false
	}
	st, ok := m.chain.LookupBlock(stop)
	if !ok || !m.blockRequestAllowed(stop) {
		m.log.Debugf("peer requested invalid block hash: %v, disconnecting peer=%d", stop, p.ID())
		p.Disconnect()
		return 0, false
	}
	height := uint32(st.Height)
	if start > height {
		m.log.Debugf("peer sent invalid getcfilters/getcfheaders with start height %d and stop height %d, disconnecting peer=%d",
			start, height, p.ID())
		p.Disconnect()
		return 0, false
	}
	if height-start >= maxBlocks {
		m.log.Debugf("peer requested too many cfilters/cfheaders: %d / %d, disconnecting peer=%d", height-start+1, maxBlocks, p.ID())
		p.Disconnect()
		return 0, false
	}
	return st.Height, true
}

// ancestors returns the hashes of the stop block's ancestors (itself
// included) at heights lo, lo+step, ... up to stopHeight. Off the main
// chain the headers are followed back to the fork point (recent forks
// only reach here, so the walk is short); below it the main chain is read
// by height. ok is false if the chain changed under the walk.
func (m *Manager) ancestors(stop wire.Hash, stopHeight, lo, step int32) (hashes []wire.Hash, ok bool) {
	if lo > stopHeight {
		return nil, true
	}
	hashes = make([]wire.Hash, (stopHeight-lo)/step+1)
	want := func(h int32) bool { return h >= lo && (h-lo)%step == 0 }
	cur, h := stop, stopHeight
	for h >= lo && !m.chain.MainChainHasBlock(&cur) {
		if want(h) {
			hashes[(h-lo)/step] = cur
		}
		hdr, _, found := m.chain.HeaderByHash(&cur)
		if !found {
			return nil, false
		}
		cur, h = hdr.PrevBlock, h-1
	}
	for ; h >= lo; h-- {
		if !want(h) {
			continue
		}
		hash, found := m.chain.BlockHashByHeight(h)
		if !found {
			return nil, false
		}
		hashes[(h-lo)/step] = hash
	}
	return hashes, true
}

// filterLookupFailed logs a request the index could not answer (not yet
// indexed, or the chain moved): as Core, the peer gets no reply.
func (m *Manager) filterLookupFailed(p *peer.Peer, what string, stop *wire.Hash, err error) {
	m.log.Debugf("Failed to find block filter %s in index for peer=%d: stop_hash=%v: %v", what, p.ID(), stop, err)
}

func (m *Manager) onGetCFilters(p *peer.Peer, msg *wire.MsgGetCFilters) {
	stop, ok := m.filterRequest(p, msg.FilterType, msg.StartHeight, &msg.StopHash, wire.MaxGetCFiltersReqRange)
	if !ok {
		return
	}
	hashes, ok := m.ancestors(msg.StopHash, stop, int32(msg.StartHeight), 1)
	if !ok {
		m.filterLookupFailed(p, "range", &msg.StopHash, errChainMoved)
		return
	}
	err := m.cfg.Filters.FiltersByHash(hashes, func(h wire.Hash, f []byte) error {
		// Waiting bounds the memory held for one request to the
		// peer's send queue, however many filters it asked for.
		return p.QueueMessageWait(&wire.MsgCFilter{FilterType: msg.FilterType, BlockHash: h, Data: f}, wire.BaseEncoding)
	})
	if err != nil && p.Connected() {
		m.filterLookupFailed(p, "range", &msg.StopHash, err)
	}
}

func (m *Manager) onGetCFHeaders(p *peer.Peer, msg *wire.MsgGetCFHeaders) {
	stop, ok := m.filterRequest(p, msg.FilterType, msg.StartHeight, &msg.StopHash, wire.MaxCFHeadersPerMsg)
	if !ok {
		return
	}
	// The block below the range gives the previous filter header.
	lo := int32(msg.StartHeight)
	if lo > 0 {
		lo--
	}
	hashes, ok := m.ancestors(msg.StopHash, stop, lo, 1)
	if !ok {
		m.filterLookupFailed(p, "hashes", &msg.StopHash, errChainMoved)
		return
	}
	filterHashes, headers, err := m.cfg.Filters.HeadersByHash(hashes)
	if err != nil {
		m.filterLookupFailed(p, "hashes", &msg.StopHash, err)
		return
	}
	reply := &wire.MsgCFHeaders{FilterType: msg.FilterType, StopHash: msg.StopHash, FilterHashes: filterHashes}
	if msg.StartHeight > 0 {
		reply.PrevFilterHeader = headers[0]
		reply.FilterHashes = filterHashes[1:]
	}
	p.QueueMessage(reply, nil)
}

func (m *Manager) onGetCFCheckpt(p *peer.Peer, msg *wire.MsgGetCFCheckpt) {
	stop, ok := m.filterRequest(p, msg.FilterType, 0, &msg.StopHash, 1<<32-1)
	if !ok {
		return
	}
	hashes, ok := m.ancestors(msg.StopHash, stop, blockfilter.CheckpointInterval, blockfilter.CheckpointInterval)
	if !ok {
		m.filterLookupFailed(p, "header", &msg.StopHash, errChainMoved)
		return
	}
	_, headers, err := m.cfg.Filters.HeadersByHash(hashes)
	if err != nil {
		m.filterLookupFailed(p, "header", &msg.StopHash, err)
		return
	}
	p.QueueMessage(&wire.MsgCFCheckpt{FilterType: msg.FilterType, StopHash: msg.StopHash, FilterHeaders: headers}, nil)
}

// errChainMoved reports a stop block whose ancestry changed while the
// request was resolved.
var errChainMoved = errors.New("the chain reorganised during the request")
