package node

import (
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
)

// This file is importmempool's backend: it reads a mempool.dat written by
// Bitcoin Core or by this node (the pool's own format is Core's, see
// mempool/persist_core.go) and enters it with the call's options, as
// start-up does with the node's own file (entry times kept unless told
// otherwise, expired transactions skipped, nothing announced).

// importMempool answers importmempool.
func (s *server) importMempool(path string, opts rpc.ImportMempoolOptions) error {
	if !s.chain.IsCurrent() {
		return rpc.NewError(rpc.ErrClientInInitialDownload, "Can only import the mempool after the block download and any reindex has finished")
	}
	f, err := mempool.ReadMempoolFile(path)
	if err != nil {
		mempLog.Warnf("importmempool %s: %v", path, err)
		return rpc.NewError(rpc.ErrMisc, "Unable to import mempool file, see debug log for details.")
	}
	st := s.pool.LoadMempoolFile(f, mempool.LoadOptions{
		UseCurrentTime:   opts.UseCurrentTime,
		ApplyFeeDeltas:   opts.ApplyFeeDeltaPriority,
		ApplyUnbroadcast: opts.ApplyUnbroadcastSet,
	})
	logMempoolLoad(st)
	return nil
}

// logMempoolLoad reports a load in Core's words.
func logMempoolLoad(st mempool.LoadStats) {
	mempLog.Infof("Imported mempool transactions from file: %d succeeded, %d failed, %d expired, %d already there, %d waiting for initial broadcast",
		st.Accepted, st.Failed, st.Expired, st.Known, st.Unbroadcast)
}
