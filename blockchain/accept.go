package blockchain

import (
	"errors"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// ProcessResult says what became of a block given to ProcessBlock.
type ProcessResult struct {
	// MainChain is set when the block is on the best chain afterwards.
	MainChain bool
	// Orphan is set when the parent is unknown; the block waits in the
	// orphan pool and OrphanRoot names the block to ask peers for.
	Orphan     bool
	OrphanRoot wire.Hash
	// Duplicate is set when the block was already stored (or already an
	// orphan); nothing was done.
	Duplicate bool
}

// ProcessBlock validates a block from a peer or from submitblock, stores
// it, and makes the chain with the most work the main chain. A block whose
// parent is unknown is kept as an orphan (if its proof of work holds) and
// connected once the parent arrives. Rule failures are *RuleError values;
// other errors (database failures) are fatal for the node.
//
// Anti-DoS: a block is stored only after its header passed proof of work,
// and the difficulty rules against a known parent, so
// storing data costs the sender real work at the chain's difficulty.
func (b *BlockChain) ProcessBlock(block *wire.MsgBlock) (ProcessResult, error) {
	return b.ProcessBlockWithFlags(block, BFNone)
}

// BehaviorFlags modify ProcessBlockWithFlags.
type BehaviorFlags uint32

const (
	// BFNone is a block we asked for, or one given by submitblock.
	BFNone BehaviorFlags = 0
	// BFUnrequested marks a block a peer pushed without being asked. As in
	// Core, such a block is quietly not stored unless it has at least the
	// tip's work, is within 288 blocks of the tip and its chain has the
	// minimum chain work, so unsolicited side-chain blocks cost us no
	// disk.
	BFUnrequested BehaviorFlags = 1 << iota
	// BFSanityChecked says the caller has run CheckBlockSanity on this
	// very block (unchanged since) and it passed, so processing skips it.
	// The sync manager checks arriving blocks on the peer's goroutine,
	// which takes the merkle root and transaction checks off the
	// goroutine that connects blocks (the bottleneck when scripts are
	// skipped).
	BFSanityChecked
	// BFForce marks a block the node itself was given (submitblock, the
	// generate RPCs, -loadblock and reindex imports): as with Core's
	// force_processing, it is stored even when its chain has less than the
	// minimum chain work, which only guards against what peers send.
	BFForce
)

// minBlocksToKeep is how far ahead of the tip an unrequested block may be.
const minBlocksToKeep = 288

// ProcessBlockWithFlags is ProcessBlock with behaviour flags.
func (b *BlockChain) ProcessBlockWithFlags(block *wire.MsgBlock, flags BehaviorFlags) (ProcessResult, error) {
	b.mu.Lock()
	res, err := b.processBlock(block, flags)
	b.mu.Unlock()
	b.deliver()
	return res, err
}

func (b *BlockChain) processBlock(block *wire.MsgBlock, flags BehaviorFlags) (ProcessResult, error) {
	hash := block.BlockHash()
	if n := b.index.lookup(&hash); n != nil && n.status&statusDataStored != 0 {
		return ProcessResult{Duplicate: true, MainChain: b.chain.contains(n)}, nil
	}
	if b.orphans.has(&hash) {
		return ProcessResult{Duplicate: true, Orphan: true, OrphanRoot: b.orphans.root(hash)}, nil
	}
	if flags&BFSanityChecked != 0 {
		// Checked by the caller.
	} else if err := CheckBlockSanity(block, b.params.PowLimit); err != nil {
		// Context-free failures never mark the hash invalid, as in Core:
		// a transaction list that merely hashes to the header's merkle
		// root (e.g. 64-byte transactions posing as inner nodes) is not
		// necessarily the block the header commits to.
		logAcceptFailed(err)
		return ProcessResult{}, err
	}
	if b.index.lookup(&block.Header.PrevBlock) == nil {
		if flags&BFUnrequested != 0 {
			// As Core, which keeps no block orphans: a pushed block
			// must connect to a known header, else it is invalid
			// (and its sender punished).
			log.Debugf("header %v has prev block not found: %v", hash, block.Header.PrevBlock)
			return ProcessResult{}, ruleReason(ErrPrevBlockNotFound)
		}
		b.orphans.add(block, hash, b.maxOrphans, clock.Now())
		return ProcessResult{Orphan: true, OrphanRoot: b.orphans.root(hash)}, nil
	}
	n, err := b.acceptBlockAndConnect(block, hash, flags)
	if err != nil || n == nil || n.status&statusDataStored == 0 {
		return ProcessResult{}, err
	}
	b.processOrphans(hash)
	return ProcessResult{MainChain: b.chain.contains(n)}, nil
}

// acceptBlockAndConnect accepts a block whose parent is known and runs the
// best-chain selection, returning the block's own rule error if it failed
// to connect. A nil node without an error means the block was dropped.
func (b *BlockChain) acceptBlockAndConnect(block *wire.MsgBlock, hash wire.Hash, flags BehaviorFlags) (*blockNode, error) {
	if flags&BFUnrequested != 0 && b.index.lookup(&hash) == nil {
		// A pushed block's new header is taken only when its chain has
		// the minimum work: below it, headers enter the tree only
		// through the sync manager's presync. Quietly dropped (nil
		// node), as Core.
		if parent := b.index.lookup(&block.Header.PrevBlock); parent != nil &&
			parent.workSum.Add(CalcWork(block.Header.Bits)).Cmp(b.minWork) < 0 {
			log.Debugf("AcceptBlockHeader: not adding new block header %v, missing anti-dos proof-of-work validation", hash)
			return nil, nil
		}
	}
	n, err := b.acceptHeader(&block.Header, hash)
	if err != nil {
		logAcceptFailed(err)
		return nil, err
	}
	if flags&BFUnrequested != 0 {
		tip := b.chain.tip()
		if n.workSum.Cmp(tip.workSum) < 0 || n.height > tip.height+minBlocksToKeep ||
			n.workSum.Cmp(b.minWork) < 0 {
			return n, nil
		}
	}
	if err := b.acceptBlock(n, block); err != nil {
		if errIsRule(err) {
			log.Errorf("AcceptBlock: %s", stateString(err))
		}
		logAcceptFailed(err)
		return n, err
	}
	b.connectErrs = nil
	if err := b.activateBestChain(); err != nil {
		return n, err
	}
	if err, ok := b.connectErrs[n]; ok {
		return n, err
	}
	if n.status&statusFailedParent != 0 {
		return n, ruleError(ErrBadPrevBlock, "an ancestor of the block is invalid")
	}
	return n, nil
}

// logAcceptFailed logs a block refused before it was stored, in the words
// of Core's ProcessNewBlock, which Core's tests look for.
func logAcceptFailed(err error) {
	log.Errorf("ProcessNewBlock: AcceptBlock FAILED (%s)", stateString(err))
}

// processOrphans connects orphans waiting for hash, and theirs in turn.
func (b *BlockChain) processOrphans(hash wire.Hash) {
	queue := []wire.Hash{hash}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		kids := append([]wire.Hash(nil), b.orphans.byPrev[parent]...)
		for _, h := range kids {
			ob := b.orphans.byHash[h]
			b.orphans.remove(h)
			if ob == nil {
				continue
			}
			if _, err := b.acceptBlockAndConnect(ob.block, h, BFNone); err != nil {
				log.Debugf("Orphan block %v rejected: %v", h, err)
				continue
			}
			queue = append(queue, h)
		}
	}
}

