package blockchain

import (
	"fmt"
	"sync"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// BlockStatus is what the chain knows about a block, for RPCs.
type BlockStatus struct {
	Hash       wire.Hash
	Height     int32
	Header     wire.BlockHeader
	ChainWork  Work
	MainChain  bool
	HaveData   bool
	Valid      bool // fully validated (connected once)
	Invalid    bool // it or an ancestor breaks a rule
	NumTx      uint32
	MedianTime int64
}

// LookupBlock returns what the chain knows about hash.
func (b *BlockChain) LookupBlock(hash *wire.Hash) (BlockStatus, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.index.lookup(hash)
	if n == nil {
		return BlockStatus{}, false
	}
	return b.status(n), true
}

func (b *BlockChain) status(n *blockNode) BlockStatus {
	return BlockStatus{
		Hash:       n.hash,
		Height:     n.height,
		Header:     n.header(),
		ChainWork:  n.workSum,
		MainChain:  b.chain.contains(n),
		HaveData:   n.status&statusDataStored != 0,
		Valid:      n.status&statusValid != 0,
		Invalid:    n.status&statusInvalid != 0,
		NumTx:      n.numTx,
		MedianTime: n.medianTimePast(),
	}
}

// BlockHashByHeight returns the main-chain block hash at height.
func (b *BlockChain) BlockHashByHeight(height int32) (wire.Hash, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.chain.nodeByHeight(height)
	if n == nil {
		return wire.Hash{}, false
	}
	return n.hash, true
}

// MainChainHasBlock reports whether hash is on the main chain.
func (b *BlockChain) MainChainHasBlock(hash *wire.Hash) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.chain.contains(b.index.lookup(hash))
}

// HaveBlock reports whether the block's data is stored or waiting as an
// orphan.
func (b *BlockChain) HaveBlock(hash *wire.Hash) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if n := b.index.lookup(hash); n != nil && n.status&statusDataStored != 0 {
		return true
	}
	return b.orphans.has(hash)
}

// BlockByHash returns a stored block. A block whose data was pruned
// returns an error matching ErrBlockPruned.
func (b *BlockChain) BlockByHash(hash *wire.Hash) (*wire.MsgBlock, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.index.lookup(hash)
	if n == nil {
		return nil, ruleError(ErrPrevBlockNotFound, "block %v not found", hash)
	}
	return b.readBlock(n)
}

// BlockBytesByHash returns the stored (witness) serialization of the block
// with the given hash, reusing dst's memory, for serving it to peers
// without decoding.
// The chain lock is held only to find the block; the read runs outside
// it, so serving blocks does not stall block connection.
func (b *BlockChain) BlockBytesByHash(hash *wire.Hash, dst []byte) ([]byte, error) {
	b.mu.RLock()
	n := b.index.lookup(hash)
	if n == nil {
		b.mu.RUnlock()
		return dst, ruleError(ErrPrevBlockNotFound, "block %v not found", hash)
	}
	if blk := b.recent[n]; blk != nil {
		b.mu.RUnlock()
		return blk.AppendTo(dst[:0], true), nil
	}
	stored, numTx := n.status&statusDataStored != 0, n.numTx
	loc := database.BlockLoc{File: n.blockFile, Offset: n.blockOffset, Size: n.blockSize}
	b.mu.RUnlock()
	if !stored {
		if numTx > 0 {
			return dst, fmt.Errorf("%w: %v", ErrBlockPruned, hash)
		}
		return dst, &database.Error{Kind: database.ErrNotFound, Desc: "block data of " + hash.String()}
	}
	raw, err := b.db.ReadBlock(loc, dst)
	if err != nil {
		return dst, err
	}
	// The header is cheap to check and catches a block file that no
	// longer holds this block (pruned and reused).
	var h wire.BlockHeader
	if err := h.Decode(raw); err != nil || h.BlockHash() != *hash {
		return dst, &database.Error{Kind: database.ErrCorrupt, Desc: "stored block does not match " + hash.String()}
	}
	return raw, nil
}

// BestHeader returns the hash and height of the valid header with the most
// work.
func (b *BlockChain) BestHeader() (wire.Hash, int32) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.index.bestHeader
	return n.hash, n.height
}

// BlockLocator returns a locator for the main chain's tip, or for hash if
// it is in the tree.
func (b *BlockChain) BlockLocator(hash *wire.Hash) []wire.Hash {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.chain.tip()
	if hash != nil {
		if x := b.index.lookup(hash); x != nil {
			n = x
		}
	}
	return b.chain.locator(n)
}

// LocateHeaders answers a getheaders request: up to max main-chain headers
// after the first locator hash on the main chain (or after genesis),
// stopping at stop.
func (b *BlockChain) LocateHeaders(locator []wire.Hash, stop *wire.Hash, max int) []wire.BlockHeader {
	b.mu.RLock()
	defer b.mu.RUnlock()
	start := b.chain.nodeByHeight(0)
	for i := range locator {
		if n := b.index.lookup(&locator[i]); n != nil {
			if f := b.chain.findForkWithChain(n); f != nil {
				start = f
				break
			}
		}
	}
	var out []wire.BlockHeader
	for n := b.chain.next(start); n != nil && len(out) < max; n = b.chain.next(n) {
		out = append(out, n.header())
		if stop != nil && n.hash == *stop {
			break
		}
	}
	return out
}

