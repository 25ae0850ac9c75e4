package blockchain

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// recentBlocks is how many recently accepted blocks are kept decoded so
// that connecting a just-received block does not read it back from disk.
const recentBlocks = 8

// cacheBlock remembers a decoded block for connection.
func (b *BlockChain) cacheBlock(n *blockNode, block *wire.MsgBlock) {
	if b.recent == nil {
		b.recent = make(map[*blockNode]*wire.MsgBlock, recentBlocks)
	}
	if len(b.recent) >= recentBlocks {
		// Drop the lowest block; it is the least likely to be connected
		// next.
		var low *blockNode
		for x := range b.recent {
			if low == nil || x.height < low.height {
				low = x
			}
		}
		delete(b.recent, low)
	}
	b.recent[n] = block
}

// readBlock returns n's block, from memory or from the block files.
func (b *BlockChain) readBlock(n *blockNode) (*wire.MsgBlock, error) {
	if blk := b.recent[n]; blk != nil {
		return blk, nil
	}
	if n.status&statusDataStored == 0 {
		if n.numTx > 0 {
			// It was stored once: pruning deleted it.
			return nil, fmt.Errorf("%w: %v", ErrBlockPruned, n.hash)
		}
		return nil, &database.Error{Kind: database.ErrNotFound, Desc: "block data of " + n.hash.String()}
	}
	raw, err := b.db.ReadBlock(database.BlockLoc{File: n.blockFile, Offset: n.blockOffset, Size: n.blockSize},
		b.scratch.blockBuf[:0])
	if err != nil {
		return nil, err
	}
	b.scratch.blockBuf = raw[:0]
	blk := new(wire.MsgBlock)
	if _, err := blk.Decode(raw); err != nil {
		return nil, &database.Error{Kind: database.ErrCorrupt, Desc: "block " + n.hash.String(), Err: err}
	}
	if blk.BlockHash() != n.hash {
		return nil, &database.Error{Kind: database.ErrCorrupt, Desc: "stored block does not match " + n.hash.String()}
	}
	return blk, nil
}

// activateBestChain moves the tip to the best candidate, disconnecting and
// connecting blocks as needed (Core's ActivateBestChain). A block that
// fails to connect is marked invalid with its descendants, its error is
// kept in connectErrs, and the search goes on with the remaining
// candidates, so the node always ends on the best valid chain it knows.
// Only database failures are returned.
func (b *BlockChain) activateBestChain() error {
	for {
		tip := b.chain.tip()
		b.index.candidates[tip] = struct{}{}
		best := b.index.bestCandidate()
		if best == nil || best == tip {
			b.index.pruneCandidates(tip)
			return nil
		}
		fork := b.chain.findForkWithChain(best)
		for b.chain.tip() != fork {
			if err := b.disconnectTip(); err != nil {
				return b.disconnectFailed(err)
			}
		}
		// Connect from the fork up to best.
		path := make([]*blockNode, 0, best.height-fork.height)
		for x := best; x != fork; x = x.parent {
			path = append(path, x)
		}
		for i := len(path) - 1; i >= 0; i-- {
			x := path[i]
			blk, err := b.readBlock(x)
			if err != nil {
				return err
			}
			var prep <-chan *wire.MsgBlock
			if b.prepareOverlap && i > 0 && b.recent[path[i-1]] == nil &&
				path[i-1].status&statusDataStored != 0 {
				prep = b.startPrepare(path[i-1])
			}
			err = b.connectTip(x, blk)
			if prep != nil {
				if nb := <-prep; nb != nil {
					b.cacheBlock(path[i-1], nb)
				}
			}
			if err != nil {
				if !errIsRule(err) {
					return err
				}
				if b.connectErrs == nil {
					b.connectErrs = make(map[*blockNode]error)
				}
				b.connectErrs[x] = err
				// Core's words, which its tests look for.
				log.Infof("Block validation error: %s", stateString(err))
				log.Errorf("ConnectTip: ConnectBlock %v failed, %s", x.hash, stateString(err))
				b.markInvalid(x)
				b.logInvalidChain(x)
				break
			}
		}
		b.index.pruneCandidates(b.chain.tip())
	}
}

