package blockchain

import (
	"sort"

	"github.com/btcnode/btcd/wire"
)

// blockStatus is a node's validation and storage state. The values are
// persisted in the block index, so existing bits never change meaning.
type blockStatus uint32

const (
	// statusHeaderValid: the header passed all header checks.
	statusHeaderValid blockStatus = 1 << iota
	// statusDataStored: the full block is in the block files.
	statusDataStored
	// statusUndoStored: the block's undo record is in the undo files.
	statusUndoStored
	// statusValid: the block was connected to the chain once, so all of
	// its consensus rules held.
	statusValid
	// statusFailed: the block itself breaks a rule.
	statusFailed
	// statusFailedParent: an ancestor breaks a rule.
	statusFailedParent
	// statusNoWitness: the block's data was stored while segwit's rules
	// did not apply at its height, so its witness data (if any) was never
	// validated (the inverse of Core's BLOCK_OPT_WITNESS, so that records
	// written before the bit existed, all validated with segwit where it
	// applied, need no migration).
	statusNoWitness
)

// statusInvalid is either failure mark.
const statusInvalid = statusFailed | statusFailedParent

// blockNode is one header in the tree. Nodes are never removed while the
// chain runs, and parent pointers are immutable, so readers holding the
// chain lock may walk them freely.
type blockNode struct {
	parent *blockNode
	// skip points to an ancestor chosen so that ancestor lookups take
	// O(log n) steps (the same scheme as Core's pskip).
	skip *blockNode

	hash    wire.Hash
	workSum Work // cumulative work up to and including this block
	height  int32
	status  blockStatus
	// seq orders blocks by the time their data arrived; of two tips
	// with equal work the one with the lower seq (seen first) wins. It
	// is 0 for genesis and for blocks loaded from disk, and math.MaxInt32
	// until data arrives.
	seq int32
	// chainTx is non-zero when this block and all its ancestors have
	// data, which makes it a candidate for the best chain.
	chainTx uint64
	numTx   uint32

	version    int32
	bits       uint32
	nonce      uint32
	timestamp  uint32
	merkleRoot wire.Hash

	blockFile, blockOffset, blockSize uint32
	undoFile, undoOffset, undoSize    uint32
}

// header rebuilds the node's block header.
func (n *blockNode) header() wire.BlockHeader {
	h := wire.BlockHeader{
		Version:    n.version,
		MerkleRoot: n.merkleRoot,
		Timestamp:  n.timestamp,
		Bits:       n.bits,
		Nonce:      n.nonce,
	}
	if n.parent != nil {
		h.PrevBlock = n.parent.hash
	}
	return h
}

// newBlockNode makes a node for a header whose parent is parent (nil for
// genesis) and links its skip pointer.
func newBlockNode(h *wire.BlockHeader, hash wire.Hash, parent *blockNode) *blockNode {
	n := &blockNode{
		hash:       hash,
		version:    h.Version,
		bits:       h.Bits,
		nonce:      h.Nonce,
		timestamp:  h.Timestamp,
		merkleRoot: h.MerkleRoot,
		seq:        1<<31 - 1,
	}
	n.workSum = CalcWork(h.Bits)
	if parent != nil {
		n.parent = parent
		n.height = parent.height + 1
		n.workSum = n.workSum.Add(parent.workSum)
		n.skip = parent.ancestor(skipHeight(n.height))
	}
	return n
}

// invertLowestOne clears the lowest set bit.
func invertLowestOne(h int32) int32 { return h & (h - 1) }

// skipHeight picks the height a node's skip pointer targets: far enough to
// halve the distance on most steps, and chosen so that consecutive skips
// from nearby heights land on common ancestors.
func skipHeight(h int32) int32 {
	if h < 2 {
		return 0
	}
	if h&1 != 0 {
		return invertLowestOne(invertLowestOne(h-1)) + 1
	}
	return invertLowestOne(h)
}

// ancestor returns the ancestor of n at height h, or nil if h is out of
// range.
func (n *blockNode) ancestor(h int32) *blockNode {
	if n == nil || h > n.height || h < 0 {
		return nil
	}
	walk := n
	hw := n.height
	for hw > h {
		hs := skipHeight(hw)
		hsPrev := skipHeight(hw - 1)
		if walk.skip != nil && (hs == h ||
			(hs > h && !(hsPrev < hs-2 && hsPrev >= h))) {
			walk = walk.skip
			hw = hs
		} else {
			walk = walk.parent
			hw--
		}
	}
	return walk
}

