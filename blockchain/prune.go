package blockchain

import (
	"fmt"
	"sort"

	"github.com/btcnode/btcd/database"
)

// Pruning (Config.PruneTarget, Core's -prune) keeps the block and undo
// files under a byte target by deleting the oldest files. It runs after a
// complete chainstate flush, so the chainstate never needs a block that is
// gone (an interrupted later flush replays only blocks above the flushed
// tip), and never deletes a file holding any of the last MinBlocksToKeep
// blocks of the main chain, so reorganizations up to that depth still find
// their blocks and undo data. Nothing is pruned while the tip is at or
// below Params.PruneAfterHeight.
//
// Order of writes: the block index is updated first (the blocks marked as
// having no data) and flushed, and only then are the files deleted. A
// crash in between leaves files nobody refers to; they still count in the
// disk usage and are deleted by the next prune.
//
// The chain checks whether to prune whenever a new block file was started
// (and then flushes even if the UTXO cache does not need it), and after
// every flush.

// MinBlocksToKeep is how many of the last main-chain blocks pruning always
// keeps (Core's MIN_BLOCKS_TO_KEEP).
const MinBlocksToKeep = minBlocksToKeep

// pruneState is the chain's pruning state, guarded by the chain lock.
type pruneState struct {
	target uint64
	// lastFile is the block file current at the last pruneDue check.
	lastFile uint32
	checked  bool
	// locks are the prune locks (Core's m_prune_locks): for each index
	// that reads blocks, the height of the first block it may still
	// need.
	locks map[string]int32
}

// pruneLockBuffer is how many blocks below a prune lock are kept too
// (Core's PRUNE_LOCK_BUFFER), so a short reorganisation the index must
// follow still finds its blocks.
const pruneLockBuffer = 10

// UpdatePruneLock sets the prune lock named name (an index's name, as
// "basic block filter index"): pruning keeps every block from height
// less pruneLockBuffer up. The index moves it up as it advances; a
// reorganisation moves it back below the blocks it disconnects.
func (b *BlockChain) UpdatePruneLock(name string, height int32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.prune.locks == nil {
		b.prune.locks = make(map[string]int32)
	}
	b.prune.locks[name] = height
}

// applyPruneLocks lowers limit, the highest height pruning may delete, to
// below every prune lock's buffer, logging the locks as Core does.
func (b *BlockChain) applyPruneLocks(limit int32) int32 {
	names := make([]string, 0, len(b.prune.locks))
	for name := range b.prune.locks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		lock := b.prune.locks[name] - pruneLockBuffer - 1
		log.Debugf("%s limited pruning to height %d", name, lock)
		limit = min(limit, lock)
	}
	return limit
}

// movePruneLocksBelow moves every prune lock at or above height down to
// height-1, as the block at height is disconnected, so the index that set
// it can still read the blocks it must take back.
func (b *BlockChain) movePruneLocksBelow(height int32) {
	for name, h := range b.prune.locks {
		if h > height-1 {
			b.prune.locks[name] = height - 1
			log.Debugf("%s prune lock moved back to %d", name, height-1)
		}
	}
}

// pruneDue reports whether a flush should run to prune: a new block file
// was started since the last check and the files exceed the target.
func (b *BlockChain) pruneDue() bool {
	if b.prune.target == 0 {
		return false
	}
	cur := b.db.CurrentFile()
	if b.prune.checked && cur == b.prune.lastFile {
		return false
	}
	b.prune.checked, b.prune.lastFile = true, cur
	return uint64(b.db.DiskUsage()) > b.prune.target
}

// pruneLimit returns the highest height pruning may delete, or -1.
func (b *BlockChain) pruneLimit() int32 {
	tip := b.chain.tip()
	if tip.height <= b.params.PruneAfterHeight {
		return -1
	}
	return b.applyPruneLocks(tip.height - MinBlocksToKeep)
}

