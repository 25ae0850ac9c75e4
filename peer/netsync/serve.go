package netsync

import (
	"bytes"
	"errors"
	"slices"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// poolPeerID is the mempool's name for a peer; 0 means "local" there, so
// peer ids (from 0) are shifted by one.
func poolPeerID(p *peer.Peer) mempool.PeerID { return mempool.PeerID(p.ID()) + 1 }

// requestTxs records a peer's transaction announcements with the request
// tracker (txrequest.go) and sends the peer the requests now due. It runs
// on the peer's reader goroutine.
func (m *Manager) requestTxs(p *peer.Peer, invs []wire.InvVect) {
	if m.pool == nil || m.cfg.BlocksOnly || !m.IsCurrent() {
		return
	}
	now := clock.Now()
	a := txAnnouncer(p)
	wtxidPeers := m.wtxidPeers.Load() > 0
	m.txReqMu.Lock()
	defer m.txReqMu.Unlock()
	for _, iv := range invs {
		var gtx genTxID
		switch iv.Type &^ wire.InvWitnessFlag {
		case wire.InvTypeWTx:
			gtx = genTxID{hash: iv.Hash, wtxid: true}
		case wire.InvTypeTx:
			gtx = genTxID{hash: iv.Hash}
		default:
			continue
		}
		// An announced orphan we hold gains the peer as a source to ask
		// for its missing parents (Core's orphan resolution candidate).
		if orphan, added := m.pool.AddOrphanAnnouncer(iv.Hash, poolPeerID(p)); orphan != nil {
			if added && m.requestParents(p, a, orphan, wtxidPeers, now) {
				m.log.Debugf("added peer=%d as a candidate for resolving orphan %v", p.ID(), orphan.WitnessHash())
			}
			continue
		}
		if m.haveTx(gtx, true) {
			continue
		}
		m.txreq.receivedInv(a, gtx, wtxidPeers, now)
	}
	m.sendTxRequests(p, now)
}

// requestParents enters the missing parents of an orphan into the
// request tracker as announced by p, by txid, so they are requested like
// any announced transaction: from p after the usual delays, and from
// the orphan's next announcer when p does not answer. As in Core, a
// parent refused only for its fee rate is still wanted (with this child
// it may pass as a package), and a peer that cannot take all of them
// under its announcement cap is not asked for any. It reports whether
// any parent was entered. txReqMu must be held.
func (m *Manager) requestParents(p *peer.Peer, a announcer, orphan *wire.MsgTx, wtxidPeers bool, now time.Time) bool {
	// Sorted and deduplicated first: an orphan may spend thousands of
	// outputs, often of few transactions, and each check takes the
	// pool's lock.
	parents := make([]wire.Hash, len(orphan.TxIn))
	for i := range orphan.TxIn {
		parents[i] = orphan.TxIn[i].PreviousOutPoint.Hash
	}
	slices.SortFunc(parents, func(x, y wire.Hash) int { return bytes.Compare(x[:], y[:]) })
	parents = slices.Compact(parents)
	parents = slices.DeleteFunc(parents, func(h wire.Hash) bool {
		return m.pool.HaveOrphan(h) || m.haveTx(genTxID{hash: h}, false)
	})
	if len(parents) == 0 || (!a.relayPerm && m.txreq.count(p.ID())+len(parents) > maxPeerTxAnnouncements) {
		return false
	}
	entered := false
	for _, h := range parents {
		entered = m.txreq.receivedInv(a, genTxID{hash: h}, wtxidPeers, now) || entered
	}
	return entered
}

// txAnnouncer describes p to the request tracker. As in Core, outbound
// peers (other than address fetches) and inbound ones with noban are
// preferred.
func txAnnouncer(p *peer.Peer) announcer {
	preferred := (!p.Inbound() || p.HasPermission(peer.PermNoBan)) && p.ConnType() != peer.ConnAddrFetch
	return announcer{id: p.ID(), preferred: preferred, relayPerm: p.HasPermission(peer.PermRelay)}
}

// haveTx reports a transaction not worth fetching: in the pool, or
// refused. A transaction refused only for its fee rate counts when
// reconsiderable is set: as in Core, such a transaction is not taken
// from announcements again, but is still fetched as an orphan's parent,
// which the orphan may pay for.
func (m *Manager) haveTx(gtx genTxID, reconsiderable bool) bool {
	var inPool bool
	if gtx.wtxid {
		inPool = m.pool.HasWTxID(gtx.hash)
	} else {
		inPool = m.pool.Has(gtx.hash)
	}
	if inPool {
		return true
	}
	if reconsiderable {
		return m.isRejected(gtx.hash)
	}
	return m.rejectedForGood(gtx.hash)
}

// sendTxRequests sends p one getdata for the transactions the tracker
// has due from it at now. txReqMu must be held.
func (m *Manager) sendTxRequests(p *peer.Peer, now time.Time) {
	due, expired := m.txreq.requestable(p.ID(), now)
	for _, e := range expired {
		m.log.Debugf("timeout of inflight %s %v from peer=%d", gtxKind(e.gtx), e.gtx.hash, e.peer)
	}
	if len(due) == 0 || !p.Connected() {
		return
	}
	var want []wire.InvVect
	for _, gtx := range due {
		if m.haveTx(gtx, false) {
			m.txreq.forget(gtx.hash)
			continue
		}
		typ := wire.InvTypeWitnessTx
		if gtx.wtxid {
			typ = wire.InvTypeWTx
		}
		m.log.Debugf("Requesting %s %v peer=%d", gtxKind(gtx), gtx.hash, p.ID())
		want = append(want, wire.InvVect{Type: typ, Hash: gtx.hash})
		m.txreq.requested(p.ID(), gtx.hash, now.Add(txGetDataInterval))
		if len(want) == wire.MaxInvPerMsg {
			p.QueueMessage(&wire.MsgGetData{InvList: want}, nil)
			want = nil
		}
	}
	if len(want) > 0 {
		p.QueueMessage(&wire.MsgGetData{InvList: want}, nil)
	}
}

// gtxKind is Core's log word for an announcement's type.
func gtxKind(gtx genTxID) string {
	if gtx.wtxid {
		return "wtx"
	}
	return "tx"
}

// txRequestTick sends every peer its transaction requests that came due
// (delays passed, other announcers' requests timed out). It runs on the
// loop.
func (m *Manager) txRequestTick(now time.Time) {
	if m.pool == nil {
		return
	}
	m.txReqMu.Lock()
	defer m.txReqMu.Unlock()
	for p := range m.peers {
		m.sendTxRequests(p, now)
	}
}

// txNotFound handles a peer's notfound for transactions: the next
// announcer is asked at once.
func (m *Manager) txNotFound(p *peer.Peer, hs []wire.Hash) {
	m.txReqMu.Lock()
	for _, h := range hs {
		m.txreq.receivedResponse(p.ID(), h)
	}
	m.txReqMu.Unlock()
	m.txRequestTick(clock.Now())
}

// txPeerGone drops a departed peer's announcements; what it was asked
// for goes to the next announcer at once.
func (m *Manager) txPeerGone(p *peer.Peer) {
	if p.WantsWtxid() {
		m.wtxidPeers.Add(-1)
	}
	m.txReqMu.Lock()
	m.txreq.disconnectedPeer(p.ID())
	m.txReqMu.Unlock()
	m.txRequestTick(clock.Now())
}

// txArrived forgets every announcement of a transaction that arrived.
func (m *Manager) txArrived(hs ...wire.Hash) {
	m.txReqMu.Lock()
	for _, h := range hs {
		m.txreq.forget(h)
	}
	m.txReqMu.Unlock()
}

func (m *Manager) isRejected(h wire.Hash) bool {
	m.rejectMu.Lock()
	_, ok := m.rejected[h]
	m.rejectMu.Unlock()
	return ok
}

// addRejected remembers transactions refused for good.
func (m *Manager) addRejected(hs ...wire.Hash) { m.noteRejected(true, hs...) }

// noteRejected remembers refused transactions; final is false for those
// refused only for their own fee rate, which a child may yet pay for, so
// their children are still kept as orphans.
func (m *Manager) noteRejected(final bool, hs ...wire.Hash) {
	m.rejectMu.Lock()
	if len(m.rejected) >= maxRejected {
		clear(m.rejected)
	}
	for _, h := range hs {
		m.rejected[h] = m.rejected[h] || final
	}
	m.rejectMu.Unlock()
}

// ClearRejected forgets rejected transactions (after a new tip, a
// transaction that failed may have become valid).
func (m *Manager) ClearRejected() {
	m.rejectMu.Lock()
	clear(m.rejected)
	m.rejectMu.Unlock()
}

// onTx hands a relayed transaction to the mempool; accepted ones are
// announced through the mempool's OnAccept hook (RelayTransaction).
func (m *Manager) onTx(p *peer.Peer, tx *wire.MsgTx) {
	if m.pool == nil {
		return
	}
	if !m.IsCurrent() {
		// As Core: unsolicited transactions are dropped unprocessed
		// during initial download (no punishment; we could not
		// validate them).
		return
	}
	txid := tx.TxHash()
	wtxid := tx.WitnessHash()
	p.AddKnownInventory(txid)
	p.AddKnownInventory(wtxid)
	m.txArrived(txid, wtxid)
	if m.alreadyHave(p, txid, wtxid) {
		return
	}
	// A transaction spending an output of one we refused is not kept as
	// an orphan (Core's "rejected parents"): that parent will not be
	// asked for again, so the orphan could only sit until it expired.
	rejectedParent := m.spendsRejected(tx)
	_, orphaned, err := m.pool.ProcessTransaction(tx, poolPeerID(p), !rejectedParent)
	if orphaned || (err != nil && !errors.Is(err, mempool.ErrConsensus)) {
		// Not in our pool, but it may be in a block: kept for compact
		// block reconstruction. An invalid one cannot be.
		m.extra.add(tx, wtxid)
	}
	if orphaned {
		// bitcoind logs an orphan as not accepted too (its state is
		// missing inputs) before keeping it.
		m.log.Debugf("%v (wtxid=%v) from peer=%d was not accepted: %s", txid, wtxid, p.ID(), mempool.ReasonMissingInputs)
		// The sender must have had the parents: they are requested from
		// it through the tracker, so another announcer of this orphan is
		// asked when it does not answer.
		now := clock.Now()
		m.txReqMu.Lock()
		m.requestParents(p, txAnnouncer(p), tx, m.wtxidPeers.Load() > 0, now)
		m.sendTxRequests(p, now)
		m.txReqMu.Unlock()
		return
	}
	if err == nil {
		p.MarkNewTx()
		return
	}
	// bitcoind's words (the error is its validation state), logged
	// before any punishment as bitcoind does, so the line is there even
	// when the peer is dropped for it.
	m.log.Debugf("%v (wtxid=%v) from peer=%d was not accepted: %v", txid, wtxid, p.ID(), err)
	if rejectedParent && mempool.IsMissingInputs(err) {
		m.log.Debugf("not keeping orphan with rejected parents %v (wtxid=%v)", txid, wtxid)
		m.addRejected(wtxid, txid)
		return
	}
	if errors.Is(err, mempool.ErrConsensus) {
		p.Misbehaving(PenaltyBadTx, "invalid transaction")
	}
	if !mempool.IsMissingInputs(err) {
		m.noteRejected(!errors.Is(err, mempool.ErrReconsiderable), wtxid, txid)
	}
	if m.cfg.OnTxRejected != nil {
		m.cfg.OnTxRejected(err)
	}
}

// alreadyHave reports whether a transaction that arrived is one the pool
// holds or one refused for good, which bitcoind does not validate again
// (no rejection is logged either). From a peer with the forcerelay
// permission a pool transaction is announced to everyone again, so the
// node can be the gateway of nodes hidden behind it.
func (m *Manager) alreadyHave(p *peer.Peer, txid, wtxid wire.Hash) bool {
	_, inPool := m.pool.GetByWTxID(wtxid)
	if !inPool && !m.rejectedForGood(wtxid) {
		return false
	}
	if p.HasPermission(peer.PermForceRelay) {
		if e, ok := m.pool.Get(txid); ok {
			m.log.Infof("Force relaying tx %v (wtxid=%v) from peer=%d", txid, wtxid, p.ID())
			m.RelayTransaction(e)
		} else {
			m.log.Infof("Not relaying non-mempool transaction %v (wtxid=%v) from forcerelay peer=%d", txid, wtxid, p.ID())
		}
	}
	return true
}

// rejectedForGood reports whether h was refused for a reason other than
// its own fee rate.
func (m *Manager) rejectedForGood(h wire.Hash) bool {
	m.rejectMu.Lock()
	defer m.rejectMu.Unlock()
	return m.rejected[h]
}

// spendsRejected reports whether tx spends an output of a transaction
// recently refused for good, or of two or more refused for their fee
// rate: as in Core, only a single parent can be paid for by a child
// (one-parent-one-child), so such a child is not worth keeping either.
func (m *Manager) spendsRejected(tx *wire.MsgTx) bool {
	m.rejectMu.Lock()
	defer m.rejectMu.Unlock()
	if len(m.rejected) == 0 {
		return false
	}
	var cheap wire.Hash
	nCheap := 0
	for i := range tx.TxIn {
		h := tx.TxIn[i].PreviousOutPoint.Hash
		final, ok := m.rejected[h]
		if !ok {
			continue
		}
		if final {
			return true
		}
		if m.pool.Has(h) {
			// Entered since, with a child paying for it.
			continue
		}
		if nCheap == 0 || h != cheap {
			cheap = h
			nCheap++
		}
	}
	return nCheap > 1
}

// OrphanRejected handles an orphan the mempool refused once its parents
// arrived (mempool.Config.OnOrphanRejected): it is logged with the reason,
// remembered as rejected, and its sender is punished as for sending an
// invalid transaction directly.
func (m *Manager) OrphanRejected(r mempool.RejectedOrphan) {
	from := m.peerByPoolID(r.From)
	id := int32(-1)
	if from != nil {
		id = from.ID()
	}
	m.log.Debugf("invalid orphan tx %v (wtxid=%v) from peer=%d: %v", r.TxID, r.WTxID, id, r.Err)
	m.noteRejected(!errors.Is(r.Err, mempool.ErrReconsiderable), r.WTxID, r.TxID)
	if from != nil && errors.Is(r.Err, mempool.ErrConsensus) {
		from.Misbehaving(PenaltyBadTx, "invalid orphan transaction")
	}
	if m.cfg.OnTxRejected != nil {
		m.cfg.OnTxRejected(r.Err)
	}
}

// peerByPoolID returns the connected peer the mempool knows as id, or nil.
func (m *Manager) peerByPoolID(id mempool.PeerID) *peer.Peer {
	if id <= 0 {
		return nil
	}
	m.peersMu.RLock()
	defer m.peersMu.RUnlock()
	for p := range m.peers {
		if poolPeerID(p) == id {
			return p
		}
	}
	return nil
}

// onGetHeaders answers with up to 2,000 main-chain headers after the
// locator.
func (m *Manager) onGetHeaders(p *peer.Peer, msg *wire.MsgGetHeaders) {
	var stop *wire.Hash
	if msg.HashStop != (wire.Hash{}) {
		stop = &msg.HashStop
	}
	var headers []wire.BlockHeader
	if len(msg.BlockLocatorHashes) == 0 {
		// Core answers a request without locator with just the stop
		// header, and nothing at all (not even an empty headers) when
		// it does not know the block or the block is an old fork.
		if stop == nil {
			return
		}
		h, _, ok := m.chain.HeaderByHash(stop)
		if !ok {
			return
		}
		if !m.blockRequestAllowed(stop) {
			m.log.Debugf("ignoring request from peer=%d for old block header that isn't in the main chain", p.ID())
			return
		}
		headers = []wire.BlockHeader{h}
	} else {
		headers = m.chain.LocateHeaders(msg.BlockLocatorHashes, stop, wire.MaxBlockHeadersPerMsg)
	}
	if n := len(headers); n > 0 {
		m.markKnown(p, headers[n-1].BlockHash())
	}
	p.QueueMessageWait(&wire.MsgHeaders{Headers: headers}, wire.WitnessEncoding)
}

// historicalLimitReached reports whether serving block h to p would break
// --maxuploadtarget: the block is historical and p lacks the download
// permission.
func (m *Manager) historicalLimitReached(p *peer.Peer, h *wire.Hash) bool {
	if m.cfg.RefuseHistoricalBlock == nil || p.HasPermission(peer.PermDownload) {
		return false
	}
	st, ok := m.chain.LookupBlock(h)
	return ok && m.cfg.RefuseHistoricalBlock(int64(st.Header.Timestamp))
}

// limitedServeDepth is how far below the tip a pruned node serves blocks:
// NODE_NETWORK_LIMITED's 288 plus Core's two-block margin for races.
const limitedServeDepth = 288 + 2

// belowLimitedThreshold reports whether p asks a pruned node (one that
// announces NODE_NETWORK_LIMITED without NODE_NETWORK) for a block deeper
// than it promises to serve. As Core, such a request is not answered but
// ends the connection, so the peer neither learns the prune height nor
// waits for a block that will not come; noban peers are exempt.
func (m *Manager) belowLimitedThreshold(p *peer.Peer, h *wire.Hash) bool {
	if !m.chain.Pruned() || p.HasPermission(peer.PermNoBan) {
		return false
	}
	st, ok := m.chain.LookupBlock(h)
	return ok && m.chain.BestSnapshot().Height-st.Height > limitedServeDepth
}

// staleRelayAgeLimit is how old, in time and in work, a block off the
// main chain may be and still be served (Core's STALE_RELAY_AGE_LIMIT).
const staleRelayAgeLimit = 30 * 24 * time.Hour

// blockRequestAllowed reports whether a peer may have block h: any main
// chain block, and fully validated blocks of recent forks, as Core's
// BlockRequestAllowed. Older forks stay private so a peer cannot tell
// nodes apart by the stale blocks they keep.
func (m *Manager) blockRequestAllowed(h *wire.Hash) bool {
	st, ok := m.chain.LookupBlock(h)
	if !ok {
		return false
	}
	if st.MainChain {
		return true
	}
	if !st.Valid {
		return false
	}
	best, bestHeight, ok := m.bestHeader()
	if !ok {
		return false
	}
	age := time.Duration(int64(best.Timestamp)-int64(st.Header.Timestamp)) * time.Second
	// The work between the block and the best header, as time at the
	// target spacing (Core's GetBlockProofEquivalentTime, with equal
	// work per block).
	work := time.Duration(bestHeight-st.Height) * m.chain.Params().TargetTimePerBlock
	return age < staleRelayAgeLimit && work < staleRelayAgeLimit
}

// markKnown records that p now knows about block h.
func (m *Manager) markKnown(p *peer.Peer, h wire.Hash) {
	m.peersMu.RLock()
	ps := m.peers[p]
	m.peersMu.RUnlock()
	if ps != nil {
		ps.addKnown(h)
	}
}

// onGetBlocks answers with an inv of up to 500 main-chain blocks.
func (m *Manager) onGetBlocks(p *peer.Peer, msg *wire.MsgGetBlocks) {
	var stop *wire.Hash
	if msg.HashStop != (wire.Hash{}) {
		stop = &msg.HashStop
	}
	headers := m.chain.LocateHeaders(msg.BlockLocatorHashes, stop, wire.MaxBlocksPerMsg)
	if len(headers) == 0 {
		return
	}
	inv := &wire.MsgInv{InvList: make([]wire.InvVect, len(headers))}
	for i := range headers {
		inv.InvList[i] = wire.InvVect{Type: wire.InvTypeBlock, Hash: headers[i].BlockHash()}
	}
	p.QueueMessageWait(inv, wire.WitnessEncoding)
}

// onGetData serves blocks and mempool transactions; what we lack is
// listed in one notfound.
func (m *Manager) onGetData(p *peer.Peer, msg *wire.MsgGetData) {
	var notFound []wire.InvVect
	// Witness blocks go out as their stored bytes (encoding copies them
	// into the send queue, so one buffer serves the whole request).
	var raw *wire.MsgRawBlock
	defer func() {
		if raw != nil {
			wire.PutBuffer(&raw.Raw)
		}
	}()
	for _, iv := range msg.InvList {
		if !p.Connected() {
			return
		}
		enc := wire.BaseEncoding
		if iv.Type&wire.InvWitnessFlag != 0 || iv.Type == wire.InvTypeWTx {
			enc = wire.WitnessEncoding
		}
		var out wire.Message
		var servedTx *mempool.Entry
		switch iv.Type &^ wire.InvWitnessFlag {
		case wire.InvTypeBlock, wire.InvTypeFilteredBlock:
			if !m.blockRequestAllowed(&iv.Hash) {
				// As Core: no answer at all, not even notfound, so old
				// forks cannot be used to fingerprint the node.
				m.log.Debugf("ignoring request from peer=%d for old block that isn't in the main chain", p.ID())
				continue
			}
			if m.historicalLimitReached(p, &iv.Hash) {
				m.log.Debugf("historical block serving limit reached, disconnecting peer=%d", p.ID())
				p.Disconnect()
				return
			}
			if m.belowLimitedThreshold(p, &iv.Hash) {
				m.log.Debugf("Ignore block request below NODE_NETWORK_LIMITED threshold, disconnecting peer=%d", p.ID())
				p.Disconnect()
				return
			}
			if iv.Type&^wire.InvWitnessFlag == wire.InvTypeFilteredBlock {
				if !m.serveFilteredBlock(p, &iv.Hash) { // txserve.go
					return
				}
				continue
			}
			if enc == wire.WitnessEncoding {
				if raw == nil {
					raw = &wire.MsgRawBlock{Raw: *wire.GetBuffer(1 << 20)}
				}
				b, err := m.chain.BlockBytesByHash(&iv.Hash, raw.Raw[:0])
				if err == nil {
					raw.Raw = b
					out = raw
				}
			} else if blk, err := m.chain.BlockByHash(&iv.Hash); err == nil {
				out = blk
			}
		case wire.InvTypeTx, wire.InvTypeWTx:
			if !txRelayPeer(p) {
				continue // as Core: no answer, not even notfound
			}
			if tx, e := m.txForGetData(p, &iv); tx != nil { // txserve.go
				out, servedTx = tx, e
			}
		}
		if out == nil {
			notFound = append(notFound, iv)
			continue
		}
		if err := p.QueueMessageWait(out, enc); err != nil {
			return
		}
		if servedTx != nil {
			// A peer has it now: locally submitted transactions stop
			// being re-announced (Core's RemoveUnbroadcastTx).
			m.pool.RemoveUnbroadcast(servedTx.TxID)
		}
	}
	if len(notFound) > 0 {
		p.QueueMessage(&wire.MsgNotFound{InvList: notFound}, nil)
	}
}
