package node

import (
	"fmt"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// verifyLevel3Depth bounds how many blocks below the tip levels 3 and 4
// check (Core bounds them by the coins cache size: the blocks level 3
// disconnects are the ones level 4 reconnects).
const verifyLevel3Depth = 1000

// verifyChain answers verifychain for the last nblocks main-chain blocks
// (0: all); false means a check failed, and the reason is logged.
//
// Levels: 0 reads each block and checks it hashes to its index entry; 1
// adds the context-free block rules (proof of work, merkle root,
// transaction sanity, sigop limit) and the contextual ones (BIP34 height,
// finality, witness commitment); 2 adds reading the undo record and
// checking it matches the block's inputs; 3 (for the top
// verifyLevel3Depth blocks) checks the UTXO set against the blocks: every
// spendable output they created and no later block in the window spent is
// unspent with the same value, script, height and coinbase flag, and no
// output they spent is unspent. 4 (same window) validates each of those
// blocks again against the coins its undo record says it spent, as Core's
// reconnection with ConnectBlock does (blockchain.CheckBlockInputs): input
// values, coinbase maturity, BIP68 locks, sigop cost, the coinbase limit
// and every input's script, with the signature cache bypassed and the
// scripts spread over the --par workers. Core reconnects on a copy of the
// coins view; checking against the undo records instead needs no change
// to the UTXO set, and with level 3 having matched the UTXO set to the
// blocks it covers the same ground. Only BIP30 is not checked again.
//
// In prune mode the walk stops at the first pruned block, as bitcoind
// does. A tip change during levels 3 and 4 ends them early (they need a
// fixed tip); the lower levels go on.
func (s *server) verifyChain(level, nblocks int32) (bool, error) {
	start := time.Now()
	bad, checked := s.verifyChainReason(level, nblocks)
	if bad != "" {
		rpcsLog.Errorf("verifychain: %s", bad)
		return false, nil
	}
	rpcsLog.Infof("verifychain: level %d, %d blocks verified in %v", level, checked, time.Since(start).Round(time.Millisecond))
	return true, nil
}

// verifyChainReason is verifyChain returning what failed ("" if nothing)
// and how many blocks were checked.
func (s *server) verifyChainReason(level, nblocks int32) (string, int) {
	tip := s.chain.BestSnapshot()
	if nblocks <= 0 || nblocks > tip.Height {
		nblocks = tip.Height
	}
	var spentLater map[wire.OutPoint]bool
	if level >= 3 {
		spentLater = map[wire.OutPoint]bool{}
	}
	checked := 0
	for h := tip.Height; h > tip.Height-nblocks && h > 0; h-- {
		hash, ok := s.chain.BlockHashByHeight(h)
		if !ok {
			return fmt.Sprintf("no main-chain block at height %d", h), checked
		}
		st, _ := s.chain.LookupBlock(&hash)
		if !st.HaveData && s.chain.Pruned() {
			break
		}
		blk, err := s.chain.BlockByHash(&hash)
		if err != nil {
			if s.chain.Pruned() {
				break
			}
			return fmt.Sprintf("reading block %v at %d: %v", hash, h, err), checked
		}
		if blk.BlockHash() != hash {
			return fmt.Sprintf("block at %d hashes to %v, index says %v", h, blk.BlockHash(), hash), checked
		}
		checked++
		if level < 1 {
			continue
		}
		if err := blockchain.CheckBlockSanity(blk, s.cfg.params.PowLimit); err != nil {
			return fmt.Sprintf("block %v at %d: %v", hash, h, err), checked
		}
		prevMTP := s.chain.MedianTimePast(h - 1)
		if err := blockchain.CheckBlockContext(s.cfg.params, blk, h, prevMTP); err != nil {
			return fmt.Sprintf("block %v at %d: %v", hash, h, err), checked
		}
		if level < 2 {
			continue
		}
		u, ok, err := s.undoFor(&hash, blk)
		if err != nil || !ok {
			if err == nil && s.chain.Pruned() {
				break
			}
			return fmt.Sprintf("undo data of block %v at %d is missing or does not match: %v", hash, h, err), checked
		}
		if spentLater == nil || tip.Height-h >= verifyLevel3Depth {
			continue
		}
		bad := s.checkBlockCoins(blk, h, spentLater)
		if bad == "" && level >= 4 {
			err := blockchain.CheckBlockInputs(s.cfg.params, blk, h, hash, u.Spent,
				s.chain.MedianTimePast, s.cfg.scriptThreads)
			if err != nil {
				bad = "found unconnectable block: " + err.Error()
			}
		}
		if bad != "" {
			if s.chain.BestSnapshot().Hash != tip.Hash {
				spentLater = nil // the tip moved: the comparison is void
				continue
			}
			return fmt.Sprintf("block %v at %d: %s", hash, h, bad), checked
		}
	}
	return "", checked
}

// checkBlockCoins is verifychain level 3 for one block (see verifyChain);
// spentLater holds the outpoints spent by the blocks above it and gets
// this block's spends added. It returns "" or what is inconsistent.
func (s *server) checkBlockCoins(blk *wire.MsgBlock, height int32, spentLater map[wire.OutPoint]bool) string {
	for _, tx := range blk.Transactions[1:] {
		for i := range tx.TxIn {
			op := tx.TxIn[i].PreviousOutPoint
			spentLater[op] = true
			if _, ok, _ := s.chain.FetchUtxo(op); ok {
				return "spent output " + op.Hash.String() + " is unspent in the UTXO set"
			}
		}
	}
	ids := blk.TxHashes()
	for ti, tx := range blk.Transactions {
		for j := range tx.TxOut {
			o := &tx.TxOut[j]
			op := wire.OutPoint{Hash: ids[ti], Index: uint32(j)}
			if spentLater[op] || database.IsUnspendable(o.PkScript) {
				continue
			}
			e, ok, err := s.chain.FetchUtxo(op)
			if err != nil || !ok {
				return "output " + op.Hash.String() + " is missing from the UTXO set"
			}
			if e.Height != height && ti == 0 && s.cfg.params.Net == wire.MainNet && (height == 91722 || height == 91812) {
				continue // coinbases overwritten by the BIP30 repeats
			}
			if e.Amount != o.Value || e.Height != height || e.IsCoinBase != (ti == 0) || string(e.PkScript) != string(o.PkScript) {
				return "UTXO set entry of " + op.Hash.String() + " differs from the block's output"
			}
		}
	}
	return ""
}
