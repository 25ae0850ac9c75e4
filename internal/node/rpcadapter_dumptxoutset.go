package node

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// assumeUTXOHeights are the heights at which Core 30's chain parameters
// list a UTXO snapshot (m_assumeutxo_data), by network name: dumptxoutset
// "rollback" without a height rolls back to the highest of them.
var assumeUTXOHeights = map[string][]int32{
	"main":     {840000, 880000, 910000, 935000},
	"test":     {2500000, 4840000},
	"testnet4": {90000, 120000},
	"signet":   {160000, 290000},
	"regtest":  {110, 200, 299},
}

// errDumpInterrupted stops a dump when the node shuts down.
var errDumpInterrupted = errors.New("Shutting down")

// dumpTxOutSet answers dumptxoutset. The snapshot is written to PATH
// .incomplete and renamed when complete. For an earlier block the chain
// is rolled back the way Core does it (the block above the target is
// invalidated and reconsidered afterwards, with the network suspended
// meanwhile), after checking that every block and undo file the rollback
// reads is still on disk, so that it does not fail half way.
func (s *server) dumpTxOutSet(req rpc.DumpTxOutSetRequest) (*rpc.DumpTxOutSetResult, error) {
	tip := s.chain.BestSnapshot()
	target := req.Target
	if req.Snapshot {
		heights := assumeUTXOHeights[s.cfg.params.Name]
		if len(heights) == 0 {
			return nil, rpc.NewError(rpc.ErrInternal, "no assumeutxo snapshot height for this network")
		}
		h := slices.Max(heights)
		if h > tip.Height {
			return nil, rpc.Errorf(rpc.ErrInvalidParam, "Target block height %d after current tip %d", h, tip.Height)
		}
		hash, ok := s.chain.BlockHashByHeight(h)
		if !ok {
			return nil, rpc.ErrBlockNotFound
		}
		target = &hash
	}
	var targetHeight int32
	if target != nil {
		st, ok := s.chain.LookupBlock(target)
		if !ok {
			return nil, rpc.NewError(rpc.ErrInvalidAddress, "Block not found")
		}
		if st.Hash == tip.Hash {
			target = nil // the tip: no rollback
		}
		targetHeight = st.Height
	}

	path := absJoin(s.cfg.DataDir, req.Path)
	temp := absJoin(s.cfg.DataDir, req.Path+".incomplete")
	if _, err := os.Stat(path); err == nil {
		return nil, rpc.Errorf(rpc.ErrInvalidParam,
			"%s already exists. If you are sure this is what you want, move it out of the way first", path)
	}
	// Owner-only, as bitcoind's files are under its default umask.
	f, err := os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, rpc.Errorf(rpc.ErrInvalidParam, "Couldn't open file %s for writing.", temp)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(temp)
		}
	}()

	if target != nil {
		undo, err := s.rollBackTo(*target, targetHeight)
		if undo != nil {
			defer undo()
		}
		if err != nil {
			return nil, err
		}
	}

	srvrLog.Infof("Writing UTXO snapshot to %s (via %s)", path, temp)
	start := time.Now()
	info, err := s.writeSnapshot(f)
	if err != nil {
		return nil, err
	}
	if target != nil && info.Base.Hash != *target {
		// Something connected a block on top of the rolled-back tip.
		return nil, rpc.NewError(rpc.ErrMisc, "Could not roll back to requested height.")
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	done = true
	if err := os.Rename(temp, path); err != nil {
		os.Remove(temp)
		return nil, err
	}
	srvrLog.Infof("Wrote UTXO snapshot of %d coins at height %d (%v) in %v",
		info.Coins, info.Base.Height, info.Base.Hash, time.Since(start).Round(time.Millisecond))
	res := &rpc.DumpTxOutSetResult{
		CoinsWritten: info.Coins,
		BaseHash:     info.Base.Hash.String(),
		BaseHeight:   info.Base.Height,
		Path:         path,
		TxOutSetHash: info.HashSerialized3.String(),
	}
	if h, ok := s.chain.BlockHashByHeight(info.Base.Height); ok && h == info.Base.Hash {
		res.NChainTx, _ = s.chainTxCount(info.Base.Height)
	}
	return res, nil
}

// rollBackTo makes target (on the main chain, at height) the tip until
// the returned undo runs: network activity is suspended if it was on and
// the block above target is invalidated; undo reconsiders that block and
// restores the network. Block generation is held off meanwhile, so that
// no generate call builds on the temporary tip. undo is nil when nothing
// was changed.
func (s *server) rollBackTo(target wire.Hash, height int32) (undo func(), err error) {
	if s.chain.Pruned() && s.chain.PruneHeight() > height {
		return nil, rpc.NewError(rpc.ErrMisc, "Could not roll back to requested height since necessary block data is already pruned.")
	}
	next, ok := s.chain.BlockHashByHeight(height + 1)
	if h, onMain := s.chain.BlockHashByHeight(height); !ok || !onMain || h != target {
		return nil, rpc.NewError(rpc.ErrMisc, "Could not roll back to requested height.")
	}
	if missing := s.bdb.MissingFilesAbove(height); len(missing) > 0 {
		srvrLog.Warnf("dumptxoutset cannot roll back to height %d: missing %v", height, missing)
		return nil, rpc.NewError(rpc.ErrMisc, "Could not roll back to requested height.")
	}
	s.miningMu.Lock()
	network := s.net != nil && s.net.active.Load()
	if network {
		srvrLog.Infof("Network activity suspended while dumptxoutset rolls the chain back")
		s.setNetworkActive(s.net, false)
	}
	undo = func() {
		if err := s.chain.ReconsiderBlock(&next); err != nil {
			srvrLog.Errorf("dumptxoutset: reconsidering %v after the rollback: %v", next, err)
		}
		if network {
			s.setNetworkActive(s.net, true)
		}
		s.miningMu.Unlock()
	}
	if err := s.chain.InvalidateBlock(&next); err != nil {
		srvrLog.Warnf("dumptxoutset: rolling back to height %d: %v", height, err)
	}
	if s.chain.BestSnapshot().Hash != target {
		srvrLog.Warnf("dumptxoutset failed to roll back to requested height, reverting to tip.")
		return undo, rpc.NewError(rpc.ErrMisc, "Could not roll back to requested height.")
	}
	return undo, nil
}

// writeSnapshot flushes the chainstate and writes it to f, retrying when
// the scan lands between the batches of a background flush.
func (s *server) writeSnapshot(f *os.File) (database.SnapshotInfo, error) {
	interrupt := func() error {
		select {
		case <-s.quit:
			return errDumpInterrupted
		default:
			return nil
		}
	}
	var info database.SnapshotInfo
	var err error
	for range 3 {
		if err = s.chain.Flush(); err != nil {
			return info, err
		}
		info, err = s.cs.WriteUTXOSnapshot(f, s.cfg.params.Net, interrupt)
		if !errors.Is(err, database.ErrFlushInProgress) {
			return info, err
		}
		if _, err = f.Seek(0, 0); err != nil {
			return info, err
		}
		if err = f.Truncate(0); err != nil {
			return info, err
		}
	}
	return info, err
}

// absJoin is Core's AbsPathJoin: p itself when absolute, else under base.
func absJoin(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}
