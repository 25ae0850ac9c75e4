package node

import (
	"encoding/hex"
	"errors"

	"github.com/btcnode/btcd/internal/mining"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// This file holds getblocktemplate's BIP22/23 extras the RPC layer words:
// the signet rule, proposal mode and generateblock.

// templateRules checks the client's rules for the network: signet needs
// "signet" besides the "segwit" the rpc package already required.
func (s *server) templateRules(req *rpc.TemplateRequest) error {
	if !s.cfg.params.IsSignet() || req.HasRule("signet") {
		return nil
	}
	return rpc.NewError(rpc.ErrInvalidParam, `getblocktemplate must be called with the signet rule set (call with {"rules": ["segwit", "signet"]})`)
}

// gbtMandatoryRules names the version-bits deployments a getblocktemplate
// client must understand (Core's VBDeploymentInfo without
// gbt_optional_rule): listed with a '!' prefix, their signal is dropped from
// the template's version when the client's rules omit them, and once active
// such a client is refused. Core marks testdummy and taproot optional, so
// this is empty; it is kept so that a future mandatory deployment is one
// entry away. The miner reads it at every template.
var gbtMandatoryRules = map[string]bool{}

// ruleReason is the BIP22 reject reason of a validation error.
func ruleReason(err error) string { return mining.RuleReason(err) }

// blockProposal answers getblocktemplate in proposal mode (BIP23): null
// when the block would be valid on the current tip, else the reason.
func (s *server) blockProposal(req *rpc.TemplateRequest) (any, error) {
	if !req.HasData {
		return nil, rpc.NewError(rpc.ErrType, "Missing data String key for proposal")
	}
	raw, err := hex.DecodeString(req.Data)
	var blk wire.MsgBlock
	if err == nil {
		var n int
		n, err = blk.Decode(raw)
		if err == nil && n != len(raw) {
			err = errors.New("trailing bytes")
		}
	}
	if err != nil {
		// A block without transactions decodes; validation refuses it
		// (bad-blk-length), as in Core.
		return nil, rpc.NewError(rpc.ErrDeserialization, "Block decode failed")
	}
	reason, err := s.miner.CheckProposal(&blk)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return reason, nil
	}
	return nil, nil
}

// generateBlockChecked is generateblock (mining.Miner.GenerateBlock: the
// block is tested before it is solved).
func (s *server) generateBlockChecked(script []byte, txs []*wire.MsgTx, submit bool) (wire.Hash, []byte, error) {
	h, raw, err := s.miner.GenerateBlock(script, txs, submit)
	return h, raw, miningError(err)
}
