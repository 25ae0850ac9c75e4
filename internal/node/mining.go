package node

import (
	"errors"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// defaultMaxTries is generatetoaddress's default nonce budget per block.
const defaultMaxTries = 1_000_000

func (s *server) miningBackend() *rpc.MiningBackend {
	mb := &rpc.MiningBackend{
		SubmitBlock: func(block *wire.MsgBlock) (string, error) {
			return s.chain.SubmitBlock(block)
		},
		BlockTemplate: s.getBlockTemplate,
		MiningInfo:    s.miningInfo,
		NetworkHashPS: s.networkHashPS,
		SubmitHeader: func(h *wire.BlockHeader) error {
			_, _, err := s.chain.ProcessHeaders([]wire.BlockHeader{*h})
			return err
		},
	}
	// As bitcoind, the generating methods exist on every network: off
	// regtest they are only practical where blocks are easy (a test
	// signet), but they are not refused.
	{
		mb.Generate = func(n int64, script []byte, maxTries uint64) ([]wire.Hash, error) {
			return s.generate(int(n), script, maxTries, nil, true)
		}
		mb.GenerateBlock = func(script []byte, txs []*wire.MsgTx, submit bool) (wire.Hash, []byte, error) {
			if txs == nil {
				txs = []*wire.MsgTx{}
			}
			blk, err := s.buildBlock(script, txs)
			if err != nil {
				return wire.Hash{}, nil, err
			}
			if !solveBlock(&blk.Header, defaultMaxTries*100) {
				return wire.Hash{}, nil, rpc.NewError(rpc.ErrMisc, "Failed to make block.")
			}
			hash := blk.BlockHash()
			if !submit {
				return hash, blk.Bytes(), nil
			}
			if err := s.submitMined(blk); err != nil {
				return wire.Hash{}, nil, err
			}
			return hash, nil, nil
		}
	}
	return mb
}

// generate mines n blocks paying to script on top of the tip, each holding
// the mempool's best transactions (or exactly txs when not nil).
func (s *server) generate(n int, script []byte, maxTries uint64, txs []*wire.MsgTx, useMempool bool) ([]wire.Hash, error) {
	if maxTries == 0 {
		maxTries = defaultMaxTries
	}
	var out []wire.Hash
	for i := 0; i < n; i++ {
		blk, err := s.buildBlock(script, txs)
		if err != nil {
			return out, err
		}
		if !solveBlock(&blk.Header, maxTries) {
			break
		}
		if err := s.submitMined(blk); err != nil {
			return out, err
		}
		out = append(out, blk.BlockHash())
	}
	return out, nil
}

func (s *server) submitMined(blk *wire.MsgBlock) error {
	res, err := s.processBlock(blk)
	if err != nil {
		var re *blockchain.RuleError
		if errors.As(err, &re) {
			return rpc.Errorf(rpc.ErrVerify, "ProcessNewBlock, block not accepted: %s", re.Reason)
		}
		return err
	}
	if !res.MainChain {
		return rpc.NewError(rpc.ErrVerify, "ProcessNewBlock, block not accepted")
	}
	return nil
}

// templateOptions are the block assembler's limits from the options
// (-blockmaxweight, -blockreservedweight, -blockmintxfee).
func (s *server) templateOptions() mempool.TemplateOptions {
	minRate := mempool.FeeRate(s.cfg.blockMinTxFeeSat)
	if minRate == 0 {
		minRate = -1 // zero means the default to the pool; -blockmintxfee=0 includes all
	}
	return mempool.TemplateOptions{
		// Core clamps the maximum to the reserved weight from below.
		MaxWeight:      max(s.cfg.BlockMaxWeight, s.cfg.BlockReservedWeight),
		ReservedWeight: s.cfg.BlockReservedWeight,
		MinFeeRate:     minRate,
	}
}

// buildBlock assembles a block template on the tip: the coinbase (BIP34
// height, subsidy plus fees, witness commitment) and either txs or the
// mempool's selection.
func (s *server) buildBlock(script []byte, txs []*wire.MsgTx) (*wire.MsgBlock, error) {
	s.miningMu.Lock()
	defer s.miningMu.Unlock()
	tip := s.chain.BestSnapshot()
	height := tip.Height + 1
	// Before segwit activates a block may carry neither witness data nor
	// a witness commitment (unexpected-witness).
	segwit := height >= s.cfg.params.SegwitHeight
	var fees int64
	if txs == nil {
		t := s.pool.SelectTransactions(s.templateOptions())
		skipped := map[wire.Hash]bool{}
	nextTx:
		for i, tx := range t.Txs {
			if !segwit && tx.HasWitness() {
				skipped[t.TxIDs[i]] = true
				continue
			}
			for _, in := range tx.TxIn {
				if skipped[in.PreviousOutPoint.Hash] {
					skipped[t.TxIDs[i]] = true
					continue nextTx
				}
			}
			txs = append(txs, tx)
			fees += t.Fees[i]
		}
	} else {
		for i, tx := range txs {
			fee, err := s.txFee(tx, txs[:i])
			if err != nil {
				return nil, err
			}
			fees += fee
		}
	}
	ts := uint32(max(clock.Unix(), tip.MedianTime+1))
	// Core's coinbase: the height and OP_0, a lock time of the previous
	// height with a non-final sequence (so the lock time is enforced).
	// Matching it byte for byte makes generated chains identical to
	// Core's under the same mock time, which tests pin hashes of.
	sig := append(blockchain.AppendHeightScript(nil, height), txscript.OP_0)
	cb := &wire.MsgTx{
		Version:  2,
		LockTime: uint32(height - 1),
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
			SignatureScript:  sig,
			Sequence:         wire.MaxTxInSequenceNum - 1,
			Witness:          [][]byte{make([]byte, 32)},
		}},
		TxOut: []wire.TxOut{{
			Value:    blockchain.CalcBlockSubsidy(height, s.cfg.params.SubsidyHalvingInterval) + fees,
			PkScript: append([]byte(nil), script...),
		}},
	}
	version, err := s.chain.BlockVersionAfter(tip.Hash)
	if err != nil {
		return nil, err
	}
	blk := &wire.MsgBlock{
		Header: wire.BlockHeader{
			Version:   version,
			PrevBlock: tip.Hash,
			Timestamp: ts,
			Bits:      s.chain.CalcNextRequiredBits(int64(ts)),
		},
		Transactions: append([]*wire.MsgTx{cb}, txs...),
	}
	if segwit {
		root := blk.WitnessMerkleRoot()
		commit := blockchain.WitnessCommitment(&root, cb.TxIn[0].Witness[0])
		cb.TxOut = append(cb.TxOut, wire.TxOut{PkScript: blockchain.AppendWitnessCommitmentScript(nil, &commit)})
	} else {
		cb.TxIn[0].Witness = nil
	}
	blk.ClearHashCache()
	blk.Header.MerkleRoot, _ = blk.MerkleRoot()
	return blk, nil
}

