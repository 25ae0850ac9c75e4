package node

import (
	"errors"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/internal/mining"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// This file wires internal/mining (block assembly, generate*, long polls)
// to the chain, the mempool and the RPC layer, and words its errors as
// bitcoind.

// defaultMaxTries is generatetoaddress's default nonce budget per block.
const defaultMaxTries = mining.DefaultMaxTries

// newMiner builds the block assembler; it runs after newMempool, so the
// miner hears of a new tip after the mempool applied it (subscribers run
// in registration order) and a woken long poll sees the updated pool.
func (s *server) newMiner() {
	s.miner = mining.New(mining.Config{
		Chain:          s.chain,
		Params:         s.cfg.params,
		Pool:           s.pool,
		Policy:         s.miningPolicy(),
		Submit:         s.submitMined,
		Lock:           &s.miningMu,
		MandatoryRules: gbtMandatoryRules,
		Quit:           s.quit,
	})
	s.chain.Subscribe(func(n *blockchain.Notification) {
		if n.Type == blockchain.NTTipChanged {
			s.miner.TipChanged()
		}
	})
}

func (s *server) miningBackend() *rpc.MiningBackend {
	// As bitcoind, the generating methods exist on every network: off
	// regtest they are only practical where blocks are easy (a test
	// signet), but they are not refused.
	return &rpc.MiningBackend{
		SubmitBlock: func(block *wire.MsgBlock) (string, error) {
			return s.chain.SubmitBlock(block)
		},
		BlockTemplate: s.getBlockTemplate,
		MiningInfo:    s.miningInfo,
		NetworkHashPS: s.networkHashPS,
		SubmitHeader:  s.submitHeader, // rpcadapter_chain.go
		Generate: func(n int64, script []byte, maxTries uint64) ([]wire.Hash, error) {
			return s.generate(int(n), script, maxTries, nil, true)
		},
		GenerateBlock: s.generateBlockChecked,
	}
}

// miningError words the miner's typed errors as bitcoind; errors from
// submitMined are already RPC errors and pass unchanged.
func miningError(err error) error {
	var ve *mining.ValidityError
	var ue *mining.UnsupportedRuleError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return rpc.NewError(rpc.ErrVerify, ve.Error())
	case errors.As(err, &ue):
		return rpc.NewError(rpc.ErrInvalidParam, ue.Error())
	case errors.Is(err, mining.ErrUnsolved):
		return rpc.NewError(rpc.ErrMisc, "Failed to make block.")
	}
	return err
}

// generate mines n blocks paying to script on top of the tip, each holding
// the mempool's best transactions (or exactly txs when not nil).
func (s *server) generate(n int, script []byte, maxTries uint64, txs []*wire.MsgTx, _ bool) ([]wire.Hash, error) {
	hs, err := s.miner.Generate(n, script, maxTries, txs)
	return hs, miningError(err)
}

// buildBlock assembles a block on the tip paying to script, holding txs
// or (txs nil) the mempool's selection; the nonce is left to solveBlock.
func (s *server) buildBlock(script []byte, txs []*wire.MsgTx) (*wire.MsgBlock, error) {
	s.miningMu.Lock()
	defer s.miningMu.Unlock()
	t, err := s.miner.NewTemplate(script, txs, nil)
	if err != nil {
		return nil, miningError(err)
	}
	return t.Block, nil
}

// solveBlock grinds the nonce of h, trying at most maxTries nonces.
func solveBlock(h *wire.BlockHeader, maxTries uint64) bool { return mining.Solve(h, maxTries) }

// submitMined is the miner's way into the chain: the block must become
// the tip, as bitcoind's generate methods report otherwise.
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

// miningPolicy is the block assembler's limits from the options
// (-blockmaxweight, -blockreservedweight, -blockmintxfee).
func (s *server) miningPolicy() mining.Policy {
	minRate := mempool.FeeRate(s.cfg.blockMinTxFeeSat)
	if minRate == 0 {
		minRate = -1 // zero means the default to the miner; -blockmintxfee=0 includes all
	}
	return mining.Policy{
		// Core clamps the maximum to the reserved weight from below.
		MaxWeight:      max(s.cfg.BlockMaxWeight, s.cfg.BlockReservedWeight),
		ReservedWeight: s.cfg.BlockReservedWeight,
		MinFeeRate:     minRate,
	}
}
