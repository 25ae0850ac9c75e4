package blockchain

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// DefaultMaxOrphans bounds the orphan pool.
const DefaultMaxOrphans = 100

// Config configures New.
type Config struct {
	// Params are the network's consensus parameters.
	Params *chaincfg.Params
	// BlockDB stores block data, undo data and the block index.
	BlockDB *database.BlockDB
	// ChainState is the on-disk UTXO set and Cache the cache in front of
	// it; all coin access goes through Cache.
	ChainState *database.ChainState
	Cache      *database.UtxoCache
	// SigCache remembers verified signatures (optional).
	SigCache *txscript.SigCache
	// Par is the number of script verification workers; 0 means
	// GOMAXPROCS, 1 verifies on the calling goroutine.
	Par int
	// AssumeValid overrides Params.AssumeValid when AssumeValidSet is
	// true; a zero hash then disables assume-valid.
	AssumeValid    wire.Hash
	AssumeValidSet bool
	// MinimumChainWork overrides Params.MinimumChainWork when non-nil.
	MinimumChainWork *Work
	// Now returns the network-adjusted time in Unix seconds; nil means
	// the node's clock (internal/clock, which tests can freeze).
	Now func() int64
	// MaxTipAge is how old, in seconds, the tip may be while the chain
	// counts as current (DefaultMaxTipAge if 0; Core's -maxtipage).
	MaxTipAge int64
	// MaxOrphans bounds the orphan pool (DefaultMaxOrphans if 0).
	MaxOrphans int
	// TxIndex maintains the transaction index (--txindex) for TxByID; an
	// existing chain is indexed in the background (see txindex.go).
	TxIndex bool
	// PruneTarget, if non-zero, is the most bytes of block and undo files
	// to keep (--prune, in bytes); older files are deleted after flushes,
	// never ones holding the last MinBlocksToKeep blocks (see prune.go).
	// The daemon enforces the user-facing minimum. It cannot be combined
	// with TxIndex.
	PruneTarget uint64
	// OnFatal, when set, is told when the chain hit an error it cannot go
	// on from (an undo record that cannot be read, so a reorganisation
	// cannot proceed); msg is Core's wording ("Failed to disconnect
	// block."). The daemon shuts down, as Core's AbortNode.
	OnFatal func(msg string, err error)
}

// BestState describes the tip. A new value is published after every tip
// change, so a pointer obtained from BestSnapshot is immutable.
type BestState struct {
	Hash       wire.Hash
	Height     int32
	Bits       uint32
	BlockSize  uint64
	NumTxns    uint64
	TotalTxns  uint64
	MedianTime int64
	// Time is the tip header's timestamp.
	Time      int64
	ChainWork Work
}

// BlockChain validates blocks and keeps the best chain and its UTXO set.
// All exported methods are safe for concurrent use.
type BlockChain struct {
	// stored is the block ProcessStoredBlock is processing; guarded by mu.
	stored *storedBlock

	params      *chaincfg.Params
	db          *database.BlockDB
	cs          *database.ChainState
	cache       *database.UtxoCache
	sigCache    *txscript.SigCache
	now         func() int64
	maxTipAge   int64
	maxOrphans  int
	minWork     Work
	assumeValid wire.Hash

	// mu guards the index, the main chain and the orphans.
	mu      sync.RWMutex
	index   *blockIndex
	chain   chainView
	orphans orphanPool
	best    atomic.Pointer[BestState]
	// caughtUp latches IsCurrent once it is true.
	caughtUp atomic.Bool
	scripts  *scriptPool
	scratch  connectScratch
	recent   map[*blockNode]*wire.MsgBlock
	// connectErrs records, during one activateBestChain, why blocks
	// failed to connect, so ProcessBlock can return the block's error.
	connectErrs map[*blockNode]error
	// Precious-block state: seq values handed out below zero, and the tip
	// work when they were.
	reverseSeq       int32
	lastPreciousWork Work
	onFatal          func(msg string, err error)
	// noScripts skips script checks; only benchmarks set it, to measure
	// the share of time spent verifying signatures.
	noScripts bool
	// prepareOverlap prepares the next block of a connect path (read,
	// decode, fetch its coins; startPrepare) on another goroutine while
	// the current one is connected. See BenchmarkConnectTwoBlocks2000P2WPKH
	// for why it is off.
	prepareOverlap bool
	// asyncFlush receives the result of the chainstate write that
	// maybeFlush started in the background; nil when none is pending.
	asyncFlush <-chan error

	txIndex txIndex
	prune   pruneState
	// vb caches the BIP9 states (versionbits.go); it has its own lock.
	vb versionBits

	subMu sync.Mutex
	subs  []func(*Notification)
	// subCond (on subMu) orders deliveries: batch notifyQueued is taken
	// under mu, and delivered once notifyDone reaches the one before it.
	subCond      *sync.Cond
	notifyQueued uint64 // guarded by mu
	notifyDone   uint64 // guarded by subMu
	// pending notifications are delivered after the lock is released.
	pending []Notification
}