// failOnRule marks n failed for a rule error that is not a mutation.
func (b *BlockChain) failOnRule(n *blockNode, err error) {
	var re *RuleError
	if errors.As(err, &re) && !re.IsMutation() && re.Kind != ErrTimeTooNew {
		b.markInvalid(n)
	}
}

// acceptHeader checks a header against its parent and adds it to the tree
// (Core's AcceptBlockHeader). Headers that fail are not stored, so an
// invalid header costs us nothing beyond checking it.
func (b *BlockChain) acceptHeader(h *wire.BlockHeader, hash wire.Hash) (*blockNode, error) {
	if n := b.index.lookup(&hash); n != nil {
		if n.status&statusInvalid != 0 {
			log.Debugf("AcceptBlockHeader: block %v is marked invalid", hash)
			return n, ruleReason(ErrDuplicateInvalid)
		}
		return n, nil
	}
	if err := CheckProofOfWork(&hash, h.Bits, b.params.PowLimit); err != nil {
		log.Debugf("AcceptBlockHeader: Consensus::CheckBlockHeader: %v, %s", hash, stateString(err))
		return nil, err
	}
	parent := b.index.lookup(&h.PrevBlock)
	if parent == nil {
		log.Debugf("header %v has prev block not found: %v", hash, h.PrevBlock)
		return nil, ruleReason(ErrPrevBlockNotFound)
	}
	if parent.status&statusInvalid != 0 {
		log.Debugf("header %v has prev block invalid: %v", hash, h.PrevBlock)
		return nil, ruleReason(ErrBadPrevBlock)
	}
	height := parent.height + 1
	ctx := HeaderContext{
		Height:       height,
		RequiredBits: nextRequiredBits(b.params, parent, int64(h.Timestamp)),
		PrevTime:     int64(parent.timestamp),
		PrevMTP:      parent.medianTimePast(),
		Now:          b.now(),
	}
	if err := CheckHeaderContext(b.params, h, &ctx); err != nil {
		// Core's feature_cltv.py and feature_dersig.py look for
		// "<hash>, bad-version(0x...)" here.
		log.Debugf("AcceptBlockHeader: Consensus::ContextualCheckBlockHeader: %v, %s", hash, stateString(err))
		return nil, err
	}
	n := newBlockNode(h, hash, parent)
	n.status = statusHeaderValid
	b.index.add(n)
	return n, nil
}

