package blockchain

import (
	"bytes"
	"errors"
	"testing"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// TestCheckBlockTemplate: a template on the tip passes with a valid spend,
// and is refused with Core's reason for a bad signature, too many sigops,
// an input locked by BIP68, a missing input and a stale parent, without
// the chain changing.
func TestCheckBlockTemplate(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(101)
	tip := tc.b.Tip
	cb := tc.b.MatureCoinbases(tip)[0]
	template := func(txs ...*wire.MsgTx) *wire.MsgBlock {
		return tc.b.NextBlock(tip, txs, &chaintest.BlockOpts{NoSolve: true}).Block
	}
	reason := func(blk *wire.MsgBlock) string {
		err := tc.chain.CheckBlockTemplate(blk)
		if err == nil {
			return ""
		}
		var re *RuleError
		if !errors.As(err, &re) {
			t.Fatalf("not a rule error: %v", err)
		}
		return string(re.Kind)
	}

	good := tc.b.Spend([]*chaintest.Output{cb}, nil, 1000)
	if r := reason(template(good)); r != "" {
		t.Fatalf("valid template refused: %s", r)
	}

	badSig := good.Copy()
	badSig.TxIn[0].Witness[0][10] ^= 1
	if r := reason(template(badSig)); r != string(ErrScriptVerifyMandatory) {
		t.Errorf("bad signature: %q", r)
	}

	sigops := tc.b.Spend([]*chaintest.Output{cb}, []wire.TxOut{{Value: cb.Value - 1000,
		PkScript: bytes.Repeat([]byte{txscript.OP_CHECKSIG}, MaxBlockSigOpsCost/wire.WitnessScaleFactor+1)}}, 0)
	if r := reason(template(sigops)); r != string(ErrBadBlockSigOps) {
		t.Errorf("too many sigops: %q", r)
	}

	locked := good.Copy()
	locked.TxIn[0].Sequence = 500 // 500 blocks: deeper than the coin
	if err := tc.b.Sign(locked); err != nil {
		t.Fatal(err)
	}
	if r := reason(template(locked)); r != string(ErrBadTxnsNonFinal) {
		t.Errorf("BIP68-locked input: %q", r)
	}

	missing := good.Copy()
	missing.TxIn[0].PreviousOutPoint.Hash[0] ^= 1
	if r := reason(template(missing)); r != string(ErrBadTxnsMissingInputs) {
		t.Errorf("missing input: %q", r)
	}

	stale := tc.b.NextBlock(tip.Parent, nil, &chaintest.BlockOpts{NoSolve: true}).Block
	if r := reason(stale); r != string(ErrPrevBlockNotBest) {
		t.Errorf("stale parent: %q", r)
	}
	tc.tipIs(tip.Hash)
}
