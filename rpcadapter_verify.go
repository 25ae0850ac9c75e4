package main

import (
	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// verifyLevel3Depth bounds how many blocks below the tip level 3 checks
// against the UTXO set (Core bounds it by the coins cache size).
const verifyLevel3Depth = 1000

// verifyChain answers verifychain for the last nblocks main-chain blocks
// (0: all). Levels: 0 reads each block and checks it hashes to its index
// entry; 1 adds the context-free block rules (proof of work, merkle root,
// transaction sanity, sigop limit) and the contextual ones (BIP34 height,
// finality, witness commitment); 2 adds reading the undo record and
// checking it matches the block's inputs; 3 (for the top
// verifyLevel3Depth blocks) checks the UTXO set against the blocks: every
// spendable output they created and no later block in the window spent is
// unspent with the same value, script, height and coinbase flag, and no
// output they spent is unspent. Level 4 (reconnecting with script checks)
// is not implemented and runs as level 3. In prune mode the walk stops at
// the first pruned block, as bitcoind does. A tip change during level 3
// ends the UTXO comparison early (it needs a fixed tip).
func (s *server) verifyChain(level, nblocks int32) (bool, error) {
	tip := s.chain.BestSnapshot()
	if nblocks <= 0 || nblocks > tip.Height {
		nblocks = tip.Height
	}
	var spentLater map[wire.OutPoint]bool
	if level >= 3 {
		spentLater = map[wire.OutPoint]bool{}
	}
	for h := tip.Height; h > tip.Height-nblocks && h > 0; h-- {
		hash, ok := s.chain.BlockHashByHeight(h)
		if !ok {
			return false, nil
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
			rpcsLog.Errorf("verifychain: reading block %v at %d: %v", hash, h, err)
			return false, nil
		}
		if blk.BlockHash() != hash {
			rpcsLog.Errorf("verifychain: block at %d hashes to %v, index says %v", h, blk.BlockHash(), hash)
			return false, nil
		}
		if level < 1 {
			continue
		}
		if err := blockchain.CheckBlockSanity(blk, s.cfg.params.PowLimit); err != nil {
			rpcsLog.Errorf("verifychain: block %v at %d: %v", hash, h, err)
			return false, nil
		}
		prevMTP := s.chain.MedianTimePast(h - 1)
		if err := blockchain.CheckBlockContext(s.cfg.params, blk, h, prevMTP); err != nil {
			rpcsLog.Errorf("verifychain: block %v at %d: %v", hash, h, err)
			return false, nil
		}
		if level < 2 {
			continue
		}
		if _, ok, err := s.undoFor(&hash, blk); err != nil || !ok {
			if err == nil && s.chain.Pruned() {
				break
			}
			rpcsLog.Errorf("verifychain: undo data of block %v at %d is missing or does not match: %v", hash, h, err)
			return false, nil
		}
		if spentLater == nil || tip.Height-h >= verifyLevel3Depth {
			continue
		}
		if bad := s.checkBlockCoins(blk, h, spentLater); bad != "" {
			if s.chain.BestSnapshot().Hash != tip.Hash {
				spentLater = nil // the tip moved: the comparison is void
				continue
			}
			rpcsLog.Errorf("verifychain: block %v at %d: %s", hash, h, bad)
			return false, nil
		}
	}
	return true, nil
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
