package blockchain

import (
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// ErrPrevBlockNotBest is a template that does not build on the tip (BIP23's
// "inconclusive-not-best-prevblk"): whether it is valid cannot be told
// without connecting its branch.
const ErrPrevBlockNotBest = ErrorKind("inconclusive-not-best-prevblk")

// CheckBlockTemplate checks a block built on the current tip with every
// rule connecting it would apply, without storing it or changing the
// chain (Core's TestBlockValidity, btcd's CheckConnectBlockTemplate): the
// header in its context (difficulty, timestamps), the body (merkle root,
// sizes, coinbase, transactions), the block's context (finality, BIP34
// height, witness commitment), BIP30, and the inputs: unspent coins or
// outputs of earlier transactions of the block, maturity, BIP68 locks,
// the sigop cost, the coinbase amount and every script, the signatures
// verified again without the cache. Only the proof of work is not
// checked, since templates are unsolved. Failures are *RuleError values
// with Core's reasons.
func (b *BlockChain) CheckBlockTemplate(blk *wire.MsgBlock) error {
	tip := b.BestSnapshot()
	if blk.Header.PrevBlock != tip.Hash {
		return ruleError(ErrPrevBlockNotBest, "block does not build on the tip")
	}
	height := tip.Height + 1
	prevHdr, _, _ := b.HeaderByHash(&tip.Hash)
	hc := &HeaderContext{
		Height:       height,
		RequiredBits: b.CalcNextRequiredBits(int64(blk.Header.Timestamp)),
		PrevTime:     int64(prevHdr.Timestamp),
		PrevMTP:      tip.MedianTime,
		Now:          b.now(),
	}
	if err := CheckHeaderContext(b.params, &blk.Header, hc); err != nil {
		return err
	}
	if err := checkBlockBody(blk); err != nil {
		return err
	}
	if err := CheckBlockContext(b.params, blk, height, tip.MedianTime); err != nil {
		return err
	}
	txids := blk.TxHashes()
	b.mu.RLock()
	tipNode := b.chain.tip()
	applies := tipNode.hash == tip.Hash && bip30Applies(b.params, &blockNode{parent: tipNode, height: height, hash: blk.BlockHash()})
	b.mu.RUnlock()
	if applies {
		for i, tx := range blk.Transactions {
			for o := range tx.TxOut {
				if _, ok, err := b.FetchUtxo(wire.OutPoint{Hash: txids[i], Index: uint32(o)}); err != nil {
					return err
				} else if ok {
					return ruleError(ErrBadTxnsBIP30, "tried to overwrite transaction")
				}
			}
		}
	}
	// The coins the block spends, in input order: outputs of earlier
	// transactions of the block (which CheckBlockInputs matches against
	// the block), else unspent coins of the UTXO set; each spent once.
	created := make(map[wire.OutPoint]database.UtxoEntry)
	used := make(map[wire.OutPoint]struct{})
	var spent []database.UtxoEntry
	for i, tx := range blk.Transactions {
		if i > 0 {
			for j := range tx.TxIn {
				op := tx.TxIn[j].PreviousOutPoint
				if _, twice := used[op]; twice {
					return ruleError(ErrBadTxnsMissingInputs, "input %v spent twice in the block", op)
				}
				used[op] = struct{}{}
				if e, ok := created[op]; ok {
					spent = append(spent, e)
					continue
				}
				e, ok, err := b.FetchUtxo(op)
				if err != nil {
					return err
				}
				if !ok {
					return ruleError(ErrBadTxnsMissingInputs, "inputs missing/spent in transaction %v", txids[i])
				}
				spent = append(spent, e)
			}
		}
		for o := range tx.TxOut {
			created[wire.OutPoint{Hash: txids[i], Index: uint32(o)}] = database.UtxoEntry{
				Amount: tx.TxOut[o].Value, PkScript: tx.TxOut[o].PkScript, Height: height, IsCoinBase: i == 0,
			}
		}
	}
	if err := CheckBlockInputs(b.params, blk, height, blk.BlockHash(), spent, b.MedianTimePast, b.scripts.workers); err != nil {
		return err
	}
	if b.BestSnapshot().Hash != tip.Hash {
		return ruleError(ErrPrevBlockNotBest, "the tip moved during the check")
	}
	return nil
}
