package netsync

import (
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/bloom"
	"github.com/btcnode/btcd/wire"
)

// This file serves transactions and BIP37 filtered blocks to peers, with
// Core's rules for what a peer may learn: mempool transactions only once
// it could have been told about them, the last block's transactions to
// anyone (compact block reconstruction asks for them), and filtered blocks
// only to a peer that loaded a filter.

// txRelayPeer reports whether p takes part in transaction relay at all
// (Core's TxRelay exists): not on a block-relay-only connection, and, when
// we offer it no NODE_BLOOM (which would let it turn relay on later),
// only if its version message asked for transactions. Transaction
// requests from other peers are ignored, not even answered with notfound.
func txRelayPeer(p *peer.Peer) bool {
	if p.ConnType() == peer.ConnBlockRelay {
		return false
	}
	return p.RelayTx() || p.LocalServices()&wire.SFNodeBloom != 0
}

// txForGetData finds the transaction a getdata entry asks for (by txid,
// or by wtxid for MSG_WTX): a mempool transaction that entered before the
// peer's last announcement trickle, so a request cannot reveal one we
// have not announced to it yet (Core's FindTxForGetData), or one of the
// most recent block's transactions. The mempool entry is returned with a
// mempool transaction.
func (m *Manager) txForGetData(p *peer.Peer, iv *wire.InvVect) (*wire.MsgTx, *mempool.Entry) {
	byWtxid := iv.Type == wire.InvTypeWTx
	if m.pool != nil {
		var e *mempool.Entry
		var ok bool
		if byWtxid {
			e, ok = m.pool.GetByWTxID(iv.Hash)
		} else {
			e, ok = m.pool.Get(iv.Hash)
		}
		if ok && e.AnnounceSequence <= p.LastTxInvSequence() {
			return e.Tx, e
		}
	}
	return m.recentBlockTx(&iv.Hash), nil
}

// recentBlockTx returns the transaction of the last connected block whose
// txid or wtxid is h, or nil.
func (m *Manager) recentBlockTx(h *wire.Hash) *wire.MsgTx {
	m.cb.mu.Lock()
	defer m.cb.mu.Unlock()
	blk := m.cb.lastBlock
	if blk == nil {
		return nil
	}
	if m.cb.lastTxs == nil || m.cb.lastTxsOf != blk {
		// Built once per block, on the first request that needs it.
		idx := make(map[wire.Hash]*wire.MsgTx, 2*len(blk.Transactions))
		for _, tx := range blk.Transactions {
			idx[tx.TxHash()] = tx
			idx[tx.WitnessHash()] = tx
		}
		m.cb.lastTxs, m.cb.lastTxsOf = idx, blk
	}
	return m.cb.lastTxs[*h]
}

// serveFilteredBlock answers getdata(MSG_FILTERED_BLOCK) for a block the
// peer may have: a merkleblock proving the transactions its filter
// matches, then those transactions (without witnesses), so it need not
// ask again. A peer without a filter gets nothing, as from Core. It
// reports false when the peer went away.
func (m *Manager) serveFilteredBlock(p *peer.Peer, h *wire.Hash) bool {
	f := p.BloomFilter()
	if f == nil {
		return true
	}
	blk, err := m.chain.BlockByHash(h)
	if err != nil {
		m.log.Debugf("filtered block %v for peer=%d: %v", h, p.ID(), err)
		return true
	}
	mb, matched := bloom.NewMerkleBlock(blk, f)
	if err := p.QueueMessageWait(mb, wire.BaseEncoding); err != nil {
		return false
	}
	for _, i := range matched {
		if err := p.QueueMessageWait(blk.Transactions[i], wire.BaseEncoding); err != nil {
			return false
		}
	}
	return true
}

// onMemPool answers a BIP35 mempool request by announcing every pool
// transaction that passes the peer's fee and bloom filters. As Core, only
// peers we offer NODE_BLOOM (--peerbloomfilters, or the bloomfilter
// permission) or that have the mempool permission may ask, and, once the
// upload target is reached, only the latter; other peers are disconnected
// unless they have the noban permission.
func (m *Manager) onMemPool(p *peer.Peer, _ *wire.MsgMemPool) {
	mempoolPerm := p.HasPermission(peer.PermMempool)
	refuse := func(why string) {
		if !p.HasPermission(peer.PermNoBan) {
			m.log.Debugf("mempool request with %s, disconnecting peer=%d", why, p.ID())
			p.Disconnect()
		}
	}
	if p.LocalServices()&wire.SFNodeBloom == 0 && !mempoolPerm {
		refuse("bloom filters disabled")
		return
	}
	if !mempoolPerm && m.cfg.UploadTargetReached != nil && m.cfg.UploadTargetReached() {
		refuse("bandwidth limit reached")
		return
	}
	if m.pool == nil || !txRelayPeer(p) {
		return
	}
	for _, e := range m.pool.Entries() {
		if p.RelevantTx(e.Tx) {
			p.QueueTxInventory(e.TxID, e.WTxID, int64(e.FeeRate()))
		}
	}
}
