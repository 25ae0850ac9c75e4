package node

import (
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// This file holds getblocktemplate's BIP22/23 extras: proposal mode, long
// polling and the signet rule.

// longPollMaxWait bounds one long poll. BIP22 lets the server answer
// early; bounding it keeps a client that went away from holding an RPC
// slot for long.
const longPollMaxWait = 5 * time.Minute

// templateRules checks the client's rules for the network: signet needs
// "signet" besides the "segwit" the rpc package already required.
func (s *server) templateRules(req map[string]any) error {
	if !s.cfg.params.IsSignet() {
		return nil
	}
	rules, _ := req["rules"].([]any)
	for _, r := range rules {
		if r == "signet" {
			return nil
		}
	}
	return rpc.NewError(rpc.ErrInvalidParam, `getblocktemplate must be called with the signet rule set (call with {"rules": ["segwit", "signet"]})`)
}

// gbtMandatoryRules names the version-bits deployments a getblocktemplate
// client must understand (Core's VBDeploymentInfo without
// gbt_optional_rule): listed with a '!' prefix, their signal is dropped from
// the template's version when the client's rules omit them, and once active
// such a client is refused. Core marks testdummy and taproot optional, so
// this is empty; it is kept so that a future mandatory deployment is one
// entry away.
var gbtMandatoryRules = map[string]bool{}

// gbtRuleName is a deployment's name as the template lists it.
func gbtRuleName(name string) string {
	if gbtMandatoryRules[name] {
		return "!" + name
	}
	return name
}

// templateVersionBits returns the version, "rules" and "vbavailable" of a
// template for a child of prev at height, as Core's getblocktemplate: the
// version is the node's own (ComputeBlockVersion), with the bit of a
// locked-in deployment forced on and that of a mandatory deployment the
// client did not list cleared; vbavailable maps every started or locked-in
// deployment to its bit; rules lists csv, segwit once active, signet, and
// the active version-bits deployments.
func (s *server) templateVersionBits(req map[string]any, prev wire.Hash, height int32) (int32, []string, map[string]int, error) {
	p := s.cfg.params
	client := map[string]bool{}
	if rs, ok := req["rules"].([]any); ok {
		for _, r := range rs {
			if name, ok := r.(string); ok {
				client[name] = true
			}
		}
	}
	version, err := s.chain.BlockVersionAfter(prev)
	if err != nil {
		return 0, nil, nil, err
	}
	rules := []string{"csv"}
	if height >= p.SegwitHeight {
		rules = append(rules, "!segwit")
	}
	if p.IsSignet() {
		rules = append(rules, "!signet")
	}
	available := map[string]int{}
	var active []string
	for id := range p.Deployments {
		dep := &p.Deployments[id]
		st, err := s.chain.DeploymentState(id, prev)
		if err != nil {
			return 0, nil, nil, err
		}
		mask := int32(1) << dep.Bit
		unsupported := gbtMandatoryRules[dep.Name] && !client[dep.Name]
		switch st.Next {
		case blockchain.ThresholdLockedIn:
			version |= mask
			fallthrough
		case blockchain.ThresholdStarted:
			available[gbtRuleName(dep.Name)] = int(dep.Bit)
			if unsupported {
				version &^= mask
			}
		case blockchain.ThresholdActive:
			if unsupported {
				return 0, nil, nil, rpc.Errorf(rpc.ErrInvalidParam, "Support for '%s' rule requires explicit client support", dep.Name)
			}
			active = append(active, dep.Name)
		}
	}
	// Core walks its deployments in name order.
	slices.Sort(active)
	for _, name := range active {
		rules = append(rules, gbtRuleName(name))
	}
	return version, rules, available, nil
}

// waitLongPoll implements BIP22 long polling: with a longpollid naming
// the current tip, it waits until the tip changes, or until the mempool
// changed and a minute passed (as Core), or longPollMaxWait, or shutdown.
func (s *server) waitLongPoll(req map[string]any) {
	id, ok := req["longpollid"].(string)
	if !ok || len(id) < 64 {
		return
	}
	tip := s.chain.BestSnapshot().Hash
	if id[:64] != tip.String() {
		return
	}
	seq, _ := strconv.ParseUint(id[64:], 10, 64)
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-tick.C:
		}
		if s.chain.BestSnapshot().Hash != tip || time.Since(start) > longPollMaxWait {
			return
		}
		if time.Since(start) >= time.Minute && s.pool.Sequence() != seq {
			return
		}
	}
}

// ruleReason is the BIP22 reject reason of a validation error.
func ruleReason(err error) string {
	var re *blockchain.RuleError
	if errors.As(err, &re) {
		if re.Reason != "" {
			return re.Reason
		}
		return string(re.Kind)
	}
	return "rejected"
}

// blockProposal answers getblocktemplate in proposal mode (BIP23): null
// when the block would be valid on the current tip, else the reason.
// Everything Core's TestBlockValidity checks is checked except proof of
// work (a proposal need not be solved) and input scripts and sigop costs
// by spent outputs, which need the chain's connect path.
func (s *server) blockProposal(req map[string]any) (any, error) {
	data, ok := req["data"].(string)
	if !ok {
		return nil, rpc.NewError(rpc.ErrType, "Missing data String key for proposal")
	}
	raw, err := hex.DecodeString(data)
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
	hash := blk.BlockHash()
	if st, ok := s.chain.LookupBlock(&hash); ok {
		switch {
		case st.Valid:
			return "duplicate", nil
		case st.Invalid:
			return "duplicate-invalid", nil
		}
		return "duplicate-inconclusive", nil
	}
	tip := s.chain.BestSnapshot()
	if blk.Header.PrevBlock != tip.Hash {
		return "inconclusive-not-best-prevblk", nil
	}
	reason, err := s.checkProposal(&blk)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return reason, nil
	}
	return nil, nil
}

// checkProposal is the reason blk, built on tip, would be refused ("" when
// it is valid): every rule connecting it applies, scripts included
// (blockchain.CheckBlockTemplate), only the proof of work is not checked.
func (s *server) checkProposal(blk *wire.MsgBlock) (string, error) {
	err := s.chain.CheckBlockTemplate(blk)
	var re *blockchain.RuleError
	switch {
	case err == nil:
		return "", nil
	case errors.As(err, &re):
		return ruleReason(err), nil
	}
	return "", err
}

// generateBlockChecked is generateblock: it builds a block with exactly
// txs on the tip and, like Core, tests it (every rule but the proof of
// work, see checkProposal) before solving, so that submit=false never hands out an
// invalid block.
func (s *server) generateBlockChecked(script []byte, txs []*wire.MsgTx, submit bool) (wire.Hash, []byte, error) {
	if txs == nil {
		txs = []*wire.MsgTx{}
	}
	blk, err := s.buildBlock(script, txs)
	if err != nil {
		return wire.Hash{}, nil, err
	}
	tip := s.chain.BestSnapshot()
	if blk.Header.PrevBlock == tip.Hash {
		reason, err := s.checkProposal(blk)
		if err != nil {
			return wire.Hash{}, nil, err
		}
		// A tip that moved meanwhile (another generate call) leaves the
		// block untested, as one built on an old tip always was.
		if reason != "" && reason != string(blockchain.ErrPrevBlockNotBest) {
			return wire.Hash{}, nil, rpc.Errorf(rpc.ErrVerify, "TestBlockValidity failed: %s", reason)
		}
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