// CalcNextRequiredBits returns the bits a block built on the tip with the
// given timestamp must carry (for getblocktemplate).
func (b *BlockChain) CalcNextRequiredBits(timestamp int64) uint32 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return nextRequiredBits(b.params, b.chain.tip(), timestamp)
}

// ChainTip describes one tip of the block tree (getchaintips).
type ChainTip struct {
	Hash      wire.Hash
	Height    int32
	BranchLen int32
	Status    string // "active", "valid-fork", "valid-headers", "headers-only", "invalid"
}

// ChainTips lists every leaf of the tree and the active tip.
func (b *BlockChain) ChainTips() []ChainTip {
	b.mu.RLock()
	defer b.mu.RUnlock()
	hasChild := make(map[*blockNode]bool, len(b.index.nodes))
	for _, n := range b.index.nodes {
		if n.parent != nil {
			hasChild[n.parent] = true
		}
	}
	var tips []ChainTip
	for _, n := range b.index.nodes {
		if hasChild[n] && n != b.chain.tip() {
			continue
		}
		fork := b.chain.findForkWithChain(n)
		t := ChainTip{Hash: n.hash, Height: n.height, BranchLen: n.height - fork.height}
		switch {
		case b.chain.contains(n):
			t.Status = "active"
		case n.status&statusInvalid != 0:
			t.Status = "invalid"
		case n.status&statusValid != 0:
			t.Status = "valid-fork"
		case n.chainTx != 0:
			t.Status = "valid-headers"
		default:
			t.Status = "headers-only"
		}
		tips = append(tips, t)
	}
	return tips
}

// FetchUtxo returns the unspent output op from the UTXO set at the tip
// (ok false if it is spent or never existed).
func (b *BlockChain) FetchUtxo(op wire.OutPoint) (database.UtxoEntry, bool, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	es, _, err := b.cache.FetchEntries([]wire.OutPoint{op}, nil, nil)
	if err != nil || es[0].Missing {
		return database.UtxoEntry{}, false, err
	}
	return es[0], true, nil
}

// MedianTimePast returns the median time past of the main-chain block at
// height (the tip's if height is beyond it).
func (b *BlockChain) MedianTimePast(height int32) int64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.chain.nodeByHeight(height)
	if n == nil {
		n = b.chain.tip()
	}
	return n.medianTimePast()
}

// NextBlockScriptFlags returns the consensus script flags of a block
// built on the tip (for mempool acceptance and block templates).
func (b *BlockChain) NextBlockScriptFlags() txscript.ScriptFlags {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return ScriptFlagsFor(b.params, b.chain.height()+1, wire.Hash{})
}

// DefaultMaxTipAge is how old, in seconds, the tip may be before the node
// considers itself in initial block download (Core's DEFAULT_MAX_TIP_AGE).
const DefaultMaxTipAge = 24 * 60 * 60

// IsCurrent reports whether the chain has caught up: the tip has at least
// the minimum chain work and is younger than the maximum tip age. As
// Core's IsInitialBlockDownload, the answer latches: once caught up, the
// chain stays current for the rest of the run, so a clock moved forward
// (or a quiet network) does not send a synced node back into initial
// download.
//
// It reads the published tip (BestSnapshot), not the chain under its lock:
// peers' goroutines ask at every message (fee filter, transaction relay),
// and during initial download waiting for the lock made a peer's reader
// wait for each block connection to end before it decoded and prefetched
// the next block, so that reading and connecting took turns.
func (b *BlockChain) IsCurrent() bool {
	if b.caughtUp.Load() {
		return true
	}
	tip := b.BestSnapshot()
	if tip.ChainWork.Cmp(b.minWork) < 0 {
		return false
	}
	if tip.Time < b.now()-b.maxTipAge {
		return false
	}
	b.caughtUp.Store(true)
	return true
}

// MissingBlocks returns up to max hashes of blocks on the best header
// chain, from the fork with the main chain upwards, whose data we do not
// have: what the sync manager should download next (Core's
// FindNextBlocksToDownload without the per-peer parts).
func (b *BlockChain) MissingBlocks(max int) []wire.Hash {
	b.mu.RLock()
	defer b.mu.RUnlock()
	best := b.index.bestHeader
	if best == nil || max <= 0 {
		return nil
	}
	fork := b.chain.findForkWithChain(best)
	span := int(best.height - fork.height)
	if span <= 0 {
		return nil
	}
	// Sized once: the sync manager asks for a whole window per call.
	out := make([]wire.Hash, 0, min(max, span))
	for h := fork.height + 1; h <= best.height && len(out) < max; h++ {
		n := best.ancestor(h)
		if n.status&statusDataStored == 0 {
			out = append(out, n.hash)
		}
	}
	return out
}

