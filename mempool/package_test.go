package mempool

import (
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func v3(tx *wire.MsgTx) *wire.MsgTx { tx.Version = TRUCVersion; return tx }

// pkgReason returns the package-wide reason ("" when none).
func pkgReason(r *PackageResult) string {
	if r.Err == nil {
		return ""
	}
	return r.Err.Reason
}

func txErr(t *testing.T, r *PackageResult, tx *wire.MsgTx) *RejectError {
	t.Helper()
	tr := r.Results[tx.WitnessHash()]
	if tr == nil || tr.Kind != TxInvalid {
		t.Fatalf("no rejection for %s: %+v", tx.TxHash(), tr)
	}
	return tr.Err
}

func TestCheckPackage(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	c := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	if err := CheckPackage([]*wire.MsgTx{a, b, c}); err != nil {
		t.Fatal(err)
	}
	var many []*wire.MsgTx
	for i := 0; i < MaxPackageCount+1; i++ {
		many = append(many, spend([]wire.OutPoint{h.coin(100_000)}, 99_000))
	}
	big := spend([]wire.OutPoint{h.coin(10_000_000)}, 1000)
	for i := 0; i < 2600; i++ {
		big.TxOut = append(big.TxOut, wire.TxOut{Value: 1000, PkScript: p2wsh(byte(i))})
	}
	bigChild := spend([]wire.OutPoint{outpoint(big, 0)}, 500)
	noInputs := &wire.MsgTx{Version: 2, TxOut: []wire.TxOut{{Value: 1, PkScript: p2wpkh(3)}}}
	twin := spend([]wire.OutPoint{a.TxIn[0].PreviousOutPoint}, 1)
	for _, c := range []struct {
		txs    []*wire.MsgTx
		reason string
	}{
		{many, ReasonPackageTooMany},
		{[]*wire.MsgTx{big, bigChild}, ReasonPackageTooLarge},
		{[]*wire.MsgTx{a, a}, ReasonPackageDuplicates},
		{[]*wire.MsgTx{b, a}, ReasonPackageNotSorted},
		{[]*wire.MsgTx{a, twin}, ReasonPackageConflict},
		{[]*wire.MsgTx{a, noInputs}, ReasonPackageConflict},
	} {
		err := CheckPackage(c.txs)
		if err == nil || err.Reason != c.reason || err.Kind != PackageErrPolicy {
			t.Fatalf("want %s, got %v", c.reason, err)
		}
	}
	// One oversized transaction is left to the transaction's own limit.
	if err := CheckPackage([]*wire.MsgTx{big}); err != nil {
		t.Fatal(err)
	}
}

func TestPackageTopology(t *testing.T) {
	h := newHarness(t, nil)
	p1 := spend([]wire.OutPoint{h.coin(100_000)}, 99_000, 1000)
	p2 := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	child := spend([]wire.OutPoint{outpoint(p1, 0), outpoint(p2, 0)}, 190_000)
	if !IsChildWithParents([]*wire.MsgTx{p1, p2, child}) || !IsChildWithParentsTree([]*wire.MsgTx{p1, p2, child}) {
		t.Fatal("child with two parents")
	}
	if IsChildWithParents([]*wire.MsgTx{child}) {
		t.Fatal("a lone transaction is no child-with-parents package")
	}
	unrelated := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	if IsChildWithParents([]*wire.MsgTx{unrelated, child}) {
		t.Fatal("unrelated first member")
	}
	// p1 -> mid -> grandchild: mid and p1 are both parents of the last,
	// but mid spends p1.
	mid := spend([]wire.OutPoint{outpoint(p1, 1)}, 500)
	last := spend([]wire.OutPoint{outpoint(p1, 0), outpoint(mid, 0)}, 99_000)
	if !IsChildWithParents([]*wire.MsgTx{p1, mid, last}) || IsChildWithParentsTree([]*wire.MsgTx{p1, mid, last}) {
		t.Fatal("parents depending on each other")
	}
}

func TestTestAcceptPackage(t *testing.T) {
	h := newHarness(t, nil)
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	child := spend([]wire.OutPoint{outpoint(parent, 0)}, 98_000)
	res := h.pool.TestAcceptPackage([]*wire.MsgTx{parent, child})
	if res.Err != nil || len(res.Results) != 2 {
		t.Fatalf("%v %v", res.Err, res.Results)
	}
	cr := res.Results[child.WitnessHash()]
	if cr.Kind != TxValid || cr.Fee != 1000 || len(cr.EffectiveIncludes) != 1 || cr.EffectiveIncludes[0] != child.WitnessHash() {
		t.Fatalf("child result %+v", cr)
	}
	if cr.EffectiveFeeRate != NewFeeRate(1000, cr.VSize) {
		t.Fatalf("rate %v", cr.EffectiveFeeRate)
	}
	if h.pool.Count() != 0 || len(h.ann) != 0 {
		t.Fatal("test acceptance changed the pool")
	}

	// Evaluation stops at the first failure: later members have no result.
	bad := spend([]wire.OutPoint{h.coin(100_000)}, 100_001)
	after := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	res = h.pool.TestAcceptPackage([]*wire.MsgTx{bad, after})
	if pkgReason(res) != ReasonPackageTxFailed || res.Err.Kind != PackageErrTx || len(res.Results) != 1 {
		t.Fatalf("%v %v", res.Err, res.Results)
	}
	if txErr(t, res, bad).Reason != ReasonInBelowOut {
		t.Fatal(res.Results[bad.WitnessHash()].Err)
	}

	// Malformed packages fail as a whole without results.
	res = h.pool.TestAcceptPackage([]*wire.MsgTx{child, parent})
	if pkgReason(res) != ReasonPackageNotSorted || len(res.Results) != 0 {
		t.Fatalf("%v", res.Err)
	}
}

func TestTestAcceptPackageNoReplacement(t *testing.T) {
	h := newHarness(t, nil)
	op := h.coin(100_000)
	h.mustAccept(spend([]wire.OutPoint{op}, 99_000))
	repl := spend([]wire.OutPoint{op}, 90_000)
	repl.TxOut[0].PkScript = p2wpkh(60)
	child := spend([]wire.OutPoint{outpoint(repl, 0)}, 89_000)
	res := h.pool.TestAcceptPackage([]*wire.MsgTx{repl, child})
	if txErr(t, res, repl).Reason != ReasonReplacementDisallowed {
		t.Fatal(res.Results[repl.WitnessHash()].Err)
	}
}

func TestTestAcceptPackageOwnFeeRates(t *testing.T) {
	// A test acceptance uses no package fee rate: a free TRUC parent is
	// refused even with a generous child.
	h := newHarness(t, nil)
	parent := v3(spend([]wire.OutPoint{h.coin(100_000)}, 100_000))
	child := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 90_000))
	res := h.pool.TestAcceptPackage([]*wire.MsgTx{parent, child})
	if txErr(t, res, parent).Reason != ReasonMinRelayFee {
		t.Fatal(res.Results[parent.WitnessHash()].Err)
	}
}

