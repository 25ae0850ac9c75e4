package node

import (
	"encoding/hex"
	"math/big"
	"strconv"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// getBlockTemplate answers getblocktemplate in template mode (the rpc
// package has checked the mode and the segwit rule), and dispatches
// proposals and long polls (rpcadapter_gbt.go).
func (s *server) getBlockTemplate(req map[string]any) (any, error) {
	if mode, _ := req["mode"].(string); mode == "proposal" {
		return s.blockProposal(req) // rpcadapter_gbt.go
	}
	if err := s.templateRules(req); err != nil {
		return nil, err
	}
	s.waitLongPoll(req)
	if s.cfg.netName != "regtest" && len(s.peerList()) == 0 {
		return nil, rpc.NewError(rpc.ErrClientNotConnected, "Bitcoin is not connected!")
	}
	if s.cfg.netName != "regtest" && !s.sync.IsCurrent() {
		return nil, rpc.NewError(rpc.ErrClientInInitialDownload, "Bitcoin is in initial sync and waiting for blocks...")
	}
	tip := s.chain.BestSnapshot()
	t := s.pool.SelectTransactions(s.templateOptions())
	now := max(clock.Unix(), tip.MedianTime+1)
	bits := s.chain.CalcNextRequiredBits(now)
	index := make(map[wire.Hash]int64, len(t.Txs))
	txs := make([]rpc.TemplateTx, len(t.Txs))
	for i, tx := range t.Txs {
		index[t.TxIDs[i]] = int64(i + 1)
		deps := []int64{}
		for _, in := range tx.TxIn {
			if j, ok := index[in.PreviousOutPoint.Hash]; ok {
				deps = append(deps, j)
			}
		}
		txs[i] = rpc.TemplateTx{
			Data: hex.EncodeToString(tx.AppendTo(nil, true)), TxID: t.TxIDs[i].String(),
			Hash: tx.WitnessHash().String(), Depends: deps, Fee: t.Fees[i],
			SigOps: t.SigOpCosts[i], Weight: tx.Weight(),
		}
	}
	// The default commitment assumes the coinbase's witness nonce is 32
	// zero bytes, as Core's.
	blk := &wire.MsgBlock{Transactions: append([]*wire.MsgTx{{TxIn: []wire.TxIn{{}}}}, t.Txs...)}
	root := blk.WitnessMerkleRoot()
	commit := blockchain.WitnessCommitment(&root, make([]byte, 32))
	height := tip.Height + 1
	version, rules, available, err := s.templateVersionBits(req, tip.Hash, height) // rpcadapter_gbt.go
	if err != nil {
		return nil, err
	}
	var challenge string
	if s.cfg.params.IsSignet() {
		challenge = hex.EncodeToString(s.cfg.params.SignetChallenge)
	}
	return &rpc.BlockTemplate{
		SignetChallenge:          challenge,
		Capabilities:             []string{"proposal"},
		Version:                  version,
		Rules:                    rules,
		VBAvailable:              available,
		PreviousBlockHash:        tip.Hash.String(),
		Transactions:             txs,
		CoinbaseAux:              map[string]string{},
		CoinbaseValue:            blockchain.CalcBlockSubsidy(height, s.cfg.params.SubsidyHalvingInterval) + t.TotalFees,
		LongPollID:               tip.Hash.String() + strconv.FormatUint(s.pool.Sequence(), 10),
		Target:                   rpc.TargetHex(bits),
		MinTime:                  tip.MedianTime + 1,
		Mutable:                  []string{"time", "transactions", "prevblock"},
		NonceRange:               "00000000ffffffff",
		SigOpLimit:               80000,
		SizeLimit:                wire.MaxBlockSerializedSize,
		WeightLimit:              wire.MaxBlockWeight,
		CurTime:                  now,
		Bits:                     rpc.BitsHex(bits),
		Height:                   height,
		DefaultWitnessCommitment: witnessCommitmentHex(height >= s.cfg.params.SegwitHeight, &commit),
	}, nil
}

// witnessCommitmentHex is the template's default_witness_commitment, which
// bitcoind leaves out before segwit activates.
func witnessCommitmentHex(segwit bool, commit *wire.Hash) string {
	if !segwit {
		return ""
	}
	return hex.EncodeToString(blockchain.AppendWitnessCommitmentScript(nil, commit))
}

// miningInfo answers getmininginfo.
func (s *server) miningInfo() (*rpc.MiningInfo, error) {
	tip := s.chain.BestSnapshot()
	hps, _ := s.networkHashPS(120, -1)
	now := max(clock.Unix(), tip.MedianTime+1)
	next := s.chain.CalcNextRequiredBits(now)
	return &rpc.MiningInfo{
		Blocks:        tip.Height,
		Bits:          rpc.BitsHex(tip.Bits),
		Difficulty:    rpc.GetDifficulty(tip.Bits),
		Target:        rpc.TargetHex(tip.Bits),
		NetworkHashPS: rpc.Float(hps),
		PooledTx:      int64(s.pool.Count()),
		Chain:         s.cfg.params.Name,
		// Empty (left out) off signet.
		SignetChallenge: hex.EncodeToString(s.cfg.params.SignetChallenge),
		Next: &rpc.NextBlockInfo{Height: tip.Height + 1, Bits: rpc.BitsHex(next),
			Difficulty: rpc.GetDifficulty(next), Target: rpc.TargetHex(next)},
		Warnings: s.warnings(),
	}, nil
}

// networkHashPS estimates hashes per second from the work and time spanned
// by the nblocks blocks ending at height (-1: the tip); nblocks <= 0 means
// since the last retarget.
func (s *server) networkHashPS(nblocks, height int64) (float64, error) {
	tip := s.chain.BestSnapshot()
	if height < 0 || height > int64(tip.Height) {
		height = int64(tip.Height)
	}
	if nblocks <= 0 {
		interval := int64(s.cfg.params.TargetTimespan / s.cfg.params.TargetTimePerBlock)
		if interval > 0 {
			nblocks = height%interval + 1
		}
	}
	nblocks = min(nblocks, height)
	if nblocks <= 0 {
		return 0, nil
	}
	endHash, ok1 := s.chain.BlockHashByHeight(int32(height))
	startHash, ok2 := s.chain.BlockHashByHeight(int32(height - nblocks))
	if !ok1 || !ok2 {
		return 0, nil
	}
	end, _ := s.chain.LookupBlock(&endHash)
	start, _ := s.chain.LookupBlock(&startHash)
	dt := int64(end.Header.Timestamp) - int64(start.Header.Timestamp)
	if dt <= 0 {
		return 0, nil
	}
	work := new(big.Int).Sub(end.ChainWork.Big(), start.ChainWork.Big())
	f, _ := new(big.Float).SetInt(work).Float64()
	return f / float64(dt), nil
}