// New opens the chain: it loads the block index, creates the genesis block
// on a new database, and restores the tip recorded in the chainstate,
// connecting any stored blocks with more work.
func New(cfg *Config) (*BlockChain, error) {
	if cfg.Params == nil || cfg.BlockDB == nil || cfg.ChainState == nil || cfg.Cache == nil {
		return nil, errors.New("blockchain: Params, BlockDB, ChainState and Cache are required")
	}
	p := cfg.Params
	b := &BlockChain{
		params:     p,
		db:         cfg.BlockDB,
		cs:         cfg.ChainState,
		cache:      cfg.Cache,
		sigCache:   cfg.SigCache,
		now:        cfg.Now,
		maxTipAge:  cfg.MaxTipAge,
		maxOrphans: cfg.MaxOrphans,
		onFatal:    cfg.OnFatal,
		index:      newBlockIndex(),
		reverseSeq: -1,
	}
	b.subCond = sync.NewCond(&b.subMu)
	if b.now == nil {
		b.now = clock.Unix
	}
	if b.maxTipAge <= 0 {
		b.maxTipAge = DefaultMaxTipAge
	}
	if b.maxOrphans <= 0 {
		b.maxOrphans = DefaultMaxOrphans
	}
	b.assumeValid = p.AssumeValid
	if cfg.AssumeValidSet {
		b.assumeValid = cfg.AssumeValid
	}
	// Core's words, which tools read to learn what validation skips.
	if b.assumeValid != (wire.Hash{}) {
		log.Infof("Assuming ancestors of block %v have valid signatures.", b.assumeValid)
	} else {
		log.Info("Validating signatures for all blocks.")
	}
	if cfg.MinimumChainWork != nil {
		b.minWork = *cfg.MinimumChainWork
	} else if p.MinimumChainWork != nil {
		b.minWork = WorkFromBig(p.MinimumChainWork)
	}
	par := cfg.Par
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	if cfg.TxIndex && cfg.PruneTarget != 0 {
		return nil, errors.New("blockchain: the transaction index cannot be built with pruning enabled")
	}
	b.txIndex.enabled = cfg.TxIndex
	b.prune.target = cfg.PruneTarget
	b.scripts = newScriptPool(par)
	b.scripts.sigCache = cfg.SigCache
	b.orphans.init()

	log.Info("Loading block index…")
	if err := b.index.load(b.db); err != nil {
		b.scripts.stop()
		return nil, &BlockIndexLoadError{Err: err}
	}
	log.Info("Checking all blk files are present...")
	if missing := b.db.MissingBlockFiles(); len(missing) > 0 {
		b.scripts.stop()
		return nil, &BlockIndexLoadError{Err: fmt.Errorf("block files missing: %s", strings.Join(missing, ", "))}
	}
	if err := b.initChain(); err != nil {
		b.scripts.stop()
		return nil, err
	}
	if b.txIndex.enabled {
		if err := b.db.OpenTxIndex(); err != nil {
			b.scripts.stop()
			return nil, err
		}
		if err := b.startTxIndex(); err != nil {
			b.scripts.stop()
			return nil, err
		}
	}
	return b, nil
}

// initChain creates genesis if needed and sets the tip from the chainstate.
func (b *BlockChain) initChain() error {
	p := b.params
	genesis := b.index.lookup(&p.GenesisHash)
	if genesis == nil {
		raw := p.GenesisBlock.Bytes()
		loc, err := b.storeGenesis(raw) // reindex.go
		if err != nil {
			return err
		}
		genesis = newBlockNode(&p.GenesisBlock.Header, p.GenesisHash, nil)
		genesis.status = statusHeaderValid | statusDataStored | statusValid
		genesis.numTx = uint32(len(p.GenesisBlock.Transactions))
		genesis.chainTx = uint64(genesis.numTx)
		genesis.blockFile, genesis.blockOffset, genesis.blockSize = loc.File, loc.Offset, loc.Size
		genesis.seq = 0
		b.index.add(genesis)
		b.index.writeDirty(b.db)
		if err := b.db.Flush(); err != nil {
			return err
		}
	}
	tip := genesis
	if best := b.cs.BestBlock(); best.Height >= 0 {
		tip = b.index.lookup(&best.Hash)
		if tip == nil {
			return fmt.Errorf("blockchain: chainstate tip %v is not in the block index: %w", best.Hash, database.ErrCorrupt)
		}
	}
	if hb, ok := b.cs.HeadBlocks(); ok {
		if err := b.replayBlocks(hb); err != nil {
			return err
		}
		tip = b.index.lookup(&hb.New.Hash)
	}
	if err := b.checkWitnessValidated(tip); err != nil {
		return err
	}
	b.chain.setTip(tip)
	progress := 1.0
	if hdr := b.index.bestHeader; hdr != nil && hdr.height > tip.height {
		progress = float64(tip.height) / float64(hdr.height)
	}
	log.Infof("Loaded best chain: hashBestChain=%v height=%d date=%s progress=%f", tip.hash, tip.height,
		time.Unix(int64(tip.timestamp), 0).UTC().Format(time.RFC3339), progress)
	for _, n := range b.index.nodes {
		if n.chainTx != 0 && n.status&statusInvalid == 0 && n.status&statusDataStored != 0 && !better(tip, n) {
			b.index.candidates[n] = struct{}{}
		}
	}
	b.index.candidates[tip] = struct{}{}
	b.publishTip()
	// Blocks stored after the last chainstate flush are reconnected here.
	err := b.activateBestChain()
	b.deliver()
	return err
}