// acceptBlock runs the contextual block checks and stores the block's data
// (Core's AcceptBlock). A block failing a rule is marked invalid unless
// the failure may be a malleation.
func (b *BlockChain) acceptBlock(n *blockNode, block *wire.MsgBlock) error {
	if n.status&statusDataStored != 0 {
		return nil
	}
	if err := CheckBlockContext(b.params, block, n.height, n.parent.medianTimePast()); err != nil {
		b.failOnRule(n, err)
		return err
	}
	if b.params.IsSignet() {
		if err := CheckSignetBlockSolution(b.params.SignetChallenge, block); err != nil {
			b.failOnRule(n, err)
			return err
		}
	}
	loc, err := b.storeBlock(n, block)
	if err != nil {
		return err
	}
	n.blockFile, n.blockOffset, n.blockSize = loc.File, loc.Offset, loc.Size
	n.numTx = uint32(len(block.Transactions))
	n.seq = b.index.nextSeq
	b.index.nextSeq++
	stored := statusDataStored
	if n.height < b.params.SegwitHeight {
		stored |= statusNoWitness
	}
	b.index.setStatus(n, stored, 0)
	b.index.dirty[n] = struct{}{}
	b.cacheBlock(n, block)
	if n.parent.chainTx != 0 {
		b.linkChain(n)
	} else {
		b.index.unlinked[n.parent] = append(b.index.unlinked[n.parent], n)
	}
	return nil
}

// linkChain sets chainTx on n and on stored descendants that were waiting
// for it, and makes them candidates.
func (b *BlockChain) linkChain(n *blockNode) {
	queue := []*blockNode{n}
	tip := b.chain.tip()
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		x.chainTx = x.parent.chainTx + uint64(x.numTx)
		if x.status&statusInvalid == 0 && (tip == nil || !better(tip, x)) {
			b.index.candidates[x] = struct{}{}
		}
		queue = append(queue, b.index.unlinked[x]...)
		delete(b.index.unlinked, x)
	}
}

// ProcessHeaders adds a batch of headers, as a peer's "headers" message
// delivers them, to the header tree. Each header must connect to the
// previous one (the first to a header we have), pass proof of work, the
// difficulty and timestamp rules. It returns the last
// header's node height and hash.
//
// Anti-DoS policy: headers are stored only when they connect to the tree
// and carry valid proof of work at the difficulty the rules demand for
// their position, so a peer can make us store headers only at the cost of
// mining them. As in Core 30 there are no checkpoints.
// Headers whose chain has less than MinimumChainWork are kept out of this
// call by the sync manager's per-peer headers presync (peer/netsync),
// which bounds the memory a peer can make us spend on them; it should
// also not request blocks of a header chain whose work is below
// MinimumChainWork (see HeaderChainTrusted).
func (b *BlockChain) ProcessHeaders(headers []wire.BlockHeader) (wire.Hash, int32, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var last *blockNode
	for i := range headers {
		h := &headers[i]
		if i > 0 && h.PrevBlock != last.hash {
			return lastOf(last), errorHeight(last), ruleError(ErrPrevBlockNotFound, "non-continuous headers sequence")
		}
		n, err := b.acceptHeader(h, h.BlockHash())
		if err != nil {
			return lastOf(last), errorHeight(last), err
		}
		last = n
	}
	return lastOf(last), errorHeight(last), nil
}

func lastOf(n *blockNode) wire.Hash {
	if n == nil {
		return wire.Hash{}
	}
	return n.hash
}

func errorHeight(n *blockNode) int32 {
	if n == nil {
		return -1
	}
	return n.height
}

// HeaderChainTrusted reports whether the header with the given hash has at
// least the minimum chain work, so that downloading its blocks is worth
// it.
func (b *BlockChain) HeaderChainTrusted(hash *wire.Hash) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := b.index.lookup(hash)
	return n != nil && n.workSum.Cmp(b.minWork) >= 0
}
