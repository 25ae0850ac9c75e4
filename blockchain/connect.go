package blockchain

import (
	"errors"
	"math/big"
	"slices"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// connectScratch is memory reused from one block to the next by the
// connect path, so that connecting a block allocates O(1) objects rather
// than O(inputs).
type connectScratch struct {
	ops       []wire.OutPoint
	inBlock   inBlockSpends
	coins     []database.UtxoEntry
	scripts   []byte
	prevOuts  []wire.TxOut
	txInputs  []uint32
	heights   []int32
	sigHashes []txscript.TxSigHashes
	undo      []byte
	outOps    []wire.OutPoint
	outCoins  []database.UtxoEntry
	outBuf    []byte
	batch     scriptBatch
	blockBuf  []byte
	undoRead  []byte
	undoDec   database.BlockUndo
}

// bip30Applies reports whether the block must be checked for outputs that
// would overwrite unspent ones (Core's fEnforceBIP30 logic): always,
// except for the two historical exceptions and on chains whose BIP34
// activation block is the known one, where BIP34 makes duplicates
// impossible until BIP34ImpliesBIP30Limit.
//
// Where BIP34 holds from height 1 (regtest, testnet4 and signet unless
// --testactivationheight moves it) the check is skipped too, although Core
// runs it there (those chains have no BIP34Hash): every coinbase after
// genesis starts with its own height, so no two coinbases share a txid;
// the genesis coinbase is not in the UTXO set; and a later transaction
// could only repeat a txid by spending the same, already spent, outputs.
// So no output can exist twice and the check could never fail. It costs a
// UTXO lookup per new output, all misses that reach LevelDB, which was
// half of connecting a block with scripts skipped; mainnet skips it from
// BIP34's height on for the same reason.
func bip30Applies(p *chaincfg.Params, n *blockNode) bool {
	if n.height >= chaincfg.BIP34ImpliesBIP30Limit {
		return true
	}
	if p.IsBIP30Exception(n.height, n.hash) {
		return false
	}
	if p.BIP34Height <= 1 {
		return false
	}
	if a := n.parent.ancestor(p.BIP34Height); a != nil && a.hash == p.BIP34Hash {
		return false
	}
	return true
}

// scriptsAssumed reports whether n's scripts may be skipped under
// assume-valid: n is an ancestor of the assume-valid block, which is an
// ancestor of the best header, that header has the minimum chain work, and
// n is more than two weeks' worth of work below it (Core's conditions).
// Only script checks are skipped; every other rule still runs.
func (b *BlockChain) scriptsAssumed(n *blockNode) bool {
	if b.assumeValid == (wire.Hash{}) {
		return false
	}
	av := b.index.lookup(&b.assumeValid)
	best := b.index.bestHeader
	if av == nil || best == nil || !n.isAncestorOf(av) || !av.isAncestorOf(best) {
		return false
	}
	if best.workSum.Cmp(b.minWork) < 0 {
		return false
	}
	return proofEquivalentTime(best, n, b.params) > 60*60*24*7*2
}

// proofEquivalentTime returns how many seconds of block production at
// tip's difficulty separate the work of to and from (Core's
// GetBlockProofEquivalentTime).
func proofEquivalentTime(to, from *blockNode, p *chaincfg.Params) int64 {
	if to.workSum.Cmp(from.workSum) <= 0 {
		return 0
	}
	diff := to.workSum.Sub(from.workSum).Big()
	diff.Mul(diff, big.NewInt(int64(p.TargetTimePerBlock.Seconds())))
	diff.Quo(diff, CalcWork(to.bits).Big())
	if !diff.IsInt64() {
		return 1 << 62
	}
	return diff.Int64()
}

// connectBlock validates block n against the UTXO set and applies it
// (Core's ConnectBlock). The block's coins are fetched in one pass; the UTXO
// changes are applied as each transaction is checked while the script jobs
// run on the workers; if any rule fails, the changes are rolled back. The
// undo record is written when everything passed.
func (b *BlockChain) connectBlock(n *blockNode, block *wire.MsgBlock) error {
	p := b.params
	s := &b.scratch
	txs := block.Transactions
	txids := block.TxHashes()
	height := n.height

	if bip30Applies(p, n) {
		if err := b.checkBIP30(block, txids); err != nil {
			return err
		}
	}

	// Gather every input's outpoint and fetch the coins in one pass.
	s.ops, s.txInputs = s.ops[:0], s.txInputs[:0]
	for _, tx := range txs[1:] {
		for i := range tx.TxIn {
			s.ops = append(s.ops, tx.TxIn[i].PreviousOutPoint)
		}
		s.txInputs = append(s.txInputs, uint32(len(tx.TxIn)))
	}
	// Inputs spending outputs of earlier transactions in this block are
	// resolved as they are spent; looking them up first could only miss,
	// and with coins on disk each miss would be a LevelDB read.
	var skip []bool
	if b.cache.MayReadDisk() {
		skip = s.inBlock.mark(txs, txids, len(s.ops))
	}
	var err error
	s.coins, s.scripts, err = b.cache.FetchEntriesExcept(s.ops, skip, s.coins, s.scripts)
	if err != nil {
		return err
	}
	nIns := len(s.ops)
	if cap(s.prevOuts) < nIns {
		s.prevOuts = make([]wire.TxOut, nIns, nIns+nIns/4)
	}
	s.prevOuts = s.prevOuts[:nIns]
	if cap(s.sigHashes) < len(txs) {
		s.sigHashes = make([]txscript.TxSigHashes, len(txs), len(txs)+len(txs)/4)
	}

	flags := ScriptFlagsFor(p, height, n.hash)
	checkScripts := !b.noScripts && !b.scriptsAssumed(n)
	csv := height >= p.CSVHeight
	prevMTP := n.parent.medianTimePast()
	mtpBefore := func(h int32) int64 { return n.ancestor(max(h-1, 0)).medianTimePast() }

	var fees int64
	sigopCost := 0
	k := 0
	batch := &s.batch
	var ruleErr error
	// Progress for rollback: transactions before applied are fully
	// applied; spentIns inputs of transaction applied were spent.
	applied, spentIns := 0, 0

txLoop:
	for i, tx := range txs {
		if i > 0 {
			nIn := len(tx.TxIn)
			cs := s.coins[k : k+nIn]
			for j := range tx.TxIn {
				op := &tx.TxIn[j].PreviousOutPoint
				var ok bool
				if cs[j].Missing {
					// Possibly created earlier in this block.
					cs[j] = database.UtxoEntry{}
					ok, err = b.cache.SpendEntry(op, &cs[j])
				} else {
					ok, err = b.cache.SpendEntry(op, nil)
				}
				if err != nil {
					b.rollback(txs, txids, applied, spentIns)
					batch.wait()
					return err
				}
				if !ok {
					ruleErr = ruleError(ErrBadTxnsMissingInputs, "CheckTxInputs: inputs missing/spent in transaction %v", txids[i])
					break txLoop
				}
				spentIns++
			}
			fee, err := CheckTxInputs(tx, cs, height, p.CoinbaseMaturity)
			if err != nil {
				ruleErr = inTransaction(err, txids[i])
				break txLoop
			}
			fees += fee
			if !MoneyRange(fees) {
				ruleErr = ruleError(ErrBadTxnsAccumFee, "accumulated fee in the block out of range")
				break txLoop
			}
			if csv && tx.Version >= 2 {
				if cap(s.heights) < nIn {
					s.heights = make([]int32, nIn)
				}
				hs := s.heights[:nIn]
				for j := range cs {
					hs[j] = cs[j].Height
				}
				lock := CalcSequenceLock(tx, hs, true, mtpBefore)
				if !lock.Satisfied(height, prevMTP) {
					ruleErr = ruleError(ErrBadTxnsNonFinal, "contains a non-BIP68-final transaction")
					break txLoop
				}
			}
			sigopCost += TxSigOpCost(tx, cs, flags&txscript.ScriptVerifyP2SH != 0,
				flags&txscript.ScriptVerifyWitness != 0)
			if checkScripts && !batch.failed.Load() {
				po := s.prevOuts[k : k+nIn : k+nIn]
				for j := range cs {
					po[j] = wire.TxOut{Value: cs[j].Amount, PkScript: cs[j].PkScript}
				}
				sh := &s.sigHashes[:len(txs)][i]
				sh.Init(tx, po)
				b.scripts.submit(batch, tx, po, sh, flags)
			}
			k += nIn
		} else {
			sigopCost += LegacySigOps(tx) * wire.WitnessScaleFactor
		}
		if sigopCost > MaxBlockSigOpsCost {
			ruleErr = ruleError(ErrBadBlockSigOps, "too many sigops")
			// The inputs are spent but the outputs not yet added.
			break txLoop
		}
		if err := b.addOutputs(tx, txids[i], height, i == 0); err != nil {
			b.rollback(txs, txids, applied, spentIns)
			batch.wait()
			return err
		}
		applied, spentIns = i+1, 0
	}
	scriptErr := batch.wait()
	if ruleErr == nil && scriptErr != nil {
		ruleErr = scriptErr
	}
	if ruleErr == nil {
		reward := fees + CalcBlockSubsidy(height, p.SubsidyHalvingInterval)
		var out int64
		for i := range txs[0].TxOut {
			out += txs[0].TxOut[i].Value
		}
		if out > reward {
			ruleErr = ruleError(ErrBadCoinbaseAmount, "coinbase pays too much (actual=%d vs limit=%d)", out, reward)
		}
	}
	if ruleErr != nil {
		b.rollback(txs, txids, applied, spentIns)
		return ruleErr
	}

	// Everything held: write the undo record.
	if height > 0 {
		s.undo = database.AppendBlockUndo(s.undo[:0], s.txInputs, s.coins[:nIns])
		loc, err := b.db.WriteUndo(n.blockFile, s.undo, &n.parent.hash)
		if err != nil {
			b.rollback(txs, txids, applied, 0)
			return err
		}
		n.undoFile, n.undoOffset, n.undoSize = loc.File, loc.Offset, loc.Size
	}
	b.index.setStatus(n, statusValid|statusUndoStored, 0)
	b.index.dirty[n] = struct{}{}
	return nil
}

// checkBIP30 rejects a block creating an output that is already unspent.
func (b *BlockChain) checkBIP30(block *wire.MsgBlock, txids []wire.Hash) error {
	s := &b.scratch
	s.outOps = s.outOps[:0]
	for i, tx := range block.Transactions {
		for o := range tx.TxOut {
			s.outOps = append(s.outOps, wire.OutPoint{Hash: txids[i], Index: uint32(o)})
		}
	}
	var err error
	s.outCoins, s.outBuf, err = b.cache.FetchEntries(s.outOps, s.outCoins, s.outBuf)
	if err != nil {
		return err
	}
	for i := range s.outCoins {
		if !s.outCoins[i].Missing {
			return ruleError(ErrBadTxnsBIP30, "tried to overwrite transaction")
		}
	}
	return nil
}

// addOutputs adds tx's outputs to the UTXO cache. Coinbase outputs may
// overwrite (the two historical duplicate coinbases), as in Core.
func (b *BlockChain) addOutputs(tx *wire.MsgTx, txid wire.Hash, height int32, coinbase bool) error {
	for o := range tx.TxOut {
		out := &tx.TxOut[o]
		e := database.UtxoEntry{Amount: out.Value, PkScript: out.PkScript, Height: height, IsCoinBase: coinbase}
		if err := b.cache.AddEntry(&wire.OutPoint{Hash: txid, Index: uint32(o)}, &e, coinbase); err != nil {
			return err
		}
	}
	return nil
}

// rollback undoes a partly applied block: transactions [0, applied) are
// fully applied, and the first spentIns inputs of transaction applied were
// spent (its outputs not yet added). Changes are undone newest first, so
// coins created and spent within the block end up absent again.
func (b *BlockChain) rollback(txs []*wire.MsgTx, txids []wire.Hash, applied, spentIns int) {
	s := &b.scratch
	start := 0
	for i := 1; i < applied; i++ {
		start += len(txs[i].TxIn)
	}
	if applied > 0 && applied < len(txs) {
		tx := txs[applied]
		for j := spentIns - 1; j >= 0; j-- {
			b.restoreCoin(&tx.TxIn[j].PreviousOutPoint, &s.coins[start+j])
		}
	}
	for i := applied - 1; i >= 0; i-- {
		tx := txs[i]
		for o := range tx.TxOut {
			if database.IsUnspendable(tx.TxOut[o].PkScript) {
				continue
			}
			if _, err := b.cache.SpendEntry(&wire.OutPoint{Hash: txids[i], Index: uint32(o)}, nil); err != nil {
				log.Errorf("Rollback of %v: %v", txids[i], err)
			}
		}
		if i == 0 {
			break
		}
		start -= len(tx.TxIn)
		for j := len(tx.TxIn) - 1; j >= 0; j-- {
			b.restoreCoin(&tx.TxIn[j].PreviousOutPoint, &s.coins[start+j])
		}
	}
}

func (b *BlockChain) restoreCoin(op *wire.OutPoint, c *database.UtxoEntry) {
	e := *c
	e.Missing = false
	if err := b.cache.AddEntry(op, &e, true); err != nil {
		log.Errorf("Restoring %v: %v", op, err)
	}
}

// disconnectBlock reverts n's changes to the UTXO set using its undo record
// (Core's DisconnectBlock).
func (b *BlockChain) disconnectBlock(n *blockNode, block *wire.MsgBlock) error {
	s := &b.scratch
	txs := block.Transactions
	txids := block.TxHashes()
	if n.status&statusUndoStored == 0 {
		return &database.Error{Kind: database.ErrCorrupt, Desc: "no undo data for block " + n.hash.String()}
	}
	var err error
	loc := database.UndoLoc{File: n.undoFile, Offset: n.undoOffset, Size: n.undoSize}
	raw, err := b.db.ReadUndo(loc, &n.parent.hash, s.undoRead[:0])
	if err != nil {
		return err
	}
	s.undoRead = raw[:0]
	u := &s.undoDec
	if err := u.Decode(raw); err != nil {
		return err
	}
	if len(u.TxInputs) != len(txs)-1 {
		return &database.Error{Kind: database.ErrCorrupt, Desc: "undo record does not match block " + n.hash.String()}
	}
	k := len(u.Spent)
	for i := len(txs) - 1; i >= 0; i-- {
		tx := txs[i]
		for o := range tx.TxOut {
			if database.IsUnspendable(tx.TxOut[o].PkScript) {
				continue
			}
			ok, err := b.cache.SpendEntry(&wire.OutPoint{Hash: txids[i], Index: uint32(o)}, nil)
			if err != nil {
				return err
			}
			if !ok {
				log.Warnf("Disconnecting %v: output %v:%d was not unspent", n.hash, txids[i], o)
			}
		}
		if i == 0 {
			break
		}
		if int(u.TxInputs[i-1]) != len(tx.TxIn) {
			return &database.Error{Kind: database.ErrCorrupt, Desc: "undo record does not match block " + n.hash.String()}
		}
		k -= len(tx.TxIn)
		for j := len(tx.TxIn) - 1; j >= 0; j-- {
			if err := b.cache.AddEntry(&tx.TxIn[j].PreviousOutPoint, &u.Spent[k+j], true); err != nil {
				return err
			}
		}
	}
	return nil
}

// errIsRule reports whether err is a consensus rule failure (as opposed
// to a database or I/O failure).
func errIsRule(err error) bool {
	var re *RuleError
	return errors.As(err, &re)
}

// startPrepare reads and decodes block n from the block files and pulls
// the coins it spends into the UTXO cache on another goroutine, so that
// this overlaps connecting the block before it (whose script checks
// leave the connecting goroutine waiting). It touches only the block
// database and the cache, both safe for concurrent use; coins the block
// before creates or spends are merely found missing or present, which is
// harmless for a prefetch. The channel yields the block, or nil on any
// failure (connecting n then meets the failure again).
func (b *BlockChain) startPrepare(n *blockNode) <-chan *wire.MsgBlock {
	ch := make(chan *wire.MsgBlock, 1)
	loc := database.BlockLoc{File: n.blockFile, Offset: n.blockOffset, Size: n.blockSize}
	hash := n.hash
	go func() {
		raw, err := b.db.ReadBlock(loc, nil)
		if err != nil {
			ch <- nil
			return
		}
		blk := new(wire.MsgBlock)
		if _, err := blk.Decode(raw); err != nil || blk.BlockHash() != hash {
			ch <- nil
			return
		}
		var ops []wire.OutPoint
		for _, tx := range blk.Transactions[min(1, len(blk.Transactions)):] {
			for i := range tx.TxIn {
				ops = append(ops, tx.TxIn[i].PreviousOutPoint)
			}
		}
		b.cache.FetchEntries(ops, nil, nil)
		ch <- blk
	}()
	return ch
}

// inBlockSpends finds the inputs of a block that spend outputs of earlier
// transactions of the same block; it keeps its buffers between blocks.
type inBlockSpends struct {
	pos  map[wire.Hash]int32
	skip []bool
}

// mark returns, for the nIns non-coinbase inputs of txs in order, whether
// each spends an output of an earlier transaction of the block (txids are
// the block's transaction hashes).
func (s *inBlockSpends) mark(txs []*wire.MsgTx, txids []wire.Hash, nIns int) []bool {
	if s.pos == nil {
		s.pos = make(map[wire.Hash]int32, len(txids))
	}
	clear(s.pos)
	s.skip = slices.Grow(s.skip[:0], nIns)[:nIns]
	k := 0
	for i, tx := range txs {
		if i > 0 {
			for j := range tx.TxIn {
				p, ok := s.pos[tx.TxIn[j].PreviousOutPoint.Hash]
				s.skip[k] = ok && int(p) < i
				k++
			}
		}
		// A duplicate txid keeps its first position (only historical
		// coinbases repeat one, across blocks, not within).
		if _, ok := s.pos[txids[i]]; !ok {
			s.pos[txids[i]] = int32(i)
		}
	}
	return s.skip
}