// checkWitnessValidated fails with a NeedsRedownloadError when a block of
// the chain ending at tip, at or above the segwit activation height, was
// stored while segwit did not apply at its height: a node whose
// activation height moved down (an upgrade from a pre-segwit node, or
// -testactivationheight on regtest) must validate those blocks again, as
// Core's NeedsRedownload.
func (b *BlockChain) checkWitnessValidated(tip *blockNode) error {
	for n := tip; n != nil && n.height >= b.params.SegwitHeight; n = n.parent {
		if n.status&statusNoWitness != 0 {
			return &NeedsRedownloadError{SegwitHeight: b.params.SegwitHeight}
		}
	}
	return nil
}

// publishTip refreshes the BestSnapshot after a tip change.
func (b *BlockChain) publishTip() {
	tip := b.chain.tip()
	s := &BestState{
		Hash:       tip.hash,
		Height:     tip.height,
		Bits:       tip.bits,
		NumTxns:    uint64(tip.numTx),
		TotalTxns:  tip.chainTx,
		MedianTime: tip.medianTimePast(),
		Time:       int64(tip.timestamp),
		ChainWork:  tip.workSum,
		BlockSize:  uint64(tip.blockSize),
	}
	b.best.Store(s)
}

// BestSnapshot returns the current tip's state. The value must not be
// modified.
func (b *BlockChain) BestSnapshot() *BestState { return b.best.Load() }

// Params returns the chain's parameters.
func (b *BlockChain) Params() *chaincfg.Params { return b.params }

// Close flushes the block index and the UTXO cache and stops the script
// workers. The databases stay open; their owner closes them.
func (b *BlockChain) Close() error {
	b.stopTxIndex()
	b.mu.Lock()
	err := b.flush()
	b.mu.Unlock()
	b.scripts.stop()
	return err
}

// Flush writes the block index and the UTXO cache to disk.
func (b *BlockChain) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flush()
}

// flush makes block data, undo data and the index durable before the
// chainstate, which then refers only to stored blocks.
func (b *BlockChain) flush() error {
	// UtxoCache.Flush waits for a background write itself; collect that
	// write's result so that a failure is reported (its entries stayed
	// dirty, so this flush writes them again).
	asyncErr := b.waitAsyncFlush()
	b.index.writeDirty(b.db)
	if err := b.db.Flush(); err != nil {
		return err
	}
	clear(b.txIndex.pending)
	tip := b.chain.tip()
	if err := b.cache.Flush(tip.hash, tip.height); err != nil {
		return err
	}
	// Only now that the chainstate is past every block it deletes may
	// pruning remove block and undo data.
	if err := b.pruneAfterFlush(); err != nil {
		return err
	}
	return asyncErr
}

// maybeFlush flushes when the cache asks for it. Unless pruning is due
// (which must wait for the chainstate write), the chainstate is written
// in the background (UtxoCache.FlushAsync) while blocks go on being
// connected: a synchronous flush leaves the script workers idle for the
// whole LevelDB write, which with a small --utxocachemaxsize cost a
// third of the sync's wall time (docs/ibd.md). Block
// files, undo data and the index are still made durable first, so the
// chainstate never refers to unstored blocks.
func (b *BlockChain) maybeFlush() error {
	if b.pruneDue() {
		return b.flush()
	}
	if err := b.pollAsyncFlush(); err != nil {
		return err
	}
	if !b.cache.NeedsFlush() {
		return nil
	}
	t0 := time.Now()
	b.index.writeDirty(b.db)
	if err := b.db.Flush(); err != nil {
		return err
	}
	clear(b.txIndex.pending)
	tip := b.chain.tip()
	t1 := time.Now()
	b.asyncFlush = b.cache.FlushAsync(tip.hash, tip.height)
	log.Debugf("Flush at height %d: block files and index synced in %v, chainstate snapshot in %v",
		tip.height, t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	return nil
}

// pollAsyncFlush returns the result of a finished background flush, if
// any, without waiting. A failed write left its entries dirty, so the
// next flush writes them again.
func (b *BlockChain) pollAsyncFlush() error {
	if b.asyncFlush == nil {
		return nil
	}
	select {
	case err := <-b.asyncFlush:
		b.asyncFlush = nil
		return err
	default:
		return nil
	}
}

// waitAsyncFlush waits for a background flush and returns its result.
func (b *BlockChain) waitAsyncFlush() error {
	if b.asyncFlush == nil {
		return nil
	}
	err := <-b.asyncFlush
	b.asyncFlush = nil
	return err
}
