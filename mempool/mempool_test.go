package mempool

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func TestReplaceByFee(t *testing.T) {
	h := newHarness(t, nil)
	op := h.coin(100_000)
	orig := spend([]wire.OutPoint{op}, 99_000) // fee 1000
	h.mustAccept(orig)
	child := spend([]wire.OutPoint{outpoint(orig, 0)}, 98_000) // fee 1000
	h.mustAccept(child)

	// Lower fee rate than the directly conflicting transaction.
	low := spend([]wire.OutPoint{op}, 99_500)
	low.TxOut[0].PkScript = p2wpkh(50)
	re := h.mustReject(low, ReasonInsufficientFee)
	if !errors.Is(re, ErrReconsiderable) {
		t.Fatalf("kind %v", re.Kind)
	}
	// Higher rate than orig, but less than orig+child in absolute fees.
	mid := spend([]wire.OutPoint{op}, 98_500)
	mid.TxOut[0].PkScript = p2wpkh(51)
	h.mustReject(mid, ReasonInsufficientFee)
	// Pays exactly the evicted fees: nothing left for relay.
	exact := spend([]wire.OutPoint{op}, 98_000)
	exact.TxOut[0].PkScript = p2wpkh(52)
	re = h.mustReject(exact, ReasonInsufficientFee)
	if re.Debug == "" {
		t.Fatal("no debug")
	}
	// Enough: evicts both.
	good := spend([]wire.OutPoint{op}, 97_900)
	good.TxOut[0].PkScript = p2wpkh(53)
	res := h.mustAccept(good)
	if len(res.Replaced) != 2 || h.pool.Has(orig.TxHash()) || h.pool.Has(child.TxHash()) {
		t.Fatalf("replaced %v", res.Replaced)
	}

	// A replacement may not add a new unconfirmed input.
	other := spend([]wire.OutPoint{h.coin(50_000)}, 49_000)
	h.mustAccept(other)
	adds := spend([]wire.OutPoint{op, outpoint(other, 0)}, 140_000)
	h.mustReject(adds, ReasonAddsUnconfirmed)

	// A replacement may not spend what it replaces.
	spendsConf := spend([]wire.OutPoint{op, outpoint(good, 0)}, 150_000)
	h.mustReject(spendsConf, ReasonSpendsConflicting)

	// Replacement disabled.
	h2 := newHarness(t, func(c *Config) { c.NoReplacement = true })
	op2 := h2.coin(100_000)
	h2.mustAccept(spend([]wire.OutPoint{op2}, 99_000))
	r2 := spend([]wire.OutPoint{op2}, 90_000)
	r2.TxOut[0].PkScript = p2wpkh(40)
	h2.mustReject(r2, ReasonMempoolConflict)
}

func TestTooManyReplacements(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Policy.DescendantLimit = 500; c.Policy.DescendantSizeLimitKvB = 1000 })
	op := h.coin(10_000_000)
	vals := make([]int64, 101)
	for i := range vals {
		vals[i] = 90_000
	}
	parent := spend([]wire.OutPoint{op}, vals...)
	h.mustAccept(parent)
	for i := 0; i < 100; i++ {
		h.mustAccept(spend([]wire.OutPoint{outpoint(parent, uint32(i))}, 89_000))
	}
	repl := spend([]wire.OutPoint{op}, 100_000)
	repl.TxOut[0].PkScript = p2wpkh(99)
	re := h.mustReject(repl, ReasonTooManyReplacements)
	if re.Kind != ErrMempoolPolicy {
		t.Fatal(re.Kind)
	}
}