// HeaderByHash returns a header from the tree.
func (b *BlockChain) HeaderByHash(hash *wire.Hash) (wire.BlockHeader, int32, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.index.lookup(hash)
	if n == nil {
		return wire.BlockHeader{}, -1, false
	}
	return n.header(), n.height, true
}

// IsAncestor reports whether the block ancestor is descendant itself or
// one of its ancestors in the header tree. It is false when either is
// unknown.
func (b *BlockChain) IsAncestor(ancestor, descendant *wire.Hash) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	a, d := b.index.lookup(ancestor), b.index.lookup(descendant)
	if a == nil || d == nil {
		return false
	}
	return d.ancestor(a.height) == a
}

// PrefetchInputs warms the UTXO cache with the coins block spends, reading
// misses from the database in key order. It does not take the chain lock,
// so the sync manager can call it for block N+1 while block N is being
// connected; coins that block N creates or spends are simply not found or
// found spent, which is harmless for a prefetch.
func (b *BlockChain) PrefetchInputs(block *wire.MsgBlock) error {
	// A block far ahead of the tip (scripts being checked, so downloads
	// run ahead) is not prefetched: with a small cache its coins would be
	// evicted again before it connects and read twice, and the outputs
	// of the blocks in between are not in the cache or the database yet.
	// Its coins are read when it connects. The coinbase's BIP34 height is
	// only a hint here; without one the block is prefetched.
	if h, ok := coinbaseHeightHint(block); ok && h > b.BestSnapshot().Height+prefetchAhead {
		return nil
	}
	if !b.cache.MayReadDisk() {
		return nil // every miss is answered from memory
	}
	sc := prefetchPool.Get().(*prefetchScratch)
	defer prefetchPool.Put(sc)
	txs := block.Transactions[min(1, len(block.Transactions)):]
	nIns := 0
	for _, tx := range txs {
		nIns += len(tx.TxIn)
	}
	// Outputs of the block itself are not in the cache or on disk yet.
	skip := sc.inBlock.mark(block.Transactions, block.TxHashes(), nIns)
	sc.ops = sc.ops[:0]
	k := 0
	for _, tx := range txs {
		for i := range tx.TxIn {
			if !skip[k] {
				sc.ops = append(sc.ops, tx.TxIn[i].PreviousOutPoint)
			}
			k++
		}
	}
	var err error
	sc.miss, err = b.cache.Prefetch(sc.ops, sc.miss)
	return err
}

// prefetchAhead is how far past the tip PrefetchInputs still warms the
// cache.
const prefetchAhead = 2

// coinbaseHeightHint reads the height a BIP34 coinbase starts with (a
// 1-4 byte push, or OP_1..OP_16), without validating anything.
func coinbaseHeightHint(block *wire.MsgBlock) (int32, bool) {
	if len(block.Transactions) == 0 || len(block.Transactions[0].TxIn) == 0 {
		return 0, false
	}
	sig := block.Transactions[0].TxIn[0].SignatureScript
	if len(sig) == 0 {
		return 0, false
	}
	if op := sig[0]; op >= 0x51 && op <= 0x60 {
		return int32(op - 0x50), true
	}
	n := int(sig[0])
	if n < 1 || n > 4 || len(sig) < 1+n {
		return 0, false
	}
	var v int32
	for i := n; i >= 1; i-- {
		v = v<<8 | int32(sig[i])
	}
	return v, v >= 0
}

// prefetchScratch holds PrefetchInputs' buffer between calls; peers call
// it concurrently, so it comes from a pool rather than the chain's
// scratch.
type prefetchScratch struct {
	ops, miss []wire.OutPoint
	inBlock   inBlockSpends
}

var prefetchPool = sync.Pool{New: func() any { return new(prefetchScratch) }}

// SpentOutputs decodes into u the outputs that the block with the given
// hash spent, in input order (from its undo record); indexes such as the
// BIP158 filter index need their scripts. The genesis block spends nothing.
// A block whose undo data was pruned gives ErrBlockPruned.
func (b *BlockChain) SpentOutputs(hash *wire.Hash, u *database.BlockUndo) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.index.lookup(hash)
	if n == nil {
		return ruleError(ErrPrevBlockNotFound, "block %v not found", hash)
	}
	if n.parent == nil {
		return u.Decode([]byte{0})
	}
	if n.status&statusUndoStored == 0 || n.status&statusDataStored == 0 {
		return fmt.Errorf("%w: undo data of %v", ErrBlockPruned, n.hash)
	}
	loc := database.UndoLoc{File: n.undoFile, Offset: n.undoOffset, Size: n.undoSize}
	raw, err := b.db.ReadUndo(loc, &n.parent.hash, nil)
	if err != nil {
		return err
	}
	return u.Decode(raw)
}

// MinimumChainWork returns the least work a header chain must have before
// its headers are stored and its blocks downloaded.
func (b *BlockChain) MinimumChainWork() Work { return b.minWork }
