package blockchain

import (
	"errors"
	"fmt"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// This file holds verifychain (and -checkblocks/-checklevel at start-up):
// a walk down the main chain that re-checks stored blocks, their undo
// data and the UTXO set against them.

// verifyLevel3Depth bounds how many blocks below the tip levels 3 and 4
// check (Core bounds them by the coins cache size: the blocks level 3
// disconnects are the ones level 4 reconnects).
const verifyLevel3Depth = 1000

// MatchingUndo reads a block's spent outputs. ok is false when the block has no
// undo data (pruned or never connected) or, with blk given, when the undo
// record does not match the block's inputs.
func (b *BlockChain) MatchingUndo(hash *wire.Hash, blk *wire.MsgBlock) (*database.BlockUndo, bool, error) {
	var u database.BlockUndo
	if err := b.SpentOutputs(hash, &u); err != nil {
		if errors.Is(err, ErrBlockPruned) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if blk == nil {
		return &u, true, nil
	}
	if len(u.TxInputs) != len(blk.Transactions)-1 {
		return nil, false, nil
	}
	for i, n := range u.TxInputs {
		if int(n) != len(blk.Transactions[i+1].TxIn) {
			return nil, false, nil
		}
	}
	return &u, true, nil
}

// VerifyChain checks the last nblocks main-chain blocks (0: all) at
// Core's verifychain level and returns what failed ("" if nothing) and
// how many blocks were checked; scriptThreads workers check level 4's
// scripts.
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
// reconnection with ConnectBlock does (CheckBlockInputs): input
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
func (b *BlockChain) VerifyChain(level, nblocks int32, scriptThreads int) (string, int) {
	tip := b.BestSnapshot()
	if nblocks <= 0 || nblocks > tip.Height {
		nblocks = tip.Height
	}
	var spentLater map[wire.OutPoint]bool
	if level >= 3 {
		spentLater = map[wire.OutPoint]bool{}
	}
	checked := 0
	for h := tip.Height; h > tip.Height-nblocks && h > 0; h-- {
		hash, ok := b.BlockHashByHeight(h)
		if !ok {
			return fmt.Sprintf("no main-chain block at height %d", h), checked
		}
		st, _ := b.LookupBlock(&hash)
		if !st.HaveData && b.Pruned() {
			break
		}
		blk, err := b.BlockByHash(&hash)
		if err != nil {
			if b.Pruned() {
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
		if err := CheckBlockSanity(blk, b.params.PowLimit); err != nil {
			return fmt.Sprintf("block %v at %d: %v", hash, h, err), checked
		}
		prevMTP := b.MedianTimePast(h - 1)
		if err := CheckBlockContext(b.params, blk, h, prevMTP); err != nil {
			return fmt.Sprintf("block %v at %d: %v", hash, h, err), checked
		}
		if level < 2 {
			continue
		}
		u, ok, err := b.MatchingUndo(&hash, blk)
		if err != nil || !ok {
			if err == nil && b.Pruned() {
				break
			}
			return fmt.Sprintf("undo data of block %v at %d is missing or does not match: %v", hash, h, err), checked
		}
		if spentLater == nil || tip.Height-h >= verifyLevel3Depth {
			continue
		}
		bad := b.checkBlockCoins(blk, h, spentLater)
		if bad == "" && level >= 4 {
			err := CheckBlockInputs(b.params, blk, h, hash, u.Spent,
				b.MedianTimePast, scriptThreads)
			if err != nil {
				bad = "found unconnectable block: " + err.Error()
			}
		}
		if bad != "" {
			if b.BestSnapshot().Hash != tip.Hash {
				spentLater = nil // the tip moved: the comparison is void
				continue
			}
			return fmt.Sprintf("block %v at %d: %s", hash, h, bad), checked
		}
	}
	return "", checked
}

// checkBlockCoins is verifychain level 3 for one block (see VerifyChain);
// spentLater holds the outpoints spent by the blocks above it and gets
// this block's spends added. It returns "" or what is inconsistent.
func (b *BlockChain) checkBlockCoins(blk *wire.MsgBlock, height int32, spentLater map[wire.OutPoint]bool) string {
	for _, tx := range blk.Transactions[1:] {
		for i := range tx.TxIn {
			op := tx.TxIn[i].PreviousOutPoint
			spentLater[op] = true
			if _, ok, _ := b.FetchUtxo(op); ok {
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
			e, ok, err := b.FetchUtxo(op)
			if err != nil || !ok {
				return "output " + op.Hash.String() + " is missing from the UTXO set"
			}
			if e.Height != height && ti == 0 && b.params.Net == wire.MainNet && (height == 91722 || height == 91812) {
				continue // coinbases overwritten by the BIP30 repeats
			}
			if e.Amount != o.Value || e.Height != height || e.IsCoinBase != (ti == 0) || string(e.PkScript) != string(o.PkScript) {
				return "UTXO set entry of " + op.Hash.String() + " differs from the block's output"
			}
		}
	}
	return ""
}
