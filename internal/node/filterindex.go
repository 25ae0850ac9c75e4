package node

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// This file connects the BIP158 filter index (--blockfilterindex) to the
// chain. One worker goroutine owns all index writes: it runs CatchUp at
// start and again after every tip change, so the index follows the chain
// (reorganisations included: CatchUp rewinds to the fork first) without
// slowing the block path, which only does a non-blocking channel send.

// filterRetryDelay is how soon a failed catch-up (for example a block
// read racing a reorganisation) is retried without a new tip.
const filterRetryDelay = 5 * time.Second

// openFilterIndex opens the index when --blockfilterindex is set.
func (s *server) openFilterIndex() error {
	if !s.cfg.BlockFilterIndex {
		return nil
	}
	idx, err := blockfilter.OpenIndex(s.cfg.DataDir, blockfilter.IndexOptions{})
	if err != nil {
		return err
	}
	hash, h := idx.Tip()
	if err := s.checkIndexPruned(filterIndexName, hash, h); err != nil {
		idx.Close()
		return err
	}
	s.chain.UpdatePruneLock(filterIndexName, h)
	s.filters = idx
	s.filterKick = make(chan struct{}, 1)
	indxLog.Infof("Block filter index enabled (indexed to height %d)", h)
	return nil
}

// kickFilterIndex asks the worker to catch up, never blocking: a pending
// request already covers this tip.
func (s *server) kickFilterIndex() {
	if s.filterKick == nil {
		return
	}
	select {
	case s.filterKick <- struct{}{}:
	default:
	}
}

// filterChainSource is how the index reads the main chain. Block reuses
// one undo record and one script slice, which CatchUp allows (the scripts
// need only last until the next call).
func (s *server) filterChainSource() blockfilter.ChainSource {
	var undo database.BlockUndo
	var scripts [][]byte
	return blockfilter.ChainSource{
		TipHeight: func() int32 { return s.chain.BestSnapshot().Height },
		HashAt:    s.chain.BlockHashByHeight,
		Block: func(h int32) (*wire.MsgBlock, [][]byte, error) {
			hash, ok := s.chain.BlockHashByHeight(h)
			if !ok {
				return nil, nil, fmt.Errorf("no main-chain block at height %d", h)
			}
			blk, err := s.chain.BlockByHash(&hash)
			if err != nil {
				return nil, nil, err
			}
			if err := s.chain.SpentOutputs(&hash, &undo); err != nil {
				return nil, nil, err
			}
			scripts = blockfilter.ScriptsFromUndo(scripts[:0], &undo)
			return blk, scripts, nil
		},
	}
}

// startFilterIndex starts the worker; stopFilterIndex ends it.
func (s *server) startFilterIndex() {
	if s.filters == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.filterCancel = cancel
	s.filterDone = make(chan struct{})
	s.kickFilterIndex()
	go s.filterWorker(ctx)
}

func (s *server) filterWorker(ctx context.Context) {
	defer close(s.filterDone)
	// Core names the thread after the index; tools wait for the line.
	indxLog.Infof("%s thread start", filterIndexName)
	defer indxLog.Infof("%s thread exit", filterIndexName)
	src := s.filterChainSource()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.filterKick:
		case <-retry.C:
		}
		err := s.filters.CatchUp(ctx, src)
		switch {
		case err == nil:
			_, h := s.filters.Tip()
			s.chain.UpdatePruneLock(filterIndexName, h)
		case errors.Is(err, context.Canceled):
			return
		default:
			indxLog.Warnf("Updating block filter index: %v", err)
			retry.Reset(filterRetryDelay)
		}
	}
}

// stopFilterIndex stops the worker and closes the index; it must run
// before the chain it reads is closed.
func (s *server) stopFilterIndex() {
	if s.filterCancel != nil {
		s.filterCancel()
		<-s.filterDone
		s.filterCancel = nil
	}
	s.closeFilterIndex()
}

func (s *server) closeFilterIndex() {
	if s.filters == nil {
		return
	}
	if err := s.filters.Close(); err != nil {
		indxLog.Errorf("Closing block filter index: %v", err)
	}
	s.filters = nil
}

// rpcBlockFilter is the getblockfilter backend, or nil (method
// unavailable) without the index.
func (s *server) rpcBlockFilter() func(wire.Hash, string) (*rpc.BlockFilter, error) {
	idx := s.filters
	if idx == nil {
		return nil
	}
	return func(hash wire.Hash, _ string) (*rpc.BlockFilter, error) {
		// A pruned block's filter is still in the index.
		if _, known := s.chain.LookupBlock(&hash); !known {
			return nil, rpc.NewError(rpc.ErrInvalidAddress, "Block not found")
		}
		f, header, err := idx.BlockFilter(hash)
		if errors.Is(err, blockfilter.ErrNotFound) {
			return nil, rpc.NewError(rpc.ErrMisc, "Filter not found.")
		}
		if err != nil {
			return nil, err
		}
		return &rpc.BlockFilter{Filter: hex.EncodeToString(f), Header: header.String()}, nil
	}
}
