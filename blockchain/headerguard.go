package blockchain

import (
	"github.com/btcnode/btcd/wire"
)

// Low-work header guard (a simplified form of Core's headers presync).
//
// Headers are cheap to check but each one stored stays in memory for the
// life of the node, and a header costs its sender only the proof of work
// at the difficulty the retarget rules allow at its position. Below the
// last checkpoint that is bounded: a header chain must match every
// checkpoint it reaches and may not fork below the highest checkpoint in
// the tree. Above it, a fork can lower its difficulty over many retarget
// periods with timestamps spaced far apart, so a peer could make us store
// long chains of nearly free headers.
//
// Rule: while MinimumChainWork is positive (and checkpoints are not
// disabled), a valid header above the last checkpoint whose chain has less
// work than MinimumChainWork is not added to the tree. It is held in a
// buffer of at most maxLowWorkHeaders headers, linked to its parent (in
// the tree or in the buffer) so that the following headers can still be
// validated in full. As soon as a header's chain reaches MinimumChainWork
// it enters the tree together with its buffered ancestors. If the buffer
// is full, it is emptied and the batch is refused with
// ErrTooLittleChainWork ("too-little-chainwork"), a rule error the sync
// manager treats as misbehaviour. Blocks whose header would be buffered
// are refused with the same error and their data is not stored.
//
// For the real chain this never triggers: every network's last checkpoint
// is its assume-valid block, at or beyond the height where its chain
// reaches MinimumChainWork, so honest headers above it pass the threshold
// at once. Memory is bounded by the buffer (about 2 MB) whatever peers
// send; an attacker can at most empty the buffer, which costs an honest
// peer one getheaders round trip.
//
// So that header sync can continue a buffered chain, HeaderByHash and
// BlockLocator also see buffered headers, and BestHeader reports the most
// work header of tree and buffer. Everything that leads to downloading
// blocks (MissingBlocks, HeaderChainTrusted, LookupBlock) sees the tree
// only, and buffered headers have less than MinimumChainWork anyway.
//
// With MinimumChainWork zero (regtest) or Config.DisableCheckpoints the
// guard is off: without checkpoints it could not tell an honest chain
// below MinimumChainWork (the whole chain during initial sync) from an
// attack, and would stall header sync.

// maxLowWorkHeaders bounds the low-work header buffer: a few full
// "headers" messages.
const maxLowWorkHeaders = 4 * wire.MaxBlockHeadersPerMsg

// lowWorkHeaders is the buffer, guarded by the chain lock.
type lowWorkHeaders struct {
	enabled bool
	// above is the height above which the guard applies (the last
	// checkpoint's).
	above int32
	nodes map[wire.Hash]*blockNode
	// best is the buffered header with the most work.
	best *blockNode
}

func (lw *lowWorkHeaders) init(b *BlockChain) {
	lw.enabled = b.minWork.Cmp(Work{}) > 0 && !b.disableCheckpoints
	if n := len(b.checkpoints); n > 0 {
		lw.above = b.checkpoints[n-1].Height
	}
	lw.nodes = make(map[wire.Hash]*blockNode)
}

func (lw *lowWorkHeaders) lookup(h *wire.Hash) *blockNode { return lw.nodes[*h] }

// holds reports whether n must be buffered rather than stored.
func (lw *lowWorkHeaders) holds(n *blockNode, minWork Work) bool {
	return lw.enabled && n.height > lw.above && n.workSum.Cmp(minWork) < 0
}

// add buffers n; false means the buffer was full and has been emptied.
func (lw *lowWorkHeaders) add(n *blockNode) bool {
	if len(lw.nodes) >= maxLowWorkHeaders {
		lw.reset()
		return false
	}
	lw.nodes[n.hash] = n
	if lw.best == nil || n.workSum.Cmp(lw.best.workSum) > 0 {
		lw.best = n
	}
	return true
}

func (lw *lowWorkHeaders) reset() {
	clear(lw.nodes)
	lw.best = nil
}

// promote moves n's buffered ancestors into the tree, oldest first, when n
// (whose chain reached the minimum work) is about to be stored.
func (b *BlockChain) promoteLowWork(n *blockNode) {
	lw := &b.lowWork
	var path []*blockNode
	for p := n.parent; p != nil && lw.nodes[p.hash] == p; p = p.parent {
		path = append(path, p)
	}
	for i := len(path) - 1; i >= 0; i-- {
		p := path[i]
		delete(lw.nodes, p.hash)
		if lw.best == p {
			lw.best = nil
		}
		b.index.add(p)
	}
	if lw.best == nil && len(lw.nodes) > 0 {
		for _, x := range lw.nodes {
			if lw.best == nil || x.workSum.Cmp(lw.best.workSum) > 0 {
				lw.best = x
			}
		}
	}
}

// storeLowWork moves the buffered n and its buffered ancestors into the
// tree, for a block that is processed whatever its chain's work.
func (b *BlockChain) storeLowWork(n *blockNode) {
	delete(b.lowWork.nodes, n.hash)
	if b.lowWork.best == n {
		b.lowWork.best = nil
	}
	b.promoteLowWork(n)
	b.index.add(n)
}

// dropLowWork forgets the buffered n when no buffered header builds on it.
func (b *BlockChain) dropLowWork(n *blockNode) {
	lw := &b.lowWork
	for _, x := range lw.nodes {
		if x.parent == n {
			return
		}
	}
	delete(lw.nodes, n.hash)
	if lw.best == n {
		lw.best = nil
		for _, x := range lw.nodes {
			if lw.best == nil || x.workSum.Cmp(lw.best.workSum) > 0 {
				lw.best = x
			}
		}
	}
}

// LowWorkHeaders returns how many headers are held in the low-work buffer
// (for tests and diagnostics).
func (b *BlockChain) LowWorkHeaders() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.lowWork.nodes)
}
