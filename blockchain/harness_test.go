package blockchain

import (
	"errors"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// testChain is a BlockChain over fresh databases in a temp dir, with a
// builder making blocks for it.
type testChain struct {
	t     testing.TB
	dir   string
	p     *chaincfg.Params
	db    *database.BlockDB
	cs    *database.ChainState
	cache *database.UtxoCache
	chain *BlockChain
	b     *chaintest.Builder

	lastFan *wire.MsgTx
	// dbOpts configures the block database (e.g. a tiny file size).
	dbOpts database.BlockDBOptions
	// mod is applied to the Config by reopen.
	mod func(*Config)
	// cacheBytes, if non-zero, is the UTXO cache budget.
	cacheBytes int64
}

func regtest(t testing.TB) *chaincfg.Params {
	p, err := chaincfg.ParamsForNetwork("regtest")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newTestChain(t testing.TB, p *chaincfg.Params, mod func(*Config)) *testChain {
	t.Helper()
	return newTestChainOpts(t, p, database.BlockDBOptions{}, mod)
}

// newTestChainOpts is newTestChain with block database options; mod is
// also applied by reopen.
func newTestChainOpts(t testing.TB, p *chaincfg.Params, o database.BlockDBOptions, mod func(*Config)) *testChain {
	t.Helper()
	tc := &testChain{t: t, dir: t.TempDir(), p: p, dbOpts: o, mod: mod}
	tc.open(mod)
	tc.b = chaintest.New(p)
	t.Cleanup(tc.close)
	return tc
}

func (tc *testChain) open(mod func(*Config)) {
	t := tc.t
	var err error
	tc.db, err = database.OpenBlockDB(tc.dir, tc.p.Net, tc.dbOpts)
	if err != nil {
		t.Fatal(err)
	}
	tc.cs, err = database.OpenChainState(tc.dir, database.ChainStateOptions{NoSyncOnFlush: true, WriteBuffer: 1 << 20, CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	budget := tc.cacheBytes
	if budget == 0 {
		budget = 64 << 20
	}
	tc.cache = database.NewUtxoCache(tc.cs, database.UtxoCacheOptions{MaxBytes: budget})
	cfg := &Config{Params: tc.p, BlockDB: tc.db, ChainState: tc.cs, Cache: tc.cache, Par: 2}
	if mod != nil {
		mod(cfg)
	}
	tc.chain, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
}

func (tc *testChain) close() {
	if tc.chain == nil {
		return
	}
	if err := tc.chain.Close(); err != nil {
		tc.t.Error(err)
	}
	tc.cs.Close()
	tc.db.Close()
	tc.chain = nil
}

// reopen closes and reopens the chain over the same directory.
func (tc *testChain) reopen() {
	tc.close()
	tc.open(tc.mod)
}

// accept processes e and fails the test unless it became the tip.
func (tc *testChain) accept(e *chaintest.Entry) {
	tc.t.Helper()
	res, err := tc.chain.ProcessBlock(e.Block)
	if err != nil {
		tc.t.Fatalf("block %d (%v) rejected: %v", e.Height, e.Hash, err)
	}
	if !res.MainChain {
		tc.t.Fatalf("block %d (%v) not on the main chain: %+v", e.Height, e.Hash, res)
	}
}

// reject processes e and expects a rule error of kind.
func (tc *testChain) reject(e *chaintest.Entry, kind ErrorKind) *RuleError {
	tc.t.Helper()
	_, err := tc.chain.ProcessBlock(e.Block)
	if !errors.Is(err, kind) {
		tc.t.Fatalf("block %d: got %v, want %v", e.Height, err, kind)
	}
	var re *RuleError
	errors.As(err, &re)
	return re
}

// mine builds and accepts n coinbase-only blocks.
func (tc *testChain) mine(n int) {
	tc.t.Helper()
	for range n {
		tc.accept(tc.b.NextBlock(nil, nil, nil))
	}
}

func (tc *testChain) tipIs(h wire.Hash) {
	tc.t.Helper()
	if got := tc.chain.BestSnapshot().Hash; got != h {
		tc.t.Fatalf("tip %v, want %v", got, h)
	}
}