func TestAncestorLimitsAndCarveOut(t *testing.T) {
	h := newHarness(t, nil)
	// A chain of 25 is fine, the 26th is too long.
	prev := h.coin(10_000_000)
	v := int64(10_000_000)
	var last *wire.MsgTx
	for i := 0; i < 25; i++ {
		v -= 1000
		last = spend([]wire.OutPoint{prev}, v)
		h.mustAccept(last)
		prev = outpoint(last, 0)
	}
	if e, _ := h.pool.Get(last.TxHash()); e.AncCount != 25 {
		t.Fatalf("ancestor count %d", e.AncCount)
	}
	re := h.mustReject(spend([]wire.OutPoint{prev}, v-1000), ReasonTooLongChain)
	if re.Debug != "too many unconfirmed ancestors [limit: 25]" {
		t.Fatalf("debug %q", re.Debug)
	}

	// Descendant limit with the CPFP carve-out: a parent with 24 children
	// is at the limit; one more small child with no other ancestor is let
	// in, a second is not.
	h = newHarness(t, nil)
	vals := make([]int64, 30)
	for i := range vals {
		vals[i] = 100_000
	}
	parent := spend([]wire.OutPoint{h.coin(10_000_000)}, vals...)
	h.mustAccept(parent)
	for i := 0; i < 24; i++ {
		h.mustAccept(spend([]wire.OutPoint{outpoint(parent, uint32(i))}, 99_000))
	}
	carve := spend([]wire.OutPoint{outpoint(parent, 24)}, 99_000)
	h.mustAccept(carve)
	h.mustReject(spend([]wire.OutPoint{outpoint(parent, 25)}, 99_000), ReasonTooLongChain)
	// The carve-out needs the single ancestor: a child that also spends an
	// unrelated unconfirmed transaction does not get it.
	h = newHarness(t, nil)
	parent = spend([]wire.OutPoint{h.coin(10_000_000)}, vals...)
	h.mustAccept(parent)
	for i := 0; i < 24; i++ {
		h.mustAccept(spend([]wire.OutPoint{outpoint(parent, uint32(i))}, 99_000))
	}
	other := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(other)
	h.mustReject(spend([]wire.OutPoint{outpoint(parent, 24), outpoint(other, 0)}, 190_000), ReasonTooLongChain)
}

func TestTRUC(t *testing.T) {
	h := newHarness(t, nil)
	v3 := func(tx *wire.MsgTx) *wire.MsgTx { tx.Version = 3; return tx }
	parent := v3(spend([]wire.OutPoint{h.coin(1_000_000)}, 400_000, 400_000, 100_000))
	h.mustAccept(parent)
	child := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 399_000))
	h.mustAccept(child)
	// A second child at the same fee rate would have to evict the first
	// (sibling eviction) and does not pay for it.
	re := h.mustReject(v3(spend([]wire.OutPoint{outpoint(parent, 1)}, 399_000)), ReasonInsufficientFee)
	if re.Kind != ErrReconsiderable {
		t.Fatal(re.Kind)
	}
	// Spending both the parent and its child is two TRUC ancestors.
	re = h.mustReject(v3(spend([]wire.OutPoint{outpoint(parent, 1), outpoint(child, 0)}, 700_000)), ReasonTRUCViolation)
	if re.Kind != ErrMempoolPolicy {
		t.Fatal(re.Kind)
	}
	// Grandchild.
	h.mustReject(v3(spend([]wire.OutPoint{outpoint(child, 0)}, 398_000)), ReasonTRUCViolation)
	// Non-TRUC spending TRUC.
	h.mustReject(spend([]wire.OutPoint{outpoint(parent, 2)}, 99_000), ReasonTRUCViolation)
	// TRUC spending non-TRUC.
	plain := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(plain)
	h.mustReject(v3(spend([]wire.OutPoint{outpoint(plain, 0)}, 98_000)), ReasonTRUCViolation)
	// TRUC child over 1000 vB.
	p2 := v3(spend([]wire.OutPoint{h.coin(1_000_000)}, 900_000))
	h.mustAccept(p2)
	big := v3(spend([]wire.OutPoint{outpoint(p2, 0)}, 800_000))
	for i := 0; i < 30; i++ {
		big.TxOut = append(big.TxOut, wire.TxOut{Value: 1000, PkScript: p2wsh(byte(i))})
	}
	h.mustReject(big, ReasonTRUCViolation)
	// TRUC over 10000 vB.
	huge := v3(spend([]wire.OutPoint{h.coin(10_000_000)}, 100_000))
	for i := 0; i < 250; i++ {
		huge.TxOut = append(huge.TxOut, wire.TxOut{Value: 1000, PkScript: p2wsh(byte(i))})
	}
	h.mustReject(huge, ReasonTRUCViolation)
	// Replacing the only child is allowed.
	repl := v3(spend([]wire.OutPoint{outpoint(parent, 0)}, 390_000))
	repl.TxOut[0].PkScript = p2wpkh(77)
	h.mustAccept(repl)
	// Sibling eviction: a new child on another output replaces the
	// existing child when it pays enough...
	sib := v3(spend([]wire.OutPoint{outpoint(parent, 1)}, 380_000))
	res := h.mustAccept(sib)
	if len(res.Replaced) != 1 || res.Replaced[0] != repl.TxHash() {
		t.Fatalf("sibling eviction replaced %v", res.Replaced)
	}
	// ...and is refused with the replacement reason when it does not.
	cheap := v3(spend([]wire.OutPoint{outpoint(parent, 2)}, 99_000))
	re = h.mustReject(cheap, ReasonInsufficientFee)
	if re.Reason != ReasonInsufficientFee+" (including sibling eviction)" {
		t.Fatalf("reason %q", re.Reason)
	}
}

