package blockchain

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// This file re-validates a connected block against the coins it spent,
// as recorded in its undo data: the part of ConnectBlock that needs the
// UTXO set. verifychain level 4 uses it in place of Core's reconnection of
// the blocks level 3 disconnected, which needs no change to the UTXO set.

// verifyChunk is the most inputs one script job of CheckBlockInputs
// verifies, so that a transaction with many inputs is spread over the
// workers too.
const verifyChunk = 16

// verifyEnginePool holds engines between CheckBlockInputs calls, which
// run rarely but verify many inputs each.
var verifyEnginePool = sync.Pool{New: func() any { return txscript.NewEngine() }}

// CheckBlockInputs applies the rules of ConnectBlock that depend on the
// coins a block spends, given those coins, to block (already checked by
// CheckBlockSanity and CheckBlockContext) at height with hash. spent holds
// the coin each non-coinbase input spends, in block order (the layout of
// database.BlockUndo.Spent). medianTime(h) must return the median time past
// of the block at height h of the chain holding block, for heights below
// height. workers is how many goroutines verify scripts (0: GOMAXPROCS).
//
// It checks, per transaction, the input values and coinbase maturity
// (CheckTxInputs), the BIP68 sequence locks once CSV is active, the
// block's sigop cost, that the coinbase pays at most the subsidy plus
// fees, and finally every input's script under ScriptFlagsFor(height,
// hash), without the signature cache, so every signature is verified
// again. The failures have Core's priority: the first failing
// transaction's non-script rule, then the coinbase amount, then the
// script failure of the lowest input. A coin that cannot belong to the
// block (its height is above the block's, or it claims to be an output of
// the block that differs from that output or is not created before the
// spending transaction) is ErrBadTxnsMissingInputs, as is a spent list of
// the wrong length; a spend of the block's own coinbase is
// ErrTxPrematureCoinbase. BIP30 is not checked: it needs
// the UTXO set as it was before the block.
func CheckBlockInputs(p *chaincfg.Params, block *wire.MsgBlock, height int32, hash wire.Hash,
	spent []database.UtxoEntry, medianTime func(h int32) int64, workers int) error {
	txs := block.Transactions
	if len(txs) == 0 {
		return ruleError(ErrBadCoinbaseMissing, "block has no transactions")
	}
	nIns := 0
	for _, tx := range txs[1:] {
		nIns += len(tx.TxIn)
	}
	if len(spent) != nIns {
		return ruleError(ErrBadTxnsMissingInputs, "%d spent coins for %d inputs", len(spent), nIns)
	}
	txids := block.TxHashes()
	flags := ScriptFlagsFor(p, height, hash)
	p2sh, witness := flags&txscript.ScriptVerifyP2SH != 0, flags&txscript.ScriptVerifyWitness != 0
	csv := height >= p.CSVHeight
	var prevMTP int64
	if csv {
		prevMTP = medianTime(height - 1)
	}
	mtpBefore := func(h int32) int64 { return medianTime(max(h-1, 0)) }

	sigopCost := TxSigOpCost(txs[0], nil, p2sh, witness)
	var fees int64
	var heights []int32
	var byID map[wire.Hash]int
	k := 0
	for i, tx := range txs[1:] {
		i++
		cs := spent[k : k+len(tx.TxIn)]
		if err := checkSpentCoins(block, txids, &byID, i, cs, height); err != nil {
			return err
		}
		fee, err := CheckTxInputs(tx, cs, height, p.CoinbaseMaturity)
		if err != nil {
			return inTransaction(err, txids[i])
		}
		fees += fee
		if !MoneyRange(fees) {
			return ruleError(ErrBadTxnsAccumFee, "accumulated fee in the block out of range")
		}
		if csv && tx.Version >= 2 {
			heights = heights[:0]
			for j := range cs {
				heights = append(heights, cs[j].Height)
			}
			if !CalcSequenceLock(tx, heights, true, mtpBefore).Satisfied(height, prevMTP) {
				return ruleError(ErrBadTxnsNonFinal, "contains a non-BIP68-final transaction")
			}
		}
		sigopCost += TxSigOpCost(tx, cs, p2sh, witness)
		if sigopCost > MaxBlockSigOpsCost {
			return ruleError(ErrBadBlockSigOps, "too many sigops")
		}
		k += len(tx.TxIn)
	}
	var out int64
	for i := range txs[0].TxOut {
		out += txs[0].TxOut[i].Value
	}
	if reward := fees + CalcBlockSubsidy(height, p.SubsidyHalvingInterval); out > reward {
		return ruleError(ErrBadCoinbaseAmount, "coinbase pays too much (actual=%d vs limit=%d)", out, reward)
	}
	return verifyBlockScripts(txs, spent, flags, workers)
}

