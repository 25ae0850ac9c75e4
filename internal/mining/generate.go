package mining

import (
	"errors"
	"math/big"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// DefaultMaxTries is generatetoaddress's default nonce budget per block.
const DefaultMaxTries = 1_000_000

// ErrUnsolved is returned when no nonce within the budget solved a block
// (bitcoind's "Failed to make block.").
var ErrUnsolved = errors.New("mining: no nonce in the budget meets the target")

// ValidityError is a block the miner was asked to build that breaks a
// rule. Reason is the BIP22 reason, Detail Core's debug text (may be
// empty).
type ValidityError struct {
	Reason, Detail string
}

// Error words the failure as bitcoind's generateblock.
func (e *ValidityError) Error() string {
	if e.Detail == "" {
		return "TestBlockValidity failed: " + e.Reason
	}
	return "TestBlockValidity failed: " + e.Reason + ", " + e.Detail
}

// UnsupportedRuleError refuses a getblocktemplate client that does not
// list an active deployment it must understand.
type UnsupportedRuleError struct {
	Rule string
}

// Error words the refusal as bitcoind.
func (e *UnsupportedRuleError) Error() string {
	return "Support for '" + e.Rule + "' rule requires explicit client support"
}

// Generate mines up to n blocks paying to script on the tip, each holding
// the mempool's best transactions (or exactly txs when not nil), trying
// at most maxTries nonces per block (0: DefaultMaxTries). It stops early,
// without an error, when a block is not solved within the budget.
func (m *Miner) Generate(n int, script []byte, maxTries uint64, txs []*wire.MsgTx) ([]wire.Hash, error) {
	if maxTries == 0 {
		maxTries = DefaultMaxTries
	}
	var out []wire.Hash
	for i := 0; i < n; i++ {
		t, err := m.build(script, txs)
		if err != nil {
			return out, err
		}
		if !Solve(&t.Block.Header, maxTries) {
			break
		}
		if err := m.cfg.Submit(t.Block); err != nil {
			return out, err
		}
		out = append(out, t.Block.BlockHash())
	}
	return out, nil
}

// GenerateBlock is generateblock: it builds a block with exactly txs on
// the tip and, like Core, tests it (every rule but the proof of work, see
// CheckProposal) before solving, so that an unsubmitted block handed out
// is valid. With submit it submits the block and returns its hash only;
// otherwise it returns the hash and the serialized block.
func (m *Miner) GenerateBlock(script []byte, txs []*wire.MsgTx, submit bool) (wire.Hash, []byte, error) {
	if txs == nil {
		txs = []*wire.MsgTx{}
	}
	t, err := m.build(script, txs)
	if err != nil {
		return wire.Hash{}, nil, err
	}
	blk := t.Block
	if blk.Header.PrevBlock == m.cfg.Chain.BestSnapshot().Hash {
		reason, err := m.checkTemplate(blk)
		if err != nil {
			return wire.Hash{}, nil, err
		}
		// A tip that moved meanwhile (another generate call) leaves the
		// block untested, as one built on an old tip always was.
		if reason != "" && reason != string(blockchain.ErrPrevBlockNotBest) {
			return wire.Hash{}, nil, &ValidityError{Reason: reason}
		}
	}
	if !Solve(&blk.Header, DefaultMaxTries*100) {
		return wire.Hash{}, nil, ErrUnsolved
	}
	hash := blk.BlockHash()
	if !submit {
		return hash, blk.Bytes(), nil
	}
	if err := m.cfg.Submit(blk); err != nil {
		return wire.Hash{}, nil, err
	}
	return hash, nil, nil
}

// RuleReason is the BIP22 reject reason of a validation error.
func RuleReason(err error) string {
	var re *blockchain.RuleError
	if errors.As(err, &re) {
		if re.Reason != "" {
			return re.Reason
		}
		return string(re.Kind)
	}
	return "rejected"
}

// checkTemplate is the reason blk, built on the tip, would be refused
// ("" when it is valid): every rule connecting it applies, scripts
// included (blockchain.CheckBlockTemplate); only the proof of work is not
// checked. Errors other than rule violations are returned.
func (m *Miner) checkTemplate(blk *wire.MsgBlock) (string, error) {
	err := m.cfg.Chain.CheckBlockTemplate(blk)
	var re *blockchain.RuleError
	switch {
	case err == nil:
		return "", nil
	case errors.As(err, &re):
		return RuleReason(err), nil
	}
	return "", err
}

// CheckProposal answers a BIP23 block proposal: "" when blk would be
// valid on the current tip, else the reason ("duplicate",
// "inconclusive-not-best-prevblk", a rule's reason). Everything Core's
// TestBlockValidity checks is checked except proof of work (a proposal
// need not be solved).
func (m *Miner) CheckProposal(blk *wire.MsgBlock) (string, error) {
	hash := blk.BlockHash()
	if st, ok := m.cfg.Chain.LookupBlock(&hash); ok {
		switch {
		case st.Valid:
			return "duplicate", nil
		case st.Invalid:
			return "duplicate-invalid", nil
		}
		return "duplicate-inconclusive", nil
	}
	if blk.Header.PrevBlock != m.cfg.Chain.BestSnapshot().Hash {
		return "inconclusive-not-best-prevblk", nil
	}
	return m.checkTemplate(blk)
}

// Solve grinds the nonce until the header's hash meets its target, trying
// at most maxTries nonces (bumping the timestamp when the nonces run out).
func Solve(h *wire.BlockHeader, maxTries uint64) bool {
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

// NetworkHashPS estimates hashes per second from the work and time spanned
// by the nblocks blocks ending at height (-1: the tip); nblocks <= 0 means
// since the last retarget.
func (m *Miner) NetworkHashPS(nblocks, height int64) float64 {
	c, p := m.cfg.Chain, m.cfg.Params
	tip := c.BestSnapshot()
	if height < 0 || height > int64(tip.Height) {
		height = int64(tip.Height)
	}
	if nblocks <= 0 {
		interval := int64(p.TargetTimespan / p.TargetTimePerBlock)
		if interval > 0 {
			nblocks = height%interval + 1
		}
	}
	nblocks = min(nblocks, height)
	if nblocks <= 0 {
		return 0
	}
	endHash, ok1 := c.BlockHashByHeight(int32(height))
	startHash, ok2 := c.BlockHashByHeight(int32(height - nblocks))
	if !ok1 || !ok2 {
		return 0
	}
	end, _ := c.LookupBlock(&endHash)
	start, _ := c.LookupBlock(&startHash)
	dt := int64(end.Header.Timestamp) - int64(start.Header.Timestamp)
	if dt <= 0 {
		return 0
	}
	work := new(big.Int).Sub(end.ChainWork.Big(), start.ChainWork.Big())
	f, _ := new(big.Float).SetInt(work).Float64()
	return f / float64(dt)
}
