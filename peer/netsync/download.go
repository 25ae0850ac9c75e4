package netsync

import (
	"errors"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// checkInterval is how often the loop looks for stalled peers.
const checkInterval = 250 * time.Millisecond

// maxStallTimeout caps the adaptive stall timeout (Core's
// BLOCK_STALLING_TIMEOUT_MAX).
const maxStallTimeout = 64 * time.Second

// headersRetry paces getheaders to peers that claim a longer chain.
const headersRetry = 30 * time.Second

// loop is the event loop that owns the download state. It handles the
// peers' messages, as bitcoind's msghand thread, whose lines it logs.
func (m *Manager) loop() {
	defer m.wg.Done()
	m.log.Info("msghand thread start")
	defer m.log.Info("msghand thread exit")
	tick := time.NewTicker(checkInterval)
	defer tick.Stop()
	m.lastLog = time.Now()
	// A jump of the mock clock is checked at once, as Core checks its
	// timers on the next message from each peer rather than a tick later.
	clockSet := clock.Changed()
	for {
		select {
		case <-m.quit:
			return
		case <-clockSet:
			clockSet = clock.Changed()
			m.checkStalls(clock.Now())
			m.txRequestTick(clock.Now())
		case be := <-m.blocks:
			m.handleBlock(be)
		case ev := <-m.events:
			m.handleEvent(ev)
		case now := <-tick.C:
			// Time-outs follow the node clock, which tests can mock
			// (as Core's); progress logging follows the wall clock.
			m.checkStalls(clock.Now())
			m.txRequestTick(clock.Now())
			m.maybeLogProgress(now)
		}
	}
}

func (m *Manager) handleEvent(ev event) {
	switch ev.kind {
	case evNewPeer:
		m.handleNewPeer(ev.p)
	case evDonePeer:
		m.handleDonePeer(ev.p)
	case evHeaders:
		if ps := m.peers[ev.p]; ps != nil {
			m.handleHeaders(ps, ev.headers)
		}
	case evInv:
		if ps := m.peers[ev.p]; ps != nil {
			m.handleBlockInv(ps, ev.inv)
		}
	case evNotFound:
		if ps := m.peers[ev.p]; ps != nil {
			var txs []wire.Hash
			for _, iv := range ev.inv {
				switch iv.Type &^ wire.InvWitnessFlag {
				case wire.InvTypeTx, wire.InvTypeWTx:
					txs = append(txs, iv.Hash)
				}
				if (iv.Type&^wire.InvWitnessFlag == wire.InvTypeBlock || iv.Type == wire.InvTypeCmpctBlock) && m.requested[iv.Hash] == ps {
					delete(m.requested, iv.Hash)
					delete(ps.inflight, iv.Hash)
				}
			}
			if len(txs) > 0 {
				// Another announcer may have them.
				m.txNotFound(ps.p, txs)
			}
			m.fill()
		}
	case evTip:
		now := clock.Now()
		for _, ps := range m.peers {
			m.considerEviction(ps, now) // eviction.go
		}
		m.fill()
	case evFunc:
		ev.fn()
	}
	if ev.done != nil {
		close(ev.done)
	}
}

func (m *Manager) handleNewPeer(p *peer.Peer) {
	if !p.Connected() {
		return
	}
	// As Core, short-lived connections (addr-fetch, feeler) are never
	// asked for headers or blocks, and pruned peers (NODE_NETWORK_LIMITED)
	// are, within limits (canFetch).
	short := p.ConnType() == peer.ConnAddrFetch || p.ConnType() == peer.ConnFeeler
	svc := p.Services()
	ps := &peerState{
		p:          p,
		inflight:   make(map[wire.Hash]time.Time),
		known:      make(map[wire.Hash]struct{}),
		bestHeight: p.LastBlock(),
		syncCand:   svc&wire.SFNodeWitness != 0 && svc&(wire.SFNodeNetwork|wire.SFNodeNetworkLimited) != 0 && !short,
	}
	m.peersMu.Lock()
	m.peers[p] = ps
	m.peersMu.Unlock()
	if p.WantsWtxid() {
		m.wtxidPeers.Add(1)
	}
	m.log.Debugf("New peer %v (height %d, sync candidate %v)", p, ps.bestHeight, ps.syncCand)
	m.cmpctNewPeer(ps)
	if !ps.syncCand {
		return
	}
	if m.syncPeer == nil {
		m.setSyncPeer(ps)
	} else if m.IsCurrent() {
		// Near the tip every peer is asked, so announcements that do not
		// connect are resolved from whoever sent them.
		ps.syncStarted = true
		m.sendInitialGetHeaders(ps)
	}
	// The chain-sync timer starts with the connection.
	m.considerEviction(ps, clock.Now())
	m.fill()
}

func (m *Manager) setSyncPeer(ps *peerState) {
	m.peersMu.Lock()
	m.syncPeer = ps
	m.peersMu.Unlock()
	if ps != nil {
		m.log.Infof("Syncing headers from %v (peer height %d)", ps.p, ps.bestHeight)
		ps.headersDeadline = m.headersDeadline()
		ps.syncStarted = true
		m.sendInitialGetHeaders(ps)
	}
}

// headersTimeoutPerHeader is the time added to a headers-sync deadline
// for each header expected (Core's HEADERS_DOWNLOAD_TIMEOUT_PER_HEADER).
const headersTimeoutPerHeader = time.Millisecond

// headersStaleAge is how old the best header must be for the headers
// sync to count as unfinished.
const headersStaleAge = 24 * time.Hour

// headersDeadline is when a sync peer chosen now must have finished: the
// base time-out plus one millisecond per header expected between our
// best header and now.
func (m *Manager) headersDeadline() time.Time {
	now := clock.Now()
	d := m.cfg.HeadersTimeout
	if h, _, ok := m.bestHeader(); ok {
		spacing := m.chain.Params().TargetTimePerBlock
		if behind := now.Sub(time.Unix(int64(h.Timestamp), 0)); behind > 0 && spacing > 0 {
			d += time.Duration(behind/spacing) * headersTimeoutPerHeader
		}
	}
	return now.Add(d)
}

// bestHeader returns the best header.
func (m *Manager) bestHeader() (wire.BlockHeader, int32, bool) {
	hash, _ := m.chain.BestHeader()
	return m.chain.HeaderByHash(&hash)
}

// pickSyncPeer chooses the candidate announcing the greatest height.
func (m *Manager) pickSyncPeer() { m.pickSyncPeerExcept(nil) }

// pickSyncPeerExcept picks the candidate with the most blocks other than
// skip.
func (m *Manager) pickSyncPeerExcept(skip *peerState) {
	var best *peerState
	for _, ps := range m.peers {
		if ps != skip && ps.syncCand && ps.p.Connected() && (best == nil || ps.bestHeight > best.bestHeight) {
			best = ps
		}
	}
	m.setSyncPeer(best)
}

func (m *Manager) handleDonePeer(p *peer.Peer) {
	ps := m.peers[p]
	if ps == nil {
		return
	}
	m.peersMu.Lock()
	delete(m.peers, p)
	m.peersMu.Unlock()
	m.dropRequests(ps)
	m.cmpctDonePeer(ps)
	m.unprotect(ps) // eviction.go
	m.txPeerGone(p)
	if m.pool != nil {
		if n := m.pool.RemoveOrphansByPeer(poolPeerID(p)); n > 0 {
			m.log.Debugf("Erased %d orphan transaction(s) from peer=%d", n, p.ID())
		}
	}
	if m.syncPeer == ps {
		m.setSyncPeer(nil)
		m.pickSyncPeer()
	}
	m.fill()
}

// dropRequests makes a peer's blocks available to other peers.
func (m *Manager) dropRequests(ps *peerState) {
	for h := range ps.inflight {
		if m.requested[h] == ps {
			delete(m.requested, h)
		}
	}
	clear(ps.inflight)
}

// dropInvalid disconnects ps for an invalid header or block unless it has
// the noban permission or is a manual connection: Core scores such peers
// but keeps them, whatever they send.
func (m *Manager) dropInvalid(ps *peerState, why string) {
	if ps.p.Connected() && !ps.p.HasPermission(peer.PermNoBan) && !ps.p.Manual() {
		m.disconnect(ps, why)
	}
}

// disconnect drops a peer at once, reassigning its requests before the
// disconnection event arrives.
func (m *Manager) disconnect(ps *peerState, why string) {
	m.log.Infof("Disconnecting %v: %s", ps.p, why)
	ps.syncCand = false
	m.dropRequests(ps)
	ps.p.Disconnect()
	if m.syncPeer == ps {
		m.setSyncPeer(nil)
		m.pickSyncPeer()
	}
}

func (m *Manager) sendGetHeaders(ps *peerState, stop wire.Hash) {
	best, _ := m.chain.BestHeader()
	m.sendGetHeadersLocator(ps, best, stop)
}

// sendInitialGetHeaders starts a header sync from ps with a locator from
// our best header's parent, as Core, so that even a peer on our chain
// answers with at least one header and so shows its best block.
func (m *Manager) sendInitialGetHeaders(ps *peerState) {
	best, _ := m.chain.BestHeader()
	if h, _, ok := m.chain.HeaderByHash(&best); ok && h.PrevBlock != (wire.Hash{}) {
		best = h.PrevBlock
	}
	m.sendGetHeadersLocator(ps, best, wire.Hash{})
}

// sendGetHeadersFrom asks ps for the headers after from (the chain-sync
// timer's last call).
func (m *Manager) sendGetHeadersFrom(ps *peerState, from wire.Hash) {
	m.sendGetHeadersLocator(ps, from, wire.Hash{})
}

func (m *Manager) sendGetHeadersLocator(ps *peerState, from, stop wire.Hash) {
	if ps.presync != nil {
		// The presync asks for its own next headers; a second request
		// from our best header would interleave with its walk.
		return
	}
	msg := &wire.MsgGetHeaders{
		ProtocolVersion:    wire.ProtocolVersion,
		BlockLocatorHashes: m.chain.BlockLocator(&from),
		HashStop:           stop,
	}
	ps.headersAsked = clock.Now()
	ps.lastHeadersAsk = ps.headersAsked
	ps.p.QueueMessage(msg, nil)
}

func (m *Manager) handleHeaders(ps *peerState, headers []wire.BlockHeader) {
	ps.headersAsked = time.Time{}
	if ps.presync != nil && m.continuePresync(ps, headers) {
		return
	}
	if len(headers) == 0 {
		m.fill()
		return
	}
	if _, _, ok := m.chain.HeaderByHash(&headers[0].PrevBlock); !ok {
		// An announcement that skips blocks we lack: ask for the gap
		// (BIP130). As Core, every tenth such message in a row scores.
		ps.unconnecting++
		if ps.unconnecting%10 == 0 && ps.p.Misbehaving(PenaltyNonConnect, "non-connecting headers") {
			return
		}
		m.sendGetHeaders(ps, wire.Hash{})
		return
	}
	ps.unconnecting = 0
	if m.maybeStartPresync(ps, headers) {
		return
	}
	lastHash, lastHeight, err := m.chain.ProcessHeaders(headers)
	if lastHeight >= 0 {
		ps.p.UpdateLastBlockHeight(lastHeight)
		ps.noteBest(lastHash, lastHeight)
		ps.addKnown(lastHash)
		m.maybeProtect(ps)                  // eviction.go
		m.considerEviction(ps, clock.Now()) // as Core, right after the message
	}
	if err != nil {
		var re *blockchain.RuleError
		if errors.As(err, &re) {
			m.log.Infof("Invalid headers from %v: %v", ps.p, err)
			ps.p.Misbehaving(PenaltyInvalid, "invalid header: "+re.Reason)
			m.dropInvalid(ps, "invalid header")
			return
		}
		m.log.Errorf("Processing headers from %v: %v", ps.p, err)
		return
	}
	m.directFetch(ps, lastHash, lastHeight)
	if len(headers) == wire.MaxBlockHeadersPerMsg {
		m.sendGetHeaders(ps, wire.Hash{})
	} else if ps == m.syncPeer {
		_, h := m.chain.BestHeader()
		m.log.Debugf("Headers synced from %v up to height %d", ps.p, h)
	}
	m.fill()
}

// directFetchSpacings is how recent, in block intervals, the tip must be
// for announced blocks to be fetched at once (Core's CanDirectFetch).
const directFetchSpacings = 20

// directFetch asks ps at once for the blocks of the header chain it just
// announced when that chain has at least our tip's work (Core's
// HeadersDirectFetchBlocks). fill follows only the best header, which
// keeps the first seen of two chains of equal work; asking the announcer
// for the other one too is what lets a block whose first copy came
// mutated (the same header, a malleated body) arrive as a sibling with
// its own header.
func (m *Manager) directFetch(ps *peerState, last wire.Hash, lastHeight int32) {
	if !m.canFetch(ps) || !ps.p.Connected() {
		return
	}
	tip := m.chain.BestSnapshot()
	tipSt, ok := m.chain.LookupBlock(&tip.Hash)
	if !ok || clock.Now().Sub(time.Unix(int64(tipSt.Header.Timestamp), 0)) >= directFetchSpacings*m.chain.Params().TargetTimePerBlock {
		return
	}
	st, ok := m.chain.LookupBlock(&last)
	if !ok || st.Invalid || st.ChainWork.Cmp(tipSt.ChainWork) < 0 {
		return
	}
	var want []blockchain.BlockStatus
	for !st.MainChain && len(want) <= m.cfg.MaxInFlight {
		deep := limitedPeer(ps) && lastHeight-st.Height >= limitedFetchDepth
		if _, asked := m.requested[st.Hash]; !st.HaveData && !asked && !deep {
			want = append(want, st)
		}
		if st, ok = m.chain.LookupBlock(&st.Header.PrevBlock); !ok {
			return
		}
	}
	if !st.MainChain {
		m.log.Debugf("Large reorg, won't direct fetch to %v (%d)", last, lastHeight)
		return
	}
	now := clock.Now()
	var inv []wire.InvVect
	first := int32(0)
	for i := len(want) - 1; i >= 0 && len(ps.inflight) < m.cfg.MaxInFlight; i-- {
		h := want[i].Hash
		if len(ps.inflight) == 0 {
			ps.lastRecv = now
		}
		if len(inv) == 0 {
			first = want[i].Height
		}
		ps.inflight[h] = now
		m.requested[h] = ps
		m.log.Debugf("Requesting block %v from  peer=%d", h, ps.p.ID())
		inv = append(inv, wire.InvVect{Type: wire.InvTypeWitnessBlock, Hash: h})
	}
	switch {
	case len(inv) == 1 && m.wantCmpct(ps, first, tip.Height):
		inv[0].Type = wire.InvTypeCmpctBlock
	case len(inv) > 1:
		m.log.Debugf("Downloading blocks toward %v (%d) via headers direct fetch", last, lastHeight)
	}
	if len(inv) > 0 {
		ps.p.QueueMessage(&wire.MsgGetData{InvList: inv}, nil)
	}
}

// noteBest records that the peer has the block hash at height.
func (ps *peerState) noteBest(hash wire.Hash, height int32) {
	ps.bestHeight = max(ps.bestHeight, height)
	if ps.bestHash == (wire.Hash{}) || height > ps.bestHashHeight {
		ps.bestHash, ps.bestHashHeight = hash, height
	}
}

func (m *Manager) handleBlockInv(ps *peerState, inv []wire.InvVect) {
	var unknown *wire.Hash
	for i := range inv {
		h := inv[i].Hash
		ps.addKnown(h)
		if _, height, ok := m.chain.HeaderByHash(&h); ok {
			ps.p.UpdateLastBlockHeight(height)
			ps.noteBest(h, height)
			continue
		}
		unknown = &inv[i].Hash
	}
	if unknown != nil && ps.syncCand {
		switch {
		case ps.syncStarted || ps == m.syncPeer || m.headersFresh():
			m.sendGetHeaders(ps, *unknown)
		case !ps.invSynced && *unknown != m.lastInvSync:
			// During the initial headers sync only one peer is asked;
			// each new block brings in one more, in case the first is
			// unresponsive, as Core does.
			ps.invSynced = true
			m.lastInvSync = *unknown
			m.sendGetHeaders(ps, *unknown)
		}
	}
	m.fill()
}

// headersFresh reports a best header within headersStaleAge of now, when
// Core asks every peer for headers.
func (m *Manager) headersFresh() bool {
	h, _, ok := m.bestHeader()
	return ok && clock.Now().Sub(time.Unix(int64(h.Timestamp), 0)) < headersStaleAge
}

func (m *Manager) handleBlock(be blockEvent) {
	blk := be.block
	hash := blk.BlockHash()
	ps := m.peers[be.p]
	flags := blockchain.BFNone
	owner, requested := m.requested[hash]
	if requested {
		delete(m.requested, hash)
		delete(owner.inflight, hash)
		m.cmpctBlockDone(owner, hash)
	}
	if ps != nil {
		ps.addKnown(hash)
		if requested && owner == ps {
			ps.lastRecv = clock.Now()
			// Decay a raised stall timeout back towards the default
			// while blocks arrive.
			if m.stallTimeout > m.cfg.StallTimeout {
				m.stallTimeout = max(m.cfg.StallTimeout, m.stallTimeout*85/100)
			}
		}
	}
	if !requested && !be.cmpct {
		// As Core, an unsolicited block is processed (and kept only if
		// it extends a chain with enough work) without penalty.
		flags = blockchain.BFUnrequested
	}
	if be.sane {
		flags |= blockchain.BFSanityChecked
	}
	t0 := time.Now()
	res, err := m.chain.ProcessBlockWithFlags(blk, flags)
	d := time.Since(t0)
	m.processTime.Add(int64(d))
	if m.cfg.OnBlockProcessed != nil && err == nil && !res.Duplicate {
		m.cfg.OnBlockProcessed(d)
	}
	if err != nil && be.cmpct && m.cmpctBlockFailed(ps, hash, err) {
		m.fill()
		return
	}
	if err != nil {
		var re *blockchain.RuleError
		if errors.As(err, &re) {
			m.log.Debugf("Rejected block %v from %v: %v", hash, be.p, err)
			be.p.Misbehaving(PenaltyInvalid, "invalid block: "+re.Reason)
			if ps != nil {
				m.dropInvalid(ps, "invalid block")
			}
		} else {
			m.log.Errorf("Processing block %v: %v", hash, err)
		}
		m.fill()
		return
	}
	if !res.Duplicate && !res.Orphan {
		be.p.MarkNewBlock()
	}
	if !res.Duplicate {
		m.blocksProcessed.Add(1)
		m.txsProcessed.Add(int64(len(blk.Transactions)))
	}
	if res.Orphan && ps != nil {
		m.sendGetHeaders(ps, res.OrphanRoot)
	}
	if ps != nil && res.MainChain && !res.Duplicate && m.IsCurrent() {
		// ps gave us a new tip: prefer it for compact relay (BIP152).
		m.selectHighBandwidth(ps)
	}
	m.fill()
}

// limitedPeer reports a peer that keeps only recent blocks: it offers
// NODE_NETWORK_LIMITED without NODE_NETWORK.
func limitedPeer(ps *peerState) bool { return ps.p.Services()&wire.SFNodeNetwork == 0 }

// limitedFetchDepth is how far below a pruned peer's best block we ask it
// for blocks: NODE_NETWORK_LIMITED's 288 less Core's two-block margin, so
// a request racing the peer's next block is still served.
const limitedFetchDepth = 288 - 2

// canFetch reports whether blocks may be asked of ps at all: a sync
// candidate, and for a pruned one only once we are out of the initial
// download, as Core, since a pruned peer cannot serve a chain from the
// start.
func (m *Manager) canFetch(ps *peerState) bool {
	return ps.syncCand && (!limitedPeer(ps) || m.IsCurrent())
}

// fill assigns missing blocks of the best header chain, inside the window
// ahead of the tip, to peers with free request slots.
func (m *Manager) fill() {
	bestHash, bestHeight := m.chain.BestHeader()
	tip := m.chain.BestSnapshot()
	m.stallWait = false
	if bestHash == tip.Hash {
		return
	}
	free, capacity := 0, 0
	for _, ps := range m.peers {
		if m.canFetch(ps) {
			capacity += m.cfg.MaxInFlight
			free += m.cfg.MaxInFlight - len(ps.inflight)
		}
	}
	// Request in batches: a getdata per arriving block costs more than
	// waiting for half a peer's slots to empty.
	if free == 0 || (len(m.requested) > 0 && free < min(capacity, m.cfg.MaxInFlight/2)) {
		m.stallWait = free == 0 && len(m.requested) > 0
		return
	}
	if !m.chain.HeaderChainTrusted(&bestHash) {
		return
	}
	missing := m.chain.MissingBlocks(int(m.cfg.Window))
	limit := tip.Height + m.cfg.Window
	batches := make(map[*peerState][]wire.InvVect)
	now := clock.Now()
	exhausted := true
	for i := range missing {
		h := missing[i]
		if _, ok := m.requested[h]; ok {
			continue
		}
		_, height, ok := m.chain.HeaderByHash(&h)
		if !ok || height > limit || height > bestHeight {
			break
		}
		var pick *peerState
		tooDeep := false
		for _, ps := range m.peers {
			peerBest := max(ps.bestHeight, ps.p.LastBlock())
			if !m.canFetch(ps) || len(ps.inflight) >= m.cfg.MaxInFlight || peerBest < height {
				continue
			}
			if ps.bestHash != (wire.Hash{}) && !m.chain.IsAncestor(&h, &ps.bestHash) {
				// As Core, a block is asked only of a peer whose best
				// known block descends from it: a peer on another
				// branch of the same height does not have it and would
				// stall the download.
				continue
			}
			if limitedPeer(ps) && peerBest-height >= limitedFetchDepth {
				// Pruned peers are not asked for what they may have
				// deleted; a later block they can serve.
				tooDeep = true
				continue
			}
			if pick == nil || len(ps.inflight) < len(pick.inflight) {
				pick = ps
			}
		}
		if pick == nil && tooDeep {
			exhausted = false
			continue
		}
		if pick == nil {
			exhausted = false
			break
		}
		if len(pick.inflight) == 0 {
			pick.lastRecv = now
		}
		pick.inflight[h] = now
		m.requested[h] = pick
		typ := wire.InvTypeWitnessBlock
		if m.wantCmpct(pick, height, tip.Height) {
			typ = wire.InvTypeCmpctBlock
		}
		batches[pick] = append(batches[pick], wire.InvVect{Type: typ, Hash: h})
	}
	for ps, inv := range batches {
		ps.p.QueueMessage(&wire.MsgGetData{InvList: inv}, nil)
	}
	// Peers with free slots and nothing left to ask for inside the window
	// are waiting on whoever holds the window's first block.
	if exhausted && len(m.requested) > 0 {
		for _, ps := range m.peers {
			if m.canFetch(ps) && len(ps.inflight) < m.cfg.MaxInFlight {
				m.stallWait = true
				break
			}
		}
	}
}

// checkStalls disconnects peers that hold up the download.
func (m *Manager) checkStalls(now time.Time) {
	if sp := m.syncPeer; sp != nil && !sp.headersDeadline.IsZero() {
		if h, _, ok := m.bestHeader(); ok && now.Sub(time.Unix(int64(h.Timestamp), 0)) < headersStaleAge {
			// Caught up once: no time-out for the rest of this peer.
			sp.headersDeadline = time.Time{}
		} else if now.After(sp.headersDeadline) {
			m.headersTimedOut(sp)
		}
	}
	for _, ps := range m.peers {
		if len(ps.inflight) > 0 && now.Sub(ps.lastRecv) > m.cfg.RequestTimeout {
			m.disconnect(ps, "block requests timed out")
			continue
		}
		m.considerEviction(ps, now) // eviction.go
	}
	if m.stallWait && len(m.requested) > 0 {
		if first := m.chain.MissingBlocks(1); len(first) == 1 {
			if owner := m.requested[first[0]]; owner != nil && now.Sub(owner.inflight[first[0]]) > m.stallTimeout && m.otherCandidates(owner) {
				m.disconnect(owner, "stalling block download (timeout "+m.stallTimeout.String()+")")
				// As Core does, double the timeout after each stall so
				// a slow link does not make us drop every peer in turn.
				m.stallTimeout = min(2*m.stallTimeout, maxStallTimeout)
			}
		}
	}
	if m.syncPeer == nil && len(m.peers) > 0 {
		m.pickSyncPeer()
	}
	m.askBetterPeers(now)
	m.fill()
}

// askBetterPeers sends getheaders, at most every headersRetry, to idle
// peers claiming more blocks than our best header, so a sync peer with a
// shorter chain cannot hold the node back.
func (m *Manager) askBetterPeers(now time.Time) {
	if m.IsCurrent() {
		return
	}
	_, best := m.chain.BestHeader()
	for _, ps := range m.peers {
		if ps.syncCand && ps.headersAsked.IsZero() && max(ps.bestHeight, ps.p.LastBlock()) > best &&
			now.Sub(ps.lastHeadersAsk) > headersRetry {
			m.sendGetHeaders(ps, wire.Hash{})
		}
	}
}

// headersTimedOut handles a sync peer that did not bring the headers up
// to date in time. As Core, it is dropped only when another preferred
// peer (outbound, or inbound with noban) can take over, and never when
// it has the noban permission: then the node looks for another sync peer
// and may ask this one again later.
func (m *Manager) headersTimedOut(sp *peerState) {
	if !m.otherPreferred(sp) {
		return
	}
	if sp.p.HasPermission(peer.PermNoBan) {
		m.log.Infof("Timeout downloading headers from noban peer=%d, not disconnecting", sp.p.ID())
		sp.headersAsked = time.Time{}
		sp.headersDeadline = time.Time{}
		m.setSyncPeer(nil)
		m.pickSyncPeerExcept(sp)
		return
	}
	m.log.Infof("Timeout downloading headers from peer=%d, disconnecting", sp.p.ID())
	m.disconnect(sp, "headers request timed out")
}

// otherPreferred reports another connected peer Core would prefer to
// download from: an outbound one, or an inbound one with noban.
func (m *Manager) otherPreferred(ps *peerState) bool {
	for _, o := range m.peers {
		if o != ps && o.syncCand && o.p.Connected() && (!o.p.Inbound() || o.p.HasPermission(peer.PermNoBan)) {
			return true
		}
	}
	return false
}

func (m *Manager) otherCandidates(ps *peerState) bool {
	for _, o := range m.peers {
		if o != ps && m.canFetch(o) && o.p.Connected() {
			return true
		}
	}
	return false
}

// maybeLogProgress writes the periodic IBD progress line.
func (m *Manager) maybeLogProgress(now time.Time) {
	elapsed := now.Sub(m.lastLog)
	if elapsed < m.cfg.ProgressInterval {
		return
	}
	blocks, txs := m.Processed()
	nb, nt := blocks-m.lastBlocks, txs-m.lastTxs
	m.lastLog, m.lastBlocks, m.lastTxs = now, blocks, txs
	if nb == 0 {
		return
	}
	tip := m.chain.BestSnapshot()
	_, hdr := m.chain.BestHeader()
	progress := 100.0
	if hdr > 0 {
		progress = 100 * float64(tip.Height) / float64(hdr)
	}
	secs := elapsed.Seconds()
	cache := ""
	if m.cfg.CacheUsage != nil {
		used, maxb := m.cfg.CacheUsage()
		cache = ", cache " + itoa(used>>20) + " MiB/" + itoa(maxb>>20) + " MiB"
	}
	m.log.Infof("Processed %d blocks in the last %.2fs (%d transactions, height %d, headers %d, %.1f blocks/s, %.1f tx/s, progress %.2f%%%s)",
		nb, secs, nt, tip.Height, hdr, float64(nb)/secs, float64(nt)/secs, progress, cache)
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
