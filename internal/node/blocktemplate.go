package node

import (
	"context"
	"encoding/hex"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/internal/mining"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// getBlockTemplate answers getblocktemplate (the rpc package has checked
// the mode and the segwit rule): proposals go to blockProposal
// (rpcadapter_gbt.go); a template request waits out its long poll, then
// gets a template from the miner.
func (s *server) getBlockTemplate(req *rpc.TemplateRequest) (any, error) {
	if req.Mode == "proposal" {
		return s.blockProposal(req) // rpcadapter_gbt.go
	}
	if err := s.templateRules(req); err != nil {
		return nil, err
	}
	s.miner.WaitLongPoll(context.Background(), req.LongPollID)
	if s.cfg.netName != "regtest" && len(s.peerList()) == 0 {
		return nil, rpc.NewError(rpc.ErrClientNotConnected, "Bitcoin is not connected!")
	}
	if s.cfg.netName != "regtest" && !s.sync.IsCurrent() {
		return nil, rpc.NewError(rpc.ErrClientInInitialDownload, "Bitcoin is in initial sync and waiting for blocks...")
	}
	t, err := s.miner.NewTemplate(nil, nil, &mining.Client{Rules: req.Rules})
	if err != nil {
		return nil, miningError(err)
	}
	return templateResult(t, s.cfg.params.SignetChallenge), nil
}

// templateResult is the getblocktemplate answer for t.
func templateResult(t *mining.Template, signetChallenge []byte) *rpc.BlockTemplate {
	blk := t.Block
	index := make(map[wire.Hash]int64, len(t.TxIDs))
	txs := make([]rpc.TemplateTx, len(t.TxIDs))
	for i, tx := range blk.Transactions[1:] {
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
	// bitcoind leaves the commitment out before segwit activates.
	var commitment string
	if t.WitnessCommitment != nil {
		commitment = hex.EncodeToString(t.WitnessCommitment)
	}
	bits := blk.Header.Bits
	return &rpc.BlockTemplate{
		SignetChallenge:          hex.EncodeToString(signetChallenge),
		Capabilities:             []string{"proposal"},
		Version:                  blk.Header.Version,
		Rules:                    t.Rules,
		VBAvailable:              t.VBAvailable,
		PreviousBlockHash:        blk.Header.PrevBlock.String(),
		Transactions:             txs,
		CoinbaseAux:              map[string]string{},
		CoinbaseValue:            t.CoinbaseValue,
		LongPollID:               mining.LongPollID(blk.Header.PrevBlock, t.Sequence),
		Target:                   rpc.TargetHex(bits),
		MinTime:                  t.MinTime,
		Mutable:                  []string{"time", "transactions", "prevblock"},
		NonceRange:               "00000000ffffffff",
		SigOpLimit:               80000,
		SizeLimit:                wire.MaxBlockSerializedSize,
		WeightLimit:              wire.MaxBlockWeight,
		CurTime:                  int64(blk.Header.Timestamp),
		Bits:                     rpc.BitsHex(bits),
		Height:                   t.Height,
		DefaultWitnessCommitment: commitment,
	}
}

// miningInfo answers getmininginfo.
func (s *server) miningInfo() (*rpc.MiningInfo, error) {
	tip := s.chain.BestSnapshot()
	hps := s.miner.NetworkHashPS(120, -1)
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

// networkHashPS answers getnetworkhashps (mining.Miner.NetworkHashPS).
func (s *server) networkHashPS(nblocks, height int64) (float64, error) {
	return s.miner.NetworkHashPS(nblocks, height), nil
}