func TestOrphans(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Orphans.MaxPerPeer = 25 })
	parent := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	child := spend([]wire.OutPoint{outpoint(parent, 0)}, 98_000)
	grand := spend([]wire.OutPoint{outpoint(child, 0)}, 97_000)
	for _, tx := range []*wire.MsgTx{grand, child} {
		acc, orphaned, err := h.pool.ProcessTransaction(tx, 7, true)
		if err != nil || !orphaned || len(acc) != 0 {
			t.Fatalf("orphan: %v %v %v", acc, orphaned, err)
		}
	}
	if h.pool.OrphanCount() != 2 {
		t.Fatal(h.pool.OrphanCount())
	}
	acc, _, err := h.pool.ProcessTransaction(parent, 8, true)
	if err != nil || len(acc) != 3 {
		t.Fatalf("resolve: %d %v", len(acc), err)
	}
	if h.pool.OrphanCount() != 0 || len(h.ann) != 3 || h.ann[2] != grand.TxHash() {
		t.Fatalf("orphans %d announced %d", h.pool.OrphanCount(), len(h.ann))
	}
	h.check()

	// Without allowOrphans the error is returned.
	_, _, err = h.pool.ProcessTransaction(spend([]wire.OutPoint{{Index: 9}}, 1), 1, false)
	if !IsMissingInputs(err) {
		t.Fatal(err)
	}

	// Expiry after 20 minutes.
	h.pool.ProcessTransaction(spend([]wire.OutPoint{{Index: 1}}, 1000), 1, true)
	h.now = h.now.Add(21 * time.Minute)
	h.pool.ExpireOrphans()
	if h.pool.OrphanCount() != 0 {
		t.Fatal("orphan did not expire")
	}

	// Count limit and per-peer share.
	for i := 0; i < 40; i++ {
		h.pool.ProcessTransaction(spend([]wire.OutPoint{{Index: uint32(100 + i)}}, 1000), 1, true)
	}
	if n := h.pool.OrphanCount(); n != 25 {
		t.Fatalf("per-peer share: %d", n)
	}
	for i := 0; i < 200; i++ {
		h.pool.ProcessTransaction(spend([]wire.OutPoint{{Index: uint32(1000 + i)}}, 1000), PeerID(2+i%8), true)
	}
	if n := h.pool.OrphanCount(); n != 100 {
		t.Fatalf("count limit: %d", n)
	}
	if n := h.pool.RemoveOrphansByPeer(1); n == 0 || h.pool.OrphanCount() != 100-n {
		t.Fatalf("remove by peer %d", n)
	}
}

func TestEvictionAndRollingMinFee(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxMempoolBytes = 20_000 })
	var txs []*wire.MsgTx
	for i := 0; i < 40; i++ {
		fee := int64(200 + 100*i)
		tx := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-fee)
		txs = append(txs, tx)
		h.pool.AcceptTransaction(tx, AcceptOptions{})
		h.check()
	}
	if h.pool.Usage() > 20_000 {
		t.Fatalf("usage %d over limit", h.pool.Usage())
	}
	if h.pool.Has(txs[0].TxHash()) || !h.pool.Has(txs[39].TxHash()) {
		t.Fatal("wrong transactions evicted")
	}
	min := h.pool.MinFee()
	if min <= 0 {
		t.Fatal("min fee not raised")
	}
	low := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-300)
	h.mustReject(low, ReasonMempoolMinFee)
	// The rolling fee does not decay before a block arrives...
	h.now = h.now.Add(24 * time.Hour)
	if h.pool.MinFee() != min {
		t.Fatal("decayed without a block")
	}
	// ...and decays after one (half-life 12 h while the pool is more than
	// half full).
	blk := h.chain.connect(txs[30:]...)
	h.pool.BlockConnected(blk, h.chain.height)
	h.now = h.now.Add(3 * time.Hour)
	if got := h.pool.MinFee(); got >= min {
		t.Fatalf("min fee %v did not decay from %v", got, min)
	}
	h.now = h.now.Add(240 * time.Hour)
	if got := h.pool.MinFee(); got != 0 {
		t.Fatalf("min fee %v did not reach zero", got)
	}
	h.mustAccept(low)
}

func TestExpiry(t *testing.T) {
	h := newHarness(t, nil)
	old := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(old)
	child := spend([]wire.OutPoint{outpoint(old, 0)}, 98_000)
	h.mustAccept(child)
	h.now = h.now.Add(337 * time.Hour)
	if n := h.pool.Expire(h.now); n != 2 || h.pool.Count() != 0 {
		t.Fatalf("expired %d, left %d", n, h.pool.Count())
	}
	h.check()
}