// pruneAfterFlush deletes the oldest files until the target is met.
func (b *BlockChain) pruneAfterFlush() error {
	if b.prune.target == 0 {
		return nil
	}
	limit := b.pruneLimit()
	usage := uint64(b.db.DiskUsage())
	if limit < 0 || usage <= b.prune.target {
		return nil
	}
	files := b.prunableFiles(limit)
	sort.Slice(files, func(i, j int) bool { return files[i].MaxHeight < files[j].MaxHeight })
	maxHeight := int32(-1)
	for _, f := range files {
		if usage <= b.prune.target {
			break
		}
		usage -= uint64(f.Size) + uint64(f.UndoSize)
		maxHeight = f.MaxHeight
	}
	if maxHeight < 0 {
		return nil
	}
	return b.pruneTo(maxHeight)
}

// prunableFiles lists the files database.PruneFiles(limit) would delete.
func (b *BlockChain) prunableFiles(limit int32) []database.FileInfo {
	cur := b.db.CurrentFile()
	var out []database.FileInfo
	for n := uint32(0); n < cur; n++ {
		fi, ok := b.db.FileInfo(n)
		if ok && !fi.Pruned && fi.Blocks > 0 && fi.MaxHeight <= limit {
			out = append(out, fi)
		}
	}
	return out
}

// pruneTo deletes every block file (and its undo file) whose blocks are
// all at or below maxHeight, after recording in the block index that
// their blocks have no data any more.
func (b *BlockChain) pruneTo(maxHeight int32) error {
	cur := b.db.CurrentFile()
	doomed := make(map[uint32]bool)
	for n := uint32(0); n < cur; n++ {
		if fi, ok := b.db.FileInfo(n); ok && !fi.Pruned && fi.Blocks > 0 && fi.MaxHeight <= maxHeight {
			doomed[n] = true
		}
	}
	if len(doomed) == 0 {
		return nil
	}
	for _, n := range b.index.nodes {
		if n.status&statusDataStored != 0 && doomed[n.blockFile] {
			b.index.setStatus(n, 0, statusDataStored|statusUndoStored)
			delete(b.recent, n)
		}
	}
	b.index.writeDirty(b.db)
	if err := b.db.Flush(); err != nil {
		return err
	}
	pruned, err := b.db.PruneFiles(maxHeight)
	if err != nil {
		return err
	}
	if err := b.db.Flush(); err != nil {
		return err
	}
	log.Infof("Pruned %d block files up to height %d (%d MiB of block files left)",
		len(pruned), maxHeight, b.db.DiskUsage()>>20)
	return nil
}

// Pruned reports whether pruning is enabled (getblockchaininfo "pruned").
func (b *BlockChain) Pruned() bool { return b.prune.target != 0 }

// PruneTarget returns the configured pruning target in bytes (0: off).
func (b *BlockChain) PruneTarget() uint64 { return b.prune.target }

// PruneHeight returns the lowest height from which every main-chain block
// is still stored: one above the highest pruned block, or 0 when nothing
// was pruned (getblockchaininfo "pruneheight").
func (b *BlockChain) PruneHeight() int32 {
	return b.db.PrunedHeight() + 1
}

// PruneBlockchain deletes block files whose blocks are all at or below
// height (the pruneblockchain RPC). Heights within MinBlocksToKeep of the
// tip are lowered to tip-MinBlocksToKeep. It returns the height of the
// highest pruned block (-1 when none). Pruning must be enabled
// (ErrPruneDisabled).
func (b *BlockChain) PruneBlockchain(height int32) (int32, error) {
	if b.prune.target == 0 {
		return -1, fmt.Errorf("%w", ErrPruneDisabled)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	tip := b.chain.tip()
	if height > tip.height {
		return -1, fmt.Errorf("blockchain is shorter than the attempted prune height %d", height)
	}
	height = b.applyPruneLocks(min(height, tip.height-MinBlocksToKeep))
	// The chainstate must be past everything deleted.
	b.index.writeDirty(b.db)
	if err := b.db.Flush(); err != nil {
		return -1, err
	}
	if err := b.cache.Flush(tip.hash, tip.height); err != nil {
		return -1, err
	}
	if height >= 0 {
		if err := b.pruneTo(height); err != nil {
			return -1, err
		}
	}
	return b.db.PrunedHeight(), nil
}
