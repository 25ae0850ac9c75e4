package blockchain

import (
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// blockIndex is the in-memory tree of every header we accepted, keyed by
// hash, with the bookkeeping needed to pick the best chain. It is guarded
// by the chain lock.
type blockIndex struct {
	nodes map[wire.Hash]*blockNode
	// dirty nodes are written to the database block index at the next
	// flush.
	dirty map[*blockNode]struct{}
	// candidates are nodes that could be the tip: they and all their
	// ancestors have data, none is known invalid, and they have at least
	// as much work as the current tip (Core's setBlockIndexCandidates).
	candidates map[*blockNode]struct{}
	// children of nodes whose data is missing, so that when a block's data
	// arrives its already-stored descendants become candidates too
	// (Core's m_blocks_unlinked).
	unlinked map[*blockNode][]*blockNode
	// bestHeader is the valid header with the most work.
	bestHeader *blockNode
	// nextSeq numbers arriving block data; lower wins ties.
	nextSeq int32
}

func newBlockIndex() *blockIndex {
	return &blockIndex{
		nodes:      make(map[wire.Hash]*blockNode),
		dirty:      make(map[*blockNode]struct{}),
		candidates: make(map[*blockNode]struct{}),
		unlinked:   make(map[*blockNode][]*blockNode),
		nextSeq:    1,
	}
}

func (bi *blockIndex) lookup(h *wire.Hash) *blockNode { return bi.nodes[*h] }

// add inserts a node and updates the best header.
func (bi *blockIndex) add(n *blockNode) {
	bi.nodes[n.hash] = n
	bi.dirty[n] = struct{}{}
	bi.considerHeader(n)
}

// considerHeader makes n the best header if it is valid and has more work.
func (bi *blockIndex) considerHeader(n *blockNode) {
	if n.status&statusInvalid != 0 {
		return
	}
	if bi.bestHeader == nil || n.workSum.Cmp(bi.bestHeader.workSum) > 0 {
		bi.bestHeader = n
	}
}

func (bi *blockIndex) setStatus(n *blockNode, set, clear blockStatus) {
	s := (n.status | set) &^ clear
	if s != n.status {
		n.status = s
		bi.dirty[n] = struct{}{}
	}
}

// better reports whether a should be preferred over b as the tip: more
// work, or equal work and its data arrived first (Core's
// CBlockIndexWorkComparator; the pointer comparison of its last resort is
// replaced by the hash to stay deterministic).
func better(a, b *blockNode) bool {
	if b == nil {
		return true
	}
	if c := a.workSum.Cmp(b.workSum); c != 0 {
		return c > 0
	}
	if a.seq != b.seq {
		return a.seq < b.seq
	}
	for i := 31; i >= 0; i-- {
		if a.hash[i] != b.hash[i] {
			return a.hash[i] < b.hash[i]
		}
	}
	return false
}

// bestCandidate returns the most preferred candidate.
func (bi *blockIndex) bestCandidate() *blockNode {
	var best *blockNode
	for n := range bi.candidates {
		if better(n, best) {
			best = n
		}
	}
	return best
}

// pruneCandidates drops candidates that can no longer become the tip
// because the tip is preferred over them.
func (bi *blockIndex) pruneCandidates(tip *blockNode) {
	for n := range bi.candidates {
		if n != tip && better(tip, n) {
			delete(bi.candidates, n)
		}
	}
}

// record converts a node for the database.
func (n *blockNode) record() database.BlockIndexRecord {
	h := n.header()
	var rec database.BlockIndexRecord
	h.AppendTo(rec.Header[:0])
	rec.Height = n.height
	rec.Status = uint32(n.status)
	rec.NumTx = n.numTx
	rec.File, rec.DataOffset, rec.DataSize = n.blockFile, n.blockOffset, n.blockSize
	rec.UndoFile, rec.UndoOffset, rec.UndoSize = n.undoFile, n.undoOffset, n.undoSize
	rec.ChainWork = n.workSum.Bytes()
	return rec
}

// writeDirty queues every dirty node's record in the block database.
func (bi *blockIndex) writeDirty(db *database.BlockDB) {
	for n := range bi.dirty {
		rec := n.record()
		db.PutBlockIndex(&n.hash, &rec)
		delete(bi.dirty, n)
	}
}

// load rebuilds the tree from the database's records. Nodes are linked to
// parents after all are read, since the database iterates in hash order.
func (bi *blockIndex) load(db *database.BlockDB) error {
	type pending struct {
		n    *blockNode
		prev wire.Hash
	}
	var all []pending
	err := db.ForEachBlockIndex(func(hash wire.Hash, rec database.BlockIndexRecord) error {
		var h wire.BlockHeader
		if err := h.Decode(rec.Header[:]); err != nil {
			return err
		}
		n := &blockNode{
			hash:        hash,
			height:      rec.Height,
			status:      blockStatus(rec.Status),
			numTx:       rec.NumTx,
			version:     h.Version,
			bits:        h.Bits,
			nonce:       h.Nonce,
			timestamp:   h.Timestamp,
			merkleRoot:  h.MerkleRoot,
			blockFile:   rec.File,
			blockOffset: rec.DataOffset,
			blockSize:   rec.DataSize,
			undoFile:    rec.UndoFile,
			undoOffset:  rec.UndoOffset,
			undoSize:    rec.UndoSize,
			workSum:     WorkFromBytes(rec.ChainWork),
		}
		bi.nodes[hash] = n
		all = append(all, pending{n, h.PrevBlock})
		return nil
	})
	if err != nil {
		return err
	}
	ns := make([]*blockNode, 0, len(all))
	for _, p := range all {
		if p.n.height > 0 {
			p.n.parent = bi.nodes[p.prev]
			if p.n.parent == nil {
				return &database.Error{Kind: database.ErrCorrupt,
					Desc: "block index entry " + p.n.hash.String() + " has no parent"}
			}
		}
		ns = append(ns, p.n)
	}
	sortNodesByHeight(ns)
	for _, n := range ns {
		if n.parent != nil {
			n.skip = n.parent.ancestor(skipHeight(n.height))
			if n.parent.status&statusInvalid != 0 && n.status&statusInvalid == 0 {
				n.status |= statusFailedParent
			}
		}
		// numTx is set once a block's data was stored, and stays when
		// pruning deletes the data (as Core's nTx), so pruned blocks
		// still link their descendants.
		if n.numTx > 0 && (n.parent == nil || n.parent.chainTx != 0) {
			n.chainTx = uint64(n.numTx)
			if n.parent != nil {
				n.chainTx += n.parent.chainTx
			}
		}
		if n.numTx > 0 && n.parent != nil && n.parent.chainTx == 0 {
			bi.unlinked[n.parent] = append(bi.unlinked[n.parent], n)
		}
		n.seq = 0
		bi.considerHeader(n)
	}
	return nil
}
