package blockchain

import (
	"errors"

	"github.com/btcnode/btcd/wire"
)

// SubmitBlock processes a block for the submitblock RPC and returns
// bitcoind's answer: "" (JSON null) when the block was accepted and became
// or extends the main chain, "duplicate" when it was already stored and
// valid, "duplicate-invalid" when it is known invalid,
// "duplicate-inconclusive" when stored but not yet validated,
// "inconclusive" when it was stored on a side chain without being
// connected, or the reject reason of the rule it breaks. A non-nil error
// is a database failure.
func (b *BlockChain) SubmitBlock(block *wire.MsgBlock) (string, error) {
	hash := block.BlockHash()
	if st, ok := b.LookupBlock(&hash); ok && st.HaveData {
		switch {
		case st.Invalid:
			return "duplicate-invalid", nil
		case st.Valid:
			return "duplicate", nil
		}
		return "duplicate-inconclusive", nil
	}
	res, err := b.ProcessBlock(block)
	if err != nil {
		var re *RuleError
		if errors.As(err, &re) {
			return re.Reason, nil
		}
		return "", err
	}
	switch {
	case res.Orphan:
		return string(ErrPrevBlockNotFound), nil
	case res.Duplicate:
		return "duplicate", nil
	case res.MainChain:
		return "", nil
	}
	if st, ok := b.LookupBlock(&hash); ok && st.Valid {
		return "", nil
	}
	return "inconclusive", nil
}
