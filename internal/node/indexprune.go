package node

import (
	"github.com/btcnode/btcd/wire"
)

// The optional indexes read blocks and their undo data, which pruning
// deletes. Each holds a prune lock on the chain at the height it reached
// (blockchain.UpdatePruneLock), so pruning leaves what it still needs; an
// index that was off while the node pruned past it cannot catch up, and
// start-up stops with Core's message.

// filterIndexName is the filter index's name in getindexinfo and logs.
const filterIndexName = "basic block filter index"

// coreMessage is an error whose text is printed as it is, line breaks
// included (ErrorText flattens other errors to one line).
type coreMessage string

func (m coreMessage) Error() string { return string(m) }

// rebuildMessage is a start-up failure of the block or chainstate
// databases that bitcoind offers to repair by rebuilding them (its
// "Do you want to rebuild the databases now?" question, answered no
// without a GUI): the message, then a line saying how to recover.
type rebuildMessage string

func (m rebuildMessage) Error() string {
	return string(m) + ".\nPlease restart with -reindex or -reindex-chainstate to recover."
}

// checkIndexPruned fails, with Core's message, when an index that reached
// hash at height lags the chain and some block it must still read (back
// to where it leaves the main chain) is pruned.
func (s *server) checkIndexPruned(name string, hash wire.Hash, height int32) error {
	if !s.chain.Pruned() {
		return nil
	}
	tip := s.chain.BestSnapshot()
	if height >= 0 && hash == tip.Hash {
		return nil
	}
	// The first block to read is above the last one the index shares
	// with the main chain.
	fork := height
	for fork >= 0 {
		st, ok := s.chain.LookupBlock(&hash)
		if !ok {
			fork = -1
			break
		}
		if st.MainChain {
			break
		}
		if !st.HaveData {
			fork = -2 // a block to take back is gone
			break
		}
		hash, fork = st.Header.PrevBlock, st.Height-1
	}
	if fork > -2 && s.chain.PruneHeight() <= fork+1 {
		return nil
	}
	return coreMessage(name + " best block of the index goes beyond pruned data. " +
		"Please disable the index or reindex (which will download the whole blockchain again)\n" +
		"Error: " + errFatal("Failed to start indexes, shutting down…").Error())
}
