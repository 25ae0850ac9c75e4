package netsync

import (
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// Outbound peers whose chain falls behind ours are dropped, as Core's
// ConsiderEviction: an outbound peer (full relay or block relay only)
// whose best known block has less work than our tip is given
// chainSyncTimeout to announce a chain with at least the work our tip had
// when the timer started; then it gets one getheaders from that block's
// parent and headersResponseTime to answer with enough work, else it is
// disconnected. Up to maxProtectedOutbound full-relay peers that once
// showed a chain with our tip's work are exempt, so a node whose own tip
// runs ahead (it mines, or a peer is briefly slow) keeps some peers.
const (
	chainSyncTimeout     = 20 * time.Minute // Core's CHAIN_SYNC_TIMEOUT
	headersResponseTime  = 2 * time.Minute  // Core's HEADERS_RESPONSE_TIME
	maxProtectedOutbound = 4                // Core's MAX_OUTBOUND_PEERS_TO_PROTECT_FROM_DISCONNECT
)

// chainSync is a peer's eviction timer (Core's ChainSyncTimeoutState).
type chainSync struct {
	timeout    time.Time // zero: not running
	workHeader wire.Hash // our tip when the timer started
	workSet    bool
	sentGetHdr bool
	protect    bool
}

// subjectToEviction reports whether the chain-sync timer applies to ps.
func subjectToEviction(ps *peerState) bool {
	ct := ps.p.ConnType()
	return (ct == peer.ConnFullRelay || ct == peer.ConnBlockRelay) && !ps.chainSync.protect && ps.syncStarted
}

// bestKnownWork returns the chain work of the peer's best known block, if
// the block is in our header tree.
func (m *Manager) bestKnownWork(ps *peerState) (blockchain.Work, bool) {
	if ps.bestHash == (wire.Hash{}) {
		return blockchain.Work{}, false
	}
	st, ok := m.chain.LookupBlock(&ps.bestHash)
	return st.ChainWork, ok
}

// tipWork returns our tip's hash and chain work.
func (m *Manager) tipWork() (wire.Hash, blockchain.Work, bool) {
	tip := m.chain.BestSnapshot().Hash
	st, ok := m.chain.LookupBlock(&tip)
	return tip, st.ChainWork, ok
}

// considerEviction runs ps's chain-sync timer at now.
func (m *Manager) considerEviction(ps *peerState, now time.Time) {
	if !subjectToEviction(ps) || !ps.p.Connected() {
		return
	}
	cs := &ps.chainSync
	tip, tipWork, ok := m.tipWork()
	if !ok {
		return
	}
	peerWork, known := m.bestKnownWork(ps)
	switch {
	case known && peerWork.Cmp(tipWork) >= 0:
		*cs = chainSync{protect: cs.protect}
	case cs.timeout.IsZero() || (cs.workSet && known && peerWork.Cmp(m.workOf(&cs.workHeader)) >= 0):
		cs.timeout = now.Add(chainSyncTimeout)
		cs.workHeader, cs.workSet = tip, true
		cs.sentGetHdr = false
	case now.After(cs.timeout):
		if cs.sentGetHdr {
			m.log.Infof("Outbound peer has old chain, best known block = %v, peer=%d", bestKnownName(ps, known), ps.p.ID())
			m.disconnect(ps, "old chain")
			return
		}
		from := cs.workHeader
		if h, _, ok := m.chain.HeaderByHash(&cs.workHeader); ok && h.PrevBlock != (wire.Hash{}) {
			from = h.PrevBlock
		}
		m.log.Debugf("sending getheaders to outbound peer=%d to verify chain work (current best known block:%s, benchmark blockhash: %v)",
			ps.p.ID(), bestKnownName(ps, known), cs.workHeader)
		m.sendGetHeadersFrom(ps, from)
		cs.sentGetHdr = true
		cs.timeout = now.Add(headersResponseTime)
	}
}

// workOf returns the chain work of a block in the header tree (zero if
// it is unknown).
func (m *Manager) workOf(h *wire.Hash) blockchain.Work {
	st, _ := m.chain.LookupBlock(h)
	return st.ChainWork
}

func bestKnownName(ps *peerState, known bool) string {
	if !known {
		return "<none>"
	}
	return ps.bestHash.String()
}

// maybeProtect exempts a full-relay outbound peer from the chain-sync
// timer once it has shown a chain with at least our tip's work, while
// fewer than maxProtectedOutbound peers are (Core grants it when the
// peer's headers arrive; block-relay-only peers never get it).
func (m *Manager) maybeProtect(ps *peerState) {
	if ps.chainSync.protect || ps.p.ConnType() != peer.ConnFullRelay || m.protectedOutbound >= maxProtectedOutbound || !ps.p.Connected() {
		return
	}
	peerWork, known := m.bestKnownWork(ps)
	_, tipWork, ok := m.tipWork()
	if !known || !ok || peerWork.Cmp(tipWork) < 0 {
		return
	}
	m.log.Debugf("Protecting outbound peer=%d from eviction", ps.p.ID())
	ps.chainSync.protect = true
	m.protectedOutbound++
}

// unprotect releases ps's protection slot when it goes.
func (m *Manager) unprotect(ps *peerState) {
	if ps.chainSync.protect {
		ps.chainSync.protect = false
		m.protectedOutbound--
	}
}
