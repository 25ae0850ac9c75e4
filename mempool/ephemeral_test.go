package mempool

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// dusty is a free TRUC transaction with one output of value and a
// zero-value (dust) output.
func dusty(op wire.OutPoint, value int64) *wire.MsgTx {
	tx := v3(spend([]wire.OutPoint{op}, value, 0))
	return tx
}

func TestEphemeralDustPackage(t *testing.T) {
	h := newHarness(t, nil)
	parent := dusty(h.coin(100_000), 100_000)
	// Alone the parent is too cheap.
	h.mustReject(parent, ReasonMinRelayFee)
	// A child leaving the dust unspent: the package fails as a whole.
	lazy := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 99_000))
	res := h.pool.AcceptPackage([]*wire.MsgTx{parent, lazy}, PackageOptions{})
	if pkgReason(res) != ReasonPackageUnspentDust || res.Err.Kind != PackageErrTx {
		t.Fatalf("%v", res.Err)
	}
	re := txErr(t, res, lazy)
	want := "missing-ephemeral-spends, tx " + lazy.TxHash().String() + " (wtxid=" + lazy.WitnessHash().String() + ") did not spend parent's ephemeral dust"
	if re.Error() != want || h.pool.Count() != 0 {
		t.Fatalf("%q", re.Error())
	}
	// Sweeping both outputs works.
	sweep := v3(spend([]wire.OutPoint{outpoint(parent, 0), outpoint(parent, 1)}, 99_000))
	if res := h.pool.AcceptPackage([]*wire.MsgTx{parent, sweep}, PackageOptions{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	// Replacing the sweep alone must spend the dust too.
	cheapSweep := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 90_000))
	h.mustReject(cheapSweep, ReasonMissingEphemeralSpends)
	h.check()
}

func TestEphemeralDustNeedsZeroFee(t *testing.T) {
	h := newHarness(t, nil)
	withFee := dusty(h.coin(100_000), 99_999)
	re := h.mustReject(withFee, ReasonDust)
	if re.Debug != "tx with dust output must be 0-fee" {
		t.Fatal(re.Debug)
	}
	// A fee delta counts too: a prioritised dusty transaction is refused.
	free := dusty(h.coin(100_000), 100_000)
	if err := h.pool.PrioritiseTransaction(free.TxHash(), 1000); err != nil {
		t.Fatal(err)
	}
	h.mustReject(free, ReasonDust)
	// ...and so is a delta on one already in the pool.
	h.pool.PrioritiseTransaction(free.TxHash(), -1000)
	sweep := v3(spend([]wire.OutPoint{outpoint(free, 0), outpoint(free, 1)}, 99_000))
	if res := h.pool.AcceptPackage([]*wire.MsgTx{free, sweep}, PackageOptions{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	if err := h.pool.PrioritiseTransaction(free.TxHash(), 1); err != ErrDustPriority {
		t.Fatalf("delta on pooled dust: %v", err)
	}
}

func TestEphemeralSpendsAfterReorg(t *testing.T) {
	// A free dusty parent returns to the pool by a reorg; a child that
	// leaves its dust does not.
	h := newHarness(t, nil)
	op := h.coin(100_000)
	parent := dusty(op, 100_000)
	lazy := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 100_000))
	spent := map[wire.OutPoint]Coin{op: h.chain.coins[op]}
	blk := h.chain.connect(parent, lazy)
	h.pool.BlockConnected(blk, h.chain.height)
	h.chain.disconnect(blk, spent)
	h.pool.BlockDisconnected(blk)
	if !h.pool.Has(parent.TxHash()) || h.pool.Has(lazy.TxHash()) {
		t.Fatalf("after reorg: parent %v child %v", h.pool.Has(parent.TxHash()), h.pool.Has(lazy.TxHash()))
	}
	// The free parent offers block assembly no fee, so it is not mined
	// without a child (the default -blockmintxfee).
	if c := h.pool.Candidates().Txs; len(c) != 1 || c[0].AncFees != 0 || len(c[0].Parents) != 0 {
		t.Fatalf("candidates %+v", c)
	}
	h.check()
}
