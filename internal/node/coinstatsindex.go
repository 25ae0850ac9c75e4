package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/coinstats"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

// This file runs the coin statistics index (-coinstatsindex) and answers
// gettxoutsetinfo. As for the filter index, one worker goroutine owns all
// index writes: it runs CatchUp at start and after every tip change, so
// the index follows the chain, reorganisations included, while the block
// path only does a non-blocking channel send.

// coinStatsRetryMax caps the back-off between failed catch-ups (a block
// read racing a reorganisation retries soon; a pruned block, which needs
// the operator, is not logged every few seconds).
const coinStatsRetryMax = 5 * time.Minute

// coinStatsSyncWait bounds how long gettxoutsetinfo waits for a synced
// index to reach the tip (Core's BlockUntilSyncedToCurrentChain waits
// for the notification queue, which is also bounded).
const coinStatsSyncWait = time.Minute

// coinStatsName is the index's getindexinfo name.
const coinStatsName = "coinstatsindex"

// coinStatsWire is the index and its worker's state.
type coinStatsWire struct {
	idx    *coinstats.Index
	kick   chan struct{} // capacity 1: "the tip moved, catch up"
	cancel context.CancelFunc
	done   chan struct{}
	// synced is set once a catch-up reached the tip, and stays set, as
	// Core's m_synced: from then on the index follows the tip closely.
	synced atomic.Bool
}

// openCoinStatsIndex opens the index when -coinstatsindex is set. Like
// Core, -reindex rebuilds it from scratch, and a pruned node refuses to
// start when the blocks the index still needs are gone.
func (s *server) openCoinStatsIndex() error {
	if !s.cfg.CoinStatsIndex {
		return nil
	}
	coinstats.UseLogger(indxLog)
	if s.cfg.Reindex {
		if err := os.RemoveAll(filepath.Join(s.cfg.DataDir, filepath.FromSlash(coinstats.IndexSubdir))); err != nil {
			return err
		}
	}
	idx, err := coinstats.OpenIndex(s.cfg.DataDir, coinstats.Options{HalvingInterval: s.cfg.params.SubsidyHalvingInterval})
	if err != nil {
		return err
	}
	if err := s.checkCoinStatsPruned(idx); err != nil {
		idx.Close()
		return err
	}
	s.coinStats = &coinStatsWire{idx: idx, kick: make(chan struct{}, 1)}
	_, h := idx.Tip()
	s.chain.UpdatePruneLock(coinStatsName, h)
	indxLog.Infof("coinstatsindex enabled (indexed to height %d)", h)
	return nil
}

// checkCoinStatsPruned fails, with Core's message, when the index lags
// the chain and some block it must still read is pruned.
func (s *server) checkCoinStatsPruned(idx *coinstats.Index) error {
	hash, height := idx.Tip()
	return s.checkIndexPruned(coinStatsName, hash, height)
}

// poke asks the worker to catch up, never blocking: a pending request
// already covers this tip.
func (w *coinStatsWire) poke() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// coinStatsSource is how the index reads the chain. Blocks are read
// outside the chain lock (BlockBytesByHash); the undo record is reused,
// which CatchUp allows.
func (s *server) coinStatsSource() coinstats.ChainSource {
	var undo database.BlockUndo
	var raw []byte
	return coinstats.ChainSource{
		TipHeight: func() int32 { return s.chain.BestSnapshot().Height },
		HashAt:    s.chain.BlockHashByHeight,
		Block: func(hash wire.Hash) (*wire.MsgBlock, []database.UtxoEntry, error) {
			var err error
			if raw, err = s.chain.BlockBytesByHash(&hash, raw); err != nil {
				return nil, nil, err
			}
			blk := new(wire.MsgBlock)
			if _, err := blk.Decode(raw); err != nil {
				return nil, nil, fmt.Errorf("decode block %v: %w", hash, err)
			}
			if err := s.chain.SpentOutputs(&hash, &undo); err != nil {
				return nil, nil, err
			}
			return blk, undo.Spent, nil
		},
	}
}

