package coinstats

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

func openTest(t *testing.T, dir string, workers int) *Index {
	t.Helper()
	x, err := OpenIndex(dir, Options{HalvingInterval: testHalving, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func connectAll(t *testing.T, x *Index, c *testChain, from int) {
	t.Helper()
	for h := from; h < len(c.blocks); h++ {
		if err := x.BlockConnected(c.blocks[h], int32(h), c.spent[h]); err != nil {
			t.Fatalf("connect %d: %v", h, err)
		}
	}
}

func mustLookup(t *testing.T, x *Index, c *testChain, h int) Stats {
	t.Helper()
	st, ok, err := x.Lookup(c.hash(h), int32(h))
	if err != nil || !ok {
		t.Fatalf("lookup height %d: ok %v, %v", h, ok, err)
	}
	return st
}

// TestStatsFollowTheUTXOSet checks every block's record against the model
// UTXO set: MuHash, counts, amounts, and that subsidy and block_info
// balance, across a halving.
func TestStatsFollowTheUTXOSet(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(320, 0, all)
	x := openTest(t, t.TempDir(), 0)
	defer x.Close()
	connectAll(t, x, &c, 0)
	for h := range c.blocks {
		c.check(t, mustLookup(t, x, &c, h))
	}
	if h, height := x.Tip(); h != c.hash(319) || height != 319 {
		t.Fatalf("tip %v %d", h, height)
	}
}

// TestUnspendableCategories checks each cause of unspendable coins on the
// blocks that have it, as gettxoutsetinfo's block_info reports them.
func TestUnspendableCategories(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(16, 0, all)
	x := openTest(t, t.TempDir(), 0)
	defer x.Close()
	connectAll(t, x, &c, 0)

	g := mustLookup(t, x, &c, 0)
	want := BlockStats{Unspendables: Unspendables{GenesisBlock: 50 * 1e8}}
	if g.Block != want || g.TxOuts != 0 || g.Unspendables.Total() != 50*1e8 {
		t.Fatalf("genesis: %+v", g)
	}
	// Block 15: spends block 14's coinbase, burns testBurn, leaves
	// testUnclaimed; its coinbase claims the rest of subsidy + fee.
	b := mustLookup(t, x, &c, 15)
	prev := c.blocks[14].Transactions[0].TxOut[0].Value
	subsidy := blockchain.CalcBlockSubsidy(15, testHalving)
	want = BlockStats{
		PrevoutSpent:         prev,
		Coinbase:             subsidy + testFee - testUnclaimed,
		NewOutputsExCoinbase: prev - testFee - testBurn,
		Unspendables:         Unspendables{Scripts: testBurn, UnclaimedRewards: testUnclaimed},
	}
	if b.Block != want {
		t.Fatalf("block 15: %+v, want %+v", b.Block, want)
	}
	// Totals: genesis, five burns (3..15) and three unclaimed (5, 10, 15).
	tot := Unspendables{GenesisBlock: 50 * 1e8, Scripts: 5 * testBurn, UnclaimedRewards: 3 * testUnclaimed}
	if b.Unspendables != tot {
		t.Fatalf("totals %+v, want %+v", b.Unspendables, tot)
	}
}

// TestBIP30Coinbase checks that a coinbase a later duplicate overwrote
// (Core's IsBIP30Unspendable blocks) stays out of the set and counts its
// subsidy as bip30; the block's fees become unclaimed rewards.
func TestBIP30Coinbase(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(8, 0, all)
	saved := bip30Unspendable
	defer func() { bip30Unspendable = saved }()
	bip30Unspendable = map[int32]wire.Hash{7: c.hash(7)}
	x := openTest(t, t.TempDir(), 0)
	defer x.Close()
	connectAll(t, x, &c, 0)
	st := mustLookup(t, x, &c, 7)
	subsidy := blockchain.CalcBlockSubsidy(7, testHalving)
	if st.Block.Unspendables.BIP30 != subsidy || st.Block.Coinbase != 0 || st.Block.Unspendables.UnclaimedRewards != testFee {
		t.Fatalf("bip30 block: %+v", st.Block)
	}
	prev := mustLookup(t, x, &c, 6)
	// Only the spend transaction's output is new: the coinbase's is not.
	if st.TxOuts != prev.TxOuts {
		t.Fatalf("txouts %d, want %d", st.TxOuts, prev.TxOuts)
	}
}

// TestReorgKeepsStaleRecords checks that a rewind restores the state of
// the fork point, that the records of the blocks taken back stay readable
// by hash, and that the new branch is indexed correctly on top.
func TestReorgKeepsStaleRecords(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(30, 0, all)
	x := openTest(t, t.TempDir(), 0)
	defer x.Close()
	connectAll(t, x, &c, 0)
	stale := make([]Stats, 0, 10)
	for h := 20; h < 30; h++ {
		stale = append(stale, mustLookup(t, x, &c, h))
	}
	if err := x.Rewind(19, all.block); err != nil {
		t.Fatal(err)
	}
	if _, h := x.Tip(); h != 19 {
		t.Fatalf("tip height %d after rewind", h)
	}
	var d testChain
	d.blocks, d.spent, d.sets = c.blocks[:20:20], c.spent[:20:20], c.sets[:20:20]
	d.extend(32, 1, all)
	connectAll(t, x, &d, 20)
	for h := 18; h < 32; h++ {
		d.check(t, mustLookup(t, x, &d, h))
	}
	for _, st := range stale {
		got, ok, err := x.Lookup(st.Hash, st.Height)
		if err != nil || !ok || got != st {
			t.Fatalf("stale block at %d: ok %v %v", st.Height, ok, err)
		}
	}
	// A block the index never saw.
	if _, ok, err := x.Lookup(wire.Hash{1}, 5); ok || err != nil {
		t.Fatalf("unknown block: ok %v %v", ok, err)
	}
	// Back to the first branch: its blocks are reindexed identically.
	if err := x.CatchUp(context.Background(), c.source(all)); err != nil {
		t.Fatal(err)
	}
	for h := 18; h < 30; h++ {
		c.check(t, mustLookup(t, x, &c, h))
	}
}

// TestRewindToEmpty checks that rewinding below genesis empties the index
// and that it can be rebuilt.
func TestRewindToEmpty(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(5, 0, all)
	x := openTest(t, t.TempDir(), 0)
	defer x.Close()
	connectAll(t, x, &c, 0)
	if err := x.Rewind(-1, all.block); err != nil {
		t.Fatal(err)
	}
	if _, h := x.Tip(); h != -1 {
		t.Fatalf("tip height %d", h)
	}
	if err := x.BlockConnected(c.blocks[1], 1, c.spent[1]); !errors.Is(err, ErrNotContiguous) {
		t.Fatalf("block 1 on an empty index: %v", err)
	}
	connectAll(t, x, &c, 0)
	c.check(t, mustLookup(t, x, &c, 4))
}

// TestConnectRules checks BlockConnected's contiguity and argument checks.
func TestConnectRules(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(6, 0, all)
	x := openTest(t, t.TempDir(), 0)
	defer x.Close()
	connectAll(t, x, &c, 0)
	if err := x.BlockConnected(c.blocks[3], 3, c.spent[3]); err != nil {
		t.Fatalf("replay of an indexed block: %v", err)
	}
	var d testChain
	d.extend(7, 1, all)
	if err := x.BlockConnected(d.blocks[3], 3, d.spent[3]); !errors.Is(err, ErrNotContiguous) {
		t.Fatalf("sibling at an indexed height: %v", err)
	}
	if err := x.BlockConnected(d.blocks[6], 6, d.spent[6]); !errors.Is(err, ErrNotContiguous) {
		t.Fatalf("block on another parent: %v", err)
	}
	c.extend(7, 0, all)
	if err := x.BlockConnected(c.blocks[6], 6, nil); !errors.Is(err, ErrInvalidArg) {
		t.Fatalf("missing spent outputs: %v", err)
	}
	two := append(append([]database.UtxoEntry(nil), c.spent[6]...), c.spent[6]...)
	if err := x.BlockConnected(c.blocks[6], 6, two); !errors.Is(err, ErrInvalidArg) {
		t.Fatalf("extra spent outputs: %v", err)
	}
	if _, h := x.Tip(); h != 5 {
		t.Fatalf("a refused block moved the tip to %d", h)
	}
	if err := x.BlockConnected(c.blocks[6], 6, c.spent[6]); err != nil {
		t.Fatal(err)
	}
	c.check(t, mustLookup(t, x, &c, 6))
}

// TestReopenRestoresState checks that the tip and the running MuHash
// survive a restart, so indexing continues where it stopped.
func TestReopenRestoresState(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(40, 0, all)
	dir := t.TempDir()
	x := openTest(t, dir, 0)
	c2 := c
	c2.truncate(25)
	connectAll(t, x, &c2, 0)
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x = openTest(t, dir, 0)
	defer x.Close()
	if h, height := x.Tip(); h != c.hash(24) || height != 24 {
		t.Fatalf("tip after reopen %v %d", h, height)
	}
	connectAll(t, x, &c, 25)
	c.check(t, mustLookup(t, x, &c, 39))
}

// TestCorruptStateDetected checks that open refuses a MuHash state that
// does not match the tip, a wrong format version and records of the wrong
// size, with errors naming the remedy.
func TestCorruptStateDetected(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(4, 0, all)
	for _, tc := range []struct {
		name string
		key  []byte
		val  func([]byte) []byte
		kind ErrorKind
	}{
		{"muhash state", []byte{keyMuHash}, func(v []byte) []byte { v[0] ^= 1; return v }, ErrCorrupt},
		{"muhash length", []byte{keyMuHash}, func(v []byte) []byte { return v[:10] }, ErrCorrupt},
		{"version", []byte{keyVersion}, func([]byte) []byte { return []byte{9, 0, 0, 0} }, ErrUnknownVersion},
		{"tip record", func() []byte { k := heightKey(3); return k[:] }(), func(v []byte) []byte { return v[:len(v)-1] }, ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			x := openTest(t, dir, 0)
			connectAll(t, x, &c, 0)
			x.Close()
			db, err := leveldb.OpenFile(filepath.Join(dir, IndexSubdir), nil)
			if err != nil {
				t.Fatal(err)
			}
			v, err := db.Get(tc.key, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Put(tc.key, tc.val(v), nil); err != nil {
				t.Fatal(err)
			}
			db.Close()
			_, err = OpenIndex(dir, Options{HalvingInterval: testHalving})
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), "restart with -coinstatsindex)") {
				t.Fatalf("open: %v, want %v naming the remedy", err, tc.kind)
			}
		})
	}
}

// TestCorruptFilesWording checks that corruption LevelDB itself finds is
// ErrCorrupt worded as Core words it, with the remedy.
func TestCorruptFilesWording(t *testing.T) {
	dir := t.TempDir()
	openTest(t, dir, 0).Close()
	manifests, err := filepath.Glob(filepath.Join(dir, IndexSubdir, "MANIFEST-*"))
	if err != nil || len(manifests) == 0 {
		t.Fatalf("no manifest: %v", err)
	}
	for _, m := range manifests {
		if err := os.WriteFile(m, bytes.Repeat([]byte{0x5a}, 64), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = OpenIndex(dir, Options{HalvingInterval: testHalving})
	if !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), "coinstats index corrupt: Fatal LevelDB error: Corruption: open ") ||
		!strings.Contains(err.Error(), "-reindex") {
		t.Fatalf("open: %v", err)
	}
}

// TestRewindChecksDigest checks that undoing blocks whose data does not
// match what was indexed is caught by the digest recorded at the target.
func TestRewindChecksDigest(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(10, 0, all)
	x := openTest(t, t.TempDir(), 0)
	defer x.Close()
	connectAll(t, x, &c, 0)
	lying := func(h wire.Hash) (*wire.MsgBlock, []database.UtxoEntry, error) {
		b, spent, err := all.block(h)
		if err != nil || len(spent) == 0 {
			return b, spent, err
		}
		wrong := append([]database.UtxoEntry(nil), spent...)
		wrong[0].Amount++
		return b, wrong, nil
	}
	if err := x.Rewind(7, lying); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("rewind with wrong undo data: %v", err)
	}
	if _, h := x.Tip(); h != 9 {
		t.Fatalf("failed rewind moved the tip to %d", h)
	}
	if err := x.Rewind(7, all.block); err != nil {
		t.Fatal(err)
	}
	c.check(t, mustLookup(t, x, &c, 7))
}

