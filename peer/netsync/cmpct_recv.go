package netsync

import (
	"errors"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// Reasons a compact block cannot be used. errBadCmpct means the message
// is malformed (the sender is scored); errCmpctCollision means two
// transactions share a short id, which is bad luck or a grinding attack
// but not provably the sender's fault, so the full block is fetched.
var (
	errBadCmpct       = errors.New("invalid compact block")
	errCmpctCollision = errors.New("short id collision")
)

// partialBlock is a block being rebuilt from a compact block: txs[i] is
// nil where the transaction is still missing.
type partialBlock struct {
	hash    wire.Hash
	header  wire.BlockHeader
	txs     []*wire.MsgTx
	missing []uint32
}

// newPartialBlock places the prefilled transactions of c and fills the
// short ids from the pool (nil for none) and then the extra transactions
// kept outside it, as Core's InitData: an empty block, a nil prefilled
// transaction or a prefilled index past the block end is errBadCmpct; a
// duplicate short id in c is errCmpctCollision. A short id that two
// different transactions match is left missing.
func newPartialBlock(c *wire.MsgCmpctBlock, pool *mempool.Pool, extra []extraTx) (*partialBlock, error) {
	n := c.BlockTxCount()
	if n == 0 || n > wire.MaxCmpctBlockTxs {
		return nil, errBadCmpct
	}
	pb := &partialBlock{hash: c.Header.BlockHash(), header: c.Header, txs: make([]*wire.MsgTx, n)}
	prev := -1
	for i := range c.PrefilledTxs {
		pt := &c.PrefilledTxs[i]
		// Indexes increase (the encoding is differential) and each may
		// skip at most the short ids not yet placed.
		if pt.Tx == nil || int(pt.Index) <= prev || int(pt.Index) > len(c.ShortIDs)+i {
			return nil, errBadCmpct
		}
		prev = int(pt.Index)
		pb.txs[pt.Index] = pt.Tx
	}
	if len(c.ShortIDs) == 0 {
		return pb, nil
	}
	// slot maps a short id to its position in the block.
	slot := make(map[uint64]int32, len(c.ShortIDs))
	j := 0
	for i := range pb.txs {
		if pb.txs[i] != nil {
			continue
		}
		id := c.ShortIDs[j]
		j++
		if _, dup := slot[id]; dup {
			return nil, errCmpctCollision
		}
		slot[id] = int32(i)
	}
	k0, k1 := c.SipHashKeys()
	// ambiguous marks slots two different transactions claim; they are
	// requested rather than guessed.
	var ambiguous map[int32]bool
	found := 0
	place := func(wtxid wire.Hash, tx *wire.MsgTx) {
		i, ok := slot[wire.ShortTxID(k0, k1, wtxid)]
		if !ok || ambiguous[i] {
			return
		}
		if have := pb.txs[i]; have != nil {
			// Hashed only on a short id match: rare. The same
			// transaction in the pool and among the extra ones is no
			// collision.
			if have.WitnessHash() != wtxid {
				if ambiguous == nil {
					ambiguous = make(map[int32]bool)
				}
				ambiguous[i] = true
				pb.txs[i] = nil
				found--
			}
			return
		}
		pb.txs[i] = tx
		found++
	}
	if pool != nil && pool.Count() > 0 {
		for _, e := range pool.Entries() {
			if found == len(c.ShortIDs) {
				break
			}
			place(e.WTxID, e.Tx)
		}
	}
	for _, x := range extra {
		if found == len(c.ShortIDs) {
			break
		}
		place(x.wtxid, x.tx)
	}
	for i, tx := range pb.txs {
		if tx == nil {
			pb.missing = append(pb.missing, uint32(i))
		}
	}
	return pb, nil
}

// fill places the transactions of a blocktxn answer; a count that does
// not match the request is errBadCmpct.
func (pb *partialBlock) fill(txs []*wire.MsgTx) error {
	if len(txs) != len(pb.missing) {
		return errBadCmpct
	}
	for i, ix := range pb.missing {
		if txs[i] == nil {
			return errBadCmpct
		}
		pb.txs[ix] = txs[i]
	}
	pb.missing = nil
	return nil
}

// block assembles the complete block. Serializing and decoding it again
// gives it the block-wide arrays and the cached txids and wtxids of a
// block received whole, and copies the pool's shared transactions.
func (pb *partialBlock) block() (*wire.MsgBlock, error) {
	tmp := wire.MsgBlock{Header: pb.header, Transactions: pb.txs}
	bp := wire.GetBuffer(tmp.SerializeSize())
	buf := tmp.AppendTo((*bp)[:0], true)
	var blk wire.MsgBlock
	_, err := blk.Decode(buf)
	*bp = buf[:0]
	wire.PutBuffer(bp)
	if err != nil {
		return nil, err
	}
	return &blk, nil
}

// onCmpctBlock checks a compact block on the peer's goroutine (shape,
// proof of work, whether it is new and near our tip) and matches its
// short ids against the mempool there, then hands it to the loop.
func (m *Manager) onCmpctBlock(p *peer.Peer, msg *wire.MsgCmpctBlock) {
	hash := msg.Header.BlockHash()
	m.markKnown(p, hash)
	if m.chain.HaveBlock(&hash) {
		return
	}
	if err := blockchain.CheckBlockHeaderSanity(&msg.Header, m.chain.Params().PowLimit); err != nil {
		p.Misbehaving(PenaltyInvalid, "invalid compact block header: "+err.Error())
		return
	}
	_, prevHeight, ok := m.chain.HeaderByHash(&msg.Header.PrevBlock)
	if !ok || prevHeight+1 > m.chain.BestSnapshot().Height+2 {
		// Not connecting, or far ahead: it is only an announcement; the
		// header path asks for the gap or downloads the blocks.
		m.onHeaders(p, &wire.MsgHeaders{Headers: []wire.BlockHeader{msg.Header}})
		return
	}
	pb, err := newPartialBlock(msg, m.pool, m.extra.snapshot())
	if errors.Is(err, errBadCmpct) {
		p.Misbehaving(PenaltyBadCmpct, "invalid compact block")
		return
	}
	m.runOnLoop(func() { m.handleCmpct(p, msg.Header, pb, err) })
}

// handleCmpct runs on the loop: it accepts the header, then connects the
// block if it is complete or asks for the missing transactions.
func (m *Manager) handleCmpct(p *peer.Peer, hdr wire.BlockHeader, pb *partialBlock, perr error) {
	ps := m.peers[p]
	if ps == nil || !p.Connected() {
		return
	}
	hash := hdr.BlockHash()
	_, height, err := m.chain.ProcessHeaders([]wire.BlockHeader{hdr})
	if err != nil {
		var re *blockchain.RuleError
		if errors.As(err, &re) {
			m.log.Infof("Invalid compact block header from %v: %v", p, err)
			p.Misbehaving(PenaltyInvalid, "invalid header: "+re.Reason)
			m.dropInvalid(ps, "invalid header")
			return
		}
		m.log.Errorf("Processing compact block header from %v: %v", p, err)
		return
	}
	p.UpdateLastBlockHeight(height)
	ps.noteBest(hash, height)
	ps.addKnown(hash)
	if m.chain.HaveBlock(&hash) {
		return
	}
	owner, inFlight := m.requested[hash]
	if !m.moreWorkThanTip(hash) {
		// We know something better: as Core, fetch it whole only if we
		// asked this peer for it (our mempool will hardly help).
		if inFlight && owner == ps {
			m.requestFull(ps, hash)
		}
		return
	}
	if perr != nil {
		m.log.Debugf("Compact block %v from %v: %v; fetching it whole", hash, p, perr)
		if !inFlight || owner == ps {
			m.requestFull(ps, hash)
		}
		return
	}
	if len(pb.missing) == 0 {
		m.connectCmpct(ps, pb)
		return
	}
	if inFlight && owner != ps {
		// Another peer is sending it whole.
		return
	}
	if ps.cmpct.partial != nil {
		old := ps.cmpct.partial.hash
		m.cmpctDrop(ps)
		if old != hash && m.requested[old] == ps {
			delete(m.requested, old)
			delete(ps.inflight, old)
		}
	}
	if m.cb.partials >= maxPartialBlocks {
		m.requestFull(ps, hash)
		return
	}
	ps.cmpct.partial = pb
	m.cb.partials++
	m.track(ps, hash)
	m.log.Debugf("Compact block %v from %v: %d of %d transactions missing", hash, p, len(pb.missing), len(pb.txs))
	p.QueueMessage(&wire.MsgGetBlockTxn{BlockHash: hash, Indexes: pb.missing}, nil)
}

// moreWorkThanTip reports whether the chain ending at hash has more work
// than our tip.
func (m *Manager) moreWorkThanTip(hash wire.Hash) bool {
	tip := m.chain.BestSnapshot().Hash
	st, ok := m.chain.LookupBlock(&hash)
	ts, ok2 := m.chain.LookupBlock(&tip)
	return ok && ok2 && st.ChainWork.Cmp(ts.ChainWork) > 0
}

// track records hash as in flight from ps.
func (m *Manager) track(ps *peerState, hash wire.Hash) {
	if o := m.requested[hash]; o != nil && o != ps {
		delete(o.inflight, hash)
	}
	now := clock.Now()
	if len(ps.inflight) == 0 {
		ps.lastRecv = now
	}
	ps.inflight[hash] = now
	m.requested[hash] = ps
}

// requestFull asks ps for the whole block (with witnesses): the fallback
// when a compact block cannot be reconstructed.
func (m *Manager) requestFull(ps *peerState, hash wire.Hash) {
	if !ps.p.Connected() {
		return
	}
	m.track(ps, hash)
	ps.p.QueueMessage(&wire.MsgGetData{InvList: []wire.InvVect{{Type: wire.InvTypeWitnessBlock, Hash: hash}}}, nil)
}

// connectCmpct hands a reconstructed block to the chain.
func (m *Manager) connectCmpct(ps *peerState, pb *partialBlock) {
	blk, err := pb.block()
	if err != nil {
		// Our own serialization of valid transactions cannot fail to
		// decode unless the block breaks the size limits: fetch it.
		m.log.Debugf("Rebuilding compact block %v: %v", pb.hash, err)
		m.requestFull(ps, pb.hash)
		return
	}
	m.handleBlock(blockEvent{p: ps.p, block: blk, cmpct: true})
}

// onBlockTxn hands a blocktxn answer to the loop.
func (m *Manager) onBlockTxn(p *peer.Peer, msg *wire.MsgBlockTxn) {
	m.runOnLoop(func() { m.handleBlockTxn(p, msg) })
}

// handleBlockTxn completes the peer's partial block. As in Core, a
// blocktxn for a block we are not reconstructing from this peer is
// ignored, and one with the wrong number of transactions scores.
func (m *Manager) handleBlockTxn(p *peer.Peer, msg *wire.MsgBlockTxn) {
	ps := m.peers[p]
	if ps == nil {
		return
	}
	pb := ps.cmpct.partial
	if pb == nil || pb.hash != msg.BlockHash {
		m.log.Debugf("Ignoring unexpected blocktxn for %v from %v", msg.BlockHash, p)
		return
	}
	m.cmpctDrop(ps)
	if err := pb.fill(msg.Transactions); err != nil {
		if p.Misbehaving(PenaltyBadCmpct, "invalid compact block/non-matching block transactions") || !p.Connected() {
			m.dropRequests(ps)
			m.fill()
			return
		}
		m.requestFull(ps, pb.hash)
		return
	}
	m.connectCmpct(ps, pb)
}

// cmpctBlockFailed handles a reconstructed block the chain refused and
// reports whether it did. A mutation (merkle root or witness commitment
// mismatch) means our reconstruction is not the block the header commits
// to, which the chain does not hold against the hash: the block is fetched
// whole. Other rule failures are not scored, as Core does not for blocks
// relayed compact (BIP152 allows relaying them before full validation).
func (m *Manager) cmpctBlockFailed(ps *peerState, hash wire.Hash, err error) bool {
	var re *blockchain.RuleError
	if !errors.As(err, &re) {
		return false
	}
	if re.IsMutation() {
		m.log.Debugf("Compact block %v did not reconstruct (%v); fetching it whole", hash, err)
		if ps != nil {
			m.requestFull(ps, hash)
		}
		return true
	}
	m.log.Infof("Rejected compact block %v: %v", hash, err)
	return true
}

// cmpctBlockDone forgets a partial block whose data arrived another way.
func (m *Manager) cmpctBlockDone(owner *peerState, hash wire.Hash) {
	if owner != nil && owner.cmpct.partial != nil && owner.cmpct.partial.hash == hash {
		m.cmpctDrop(owner)
	}
}

// wantCmpct reports whether the block at height should be asked of ps as
// a compact block (low-bandwidth mode): as in Core, it is the next block
// on our tip and the only one we are fetching, we are current, and ps
// speaks version 2; and we have a mempool to rebuild it from. fill calls
// it after recording the request, hence one request in flight.
func (m *Manager) wantCmpct(ps *peerState, height, tipHeight int32) bool {
	return height == tipHeight+1 && len(m.requested) == 1 && m.IsCurrent() && ps.cmpct.provides.Load() &&
		m.pool != nil && !m.cfg.BlocksOnly && m.cb.partials < maxPartialBlocks
}