func TestPackageMempoolLimits(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Policy.AncestorLimit = 2 })
	p1 := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	p2 := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	child := spend([]wire.OutPoint{outpoint(p1, 0), outpoint(p2, 0)}, 190_000)
	res := h.pool.TestAcceptPackage([]*wire.MsgTx{p1, p2, child})
	if pkgReason(res) != ReasonPackageMempoolLimits || res.Err.Kind != PackageErrPolicy ||
		res.Err.Debug != "package count 3 exceeds ancestor count limit [limit: 2]" {
		t.Fatalf("%v", res.Err)
	}
	// In-pool parents count against the package too.
	h = newHarness(t, func(c *Config) { c.Policy.AncestorLimit = 3 })
	pooled := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(pooled)
	grand := spend([]wire.OutPoint{outpoint(pooled, 0)}, 98_000)
	h.mustAccept(grand)
	np := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	nc := spend([]wire.OutPoint{outpoint(np, 0), outpoint(grand, 0)}, 190_000)
	res = h.pool.TestAcceptPackage([]*wire.MsgTx{np, nc})
	if pkgReason(res) != ReasonPackageMempoolLimits || !strings.Contains(res.Err.Debug, "too many unconfirmed ancestors") {
		t.Fatalf("%v", res.Err)
	}
}