func TestBlockConnectDisconnect(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	cop := h.coin(100_000)
	c := spend([]wire.OutPoint{cop}, 99_000)
	cChild := spend([]wire.OutPoint{outpoint(c, 0)}, 98_000)
	for _, tx := range []*wire.MsgTx{a, b, c, cChild} {
		h.mustAccept(tx)
	}
	// The block confirms a and a conflicting version of c.
	cConf := spend([]wire.OutPoint{cop}, 95_000)
	cConf.TxOut[0].PkScript = p2wpkh(88)
	spent := map[wire.OutPoint]Coin{a.TxIn[0].PreviousOutPoint: h.chain.coins[a.TxIn[0].PreviousOutPoint], cop: h.chain.coins[cop]}
	blk := h.chain.connect(a, cConf)
	h.pool.BlockConnected(blk, h.chain.height)
	h.check()
	if h.pool.Count() != 1 || !h.pool.Has(b.TxHash()) {
		t.Fatalf("after connect: %d", h.pool.Count())
	}
	if e := h.pool.byTxID[b.TxHash()]; e.AncCount != 1 || len(e.parents) != 0 {
		t.Fatalf("b still has ancestors: %d", e.AncCount)
	}
	// Disconnect: a returns under b; cConf returns too.
	h.chain.disconnect(blk, spent)
	h.pool.BlockDisconnected(blk)
	h.check()
	if !h.pool.Has(a.TxHash()) || !h.pool.Has(cConf.TxHash()) {
		t.Fatal("block transactions not returned")
	}
	if e, _ := h.pool.Get(b.TxHash()); e.AncCount != 2 {
		t.Fatalf("b not relinked: %d", e.AncCount)
	}
	// Returned transactions may be served to peers at once (Core's entry
	// sequence 0); b, which stayed, only after an announcement trickle.
	if e, _ := h.pool.Get(a.TxHash()); e.AnnounceSequence != 0 {
		t.Errorf("returned a: announce sequence %d, want 0", e.AnnounceSequence)
	}
	if e, _ := h.pool.Get(b.TxHash()); e.AnnounceSequence == 0 || e.AnnounceSequence > h.pool.Sequence() {
		t.Errorf("b: announce sequence %d (pool at %d)", e.AnnounceSequence, h.pool.Sequence())
	}
}

func TestDisconnectRemovesImmatureAndLocked(t *testing.T) {
	h := newHarness(t, nil)
	// A coinbase that matures exactly at the next block.
	cbop := h.chain.addCoin(100_000, p2wpkh(1))
	co := h.chain.coins[cbop]
	co.IsCoinBase, co.Height = true, h.chain.height+1-100
	h.chain.coins[cbop] = co
	spendCB := spend([]wire.OutPoint{cbop}, 99_000)
	h.mustAccept(spendCB)
	// A height-locked transaction final only at the current tip.
	locked := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	locked.LockTime = uint32(h.chain.height)
	h.mustAccept(locked)
	blk := h.chain.connect()
	h.pool.BlockConnected(blk, h.chain.height)
	h.chain.disconnect(blk, nil)
	h.chain.disconnect(&wire.MsgBlock{}, nil) // one more block back
	h.pool.BlockDisconnected(&wire.MsgBlock{})
	h.check()
	if h.pool.Has(spendCB.TxHash()) || h.pool.Has(locked.TxHash()) {
		t.Fatalf("immature or non-final transaction kept (%d left)", h.pool.Count())
	}
}

func TestMemoryAccounting(t *testing.T) {
	h := newHarness(t, nil)
	var ids []wire.Hash
	for i := 0; i < 50; i++ {
		tx := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
		h.mustAccept(tx)
		ids = append(ids, tx.TxHash())
	}
	per := h.pool.Usage() / 50
	// A 1-in-1-out witness transaction: ~190 bytes of transaction data, an
	// Entry of a few hundred bytes and map slots; anything far off means
	// the accounting is wrong.
	if per < 500 || per > 2000 {
		t.Fatalf("per-entry usage %d", per)
	}
	for _, id := range ids {
		h.pool.RemoveTransaction(id)
	}
	if h.pool.Usage() != 0 {
		t.Fatalf("usage %d after removing everything", h.pool.Usage())
	}
}

