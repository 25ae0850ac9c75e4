package blockchain

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// The transaction index (Config.TxIndex) maps every txid of the main chain,
// except the genesis coinbase (which Core does not index either), to its
// block's location and the transaction's offset within the block, in the
// block database's txindex records. Entries are queued in the same batch
// as the block index, so they become durable with it, before the
// chainstate; after a crash, blocks reconnected at start write their
// entries again. Entries of disconnected blocks are deleted; a stale entry
// that survives anyway (e.g. a reorg while the index was disabled) is
// harmless because TxByID only answers for blocks on the main chain.
//
// Progress is recorded under a reserved key (txIndexMarker, a hash no
// transaction can have) as the height and the first 8 bytes of the hash
// of the last indexed main-chain block. When the index is enabled on an
// existing chain, or was disabled for a while, the background goroutine
// New starts (Core's txindex thread) indexes the missing blocks from the
// block files, a batch at a time under the chain lock, while the node
// runs; new blocks are indexed on connect only once it has caught up
// (TxIndexSynced), so the marker always names a block below which
// everything is indexed. An index found complete at start is synced at
// once and the goroutine ends at its first look.
//
// The records live in the txindex's own LevelDB (indexes/txindex,
// database/txindex.go), opened by New; a node that kept them in the block
// index has them moved there on that first open.

// txIndexMarker is the reserved txindex key holding the progress marker.
var txIndexMarker = wire.DoubleHashH([]byte("btcnode/blockchain txindex progress marker"))

// txIndexFlushEntries bounds the entries indexed since the last block
// database flush; beyond it the block database is flushed so that the
// pending overlay (see txIndex.pending) stays small.
const txIndexFlushEntries = 50_000

// txIndexBatch is how many blocks the catch-up indexes per lock hold.
const txIndexBatch = 50

// txIndex is the chain's txindex state, guarded by the chain lock.
type txIndex struct {
	enabled bool
	// synced is set once the catch-up reached the tip; from then on
	// connect and disconnect maintain the index.
	synced bool
	// pending holds the entries queued in the block database batch but
	// not yet flushed (queued records are not readable until then).
	pending map[wire.Hash]database.TxLoc
	// quit stops the catch-up goroutine; done is closed when it exits.
	quit chan struct{}
	done chan struct{}
	err  error
}

// txIndexMarkerLoc encodes the progress marker as a TxLoc: the height in
// Block.File and the first 8 bytes of the block hash in Block.Offset and
// Block.Size (the database validates nothing else of a TxLoc with a zero
// transaction size).
func txIndexMarkerLoc(n *blockNode) database.TxLoc {
	return database.TxLoc{Block: database.BlockLoc{
		File:   uint32(n.height),
		Offset: binary.LittleEndian.Uint32(n.hash[0:4]),
		Size:   binary.LittleEndian.Uint32(n.hash[4:8]),
	}}
}

func markerMatches(l database.TxLoc, n *blockNode) bool {
	return n != nil && txIndexMarkerLoc(n) == l
}

// startTxIndex finds where the index left off, marks it synced when
// nothing is missing, and starts the catch-up. Called by New with the
// chain lock not yet shared.
func (b *BlockChain) startTxIndex() error {
	ti := &b.txIndex
	ti.pending = make(map[wire.Hash]database.TxLoc)
	from, err := b.txIndexProgress()
	if err != nil {
		return err
	}
	if from == b.chain.tip() {
		ti.synced = true
	} else {
		log.Infof("Building the transaction index from height %d to %d in the background",
			from.height+1, b.chain.tip().height)
	}
	ti.quit = make(chan struct{})
	ti.done = make(chan struct{})
	go b.txIndexCatchUp(from)
	return nil
}

// txIndexProgress returns the main-chain block up to which the index is
// complete: the marker's block, or its fork point with the main chain if
// it was disconnected while the index was not maintained, or genesis.
func (b *BlockChain) txIndexProgress() (*blockNode, error) {
	genesis := b.chain.nodeByHeight(0)
	l, err := b.db.TxLoc(&txIndexMarker)
	if errors.Is(err, database.ErrNotFound) {
		return genesis, nil
	}
	if err != nil {
		return nil, err
	}
	h := int32(l.Block.File)
	if n := b.chain.nodeByHeight(h); markerMatches(l, n) {
		return n, nil
	}
	for _, n := range b.index.nodes {
		if n.height == h && markerMatches(l, n) {
			return b.chain.findForkWithChain(n), nil
		}
	}
	return genesis, nil
}

// txIndexCatchUp indexes main-chain blocks after from until it reaches the
// tip, then hands over to the connect path.
func (b *BlockChain) txIndexCatchUp(from *blockNode) {
	ti := &b.txIndex
	defer close(ti.done)
	// Core's thread lines, which tools and its tests wait for.
	log.Info("txindex thread start")
	defer log.Info("txindex thread exit")
	last := from
	for {
		select {
		case <-ti.quit:
			return
		default:
		}
		b.mu.Lock()
		if ti.synced {
			// Complete at start: connect maintains it from here.
			h := b.chain.tip().height
			b.mu.Unlock()
			log.Infof("txindex is enabled at height %d", h)
			return
		}
		// A reorg may have disconnected what was indexed: go back to the
		// fork (the stale entries are ignored by TxByID).
		last = b.chain.findForkWithChain(last)
		var err error
		for i := 0; i < txIndexBatch && err == nil; i++ {
			n := b.chain.next(last)
			if n == nil {
				break
			}
			var blk *wire.MsgBlock
			if blk, err = b.readBlock(n); err == nil {
				b.indexTxs(n, blk)
				last = n
			}
		}
		if err == nil && last == b.chain.tip() {
			ti.synced = true
			log.Infof("Transaction index built up to height %d", last.height)
		}
		synced := ti.synced
		if err != nil {
			ti.err = err
		}
		b.mu.Unlock()
		if err != nil {
			log.Errorf("Building the transaction index stopped at height %d: %v", last.height, err)
			return
		}
		if synced {
			return
		}
	}
}