func TestPackageTRUCRules(t *testing.T) {
	h := newHarness(t, nil)
	parent := v3(spend([]wire.OutPoint{h.coin(100_000)}, 40_000, 40_000))
	c1 := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 39_000))
	c2 := v3(spend([]wire.OutPoint{outpoint(parent, 1)}, 39_000))
	res := h.pool.TestAcceptPackage([]*wire.MsgTx{parent, c1, c2})
	if pkgReason(res) != ReasonTRUCViolation || !strings.Contains(res.Err.Debug, "would exceed descendant count limit") {
		t.Fatalf("%v", res.Err)
	}
	nonTRUC := spend([]wire.OutPoint{outpoint(parent, 0)}, 39_000)
	res = h.pool.TestAcceptPackage([]*wire.MsgTx{parent, nonTRUC})
	if pkgReason(res) != ReasonTRUCViolation || !strings.Contains(res.Err.Debug, "non-version=3 tx") {
		t.Fatalf("%v", res.Err)
	}
	grand := v3(spend([]wire.OutPoint{outpoint(c1, 0)}, 38_000))
	res = h.pool.TestAcceptPackage([]*wire.MsgTx{parent, c1, grand})
	if pkgReason(res) != ReasonTRUCViolation || !strings.Contains(res.Err.Debug, "would have too many ancestors") {
		t.Fatalf("%v", res.Err)
	}
}

func TestAcceptPackageCPFPOfFreeTRUCParent(t *testing.T) {
	h := newHarness(t, nil)
	parent := v3(spend([]wire.OutPoint{h.coin(100_000)}, 100_000))
	child := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 99_000))
	res := h.pool.AcceptPackage([]*wire.MsgTx{parent, child}, PackageOptions{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	h.check()
	pr, cr := res.Results[parent.WitnessHash()], res.Results[child.WitnessHash()]
	if pr.Kind != TxValid || cr.Kind != TxValid || pr.Fee != 0 || cr.Fee != 1000 {
		t.Fatalf("%+v %+v", pr, cr)
	}
	want := NewFeeRate(1000, pr.VSize+cr.VSize)
	if pr.EffectiveFeeRate != want || cr.EffectiveFeeRate != want || len(pr.EffectiveIncludes) != 2 {
		t.Fatalf("effective %v %v want %v", pr.EffectiveFeeRate, cr.EffectiveFeeRate, want)
	}
	if len(h.ann) != 2 || h.ann[0] != parent.TxHash() || h.ann[1] != child.TxHash() {
		t.Fatalf("announced %v", h.ann)
	}
	// Submitting it again finds both in the pool.
	res = h.pool.AcceptPackage([]*wire.MsgTx{parent, child}, PackageOptions{})
	if res.Err != nil || res.Results[child.WitnessHash()].Kind != TxInMempool {
		t.Fatalf("%v %+v", res.Err, res.Results[child.WitnessHash()])
	}
}

func TestAcceptPackageNonTRUCParentNeedsRelayFee(t *testing.T) {
	h := newHarness(t, nil)
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 100_000)
	child := spend([]wire.OutPoint{outpoint(parent, 0)}, 90_000)
	res := h.pool.AcceptPackage([]*wire.MsgTx{parent, child}, PackageOptions{})
	if pkgReason(res) != ReasonPackageTxFailed {
		t.Fatalf("%v", res.Err)
	}
	if re := txErr(t, res, parent); re.Reason != ReasonMinRelayFee || re.Kind != ErrMempoolPolicy {
		t.Fatal(re)
	}
	if txErr(t, res, child).Reason != ReasonMissingInputs || h.pool.Count() != 0 {
		t.Fatal("child")
	}
}

