package blockchain

import (
	"testing"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

func headersOf(es []*chaintest.Entry) []wire.BlockHeader {
	out := make([]wire.BlockHeader, len(es))
	for i, e := range es {
		out[i] = e.Block.Header
	}
	return out
}

func TestProcessHeaders(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	es := tc.b.MineCoinbases(20)
	hash, h, err := tc.chain.ProcessHeaders(headersOf(es))
	if err != nil || h != 20 || hash != es[19].Hash {
		t.Fatalf("headers: %v %d %v", hash, h, err)
	}
	if bh, bhh := tc.chain.BestHeader(); bh != es[19].Hash || bhh != 20 {
		t.Fatalf("best header %v %d", bh, bhh)
	}
	// Headers only: the tip has not moved.
	tc.tipIs(tc.p.GenesisHash)
	// Unconnected and non-continuous batches are refused.
	more := tc.b.MineCoinbases(3)
	if _, _, err := tc.chain.ProcessHeaders(headersOf(more[1:])); !isKind(err, ErrPrevBlockNotFound) {
		t.Errorf("unconnected: %v", err)
	}
	if _, _, err := tc.chain.ProcessHeaders([]wire.BlockHeader{more[0].Block.Header, more[2].Block.Header}); !isKind(err, ErrPrevBlockNotFound) {
		t.Errorf("non-continuous: %v", err)
	}
	// Bad proof of work is refused before anything is stored.
	bad := more[1].Block.Header
	bad.Nonce++
	for CheckBlockHeaderSanity(&bad, tc.p.PowLimit) == nil {
		bad.Nonce++
	}
	if _, _, err := tc.chain.ProcessHeaders([]wire.BlockHeader{bad}); !isKind(err, ErrHighHash) {
		t.Errorf("bad pow: %v", err)
	}
	// Blocks for the known headers connect.
	for _, e := range es {
		tc.accept(e)
	}
	if !tc.chain.HeaderChainTrusted(&es[19].Hash) {
		t.Error("regtest has no minimum chain work")
	}
}

func TestOrphans(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	es := tc.b.MineCoinbases(6)
	for i := len(es) - 1; i >= 1; i-- {
		res, err := tc.chain.ProcessBlock(es[i].Block)
		if err != nil || !res.Orphan || res.OrphanRoot != es[i-1].Hash {
			t.Fatalf("orphan %d: %+v %v", i, res, err)
		}
	}
	res, err := tc.chain.ProcessBlock(es[5].Block)
	if err != nil || !res.Duplicate {
		t.Fatalf("duplicate orphan: %+v %v", res, err)
	}
	tc.accept(es[0])
	tc.tipIs(es[5].Hash)
	// The pool is bounded.
	tc2 := newTestChain(t, regtest(t), func(c *Config) { c.MaxOrphans = 3 })
	es2 := tc2.b.MineCoinbases(10)
	for _, e := range es2[1:] {
		tc2.chain.ProcessBlock(e.Block)
	}
	if n := len(tc2.chain.orphans.byHash); n != 3 {
		t.Errorf("%d orphans kept", n)
	}
}

func TestInvalidateReconsiderPrecious(t *testing.T) {
	rc, base := newReorgChain(t)
	a := rc.extendN(base, 3)
	rc.process(a...)
	if err := rc.chain.InvalidateBlock(&a[1].Hash); err != nil {
		t.Fatal(err)
	}
	rc.check(a[0])
	// A competing branch is preferred while a[1] is invalid.
	b := rc.extendN(a[0], 1)
	rc.process(b...)
	rc.check(b[0])
	if err := rc.chain.ReconsiderBlock(&a[1].Hash); err != nil {
		t.Fatal(err)
	}
	rc.check(a[2])

	// Precious: two equal-work tips; the second seen wins once precious.
	c1 := rc.extend(a[2])
	c2 := rc.extend(a[2])
	rc.process(c1, c2)
	rc.check(c1)
	if err := rc.chain.PreciousBlock(&c2.Hash); err != nil {
		t.Fatal(err)
	}
	rc.check(c2)
	if err := rc.chain.PreciousBlock(&c1.Hash); err != nil {
		t.Fatal(err)
	}
	rc.check(c1)
	if err := rc.chain.InvalidateBlock(&rc.p.GenesisHash); err == nil {
		t.Error("invalidating genesis must fail")
	}
}

func TestNotifications(t *testing.T) {
	rc, base := newReorgChain(t)
	var got []NotificationType
	var heights []int32
	rc.chain.Subscribe(func(n *Notification) {
		got = append(got, n.Type)
		heights = append(heights, n.Height)
		// Callbacks may call back into the chain.
		_ = rc.chain.BestSnapshot()
		_ = rc.chain.MainChainHasBlock(&n.Hash)
	})
	a := rc.extend(base)
	rc.process(a)
	b1 := rc.extend(base)
	b2 := rc.extend(b1)
	rc.process(b1, b2)
	want := []NotificationType{NTBlockConnected, NTTipChanged,
		NTBlockDisconnected, NTBlockConnected, NTBlockConnected, NTTipChanged}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestSubmitBlockAnswers(t *testing.T) {
	rc, base := newReorgChain(t)
	a := rc.extend(base)
	if r, err := rc.chain.SubmitBlock(a.Block); err != nil || r != "" {
		t.Fatalf("accepted: %q %v", r, err)
	}
	if r, _ := rc.chain.SubmitBlock(a.Block); r != "duplicate" {
		t.Errorf("duplicate: %q", r)
	}
	side := rc.extend(base)
	if r, _ := rc.chain.SubmitBlock(side.Block); r != "inconclusive" {
		t.Errorf("side chain: %q", r)
	}
	bad := rc.b.NextBlock(a, nil, &chaintest.BlockOpts{CoinbaseExtra: 1})
	if r, _ := rc.chain.SubmitBlock(bad.Block); r != "bad-cb-amount" {
		t.Errorf("bad: %q", r)
	}
	if r, _ := rc.chain.SubmitBlock(bad.Block); r != "duplicate-invalid" {
		t.Errorf("duplicate invalid: %q", r)
	}
	v1 := rc.b.NextBlock(a, nil, &chaintest.BlockOpts{Version: 1})
	if r, _ := rc.chain.SubmitBlock(v1.Block); r != "bad-version(0x00000001)" {
		t.Errorf("version: %q", r)
	}
	orphan := rc.extend(rc.b.NextBlock(a, nil, nil))
	if r, _ := rc.chain.SubmitBlock(orphan.Block); r != "prev-blk-not-found" {
		t.Errorf("orphan: %q", r)
	}
}

// TestAssumeValid: a block with a bad signature below the assume-valid
// block is accepted (scripts skipped), but other rules still apply.
func TestAssumeValid(t *testing.T) {
	p := regtest(t)
	b := chaintest.New(p)
	b.MineCoinbases(101)
	cb := b.MatureCoinbases(b.Tip)[0]
	tx := b.Spend([]*chaintest.Output{cb}, nil, 1000)
	tx.TxIn[0].Witness[0][10] ^= 1
	badSig := b.NextBlock(nil, []*wire.MsgTx{tx}, nil)
	// Two weeks of regtest work past the bad block (one block is 600 s).
	b.MineCoinbases(2100)
	all := chaintest.Chain(b.Tip)
	av := all[len(all)-1]

	for _, enabled := range []bool{true, false} {
		tc := newTestChain(t, p, func(c *Config) {
			c.AssumeValidSet = true
			if enabled {
				c.AssumeValid = av.Hash
			}
		})
		if _, _, err := tc.chain.ProcessHeaders(headersOf(all)); err != nil {
			t.Fatal(err)
		}
		for _, e := range all[:badSig.Height] {
			if e.Hash == badSig.Hash && !enabled {
				tc.reject(e, ErrScriptVerifyMandatory)
				break
			}
			tc.accept(e)
		}
	}
}

// TestDeepForkAccepted: without checkpoints (none in Core 30) a valid fork
// from deep in the chain is accepted as a side branch; memory is guarded
// by the sync manager's headers presync instead.
func TestDeepForkAccepted(t *testing.T) {
	p := regtest(t)
	b := chaintest.New(p)
	es := b.MineCoinbases(5)
	fork := b.NextBlock(es[1], nil, nil)
	tc := newTestChain(t, p, nil)
	tc.b = b
	for _, e := range es {
		tc.accept(e)
	}
	if _, err := tc.chain.ProcessBlock(fork.Block); err != nil {
		t.Fatalf("fork from height 2: %v", err)
	}
	if _, ok := tc.chain.LookupBlock(&fork.Hash); !ok {
		t.Fatal("fork block not in the header tree")
	}
}

func TestUnrequestedSideBlockNotStored(t *testing.T) {
	rc, base := newReorgChain(t)
	a := rc.extendN(base, 2)
	rc.process(a...)
	side := rc.extend(base)
	if _, err := rc.chain.ProcessBlockWithFlags(side.Block, BFUnrequested); err != nil {
		t.Fatal(err)
	}
	if rc.chain.HaveBlock(&side.Hash) {
		t.Error("unrequested low-work block was stored")
	}
	// Requested, it is stored as a side block.
	if _, err := rc.chain.ProcessBlock(side.Block); err != nil || !rc.chain.HaveBlock(&side.Hash) {
		t.Errorf("requested side block: %v", err)
	}
	next := rc.extend(a[1])
	if res, err := rc.chain.ProcessBlockWithFlags(next.Block, BFUnrequested); err != nil || !res.MainChain {
		t.Errorf("unrequested tip extension: %+v %v", res, err)
	}
}

func TestMissingBlocks(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	es := tc.b.MineCoinbases(10)
	if _, _, err := tc.chain.ProcessHeaders(headersOf(es)); err != nil {
		t.Fatal(err)
	}
	tc.accept(es[0])
	tc.chain.ProcessBlock(es[2].Block) // stored, not connectable yet
	got := tc.chain.MissingBlocks(4)
	want := []wire.Hash{es[1].Hash, es[3].Hash, es[4].Hash, es[5].Hash}
	if len(got) != len(want) {
		t.Fatalf("got %d hashes", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("missing[%d] wrong", i)
		}
	}
	tc.accept(es[1])
	tc.tipIs(es[2].Hash)
	if h, height, ok := tc.chain.HeaderByHash(&es[9].Hash); !ok || height != 10 || h.BlockHash() != es[9].Hash {
		t.Error("HeaderByHash")
	}
}

func TestPrefetchInputs(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(101)
	cb := tc.b.MatureCoinbases(tc.b.Tip)[0]
	e := tc.b.NextBlock(nil, []*wire.MsgTx{tc.b.Spend([]*chaintest.Output{cb}, nil, 1000)}, nil)
	if err := tc.chain.PrefetchInputs(e.Block); err != nil {
		t.Fatal(err)
	}
	tc.accept(e)
}
