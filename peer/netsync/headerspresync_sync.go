package netsync

import (
	"errors"
	"math/big"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// presyncLogInterval rate-limits the presync progress line (as Core's
// header presync notifications).
const presyncLogInterval = 250 * time.Millisecond

// PresyncedHeaders returns the height a peer's headers presync reached, or
// -1 when the peer is not being presynced (getpeerinfo's
// presynced_headers).
func (m *Manager) PresyncedHeaders(p *peer.Peer) int32 {
	m.peersMu.RLock()
	ps := m.peers[p]
	m.peersMu.RUnlock()
	if ps == nil {
		return -1
	}
	return ps.presyncH.Load() - 1
}

func (m *Manager) presyncParams() (period int64, buf int) {
	period, buf = DefaultPresyncCommitPeriod, DefaultPresyncBuffer
	if m.cfg.PresyncCommitPeriod > 0 {
		period = int64(m.cfg.PresyncCommitPeriod)
	}
	if m.cfg.PresyncBuffer > 0 {
		buf = m.cfg.PresyncBuffer
	}
	return period, buf
}

// antiDoSWork is the work a header chain must have to be stored without
// presync (Core's GetAntiDoSWorkThreshold): the minimum chain work, or if
// more, the tip's work less that of antiDoSTipBlocks blocks like the tip,
// so that a synced node is not made to store cheap forks off old blocks.
func (m *Manager) antiDoSWork() blockchain.Work {
	w := m.chain.MinimumChainWork()
	tip := m.chain.BestSnapshot()
	proof := blockchain.CalcWork(tip.Bits).Big()
	near := proof.Mul(proof, big.NewInt(antiDoSTipBlocks))
	if tw := tip.ChainWork.Big(); tw.Cmp(near) > 0 {
		if nw := blockchain.WorkFromBig(tw.Sub(tw, near)); nw.Cmp(w) > 0 {
			w = nw
		}
	}
	return w
}

// antiDoSTipBlocks is how many blocks of work below the tip a header chain
// may start and still be stored without presync (a day of blocks, as
// Core).
const antiDoSTipBlocks = 144

// maybeStartPresync decides whether headers that connect to the tree at
// their first header's parent need presync: their chain's work (the
// parent's plus what the headers claim) is below antiDoSWork and their
// last header is not already stored. It reports whether the
// message was taken by presync (started, or ignored as a low-work chain
// the peer has no more of).
func (m *Manager) maybeStartPresync(ps *peerState, headers []wire.BlockHeader) bool {
	minWork := m.antiDoSWork()
	if minWork.Cmp(blockchain.Work{}) == 0 {
		return false
	}
	lastHash := headers[len(headers)-1].BlockHash()
	if _, ok := m.chain.LookupBlock(&lastHash); ok {
		return false
	}
	st, ok := m.chain.LookupBlock(&headers[0].PrevBlock)
	if !ok {
		return false
	}
	work := st.ChainWork
	for i := range headers {
		work = work.Add(blockchain.CalcWork(headers[i].Bits))
	}
	if work.Cmp(minWork) >= 0 {
		return false
	}
	if len(headers) != wire.MaxBlockHeadersPerMsg {
		// The peer has no more of this chain: nothing to presync.
		m.log.Debugf("Ignoring low-work chain (height=%d) from %v", st.Height+int32(len(headers)), ps.p)
		return true
	}
	period, buf := m.presyncParams()
	start := chainPoint{
		hash:   st.Hash,
		height: st.Height,
		bits:   st.Header.Bits,
		time:   st.Header.Timestamp,
		work:   st.ChainWork,
	}
	ps.presync = newHeadersPresync(m.chain.Params(), minWork, period, buf, start, st.MedianTime, clock.Now())
	m.log.Debugf("Starting headers presync with %v from height %d", ps.p, st.Height)
	m.continuePresync(ps, headers)
	return true
}

// continuePresync feeds a headers message to the peer's presync. A
// message that does not continue the walk ends the presync quietly (an
// announcement, say) and is handled as if none were running; it reports
// false then.
func (m *Manager) continuePresync(ps *peerState, headers []wire.BlockHeader) bool {
	s := ps.presync
	if len(headers) > 0 && !s.continues(&headers[0]) {
		m.endPresync(ps)
		return false
	}
	startLoc := m.chain.BlockLocator(&s.start.hash)
	res, err := s.process(headers, len(headers) == wire.MaxBlockHeadersPerMsg, startLoc)
	if s.phase == phasePresync {
		ps.presyncH.Store(s.presyncHeight() + 1)
		m.logPresync(s)
	}
	if len(res.release) > 0 && !m.releasePresynced(ps, res.release) {
		m.endPresync(ps)
		return true
	}
	switch {
	case errors.Is(err, ErrPresyncLowWork):
		m.log.Debugf("Headers presync with %v ended: %v", ps.p, err)
		m.endPresync(ps)
	case err != nil:
		m.log.Infof("Headers presync with %v failed: %v", ps.p, err)
		m.endPresync(ps)
		// As for any misbehaviour, a noban peer is kept (it was still
		// presynced, as in Core).
		if !ps.p.Misbehaving(PenaltyInvalid, err.Error()) {
			m.dropInvalid(ps, "headers presync failed")
		}
	case s.phase == phaseFinal:
		m.log.Debugf("Headers presync with %v complete at height %d", ps.p, s.redl.height)
		m.endPresync(ps)
		if len(headers) == wire.MaxBlockHeadersPerMsg {
			last := s.redl.hash
			m.sendLocator(ps, m.chain.BlockLocator(&last))
		}
	case res.locator != nil:
		if s.phase == phaseRedownload && len(res.release) == 0 && s.redl.height == s.start.height {
			m.log.Debugf("Headers presync with %v reached the minimum chain work at height %d, redownloading", ps.p, s.last.height)
		}
		m.sendLocator(ps, res.locator)
	}
	m.fill()
	return true
}

// releasePresynced hands headers checked against their commitments to the
// chain; false means the chain refused them (the peer was punished).
func (m *Manager) releasePresynced(ps *peerState, headers []wire.BlockHeader) bool {
	lastHash, lastHeight, err := m.chain.ProcessHeaders(headers)
	if lastHeight >= 0 {
		ps.p.UpdateLastBlockHeight(lastHeight)
		ps.noteBest(lastHash, lastHeight)
		ps.addKnown(lastHash)
	}
	if err == nil {
		return true
	}
	var re *blockchain.RuleError
	if errors.As(err, &re) {
		m.log.Infof("Invalid headers from %v: %v", ps.p, err)
		ps.p.Misbehaving(PenaltyInvalid, "invalid header: "+re.Reason)
		m.dropInvalid(ps, "invalid header")
		return false
	}
	m.log.Errorf("Processing headers from %v: %v", ps.p, err)
	return false
}

func (m *Manager) endPresync(ps *peerState) {
	ps.presync = nil
	ps.presyncH.Store(0)
}

// sendLocator asks ps for headers after locator.
func (m *Manager) sendLocator(ps *peerState, locator []wire.Hash) {
	ps.headersAsked = clock.Now()
	ps.lastHeadersAsk = ps.headersAsked
	ps.p.QueueMessage(&wire.MsgGetHeaders{
		ProtocolVersion:    wire.ProtocolVersion,
		BlockLocatorHashes: locator,
	}, nil)
}

// logPresync writes Core's presync progress line, at most every
// presyncLogInterval, while the chain is not current.
func (m *Manager) logPresync(s *headersPresync) {
	now := time.Now()
	if m.IsCurrent() || now.Sub(m.presyncLog) < presyncLogInterval {
		return
	}
	m.presyncLog = now
	spacing := m.chain.Params().TargetTimePerBlock.Seconds()
	h := float64(s.last.height)
	left := max(float64(clock.Now().Unix()-int64(s.last.time))/spacing, 0)
	m.log.Infof("Pre-synchronizing blockheaders, height: %d (~%.2f%%)", s.last.height, 100*h/(h+left))
}

// continues reports whether h is the next header of the current walk.
func (s *headersPresync) continues(h *wire.BlockHeader) bool {
	switch s.phase {
	case phasePresync:
		return h.PrevBlock == s.last.hash
	case phaseRedownload:
		return h.PrevBlock == s.redl.hash
	}
	return false
}