// startCoinStatsIndex starts the worker; stopCoinStatsIndex ends it.
func (s *server) startCoinStatsIndex() {
	w := s.coinStats
	if w == nil {
		return
	}
	if hash, _ := w.idx.Tip(); hash == s.chain.BestSnapshot().Hash {
		w.synced.Store(true)
	}
	s.chain.Subscribe(func(n *blockchain.Notification) {
		if n.Type == blockchain.NTTipChanged {
			w.poke()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	w.poke()
	go s.coinStatsWorker(ctx, w)
}

func (s *server) coinStatsWorker(ctx context.Context, w *coinStatsWire) {
	defer close(w.done)
	// Core's thread lines, which tools wait for.
	indxLog.Info("coinstatsindex thread start")
	defer indxLog.Info("coinstatsindex thread exit")
	src := s.coinStatsSource()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	delay := filterRetryDelay
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
		case <-retry.C:
		}
		err := s.catchUpCoinStats(ctx, w, src)
		switch {
		case err == nil:
			delay = filterRetryDelay
			_, h := w.idx.Tip()
			s.chain.UpdatePruneLock(coinStatsName, h)
			if !w.synced.Swap(true) {
				indxLog.Infof("%s is enabled at height %d", coinStatsName, h)
			}
		case errors.Is(err, context.Canceled):
			return
		default:
			if errors.Is(err, blockchain.ErrBlockPruned) {
				indxLog.Errorf("Updating %s: %v (a block it needs was pruned: restart with -reindex)", coinStatsName, err)
			} else {
				indxLog.Warnf("Updating %s: %v", coinStatsName, err)
			}
			retry.Reset(delay)
			delay = min(2*delay, coinStatsRetryMax)
		}
	}
}

// catchUpCoinStats runs one catch-up. The index may hold blocks the chain
// no longer knows (after a crash that lost the end of the block index):
// they cannot be taken back without their data, so the index starts over
// from genesis rather than stall.
func (s *server) catchUpCoinStats(ctx context.Context, w *coinStatsWire, src coinstats.ChainSource) error {
	err := w.idx.CatchUp(ctx, src)
	if !errors.Is(err, blockchain.ErrPrevBlockNotFound) {
		return err
	}
	indxLog.Warnf("%s holds a block the chain does not know (%v); rebuilding it from genesis", coinStatsName, err)
	if err := w.idx.Rewind(-1, nil); err != nil {
		return err
	}
	return w.idx.CatchUp(ctx, src)
}

// stopCoinStatsIndex stops the worker and closes the index; it must run
// before the chain it reads is closed.
func (s *server) stopCoinStatsIndex() {
	if w := s.coinStats; w != nil && w.cancel != nil {
		w.cancel()
		<-w.done
		w.cancel = nil
	}
	s.closeCoinStatsIndex()
}

func (s *server) closeCoinStatsIndex() {
	if s.coinStats == nil {
		return
	}
	if err := s.coinStats.idx.Close(); err != nil {
		indxLog.Errorf("Closing %s: %v", coinStatsName, err)
	}
	s.coinStats = nil
}

// addCoinStatsIndexInfo adds the index's getindexinfo entry: synced as
// Core's (the first catch-up is done) and the height it reached.
func (s *server) addCoinStatsIndexInfo(out map[string]rpc.IndexInfo) {
	w := s.coinStats
	if w == nil {
		return
	}
	_, h := w.idx.Tip()
	out[coinStatsName] = rpc.IndexInfo{Synced: w.synced.Load(), BestBlockHeight: max(h, 0)}
}

// waitCoinStats is Core's BlockUntilSyncedToCurrentChain: once the index
// has caught up with the chain it follows the tip closely, so wait (at
// most coinStatsSyncWait) for it to reach the current tip. It returns
// false without waiting while the first catch-up is still running.
func (s *server) waitCoinStats(w *coinStatsWire) bool {
	if !w.synced.Load() {
		return false
	}
	deadline := time.Now().Add(coinStatsSyncWait)
	for {
		if hash, _ := w.idx.Tip(); hash == s.chain.BestSnapshot().Hash || time.Now().After(deadline) {
			return true
		}
		w.poke()
		select {
		case <-s.quit:
			return true
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// txOutSetInfo answers gettxoutsetinfo. With the index, muhash and none
// are read from it (any block; hash_or_height needs it, as in Core);
// hash_serialized_3 and use_index=false scan the UTXO set.
func (s *server) txOutSetInfo(q rpc.TxOutSetQuery) (*rpc.TxOutSetInfo, error) {
	w := s.coinStats
	var target *blockchain.BlockStatus
	if q.ForBlock != nil {
		h, err := s.txOutSetTarget(q, w != nil)
		if err != nil {
			return nil, err
		}
		if w != nil {
			st, ok := s.chain.LookupBlock(&h)
			if !ok {
				return nil, rpc.NewError(rpc.ErrInvalidAddress, "Block not found")
			}
			target = &st
		}
	}
	if w == nil || !q.UseIndex {
		return s.scanTxOutSet(q.HashType)
	}
	// As Core, the chainstate is flushed first whatever answers.
	if err := s.chain.Flush(); err != nil {
		return nil, err
	}
	at := s.chain.BestSnapshot()
	hash, height := at.Hash, at.Height
	if target != nil {
		hash, height = target.Hash, target.Height
	}
	if !s.waitCoinStats(w) {
		if _, ih := w.idx.Tip(); height > ih {
			return nil, rpc.Errorf(rpc.ErrInternal, "Unable to get data because %s is still syncing. Current height: %d", coinStatsName, max(ih, 0))
		}
	}
	if q.HashType == "hash_serialized_3" {
		return s.scanTxOutSet(q.HashType)
	}
	st, ok, err := w.idx.Lookup(hash, height)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, rpc.NewError(rpc.ErrInternal, "Unable to read UTXO set")
	}
	info := &rpc.TxOutSetInfo{
		Height:                 st.Height,
		BestBlock:              st.Hash.String(),
		TxOuts:                 int64(st.TxOuts),
		BogoSize:               int64(st.BogoSize),
		TotalAmount:            rpc.FormatBTC(st.TotalAmount),
		TotalUnspendableAmount: rpc.FormatBTC(st.Unspendables.Total()),
		BlockInfo: &rpc.TxOutSetBlockInfo{
			PrevoutSpent:         rpc.FormatBTC(st.Block.PrevoutSpent),
			Coinbase:             rpc.FormatBTC(st.Block.Coinbase),
			NewOutputsExCoinbase: rpc.FormatBTC(st.Block.NewOutputsExCoinbase),
			Unspendable:          rpc.FormatBTC(st.Block.Unspendables.Total()),
			Unspendables: rpc.TxOutSetUnspendables{
				GenesisBlock:     rpc.FormatBTC(st.Block.Unspendables.GenesisBlock),
				BIP30:            rpc.FormatBTC(st.Block.Unspendables.BIP30),
				Scripts:          rpc.FormatBTC(st.Block.Unspendables.Scripts),
				UnclaimedRewards: rpc.FormatBTC(st.Block.Unspendables.UnclaimedRewards),
			},
		},
	}
	if q.HashType == "muhash" {
		info.MuHash = st.MuHash.String()
	}
	return info, nil
}

// txOutSetTarget checks a hash_or_height query in Core's order and
// resolves its block. Without the index only the current best block is
// answered (by scanning), which Core refuses too; this node accepts it.
func (s *server) txOutSetTarget(q rpc.TxOutSetQuery, haveIndex bool) (wire.Hash, error) {
	if !haveIndex {
		h, err := q.ForBlock()
		if err != nil || h != s.chain.BestSnapshot().Hash {
			return h, rpc.NewError(rpc.ErrInvalidParam, "Querying specific block heights requires coinstatsindex")
		}
		return h, nil
	}
	if q.HashType == "hash_serialized_3" {
		return wire.Hash{}, rpc.NewError(rpc.ErrInvalidParam, "hash_serialized_3 hash type cannot be queried for a specific block")
	}
	if !q.UseIndex {
		return wire.Hash{}, rpc.NewError(rpc.ErrInvalidParam, "Cannot set use_index to false when querying for a specific block")
	}
	return q.ForBlock()
}

// scanTxOutSet computes gettxoutsetinfo by scanning the flushed UTXO set.
func (s *server) scanTxOutSet(hashType string) (*rpc.TxOutSetInfo, error) {
	var kinds database.UtxoHashKind
	switch hashType {
	case "hash_serialized_3":
		kinds = database.HashSerialized3
	case "muhash":
		kinds = database.HashMuHash
	case "none":
	default:
		return nil, rpc.Errorf(rpc.ErrInvalidParam, "%s is not a valid hash_type", hashType)
	}
	// Like Core, flush first and scan the stored set. A block connected
	// meanwhile may start a background multi-batch flush; a scan that
	// lands between its batches is retried after the next synchronous
	// flush (which waits for it).
	var st database.UtxoSetInfo
	var err error
	for range 3 {
		if err = s.chain.Flush(); err != nil {
			return nil, err
		}
		st, err = s.cs.HashUtxoSet(kinds)
		if !errors.Is(err, database.ErrFlushInProgress) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	txs, disk := int64(st.Txs), st.DiskBytes
	var ls leveldb.DBStats
	if s.cs.LevelDBStats(&ls) == nil && ls.LevelSizes.Sum() > 0 {
		// Like Core, the table files' size (the kv byte count is only
		// the fallback).
		disk = ls.LevelSizes.Sum()
	}
	info := &rpc.TxOutSetInfo{
		Height:       st.Best.Height,
		BestBlock:    st.Best.Hash.String(),
		TxOuts:       int64(st.Outputs),
		BogoSize:     int64(st.BogoSize),
		Transactions: &txs,
		DiskSize:     &disk,
		TotalAmount:  rpc.FormatBTC(st.TotalAmount),
	}
	switch kinds {
	case database.HashSerialized3:
		info.HashSerialized3 = st.HashSerialized3.String()
	case database.HashMuHash:
		info.MuHash = st.MuHash.String()
	}
	return info, nil
}