func TestAcceptPackageCPFPBelowMempoolMinFee(t *testing.T) {
	h := newHarness(t, nil)
	h.pool.rollingMinFee = 5000
	rich := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	poor := spend([]wire.OutPoint{h.coin(100_000)}, 99_950)
	child := spend([]wire.OutPoint{outpoint(rich, 0), outpoint(poor, 0)}, 197_000)
	res := h.pool.AcceptPackage([]*wire.MsgTx{rich, poor, child}, PackageOptions{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	h.check()
	rr, pr := res.Results[rich.WitnessHash()], res.Results[poor.WitnessHash()]
	// The rich parent entered alone; the poor one with the child.
	if len(rr.EffectiveIncludes) != 1 || len(pr.EffectiveIncludes) != 2 || pr.EffectiveIncludes[1] != child.WitnessHash() {
		t.Fatalf("%v %v", rr.EffectiveIncludes, pr.EffectiveIncludes)
	}
}

func TestAcceptPackageShape(t *testing.T) {
	h := newHarness(t, nil)
	pooled := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(pooled)
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	child := spend([]wire.OutPoint{outpoint(parent, 0), outpoint(pooled, 0)}, 190_000)
	res := h.pool.AcceptPackage([]*wire.MsgTx{parent, child}, PackageOptions{})
	if pkgReason(res) != ReasonPackageUnconfirmedParent || len(res.Results) != 0 || h.pool.Has(parent.TxHash()) {
		t.Fatalf("%v", res.Err)
	}
	unrelated := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	res = h.pool.AcceptPackage([]*wire.MsgTx{unrelated, child}, PackageOptions{})
	if pkgReason(res) != ReasonPackageNotChildParents {
		t.Fatalf("%v", res.Err)
	}
}

func TestAcceptPackageDifferentWitness(t *testing.T) {
	h := newHarness(t, nil)
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(parent)
	other := parent.Copy()
	other.TxIn[0].Witness = [][]byte{make([]byte, 72), pubkey(8)}
	child := spend([]wire.OutPoint{outpoint(parent, 0)}, 98_000)
	res := h.pool.AcceptPackage([]*wire.MsgTx{other, child}, PackageOptions{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	or := res.Results[other.WitnessHash()]
	if or.Kind != TxDifferentWitness || or.OtherWTxID != parent.WitnessHash() {
		t.Fatalf("%+v", or)
	}
}

func TestAcceptPackageMaxFeeRate(t *testing.T) {
	h := newHarness(t, nil)
	tx := spend([]wire.OutPoint{h.coin(100_000)}, 50_000)
	res := h.pool.AcceptPackage([]*wire.MsgTx{tx}, PackageOptions{MaxFeeRate: 10_000})
	if txErr(t, res, tx).Reason != ReasonMaxFeeRate || h.pool.Count() != 0 {
		t.Fatal(res.Results[tx.WitnessHash()].Err)
	}
}

func TestAcceptPackageTrimmedAtTheEnd(t *testing.T) {
	h := newHarness(t, nil)
	for i := 0; i < 5; i++ {
		h.mustAccept(spend([]wire.OutPoint{h.coin(100_000)}, 90_000))
	}
	h.pool.cfg.MaxMempoolBytes = h.pool.Usage() + 100
	parent := v3(spend([]wire.OutPoint{h.coin(100_000)}, 100_000))
	child := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 99_900))
	res := h.pool.AcceptPackage([]*wire.MsgTx{parent, child}, PackageOptions{})
	if pkgReason(res) != ReasonPackageTxFailed {
		t.Fatalf("%v", res.Err)
	}
	for _, tx := range []*wire.MsgTx{parent, child} {
		if txErr(t, res, tx).Reason != ReasonMempoolFull || h.pool.Has(tx.TxHash()) {
			t.Fatal("not trimmed")
		}
	}
	if len(h.ann) != 5 {
		t.Fatalf("trimmed members were announced: %d", len(h.ann))
	}
	h.check()
}

func TestRBFCarveOutsOffInPackages(t *testing.T) {
	// Limits of two ancestors and one descendant: a member that
	// replaced a transaction alone does not lend its replacement
	// allowance to a child in the same package.
	h := newHarness(t, func(c *Config) { c.Policy.AncestorLimit = 2; c.Policy.DescendantLimit = 1 })
	op := h.coin(100_000)
	h.mustAccept(spend([]wire.OutPoint{op}, 99_000))
	b := spend([]wire.OutPoint{op}, 95_000)
	b.TxOut[0].PkScript = p2wpkh(61)
	c := spend([]wire.OutPoint{outpoint(b, 0)}, 94_000)
	res := h.pool.AcceptPackage([]*wire.MsgTx{b, c}, PackageOptions{})
	if pkgReason(res) != ReasonPackageTxFailed || txErr(t, res, c).Reason != ReasonTooLongChain {
		t.Fatalf("%v %v", res.Err, res.Results[c.WitnessHash()])
	}
	if !h.pool.Has(b.TxHash()) {
		t.Fatal("parent replacement should stand")
	}
}

func TestFeeFloorOrder(t *testing.T) {
	// Below both floors, a transaction fails the relay floor first, and
	// not reconsiderably; between them, the rolling minimum, which a
	// package may still pay.
	h := newHarness(t, nil)
	h.pool.rollingMinFee = 5000
	re := h.mustReject(spend([]wire.OutPoint{h.coin(100_000)}, 100_000-5), ReasonMinRelayFee)
	if re.Kind != ErrMempoolPolicy {
		t.Fatal(re.Kind)
	}
	re = h.mustReject(spend([]wire.OutPoint{h.coin(100_000)}, 100_000-100), ReasonMempoolMinFee)
	if re.Kind != ErrReconsiderable {
		t.Fatal(re.Kind)
	}
}

func TestChainLimitMessages(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Policy.AncestorLimit = 2 })
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(a)
	h.mustAccept(b)
	re := h.mustReject(spend([]wire.OutPoint{outpoint(a, 0), outpoint(b, 0)}, 190_000), ReasonTooLongChain)
	if re.Debug != "too many unconfirmed parents [limit: 2]" {
		t.Fatal(re.Debug)
	}
	// The carve-out keeps the ancestor size limit, so this one holds.
	h = newHarness(t, func(c *Config) { c.Policy.AncestorSizeLimitKvB = 0 })
	a = spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(a)
	re = h.mustReject(spend([]wire.OutPoint{outpoint(a, 0)}, 98_000), ReasonTooLongChain)
	if re.Debug != "exceeds ancestor size limit [limit: 0]" {
		t.Fatal(re.Debug)
	}
}