// TestCatchUpAfterReorgWhileDown checks CatchUp from an index whose tip is
// on a branch the chain left while the index was not running.
func TestCatchUpAfterReorgWhileDown(t *testing.T) {
	all := byHash{}
	var c testChain
	c.extend(30, 0, all)
	x := openTest(t, t.TempDir(), 0)
	defer x.Close()
	if err := x.CatchUp(context.Background(), c.source(all)); err != nil {
		t.Fatal(err)
	}
	var d testChain
	d.blocks, d.spent, d.sets = c.blocks[:22:22], c.spent[:22:22], c.sets[:22:22]
	d.extend(35, 2, all)
	if err := x.CatchUp(context.Background(), d.source(all)); err != nil {
		t.Fatal(err)
	}
	if h, height := x.Tip(); h != d.hash(34) || height != 34 {
		t.Fatalf("tip %v %d", h, height)
	}
	for h := 20; h < 35; h++ {
		d.check(t, mustLookup(t, x, &d, h))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var e testChain
	e.blocks, e.spent, e.sets = d.blocks, d.spent, d.sets
	e.extend(40, 2, all)
	if err := x.CatchUp(ctx, e.source(all)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled catch-up: %v", err)
	}
}

// TestWorkersAgree checks that a block whose MuHash work is split between
// goroutines gives the same digest as one goroutine.
func TestWorkersAgree(t *testing.T) {
	all := byHash{}
	c := testChain{wide: map[int32]int{4: 3000}}
	c.extend(6, 0, all)
	one, four := openTest(t, t.TempDir(), 1), openTest(t, t.TempDir(), 4)
	defer one.Close()
	defer four.Close()
	connectAll(t, one, &c, 0)
	connectAll(t, four, &c, 0)
	for h := range c.blocks {
		a, b := mustLookup(t, one, &c, h), mustLookup(t, four, &c, h)
		if a != b {
			t.Fatalf("height %d differs between 1 and 4 workers", h)
		}
		c.check(t, a)
	}
}