// medianTimeBlocks is the number of blocks whose timestamps form the
// median time past.
const medianTimeBlocks = 11

// medianTimePast returns the median timestamp of n and up to ten of its
// ancestors (BIP113).
func (n *blockNode) medianTimePast() int64 {
	var ts [medianTimeBlocks]int64
	k := 0
	for it := n; it != nil && k < medianTimeBlocks; it = it.parent {
		ts[k] = int64(it.timestamp)
		k++
	}
	return MedianTime(ts[:k])
}

// MedianTime returns the median of timestamps (the element at index len/2
// after sorting, as Core takes it). It sorts timestamps in place.
func MedianTime(timestamps []int64) int64 {
	if len(timestamps) == 0 {
		return 0
	}
	// Insertion sort: at most eleven elements and no allocation.
	for i := 1; i < len(timestamps); i++ {
		for j := i; j > 0 && timestamps[j] < timestamps[j-1]; j-- {
			timestamps[j], timestamps[j-1] = timestamps[j-1], timestamps[j]
		}
	}
	return timestamps[len(timestamps)/2]
}

// isAncestorOf reports whether n is other or one of other's ancestors.
func (n *blockNode) isAncestorOf(other *blockNode) bool {
	return other != nil && other.ancestor(n.height) == n
}

// findFork returns the highest common ancestor of a and b.
func findFork(a, b *blockNode) *blockNode {
	if a == nil || b == nil {
		return nil
	}
	if a.height > b.height {
		a = a.ancestor(b.height)
	} else if b.height > a.height {
		b = b.ancestor(a.height)
	}
	for a != b && a != nil && b != nil {
		a, b = a.parent, b.parent
	}
	return a
}

// chainView is a chain of nodes indexed by height, from genesis to a tip,
// like Core's CChain: membership and height lookups are O(1).
type chainView struct {
	nodes []*blockNode
}

// tip returns the highest node, or nil for an empty chain.
func (c *chainView) tip() *blockNode {
	if len(c.nodes) == 0 {
		return nil
	}
	return c.nodes[len(c.nodes)-1]
}

// height returns the tip's height (-1 when empty).
func (c *chainView) height() int32 { return int32(len(c.nodes)) - 1 }

// nodeByHeight returns the node at height h, or nil.
func (c *chainView) nodeByHeight(h int32) *blockNode {
	if h < 0 || int(h) >= len(c.nodes) {
		return nil
	}
	return c.nodes[h]
}

// contains reports whether n is on the chain.
func (c *chainView) contains(n *blockNode) bool {
	return n != nil && c.nodeByHeight(n.height) == n
}

// setTip makes the chain end at n, reusing the shared prefix.
func (c *chainView) setTip(n *blockNode) {
	if n == nil {
		c.nodes = c.nodes[:0]
		return
	}
	need := int(n.height) + 1
	if cap(c.nodes) < need {
		grown := make([]*blockNode, need, need+need/8+64)
		copy(grown, c.nodes)
		c.nodes = grown
	} else {
		c.nodes = c.nodes[:need]
	}
	for it := n; it != nil && c.nodes[it.height] != it; it = it.parent {
		c.nodes[it.height] = it
	}
}

// next returns the node after n on the chain, or nil.
func (c *chainView) next(n *blockNode) *blockNode {
	if !c.contains(n) {
		return nil
	}
	return c.nodeByHeight(n.height + 1)
}

// locator returns a block locator from n: the last ten blocks one by one,
// then exponentially sparser steps back to genesis.
func (c *chainView) locator(n *blockNode) []wire.Hash {
	if n == nil {
		return nil
	}
	loc := make([]wire.Hash, 0, 32)
	step := int32(1)
	for n != nil {
		loc = append(loc, n.hash)
		if n.height == 0 {
			break
		}
		h := max(n.height-step, 0)
		if c.contains(n) {
			n = c.nodeByHeight(h)
		} else {
			n = n.ancestor(h)
		}
		if len(loc) > 10 {
			step *= 2
		}
	}
	return loc
}

// findForkWithChain returns the highest node of the chain that is n or an
// ancestor of n.
func (c *chainView) findForkWithChain(n *blockNode) *blockNode {
	if n == nil {
		return nil
	}
	if n.height > c.height() {
		n = n.ancestor(c.height())
	}
	for n != nil && !c.contains(n) {
		n = n.parent
	}
	return n
}

// sortNodesByHeight orders nodes loaded from disk so parents come first.
func sortNodesByHeight(ns []*blockNode) {
	sort.Slice(ns, func(i, j int) bool { return ns[i].height < ns[j].height })
}