// checkSpentCoins rejects coins that cannot be what transaction ti of the
// block spent: a coin from above the block, or one from the block itself
// that is not an earlier transaction's output as it is in the block. A
// connected block's undo record passes by construction; this catches a
// record that was corrupted or belongs to another block. byID maps the
// block's txids to their index; it is built on first need.
func checkSpentCoins(block *wire.MsgBlock, txids []wire.Hash, byID *map[wire.Hash]int, ti int,
	cs []database.UtxoEntry, height int32) error {
	tx := block.Transactions[ti]
	for j := range cs {
		c := &cs[j]
		if c.Height > height {
			return ruleError(ErrBadTxnsMissingInputs, "input %v:%d spends a coin of height %d", txids[ti], j, c.Height)
		}
		if c.Height != height {
			continue
		}
		op := &tx.TxIn[j].PreviousOutPoint
		if op.Hash == txids[0] {
			return ruleError(ErrTxPrematureCoinbase, "input %v:%d spends the block's own coinbase", txids[ti], j)
		}
		if *byID == nil {
			*byID = make(map[wire.Hash]int, len(txids))
			for i := range txids {
				(*byID)[txids[i]] = i
			}
		}
		pi, ok := (*byID)[op.Hash]
		if !ok || pi >= ti {
			return ruleError(ErrBadTxnsMissingInputs, "input %v:%d spends a coin not created before it", txids[ti], j)
		}
		outs := block.Transactions[pi].TxOut
		if op.Index >= uint32(len(outs)) || c.IsCoinBase || outs[op.Index].Value != c.Amount ||
			string(outs[op.Index].PkScript) != string(c.PkScript) {
			return ruleError(ErrBadTxnsMissingInputs, "input %v:%d: coin differs from the block's output", txids[ti], j)
		}
	}
	return nil
}

// verifyJob is the script check of inputs [start, end) of one transaction.
type verifyJob struct {
	tx         int
	start, end int
}

// verifyBlockScripts verifies every non-coinbase input of txs, spending
// spent, on up to workers goroutines, and returns the failure of the
// lowest input (so that the answer does not depend on scheduling).
func verifyBlockScripts(txs []*wire.MsgTx, spent []database.UtxoEntry, flags txscript.ScriptFlags, workers int) error {
	if len(spent) == 0 {
		return nil
	}
	prevOuts := make([]wire.TxOut, len(spent))
	for i := range spent {
		prevOuts[i] = wire.TxOut{Value: spent[i].Amount, PkScript: spent[i].PkScript}
	}
	// first[t] is the offset in prevOuts of transaction t's inputs.
	first := make([]int, len(txs))
	hashes := make([]txscript.TxSigHashes, len(txs))
	jobs := make([]verifyJob, 0, len(spent)/verifyChunk+len(txs))
	k := 0
	for t := 1; t < len(txs); t++ {
		n := len(txs[t].TxIn)
		first[t] = k
		hashes[t].Init(txs[t], prevOuts[k:k+n:k+n])
		for s := 0; s < n; s += verifyChunk {
			jobs = append(jobs, verifyJob{tx: t, start: s, end: min(s+verifyChunk, n)})
		}
		k += n
	}

	var (
		next     atomic.Int64
		failedAt atomic.Int64 // lowest failing job index, or len(jobs)
		mu       sync.Mutex
		firstErr error
		errJob   = len(jobs)
	)
	failedAt.Store(int64(len(jobs)))
	run := func() {
		e := verifyEnginePool.Get().(*txscript.Engine)
		defer verifyEnginePool.Put(e)
		for {
			ji := int(next.Add(1) - 1)
			// Jobs are taken in order, so once one fails, later ones
			// cannot change the answer.
			if ji >= len(jobs) || int64(ji) > failedAt.Load() {
				return
			}
			j := jobs[ji]
			tx := txs[j.tx]
			po := prevOuts[first[j.tx]:]
			for i := j.start; i < j.end; i++ {
				if err := e.Verify(tx, i, &po[i], flags, nil, &hashes[j.tx]); err != nil {
					mu.Lock()
					if ji < errJob {
						errJob, firstErr = ji, scriptError(tx, i, err)
						failedAt.Store(int64(ji))
					}
					mu.Unlock()
					break
				}
			}
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
	return firstErr
}
