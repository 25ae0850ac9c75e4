package netsync

import (
	"crypto/rand"
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// Compact block (BIP152) policy, with Bitcoin Core's values.
const (
	// CmpctVersion is the only compact block version we speak: 2 keys
	// short ids on wtxids. Version 1 (txids, no witnesses) is ignored.
	CmpctVersion = 2
	// MaxHighBandwidthPeers is how many peers we ask to push compact
	// blocks unannounced (Core keeps three).
	MaxHighBandwidthPeers = 3
	// MaxCmpctBlockDepth is how deep below the tip a block may be and
	// still be served as cmpctblock on getdata; older ones go out whole
	// (Core's MAX_CMPCTBLOCK_DEPTH).
	MaxCmpctBlockDepth = 5
	// MaxBlockTxnDepth is how deep a block may be for getblocktxn to be
	// answered with blocktxn rather than the whole block (Core's
	// MAX_BLOCKTXN_DEPTH).
	MaxBlockTxnDepth = 10
	// maxPartialBlocks bounds partially reconstructed blocks waiting for
	// blocktxn across all peers (one per peer at most).
	maxPartialBlocks = 3
	// PenaltyBadCmpct scores a malformed compact block, getblocktxn or
	// blocktxn: Core treats them as invalid data.
	PenaltyBadCmpct = 100
)

// cmpctPeer is the compact block state of one peer. The flags are read by
// relay on other goroutines; partial and hbSelected belong to the loop.
type cmpctPeer struct {
	// provides: the peer sent sendcmpct version 2, so it can serve and
	// receive version 2 compact blocks.
	provides atomic.Bool
	// wantsHB: the peer asked us (in its last version 2 sendcmpct) to
	// push new blocks as cmpctblock without announcing them first.
	wantsHB atomic.Bool
	// hbSelected: we asked the peer to push compact blocks to us (set by
	// the loop, read by PeerCompactState).
	hbSelected atomic.Bool
	// partial is the block being reconstructed from this peer's
	// cmpctblock while we wait for its blocktxn.
	partial *partialBlock
}

// cmpctState is the manager's compact block state.
type cmpctState struct {
	// hbPeers are the peers we selected as high-bandwidth, oldest
	// first; loop-owned.
	hbPeers []*peerState
	// partials counts peers with a partial block; loop-owned.
	partials int

	// mu guards the last compact block built for relay and serving, so
	// the short ids of a new tip are computed once for every peer.
	mu        sync.Mutex
	lastHash  wire.Hash
	lastCmpct *wire.MsgCmpctBlock
	// lastBlock is the block of the most recent NTBlockConnected event,
	// so relaying a new tip needs no disk read.
	lastBlock *wire.MsgBlock
	// lastTxs indexes lastTxsOf's transactions by txid and wtxid, for
	// getdata (txserve.go); built on first use.
	lastTxs   map[wire.Hash]*wire.MsgTx
	lastTxsOf *wire.MsgBlock
}

// cmpctNonce returns a random nonce keying a compact block's short ids.
func cmpctNonce() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// initCmpct remembers connected blocks for compact relay.
func (m *Manager) initCmpct() {
	m.chain.Subscribe(func(n *blockchain.Notification) {
		if n.Type == blockchain.NTBlockConnected && n.Block != nil {
			m.cb.mu.Lock()
			m.cb.lastBlock = n.Block
			m.cb.mu.Unlock()
		}
	})
}

// compactOf returns the compact form of block hash, building and caching
// it; blk may be nil, in which case the block is read from the chain.
func (m *Manager) compactOf(hash wire.Hash, blk *wire.MsgBlock) *wire.MsgCmpctBlock {
	m.cb.mu.Lock()
	if m.cb.lastCmpct != nil && m.cb.lastHash == hash {
		c := m.cb.lastCmpct
		m.cb.mu.Unlock()
		return c
	}
	if blk == nil && m.cb.lastBlock != nil && m.cb.lastBlock.BlockHash() == hash {
		blk = m.cb.lastBlock
	}
	m.cb.mu.Unlock()
	if blk == nil {
		var err error
		if blk, err = m.chain.BlockByHash(&hash); err != nil {
			return nil
		}
	}
	c := wire.NewMsgCmpctBlock(blk, cmpctNonce())
	m.cb.mu.Lock()
	m.cb.lastHash, m.cb.lastCmpct = hash, c
	m.cb.mu.Unlock()
	return c
}

// onSendCmpct records a peer's compact block preferences on the loop, so
// they apply after the peer was registered.
func (m *Manager) onSendCmpct(p *peer.Peer, msg *wire.MsgSendCmpct) {
	if msg.Version != CmpctVersion {
		return
	}
	hb := msg.AnnounceHighBandwidth
	m.runOnLoop(func() {
		if ps := m.peers[p]; ps != nil {
			ps.cmpct.provides.Store(true)
			ps.cmpct.wantsHB.Store(hb)
		}
	})
}

// runOnLoop runs fn on the event loop and waits for it, so a peer's
// reader holds at most one message waiting for the loop (bounding the
// memory a peer can make us hold, as for blocks).
func (m *Manager) runOnLoop(fn func()) {
	done := make(chan struct{})
	if !m.post(event{kind: evFunc, fn: fn, done: done}) {
		return
	}
	select {
	case <-done:
	case <-m.quit:
	}
}

// cmpctNewPeer opens compact block negotiation with a witness peer:
// sendcmpct(0, 2), as Core sends after verack.
func (m *Manager) cmpctNewPeer(ps *peerState) {
	if ps.p.Services()&wire.SFNodeWitness == 0 || ps.p.ProtocolVersion() < wire.ShortIDsBlocksVersion {
		return
	}
	ps.p.QueueMessage(&wire.MsgSendCmpct{Version: CmpctVersion}, nil)
}

// cmpctDonePeer forgets a departed peer's compact state.
func (m *Manager) cmpctDonePeer(ps *peerState) {
	m.cmpctDrop(ps)
	for i, o := range m.cb.hbPeers {
		if o == ps {
			m.cb.hbPeers = append(m.cb.hbPeers[:i], m.cb.hbPeers[i+1:]...)
			break
		}
	}
}

// cmpctDrop discards the peer's partial block.
func (m *Manager) cmpctDrop(ps *peerState) {
	if ps.cmpct.partial != nil {
		ps.cmpct.partial = nil
		m.cb.partials--
	}
}

// selectHighBandwidth makes ps, which just gave us a new block first, one
// of our high-bandwidth peers (Core's MaybeSetPeerAsAnnouncingHeaderAndIDs):
// the most recent providers are kept, and when one must go, an outbound
// peer is not replaced by an inbound one if it is the last outbound left.
func (m *Manager) selectHighBandwidth(ps *peerState) {
	// Without a mempool (or in blocks-only mode) pushed compact blocks
	// could not be rebuilt, so, as Core, we never ask for them.
	if m.pool == nil || m.cfg.BlocksOnly || !ps.cmpct.provides.Load() || !ps.p.Connected() {
		return
	}
	hb := m.cb.hbPeers
	for i, o := range hb {
		if o == ps {
			// Already selected: move to the back (most recent).
			copy(hb[i:], hb[i+1:])
			hb[len(hb)-1] = ps
			return
		}
	}
	if len(hb) >= MaxHighBandwidthPeers {
		victim := 0
		if ps.p.Inbound() {
			outbound := 0
			for _, o := range hb {
				if !o.p.Inbound() {
					outbound++
				}
			}
			if outbound == 1 && !hb[0].p.Inbound() {
				victim = 1
			}
		}
		old := hb[victim]
		old.cmpct.hbSelected.Store(false)
		old.p.QueueMessage(&wire.MsgSendCmpct{Version: CmpctVersion}, nil)
		hb = append(hb[:victim], hb[victim+1:]...)
	}
	ps.cmpct.hbSelected.Store(true)
	ps.p.QueueMessage(&wire.MsgSendCmpct{AnnounceHighBandwidth: true, Version: CmpctVersion}, nil)
	m.cb.hbPeers = append(hb, ps)
}

// PeerCompactState reports a peer's BIP152 relay mode as getpeerinfo
// shows it: hbTo when we asked it to push compact blocks to us
// (bip152_hb_to), hbFrom when it asked us to (bip152_hb_from).
func (m *Manager) PeerCompactState(p *peer.Peer) (hbTo, hbFrom bool) {
	m.peersMu.RLock()
	ps := m.peers[p]
	m.peersMu.RUnlock()
	if ps == nil {
		return false, false
	}
	return ps.cmpct.hbSelected.Load(), ps.cmpct.wantsHB.Load()
}

// HighBandwidthPeers returns the peers we asked to push compact blocks.
// It is meant for tests and diagnostics and runs on the loop.
func (m *Manager) HighBandwidthPeers() []*peer.Peer {
	var out []*peer.Peer
	done := make(chan struct{})
	if !m.post(event{kind: evFunc, fn: func() {
		for _, ps := range m.cb.hbPeers {
			out = append(out, ps.p)
		}
	}, done: done}) {
		return nil
	}
	select {
	case <-done:
	case <-m.quit:
	}
	return out
}

// sendCmpctTo pushes a new tip as cmpctblock to a peer that asked for
// high-bandwidth relay, reporting whether it did. Only a block one step
// past our previous announcement, whose parent the peer has, is pushed, so
// the peer can connect it; otherwise the caller announces it as usual.
// Called from announceTip under peersMu.
func (m *Manager) sendCmpctTo(ps *peerState, hash wire.Hash, steps int) bool {
	if steps != 1 || !ps.cmpct.wantsHB.Load() || !ps.cmpct.provides.Load() {
		return false
	}
	c := m.compactOf(hash, nil)
	if c == nil || !ps.isKnown(c.Header.PrevBlock) {
		return false
	}
	return ps.p.QueueMessage(c, nil) == nil
}

// onGetDataCmpct serves getdata entries for compact blocks and passes
// the others, in order, to onGetData.
func (m *Manager) onGetDataCmpct(p *peer.Peer, msg *wire.MsgGetData) {
	has := false
	for i := range msg.InvList {
		if msg.InvList[i].Type == wire.InvTypeCmpctBlock {
			has = true
			break
		}
	}
	if !has {
		m.onGetData(p, msg)
		return
	}
	start := 0
	flush := func(end int) {
		if end > start {
			m.onGetData(p, &wire.MsgGetData{InvList: msg.InvList[start:end]})
		}
	}
	for i, iv := range msg.InvList {
		if iv.Type != wire.InvTypeCmpctBlock {
			continue
		}
		flush(i)
		start = i + 1
		if !p.Connected() {
			return
		}
		m.serveCmpct(p, iv.Hash)
	}
	flush(len(msg.InvList))
}

// serveCmpct answers getdata(MSG_CMPCT_BLOCK): a recent main-chain block
// goes out compact, an older one whole (with witnesses), and an unknown
// one as notfound.
func (m *Manager) serveCmpct(p *peer.Peer, hash wire.Hash) {
	_, height, ok := m.chain.HeaderByHash(&hash)
	if !ok || !m.chain.MainChainHasBlock(&hash) {
		p.QueueMessage(&wire.MsgNotFound{InvList: []wire.InvVect{{Type: wire.InvTypeCmpctBlock, Hash: hash}}}, nil)
		return
	}
	var out wire.Message
	if m.chain.BestSnapshot().Height-height <= MaxCmpctBlockDepth {
		if c := m.compactOf(hash, nil); c != nil {
			out = c
		}
	} else if blk, err := m.chain.BlockByHash(&hash); err == nil {
		out = blk
	}
	if out == nil {
		p.QueueMessage(&wire.MsgNotFound{InvList: []wire.InvVect{{Type: wire.InvTypeCmpctBlock, Hash: hash}}}, nil)
		return
	}
	m.markKnown(p, hash)
	p.QueueMessageWait(out, wire.WitnessEncoding)
}

// onGetBlockTxn answers with the requested transactions of a recent
// block, or the whole block when it is deeper than MaxBlockTxnDepth. An
// index past the block's end scores the peer, as in Core.
func (m *Manager) onGetBlockTxn(p *peer.Peer, msg *wire.MsgGetBlockTxn) {
	_, height, ok := m.chain.HeaderByHash(&msg.BlockHash)
	if !ok {
		m.log.Debugf("getblocktxn from %v for unknown block %v", p, msg.BlockHash)
		return
	}
	var blk *wire.MsgBlock
	m.cb.mu.Lock()
	if lb := m.cb.lastBlock; lb != nil && lb.BlockHash() == msg.BlockHash {
		blk = lb
	}
	m.cb.mu.Unlock()
	if blk == nil {
		var err error
		if blk, err = m.chain.BlockByHash(&msg.BlockHash); err != nil {
			m.log.Debugf("getblocktxn from %v for block %v we cannot read: %v", p, msg.BlockHash, err)
			return
		}
	}
	if m.chain.BestSnapshot().Height-height > MaxBlockTxnDepth {
		p.QueueMessageWait(blk, wire.WitnessEncoding)
		return
	}
	resp := &wire.MsgBlockTxn{BlockHash: msg.BlockHash, Transactions: make([]*wire.MsgTx, len(msg.Indexes))}
	for i, ix := range msg.Indexes {
		if int(ix) >= len(blk.Transactions) {
			p.Misbehaving(PenaltyBadCmpct, "getblocktxn with out-of-bounds tx indices")
			return
		}
		resp.Transactions[i] = blk.Transactions[ix]
	}
	p.QueueMessageWait(resp, wire.WitnessEncoding)
}