// txFee computes the fee of tx from the UTXO set and the transactions
// before it in the block (generateblock).
func (s *server) txFee(tx *wire.MsgTx, block []*wire.MsgTx) (int64, error) {
	var in, out int64
	for i := range tx.TxIn {
		op := tx.TxIn[i].PreviousOutPoint
		if e, ok, _ := s.chain.FetchUtxo(op); ok {
			in += e.Amount
			continue
		}
		found := false
		for _, t := range block {
			if t.TxHash() == op.Hash && int(op.Index) < len(t.TxOut) {
				in += t.TxOut[op.Index].Value
				found = true
				break
			}
		}
		if !found {
			return 0, rpc.Errorf(rpc.ErrVerify, "TestBlockValidity failed: bad-txns-inputs-missingorspent, CheckTxInputs: inputs missing/spent in transaction %v", tx.TxHash())
		}
	}
	for i := range tx.TxOut {
		out += tx.TxOut[i].Value
	}
	return in - out, nil
}

// solveBlock grinds the nonce until the header's hash meets its target,
// trying at most maxTries nonces.
func solveBlock(h *wire.BlockHeader, maxTries uint64) bool {
	var target [32]byte // big-endian
	t := chaincfg.CompactToBig(h.Bits)
	if t.Sign() <= 0 || t.BitLen() > 256 {
		return false
	}
	t.FillBytes(target[:])
	for i := uint64(0); i < maxTries; i++ {
		h.Nonce = uint32(i)
		hash := h.BlockHash()
		if hashMeetsTarget(&hash, &target) {
			return true
		}
		if h.Nonce == ^uint32(0) {
			h.Timestamp++
		}
	}
	return false
}

// hashMeetsTarget compares a little-endian hash with a big-endian target.
func hashMeetsTarget(hash *wire.Hash, target *[32]byte) bool {
	for i := 0; i < 32; i++ {
		a, b := hash[31-i], target[i]
		if a != b {
			return a < b
		}
	}
	return true
}