// stopTxIndex stops the catch-up goroutine, if any.
func (b *BlockChain) stopTxIndex() {
	ti := &b.txIndex
	if ti.quit != nil {
		close(ti.quit)
		<-ti.done
		ti.quit = nil
	}
}

// TxIndexSynced reports whether the transaction index covers the whole
// main chain (false when it is disabled or still being built).
func (b *BlockChain) TxIndexSynced() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.txIndex.enabled && b.txIndex.synced
}

// indexTxs queues the txindex entries of n's transactions and moves the
// progress marker to n. Called with the chain lock held.
func (b *BlockChain) indexTxs(n *blockNode, blk *wire.MsgBlock) {
	if n.height > 0 {
		txids := blk.TxHashes()
		off := uint32(wire.BlockHeaderSize + wire.VarIntSerializeSize(uint64(len(blk.Transactions))))
		loc := database.BlockLoc{File: n.blockFile, Offset: n.blockOffset, Size: n.blockSize}
		for i, tx := range blk.Transactions {
			size := uint32(tx.SerializeSize())
			l := database.TxLoc{Block: loc, TxOffset: off, TxSize: size}
			b.db.PutTxLoc(&txids[i], &l)
			b.txIndex.pending[txids[i]] = l
			off += size
		}
	}
	m := txIndexMarkerLoc(n)
	b.db.PutTxLoc(&txIndexMarker, &m)
	b.maybeFlushTxIndex()
}

// unindexTxs queues removal of n's entries and moves the marker to its
// parent. Called with the chain lock held.
func (b *BlockChain) unindexTxs(n *blockNode, blk *wire.MsgBlock) {
	txids := blk.TxHashes()
	for i := range txids {
		b.db.DeleteTxLoc(&txids[i])
		delete(b.txIndex.pending, txids[i])
	}
	m := txIndexMarkerLoc(n.parent)
	b.db.PutTxLoc(&txIndexMarker, &m)
}

// maybeFlushTxIndex writes the queued entries out when the overlay grew
// large. Only the block database is flushed: it may run ahead of the
// chainstate.
func (b *BlockChain) maybeFlushTxIndex() {
	if len(b.txIndex.pending) < txIndexFlushEntries {
		return
	}
	if err := b.db.Flush(); err != nil {
		log.Errorf("Flushing the transaction index: %v", err)
		return
	}
	clear(b.txIndex.pending)
}

// TxByID returns a main-chain transaction from the transaction index with
// the hash and height of its block (getrawtransaction without a block
// hash). Errors: ErrTxIndexDisabled, ErrTxNotFound (also while the index
// is still being built and the transaction not reached yet), or a
// database failure.
func (b *BlockChain) TxByID(txid *wire.Hash) (*wire.MsgTx, wire.Hash, int32, error) {
	b.mu.RLock()
	if !b.txIndex.enabled {
		b.mu.RUnlock()
		return nil, wire.Hash{}, -1, fmt.Errorf("%w", ErrTxIndexDisabled)
	}
	l, ok := b.txIndex.pending[*txid]
	b.mu.RUnlock()
	if !ok {
		var err error
		if l, err = b.db.TxLoc(txid); err != nil {
			if errors.Is(err, database.ErrNotFound) {
				return nil, wire.Hash{}, -1, fmt.Errorf("%w: %v", ErrTxNotFound, txid)
			}
			return nil, wire.Hash{}, -1, err
		}
	}
	// The block's header (its first bytes) names the block.
	hdrBuf, err := b.db.ReadTx(database.TxLoc{Block: l.Block, TxSize: wire.BlockHeaderSize}, nil)
	if err != nil {
		return nil, wire.Hash{}, -1, err
	}
	var hdr wire.BlockHeader
	if err := hdr.Decode(hdrBuf); err != nil {
		return nil, wire.Hash{}, -1, &database.Error{Kind: database.ErrCorrupt, Desc: "txindex entry of " + txid.String(), Err: err}
	}
	bh := hdr.BlockHash()
	b.mu.RLock()
	n := b.index.lookup(&bh)
	onChain := b.chain.contains(n)
	b.mu.RUnlock()
	if !onChain {
		return nil, wire.Hash{}, -1, fmt.Errorf("%w: %v", ErrTxNotFound, txid)
	}
	raw, err := b.db.ReadTx(l, nil)
	if err != nil {
		return nil, wire.Hash{}, -1, err
	}
	tx := new(wire.MsgTx)
	if k, err := tx.Decode(raw); err != nil || k != len(raw) || tx.TxHash() != *txid {
		return nil, wire.Hash{}, -1, &database.Error{Kind: database.ErrCorrupt, Desc: "txindex entry of " + txid.String() + " does not match"}
	}
	return tx, bh, n.height, nil
}