// connectTip connects n, whose parent is the tip.
func (b *BlockChain) connectTip(n *blockNode, blk *wire.MsgBlock) error {
	if err := b.connectBlock(n, blk); err != nil {
		return err
	}
	b.chain.setTip(n)
	delete(b.recent, n)
	if b.txIndex.enabled && b.txIndex.synced {
		b.indexTxs(n, blk)
	}
	b.publishTip()
	b.queue(Notification{Type: NTBlockConnected, Block: blk, Hash: n.hash, Height: n.height})
	return b.maybeFlush()
}

// disconnectFailed reports a reorganisation that could not disconnect a
// block (its undo data unreadable): the node must stop rather than stay on
// a chain it knows is not the best, as Core (invalidateblock, which also
// disconnects, just fails).
func (b *BlockChain) disconnectFailed(err error) error {
	if b.onFatal != nil {
		b.onFatal("Failed to disconnect block.", err)
	}
	return err
}

// disconnectTip disconnects the tip block.
func (b *BlockChain) disconnectTip() error {
	n := b.chain.tip()
	if n.parent == nil {
		return &database.Error{Kind: database.ErrInvalidArg, Desc: "cannot disconnect genesis"}
	}
	blk, err := b.readBlock(n)
	if err != nil {
		return err
	}
	if err := b.disconnectBlock(n, blk); err != nil {
		log.Errorf("DisconnectTip: DisconnectBlock %v failed: %v", n.hash, err)
		return err
	}
	if b.txIndex.enabled && b.txIndex.synced {
		b.unindexTxs(n, blk)
	}
	b.movePruneLocksBelow(n.height)
	b.chain.setTip(n.parent)
	// The disconnected block may come back later.
	b.index.candidates[n] = struct{}{}
	b.publishTip()
	b.queue(Notification{Type: NTBlockDisconnected, Block: blk, Hash: n.hash, Height: n.height})
	return b.maybeFlush()
}

// markInvalid marks n failed and its descendants failed-parent, and drops
// them from the candidates (Core's InvalidBlockFound / InvalidChainFound).
func (b *BlockChain) markInvalid(n *blockNode) {
	b.index.setStatus(n, statusFailed, 0)
	delete(b.index.candidates, n)
	for _, x := range b.index.nodes {
		if x != n && x.height > n.height && n.isAncestorOf(x) {
			b.index.setStatus(x, statusFailedParent, 0)
			delete(b.index.candidates, x)
		}
	}
	if bh := b.index.bestHeader; bh != nil && bh.status&statusInvalid != 0 {
		b.recomputeBestHeader()
	}
}

func (b *BlockChain) recomputeBestHeader() {
	b.index.bestHeader = nil
	for _, x := range b.index.nodes {
		b.index.considerHeader(x)
	}
}

// resetCandidates re-adds every linked valid node that is at least as good
// as the tip.
func (b *BlockChain) resetCandidates() {
	tip := b.chain.tip()
	for _, x := range b.index.nodes {
		if x.chainTx != 0 && x.status&statusInvalid == 0 && x.status&statusDataStored != 0 && !better(tip, x) {
			b.index.candidates[x] = struct{}{}
		}
	}
}

// InvalidateBlock marks a block invalid as if it had failed validation and
// moves the chain off it (the invalidateblock RPC).
func (b *BlockChain) InvalidateBlock(hash *wire.Hash) error {
	b.mu.Lock()
	defer func() { b.mu.Unlock(); b.deliver() }()
	n := b.index.lookup(hash)
	if n == nil {
		return ruleError(ErrPrevBlockNotFound, "block %v not found", hash)
	}
	if n.parent == nil {
		return ruleError(ErrBadPrevBlock, "cannot invalidate genesis")
	}
	for b.chain.contains(n) {
		if err := b.disconnectTip(); err != nil {
			return err
		}
	}
	b.markInvalid(n)
	// Blocks that lost to the invalidated chain may now be the best.
	for x := range b.index.candidates {
		delete(b.index.candidates, x)
	}
	b.resetCandidates()
	return b.activateBestChain()
}

// ReconsiderBlock clears the failure marks of a block, its ancestors and
// its descendants and lets them compete again (the reconsiderblock RPC).
func (b *BlockChain) ReconsiderBlock(hash *wire.Hash) error {
	b.mu.Lock()
	defer func() { b.mu.Unlock(); b.deliver() }()
	n := b.index.lookup(hash)
	if n == nil {
		return ruleError(ErrPrevBlockNotFound, "block %v not found", hash)
	}
	for _, x := range b.index.nodes {
		if n.isAncestorOf(x) || x.isAncestorOf(n) {
			b.index.setStatus(x, 0, statusInvalid)
			b.index.considerHeader(x)
		}
	}
	b.resetCandidates()
	return b.activateBestChain()
}