func TestExpiryOnEveryAcceptance(t *testing.T) {
	// Core expires on every acceptance: ten seconds after the last one,
	// an expired transaction still leaves.
	h := newHarness(t, nil)
	old := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(old)
	start := h.now
	h.now = start.Add(DefaultExpiry - 5*time.Second)
	h.mustAccept(spend([]wire.OutPoint{h.coin(100_000)}, 99_000))
	if !h.pool.Has(old.TxHash()) {
		t.Fatal("expired early")
	}
	h.now = start.Add(DefaultExpiry + 5*time.Second)
	h.mustAccept(spend([]wire.OutPoint{h.coin(100_000)}, 99_000))
	if h.pool.Has(old.TxHash()) {
		t.Fatal("not expired")
	}
}

func TestReorgAnnouncedAfterTheFact(t *testing.T) {
	// The chain view is already back at the fork point when the
	// disconnections are announced, newest block first: a child from the
	// newer block waits for its parent from the older one.
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	spentA := map[wire.OutPoint]Coin{a.TxIn[0].PreviousOutPoint: h.chain.coins[a.TxIn[0].PreviousOutPoint]}
	blk1 := h.chain.connect(a)
	h.pool.BlockConnected(blk1, h.chain.height)
	spentB := map[wire.OutPoint]Coin{outpoint(a, 0): h.chain.coins[outpoint(a, 0)]}
	blk2 := h.chain.connect(b)
	h.pool.BlockConnected(blk2, h.chain.height)
	h.chain.disconnect(blk2, spentB)
	h.chain.disconnect(blk1, spentA)
	h.pool.BlockDisconnected(blk2)
	if h.pool.Has(b.TxHash()) {
		t.Fatal("b without its parent")
	}
	h.pool.BlockDisconnected(blk1)
	if !h.pool.Has(a.TxHash()) || !h.pool.Has(b.TxHash()) {
		t.Fatalf("after reorg: %d", h.pool.Count())
	}
	h.check()
	// The new chain's block ends the reorg.
	h.pool.BlockConnected(h.chain.connect(), h.chain.height)
	if len(h.pool.reorgPending) != 0 || h.pool.Count() != 2 {
		t.Fatal("pending after the reorg")
	}
}

func TestReorgKeepsPoolChildOfLateParent(t *testing.T) {
	// A pool transaction spending the newer block's transaction survives
	// the announcements of a reorg whose older block is yet to come.
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	c := spend([]wire.OutPoint{outpoint(b, 0)}, 97_000)
	spentA := map[wire.OutPoint]Coin{a.TxIn[0].PreviousOutPoint: h.chain.coins[a.TxIn[0].PreviousOutPoint]}
	blk1 := h.chain.connect(a)
	h.pool.BlockConnected(blk1, h.chain.height)
	spentB := map[wire.OutPoint]Coin{outpoint(a, 0): h.chain.coins[outpoint(a, 0)]}
	blk2 := h.chain.connect(b)
	h.pool.BlockConnected(blk2, h.chain.height)
	h.mustAccept(c)
	h.chain.disconnect(blk2, spentB)
	h.chain.disconnect(blk1, spentA)
	h.pool.BlockDisconnected(blk2)
	h.pool.BlockDisconnected(blk1)
	if h.pool.Count() != 3 {
		t.Fatalf("after reorg: %d", h.pool.Count())
	}
	h.check()
}