func TestFeeFilter(t *testing.T) {
	h := newHarness(t, nil)
	tx := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	res := h.mustAccept(tx)
	rate := NewFeeRate(res.Fee, res.VSize)
	if !h.pool.PassesFeeFilter(tx.TxHash(), rate) || h.pool.PassesFeeFilter(tx.TxHash(), rate*2) {
		t.Fatal("fee filter")
	}
	if h.pool.FeeFilter() != 100 {
		t.Fatal(h.pool.FeeFilter())
	}
	if info := h.pool.Info(); info.Size != 1 || info.MempoolMinFee != 100 || !info.FullRBF {
		t.Fatalf("%+v", info)
	}
}

func TestConcurrentUse(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.OnAccept = nil })
	var txs []*wire.MsgTx
	for i := 0; i < 200; i++ {
		txs = append(txs, spend([]wire.OutPoint{h.coin(100_000)}, 99_000))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			h.pool.Candidates()
			for _, e := range h.pool.Entries() {
				_ = e.AncCount + e.DescCount
			}
			h.pool.Info()
		}
	}()
	for _, tx := range txs {
		if _, err := h.pool.AcceptTransaction(tx, AcceptOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	checkInvariants(t, h.pool)
}

func TestMempoolFullAndRelatives(t *testing.T) {
	h := newHarness(t, nil)
	first := spend([]wire.OutPoint{h.coin(100_000)}, 95_000)
	h.mustAccept(first)
	per := h.pool.Usage()
	h.pool.cfg.MaxMempoolBytes = per*5 + per/2
	for i := 0; i < 4; i++ {
		h.mustAccept(spend([]wire.OutPoint{h.coin(100_000)}, 95_000))
	}
	re := h.mustReject(spend([]wire.OutPoint{h.coin(100_000)}, 99_800), ReasonMempoolFull)
	if re.Kind != ErrReconsiderable || h.pool.Count() != 5 {
		t.Fatalf("%v, %d left", re.Kind, h.pool.Count())
	}

	child := spend([]wire.OutPoint{outpoint(first, 0)}, 90_000)
	h.pool.cfg.MaxMempoolBytes = DefaultMaxMempoolBytes
	h.mustAccept(child)
	parents, children, ok := h.pool.Relatives(first.TxHash())
	if !ok || len(parents) != 0 || len(children) != 1 || children[0] != child.TxHash() {
		t.Fatalf("relatives %v %v", parents, children)
	}
	if anc, _ := h.pool.Ancestors(child.TxHash()); len(anc) != 1 || anc[0].TxID != first.TxHash() {
		t.Fatal("ancestors")
	}
	if desc, _ := h.pool.Descendants(first.TxHash()); len(desc) != 1 || desc[0].TxID != child.TxHash() {
		t.Fatal("descendants")
	}
}

func TestTwoBlockReorg(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	c := spend([]wire.OutPoint{outpoint(b, 0)}, 97_000)
	for _, tx := range []*wire.MsgTx{a, b, c} {
		h.mustAccept(tx)
	}
	spentA := map[wire.OutPoint]Coin{a.TxIn[0].PreviousOutPoint: h.chain.coins[a.TxIn[0].PreviousOutPoint]}
	blk1 := h.chain.connect(a)
	h.pool.BlockConnected(blk1, h.chain.height)
	spentB := map[wire.OutPoint]Coin{outpoint(a, 0): h.chain.coins[outpoint(a, 0)]}
	blk2 := h.chain.connect(b)
	h.pool.BlockConnected(blk2, h.chain.height)
	h.check()
	if h.pool.Count() != 1 {
		t.Fatalf("after blocks: %d", h.pool.Count())
	}
	h.chain.disconnect(blk2, spentB)
	h.pool.BlockDisconnected(blk2)
	h.check()
	h.chain.disconnect(blk1, spentA)
	h.pool.BlockDisconnected(blk1)
	h.check()
	e := h.pool.byTxID[c.TxHash()]
	if h.pool.Count() != 3 || e == nil || e.AncCount != 3 {
		t.Fatalf("after reorg: %d entries", h.pool.Count())
	}
	// Block assembly sees the chain a <- b <- c again.
	cands := h.pool.Candidates()
	at := map[wire.Hash]int32{}
	for i, x := range cands.Txs {
		at[x.TxID] = int32(i)
	}
	parentOf := func(tx *wire.MsgTx) []int32 { return cands.Txs[at[tx.TxHash()]].Parents }
	if len(cands.Txs) != 3 || len(parentOf(a)) != 0 || !slices.Equal(parentOf(b), []int32{at[a.TxHash()]}) ||
		!slices.Equal(parentOf(c), []int32{at[b.TxHash()]}) {
		t.Fatal("candidate links after reorg")
	}
}
