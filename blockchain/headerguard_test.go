package blockchain

import (
	"errors"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// workOf returns the chain work of n regtest blocks after genesis.
func workOf(p *chaincfg.Params, n int) *Work {
	w := CalcWork(p.GenesisBlock.Header.Bits)
	per := w
	for range n {
		w = w.Add(per)
	}
	return &w
}

// fakeHeaders mines n header-only regtest headers on parent (a
// header-only chain a peer could send; no blocks exist for them).
func fakeHeaders(p *chaincfg.Params, parent wire.BlockHeader, n int, salt byte) []wire.BlockHeader {
	out := make([]wire.BlockHeader, n)
	prev := parent
	for i := range out {
		h := wire.BlockHeader{
			Version:   0x20000000,
			PrevBlock: prev.BlockHash(),
			Timestamp: prev.Timestamp + 1,
			Bits:      p.GenesisBlock.Header.Bits,
		}
		h.MerkleRoot[0], h.MerkleRoot[1] = salt, byte(i)
		chaintest.Solve(&h, p.PowLimit)
		out[i] = h
		prev = h
	}
	return out
}

// TestLowWorkHeadersBounded feeds a long chain of headers below the
// minimum chain work: none enters the tree, the buffer never exceeds its
// bound, and overflowing it is a rule error.
func TestLowWorkHeadersBounded(t *testing.T) {
	p := regtest(t)
	tc := newTestChain(t, p, func(c *Config) { c.MinimumChainWork = workOf(p, 100_000) })
	hdrs := fakeHeaders(p, p.GenesisBlock.Header, maxLowWorkHeaders+2*wire.MaxBlockHeadersPerMsg, 1)
	c := tc.chain
	fed := 0
	overflowed := false
	for i := 0; i < len(hdrs); i += wire.MaxBlockHeadersPerMsg {
		batch := hdrs[i:min(i+wire.MaxBlockHeadersPerMsg, len(hdrs))]
		if fed > 0 {
			// As the sync manager does: continue from the last header.
			if _, _, ok := c.HeaderByHash(&batch[0].PrevBlock); !ok {
				t.Fatalf("batch %d does not connect to a known header", i)
			}
		}
		last, height, err := c.ProcessHeaders(batch)
		if n := c.LowWorkHeaders(); n > maxLowWorkHeaders {
			t.Fatalf("%d buffered headers", n)
		}
		if len(c.index.nodes) != 1 {
			t.Fatalf("%d nodes in the tree", len(c.index.nodes))
		}
		if err != nil {
			if !isKind(err, ErrTooLittleChainWork) {
				t.Fatalf("batch at %d: %v", i, err)
			}
			overflowed = true
			break
		}
		fed += len(batch)
		if bh, bhh := c.BestHeader(); bh != last || bhh != height || int(height) != fed {
			t.Fatalf("best header %v %d, last %v %d", bh, bhh, last, height)
		}
	}
	if !overflowed || fed != maxLowWorkHeaders {
		t.Fatalf("fed %d headers without overflow", fed)
	}
	if n := c.LowWorkHeaders(); n != 0 {
		t.Fatalf("buffer holds %d after overflow", n)
	}
	if bh, _ := c.BestHeader(); bh != p.GenesisHash {
		t.Fatalf("best header %v after overflow", bh)
	}
	// A block on a low-work chain is refused and not stored.
	if _, _, err := c.ProcessHeaders(hdrs[:10]); err != nil {
		t.Fatal(err)
	}
	e := tc.b.NextBlock(nil, nil, nil)
	if _, err := c.ProcessBlock(e.Block); !isKind(err, ErrTooLittleChainWork) {
		t.Fatalf("low-work block: %v", err)
	}
	if c.HaveBlock(&e.Hash) || len(c.index.nodes) != 1 {
		t.Fatal("low-work block stored")
	}
	var re *RuleError
	if _, err := c.ProcessBlock(e.Block); !errors.As(err, &re) {
		t.Fatalf("not a rule error: %v", err)
	}
	// Pushed without a request it is dropped quietly.
	if res, err := c.ProcessBlockWithFlags(e.Block, BFUnrequested); err != nil || res.MainChain || c.HaveBlock(&e.Hash) {
		t.Fatalf("unrequested low-work block: %+v %v", res, err)
	}
}

// TestLowWorkHeadersPromoted buffers a chain until it reaches the minimum
// chain work, then moves it into the tree, where its blocks connect.
func TestLowWorkHeadersPromoted(t *testing.T) {
	p := regtest(t)
	tc := newTestChain(t, p, func(c *Config) { c.MinimumChainWork = workOf(p, 50) })
	es := tc.b.MineCoinbases(60)
	hdrs := headersOf(es)
	c := tc.chain
	if _, h, err := c.ProcessHeaders(hdrs[:30]); err != nil || h != 30 {
		t.Fatalf("first batch: %d %v", h, err)
	}
	if c.LowWorkHeaders() != 30 || c.HeaderChainTrusted(&es[29].Hash) {
		t.Fatalf("buffered %d", c.LowWorkHeaders())
	}
	if st, ok := c.LookupBlock(&es[29].Hash); ok {
		t.Fatalf("buffered header in the tree: %+v", st)
	}
	if _, h, err := c.ProcessHeaders(hdrs[30:]); err != nil || h != 60 {
		t.Fatalf("second batch: %d %v", h, err)
	}
	if c.LowWorkHeaders() != 0 || len(c.index.nodes) != 61 {
		t.Fatalf("after promotion: %d buffered, %d in tree", c.LowWorkHeaders(), len(c.index.nodes))
	}
	if !c.HeaderChainTrusted(&es[59].Hash) {
		t.Fatal("promoted chain not trusted")
	}
	if got := c.MissingBlocks(100); len(got) != 60 {
		t.Fatalf("%d missing blocks", len(got))
	}
	for _, e := range es {
		tc.accept(e)
	}
	tc.reopen()
	tc.tipIs(es[59].Hash)
}

// TestLowWorkHeadersCheckpoint stores headers up to the last checkpoint
// as before and buffers low-work ones above it; disabling checkpoints
// turns the guard off.
func TestLowWorkHeadersCheckpoint(t *testing.T) {
	p := *regtest(t)
	bld := chaintest.New(&p)
	es := bld.MineCoinbases(40)
	p.Checkpoints = []chaincfg.BlockID{{Height: 20, Hash: es[19].Hash}}
	mw := workOf(&p, 1000)
	tc := newTestChain(t, &p, func(c *Config) { c.MinimumChainWork = mw })
	if _, _, err := tc.chain.ProcessHeaders(headersOf(es)); err != nil {
		t.Fatal(err)
	}
	if n := tc.chain.LowWorkHeaders(); n != 20 || len(tc.chain.index.nodes) != 21 {
		t.Fatalf("%d buffered, %d in tree", n, len(tc.chain.index.nodes))
	}
	off := newTestChain(t, &p, func(c *Config) { c.MinimumChainWork = mw; c.DisableCheckpoints = true })
	if _, _, err := off.chain.ProcessHeaders(headersOf(es)); err != nil {
		t.Fatal(err)
	}
	if n := off.chain.LowWorkHeaders(); n != 0 || len(off.chain.index.nodes) != 41 {
		t.Fatalf("guard off: %d buffered, %d in tree", n, len(off.chain.index.nodes))
	}
}

// TestLowWorkGuardRegtest: with no minimum chain work (regtest) a long
// low-work fork from genesis is stored as before.
func TestLowWorkGuardRegtest(t *testing.T) {
	p := regtest(t)
	tc := newTestChain(t, p, nil)
	tc.mine(30)
	hdrs := fakeHeaders(p, p.GenesisBlock.Header, 10, 2)
	if _, h, err := tc.chain.ProcessHeaders(hdrs); err != nil || h != 10 {
		t.Fatalf("fork: %d %v", h, err)
	}
	if tc.chain.LowWorkHeaders() != 0 || len(tc.chain.index.nodes) != 41 {
		t.Fatalf("%d buffered, %d in tree", tc.chain.LowWorkHeaders(), len(tc.chain.index.nodes))
	}
}

// TestLowWorkBlockForced: a block the node was given itself (submitblock,
// generate) is stored and connected although its chain has less than the
// minimum chain work, as Core's force_processing.
func TestLowWorkBlockForced(t *testing.T) {
	p := regtest(t)
	tc := newTestChain(t, p, func(c *Config) { c.MinimumChainWork = workOf(p, 50) })
	es := tc.b.MineCoinbases(3)
	c := tc.chain
	for i, e := range es {
		res, err := c.ProcessBlockWithFlags(e.Block, BFForce)
		if err != nil || !res.MainChain {
			t.Fatalf("block %d: %+v %v", i, res, err)
		}
	}
	if c.LowWorkHeaders() != 0 || len(c.index.nodes) != 4 {
		t.Fatalf("%d buffered, %d in tree", c.LowWorkHeaders(), len(c.index.nodes))
	}
	tc.tipIs(es[2].Hash)
}

// TestLowWorkUnrequestedBlockForgotten: a pushed block on a chain below
// the minimum chain work leaves neither its data nor its header behind.
func TestLowWorkUnrequestedBlockForgotten(t *testing.T) {
	p := regtest(t)
	tc := newTestChain(t, p, func(c *Config) { c.MinimumChainWork = workOf(p, 50) })
	e := tc.b.NextBlock(nil, nil, nil)
	c := tc.chain
	if res, err := c.ProcessBlockWithFlags(e.Block, BFUnrequested); err != nil || res.MainChain {
		t.Fatalf("unrequested low-work block: %+v %v", res, err)
	}
	if c.HaveBlock(&e.Hash) || c.LowWorkHeaders() != 0 {
		t.Fatalf("kept: data %v, %d buffered headers", c.HaveBlock(&e.Hash), c.LowWorkHeaders())
	}
	if _, _, ok := c.HeaderByHash(&e.Hash); ok {
		t.Fatal("header still known")
	}
}

// TestUnrequestedOrphanRefused: a pushed block whose parent is unknown is
// invalid (prev-blk-not-found), as in Core, and is not kept as an orphan;
// once its parent's header is known it is processed normally.
func TestUnrequestedOrphanRefused(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	es := tc.b.MineCoinbases(2)
	c := tc.chain
	if _, err := c.ProcessBlockWithFlags(es[1].Block, BFUnrequested); !isKind(err, ErrPrevBlockNotFound) {
		t.Fatalf("unrequested orphan: %v", err)
	}
	if len(c.orphans.byHash) != 0 {
		t.Fatalf("%d orphans kept", len(c.orphans.byHash))
	}
	if _, _, err := c.ProcessHeaders([]wire.BlockHeader{es[0].Block.Header}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.ProcessBlockWithFlags(es[1].Block, BFUnrequested); err != nil || res.Duplicate {
		t.Fatalf("after the parent header: %+v %v", res, err)
	}
	if !c.HaveBlock(&es[1].Hash) {
		t.Fatal("block not stored")
	}
}