// PreciousBlock treats a block as if it had been received before any
// other block with the same work, so that it wins the tie (the
// preciousblock RPC).
func (b *BlockChain) PreciousBlock(hash *wire.Hash) error {
	b.mu.Lock()
	defer func() { b.mu.Unlock(); b.deliver() }()
	n := b.index.lookup(hash)
	if n == nil {
		return ruleError(ErrPrevBlockNotFound, "block %v not found", hash)
	}
	tip := b.chain.tip()
	if n.workSum.Cmp(tip.workSum) < 0 {
		return nil
	}
	if tip.workSum.Cmp(b.lastPreciousWork) > 0 {
		// A new tip since the last call: restart the counter.
		b.reverseSeq = -1
	}
	b.lastPreciousWork = tip.workSum
	n.seq = b.reverseSeq
	if b.reverseSeq > -1<<31+1 {
		b.reverseSeq--
	}
	if n.chainTx != 0 && n.status&statusInvalid == 0 {
		b.index.candidates[n] = struct{}{}
	}
	return b.activateBestChain()
}

// replayBlocks repairs an interrupted multi-batch chainstate flush by
// applying the blocks between the old and new markers again: outputs are
// re-added with overwrite allowed and inputs already spent are tolerated
// (Core's ReplayBlocks).
func (b *BlockChain) replayBlocks(hb database.HeadBlocks) error {
	newTip := b.index.lookup(&hb.New.Hash)
	if newTip == nil {
		return &database.Error{Kind: database.ErrCorrupt, Desc: "replay target " + hb.New.Hash.String() + " not in block index"}
	}
	old := b.index.lookup(&hb.Old.Hash)
	fork := findFork(old, newTip)
	if old != nil && fork != old {
		// Roll the old branch back to the fork first.
		b.chain.setTip(old)
		for b.chain.tip() != fork {
			n := b.chain.tip()
			blk, err := b.readBlock(n)
			if err != nil {
				return err
			}
			if err := b.disconnectBlock(n, blk); err != nil {
				return err
			}
			b.chain.setTip(n.parent)
		}
	}
	start := int32(0)
	if fork != nil {
		start = fork.height + 1
	}
	for h := start; h <= newTip.height; h++ {
		n := newTip.ancestor(h)
		if h == 0 {
			continue
		}
		blk, err := b.readBlock(n)
		if err != nil {
			return err
		}
		txids := blk.TxHashes()
		for i, tx := range blk.Transactions {
			if i > 0 {
				for j := range tx.TxIn {
					if _, err := b.cache.SpendEntry(&tx.TxIn[j].PreviousOutPoint, nil); err != nil {
						return err
					}
				}
			}
			for o := range tx.TxOut {
				out := &tx.TxOut[o]
				e := database.UtxoEntry{Amount: out.Value, PkScript: out.PkScript, Height: n.height, IsCoinBase: i == 0}
				if err := b.cache.AddEntry(&wire.OutPoint{Hash: txids[i], Index: uint32(o)}, &e, true); err != nil {
					return err
				}
			}
		}
	}
	b.chain.setTip(newTip)
	return b.cache.Flush(newTip.hash, newTip.height)
}

// logInvalidChain logs a newly invalid block and the tip, as Core's
// InvalidChainFound does.
func (b *BlockChain) logInvalidChain(n *blockNode) {
	tip := b.chain.tip()
	log.Infof("InvalidChainFound: invalid block=%v  height=%d  log2_work=%.6f  date=%s",
		n.hash, n.height, log2Work(n.workSum.Big()), isoDate(int64(n.timestamp)))
	log.Infof("InvalidChainFound:  current best=%v  height=%d  log2_work=%.6f  date=%s",
		tip.hash, tip.height, log2Work(tip.workSum.Big()), isoDate(int64(tip.timestamp)))
}

// log2Work is log2 of a chain's work, as Core's log lines show it.
func log2Work(w *big.Int) float64 {
	f, _ := new(big.Float).SetInt(w).Float64()
	return math.Log2(f)
}

// isoDate formats Unix seconds as Core's FormatISO8601DateTime.
func isoDate(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02T15:04:05Z") }
