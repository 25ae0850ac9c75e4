package blockfilter

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

// testChain is a synthetic chain: block i spends an output of block i-1.
type testChain struct {
	blocks  []*wire.MsgBlock
	scripts [][][]byte
	headers []wire.Hash
}

func p2wpkh(seed uint32, n int) []byte {
	s := make([]byte, 22)
	s[0], s[1] = 0x00, 0x14
	binary.LittleEndian.PutUint32(s[2:], seed)
	binary.LittleEndian.PutUint32(s[6:], uint32(n))
	return s
}

// makeBlock builds a block on prev; branch makes sibling blocks differ.
func makeBlock(prev wire.Hash, height int32, branch uint32) (*wire.MsgBlock, [][]byte) {
	cb := &wire.MsgTx{Version: 1,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: 0xffffffff}, SignatureScript: []byte{4, byte(height), byte(height >> 8), byte(branch)}}},
		TxOut: []wire.TxOut{{Value: 50, PkScript: p2wpkh(branch, int(height))}, {PkScript: []byte{0x6a, 0x24}}},
	}
	txs := []*wire.MsgTx{cb}
	var prevScripts [][]byte
	if height > 0 {
		spend := &wire.MsgTx{Version: 2,
			TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: prev}}},
			TxOut: []wire.TxOut{{Value: 1, PkScript: p2wpkh(branch+100, int(height))}},
		}
		txs = append(txs, spend)
		prevScripts = [][]byte{p2wpkh(branch, int(height-1))}
	}
	b := &wire.MsgBlock{Header: wire.BlockHeader{Version: 1, PrevBlock: prev, Nonce: branch, Timestamp: uint32(height)}, Transactions: txs}
	return b, prevScripts
}

// extend adds blocks to c up to length n on branch.
func (c *testChain) extend(n int, branch uint32) {
	for h := len(c.blocks); h < n; h++ {
		var prev, prevHeader wire.Hash
		if h > 0 {
			prev = c.blocks[h-1].BlockHash()
			prevHeader = c.headers[h-1]
		}
		b, s := makeBlock(prev, int32(h), branch)
		c.blocks = append(c.blocks, b)
		c.scripts = append(c.scripts, s)
		c.headers = append(c.headers, BuildBasic(b, s).Header(&prevHeader))
	}
}

func (c *testChain) truncate(n int) {
	c.blocks, c.scripts, c.headers = c.blocks[:n], c.scripts[:n], c.headers[:n]
}

func (c *testChain) hash(h int) wire.Hash { return c.blocks[h].BlockHash() }

func (c *testChain) source() ChainSource {
	return ChainSource{
		TipHeight: func() int32 { return int32(len(c.blocks) - 1) },
		HashAt: func(h int32) (wire.Hash, bool) {
			if h < 0 || int(h) >= len(c.blocks) {
				return wire.Hash{}, false
			}
			return c.hash(int(h)), true
		},
		Block: func(h int32) (*wire.MsgBlock, [][]byte, error) {
			return c.blocks[h], c.scripts[h], nil
		},
	}
}

func connectAll(t *testing.T, x *Index, c *testChain, from int) {
	t.Helper()
	for h := from; h < len(c.blocks); h++ {
		if err := x.BlockConnected(c.blocks[h], int32(h), c.scripts[h]); err != nil {
			t.Fatalf("connect %d: %v", h, err)
		}
	}
}

func openTest(t *testing.T, dir string) *Index {
	t.Helper()
	x, err := OpenIndex(dir, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestIndexQueries(t *testing.T) {
	var c testChain
	c.extend(2501, 0)
	x := openTest(t, t.TempDir())
	defer x.Close()
	connectAll(t, x, &c, 0)
	if h, height := x.Tip(); h != c.hash(2500) || height != 2500 {
		t.Fatalf("tip %v %d", h, height)
	}
	for _, h := range []int{0, 1, 1234, 2500} {
		f, err := x.FilterByHash(c.hash(h))
		if err != nil {
			t.Fatal(err)
		}
		if string(f) != string(BuildBasic(c.blocks[h], c.scripts[h]).Bytes()) {
			t.Fatalf("height %d: filter differs", h)
		}
		hdr, err := x.FilterHeaderByHash(c.hash(h))
		if err != nil || hdr != c.headers[h] {
			t.Fatalf("height %d: header %v %v", h, hdr, err)
		}
	}
	if _, err := x.FilterHeadersRange(0, wire.Hash{9}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown stop: %v", err)
	}
	if _, err := x.FilterByHash(wire.Hash{1}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown block: %v", err)
	}

	r, err := x.FilterHeadersRange(0, c.hash(1999))
	if err != nil || len(r.Headers) != 2000 || r.PrevHeader != (wire.Hash{}) {
		t.Fatalf("headers 0..1999: %d %v", len(r.Headers), err)
	}
	r, err = x.FilterHeadersRange(501, c.hash(2500))
	if err != nil || len(r.Headers) != 2000 || r.PrevHeader != c.headers[500] {
		t.Fatalf("headers 501..2500: %d %v", len(r.Headers), err)
	}
	for i, h := range r.Headers {
		prev := r.PrevHeader
		if i > 0 {
			prev = r.Headers[i-1]
		}
		if h != c.headers[501+i] || HeaderFromHash(r.FilterHashes[i], &prev) != h {
			t.Fatalf("header %d wrong", 501+i)
		}
	}
	for name, f := range map[string]func() error{
		"2001 headers": func() error { _, err := x.FilterHeadersRange(0, c.hash(2000)); return err },
		"start > stop": func() error { _, err := x.FilterHeadersRange(11, c.hash(10)); return err },
		"1001 filters": func() error {
			return x.FiltersRange(0, c.hash(1000), func(wire.Hash, []byte) error { return nil })
		},
	} {
		if err := f(); !errors.Is(err, ErrBadRange) {
			t.Errorf("%s: %v", name, err)
		}
	}

	n := 0
	err = x.FiltersRange(1000, c.hash(1999), func(h wire.Hash, f []byte) error {
		if h != c.hash(1000+n) || string(f) != string(BuildBasic(c.blocks[1000+n], c.scripts[1000+n]).Bytes()) {
			t.Fatalf("filter %d wrong", 1000+n)
		}
		n++
		return nil
	})
	if err != nil || n != 1000 {
		t.Fatalf("filters: %d %v", n, err)
	}
	stopErr := errors.New("stop")
	if err := x.FiltersRange(5, c.hash(9), func(wire.Hash, []byte) error { return stopErr }); err != stopErr {
		t.Fatalf("callback error: %v", err)
	}

	cp, err := x.Checkpoints(c.hash(2500))
	if err != nil || len(cp) != 2 || cp[0] != c.headers[1000] || cp[1] != c.headers[2000] {
		t.Fatalf("checkpoints %v %v", cp, err)
	}
	if cp, err := x.Checkpoints(c.hash(999)); err != nil || len(cp) != 0 {
		t.Fatalf("checkpoints below 1000: %v %v", cp, err)
	}
}

func TestIndexReorgAndRestart(t *testing.T) {
	dir := t.TempDir()
	var c testChain
	c.extend(20, 0)
	x := openTest(t, dir)
	connectAll(t, x, &c, 0)

	// Replays are no-ops; gaps are refused.
	if err := x.BlockConnected(c.blocks[7], 7, c.scripts[7]); err != nil {
		t.Fatal(err)
	}
	var far testChain
	far.extend(30, 0)
	if err := x.BlockConnected(far.blocks[25], 25, far.scripts[25]); !errors.Is(err, ErrNotContiguous) {
		t.Fatalf("gap: %v", err)
	}

	// Disconnect two blocks, connect a two-block-longer branch.
	stale := c.hash(19)
	for h := 19; h >= 18; h-- {
		if err := x.BlockDisconnected(c.hash(h), int32(h)); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.BlockDisconnected(c.hash(19), 19); err != nil { // repeated: ignored
		t.Fatal(err)
	}
	c.truncate(18)
	c.extend(22, 1)
	connectAll(t, x, &c, 18)
	if _, err := x.FilterHeadersRange(10, stale); !errors.Is(err, ErrNotFound) {
		t.Fatalf("stale stop: %v", err)
	}
	if _, err := x.FilterByHash(stale); err != nil {
		t.Fatalf("stale filter by hash: %v", err)
	}

	// A block whose parent is indexed below the tip reorganises
	// implicitly.
	c.truncate(15)
	c.extend(17, 2)
	connectAll(t, x, &c, 15)
	if _, h := x.Tip(); h != 16 {
		t.Fatalf("tip height %d after implicit reorg", h)
	}
	r, err := x.FilterHeadersRange(0, c.hash(16))
	if err != nil || len(r.Headers) != 17 || r.Headers[16] != c.headers[16] {
		t.Fatalf("range after reorg: %v", err)
	}
	x.Close()
	if err := x.BlockConnected(c.blocks[16], 17, nil); err == nil {
		t.Fatal("write after close")
	}

	x = openTest(t, dir)
	defer x.Close()
	if h, height := x.Tip(); h != c.hash(16) || height != 16 {
		t.Fatalf("tip after restart %v %d", h, height)
	}
	c.extend(30, 2)
	connectAll(t, x, &c, 17)
	hdr, _ := x.FilterHeaderByHash(c.hash(29))
	if hdr != c.headers[29] {
		t.Fatal("header chain broken across restart")
	}
}

func TestCatchUp(t *testing.T) {
	var c testChain
	c.extend(60, 0)
	x := openTest(t, t.TempDir())
	defer x.Close()
	ctx := context.Background()
	if err := x.CatchUp(ctx, c.source()); err != nil {
		t.Fatal(err)
	}
	if _, h := x.Tip(); h != 59 {
		t.Fatalf("tip %d", h)
	}
	// The chain reorganises while the index is not listening.
	c.truncate(50)
	c.extend(70, 3)
	if err := x.CatchUp(ctx, c.source()); err != nil {
		t.Fatal(err)
	}
	if hash, h := x.Tip(); h != 69 || hash != c.hash(69) {
		t.Fatalf("tip %d", h)
	}
	hdr, _ := x.FilterHeaderByHash(c.hash(69))
	if hdr != c.headers[69] {
		t.Fatal("header chain wrong after catch-up reorg")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	c.extend(80, 3)
	if err := x.CatchUp(cctx, c.source()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestIndexCorrupt(t *testing.T) {
	dir := t.TempDir()
	var c testChain
	c.extend(5, 0)
	x := openTest(t, dir)
	connectAll(t, x, &c, 0)
	x.Close()

	path := filepath.Join(dir, filepath.FromSlash(IndexSubdir))
	poke := func(key, val []byte) {
		db, err := leveldb.OpenFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if val == nil {
			err = db.Delete(key, nil)
		} else {
			err = db.Put(key, val, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	h3 := c.hash(3)
	fk := hashKey(prefixFilter, &h3)
	poke(fk[:], []byte{0xfd, 0xff, 0xff, 1})
	x = openTest(t, dir)
	_, err := x.FilterByHash(h3)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "--reindex") {
		t.Fatalf("corrupt filter: %v", err)
	}
	if err := x.FiltersRange(0, c.hash(4), func(wire.Hash, []byte) error { return nil }); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt filter in range: %v", err)
	}
	hk := hashKey(prefixHash, &h3)
	x.Close()
	poke(hk[:], []byte{1, 2, 3})
	x = openTest(t, dir)
	if _, err := x.FilterHeaderByHash(h3); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt header: %v", err)
	}
	x.Close()

	k4 := heightKey(4)
	poke(k4[:], nil) // the tip's entry
	if _, err := OpenIndex(dir, IndexOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("missing tip entry: %v", err)
	}
	poke([]byte{keyVersion}, []byte{9, 0, 0, 0})
	_, err = OpenIndex(dir, IndexOptions{})
	if !errors.Is(err, ErrUnknownVersion) || !strings.Contains(err.Error(), "--blockfilterindex") {
		t.Fatalf("version: %v", err)
	}
}

func TestServeMessages(t *testing.T) {
	var c testChain
	c.extend(1201, 0)
	x := openTest(t, t.TempDir())
	defer x.Close()
	connectAll(t, x, &c, 0)

	f, hdr, err := x.BlockFilter(c.hash(7))
	if err != nil || hdr != c.headers[7] || string(f) != string(BuildBasic(c.blocks[7], c.scripts[7]).Bytes()) {
		t.Fatalf("BlockFilter: %v", err)
	}
	var got []*wire.MsgCFilter
	err = x.ServeGetCFilters(&wire.MsgGetCFilters{StartHeight: 3, StopHash: c.hash(5)}, func(m *wire.MsgCFilter) error {
		got = append(got, m)
		return nil
	})
	if err != nil || len(got) != 3 || got[2].BlockHash != c.hash(5) {
		t.Fatalf("cfilters: %d %v", len(got), err)
	}
	// The receiver derives the headers from the hashes.
	ch, err := x.ServeGetCFHeaders(&wire.MsgGetCFHeaders{StartHeight: 100, StopHash: c.hash(200)})
	if err != nil || len(ch.FilterHashes) != 101 {
		t.Fatalf("cfheaders: %v", err)
	}
	prev := ch.PrevFilterHeader
	for _, fh := range ch.FilterHashes {
		prev = HeaderFromHash(fh, &prev)
	}
	if prev != c.headers[200] {
		t.Fatal("cfheaders do not chain to the header of the stop block")
	}
	cp, err := x.ServeGetCFCheckpt(&wire.MsgGetCFCheckpt{StopHash: c.hash(1200)})
	if err != nil || len(cp.FilterHeaders) != 1 || cp.FilterHeaders[0] != c.headers[1000] {
		t.Fatalf("cfcheckpt: %v", err)
	}
	if _, err := x.ServeGetCFCheckpt(&wire.MsgGetCFCheckpt{FilterType: 1, StopHash: c.hash(1)}); !errors.Is(err, ErrInvalidArg) {
		t.Fatalf("filter type 1: %v", err)
	}
}

// TestConcurrentReads runs range queries while blocks are connected and
// disconnected; every answer must be internally consistent (run with
// -race).
func TestConcurrentReads(t *testing.T) {
	var c testChain
	c.extend(300, 0)
	x := openTest(t, t.TempDir())
	defer x.Close()
	connectAll(t, x, &c, 0)
	var alt testChain
	alt.blocks, alt.scripts, alt.headers = c.blocks[:250:250], c.scripts[:250:250], c.headers[:250:250]
	alt.extend(300, 5)

	done := make(chan struct{})
	go func() {
		defer close(done)
		for round := range 6 {
			from := &c
			if round%2 == 0 {
				from = &alt
			}
			// Connecting the other branch's block 250 reorganises.
			for h := 250; h < 300; h++ {
				if err := x.BlockConnected(from.blocks[h], int32(h), from.scripts[h]); err != nil {
					t.Errorf("connect %d: %v", h, err) // not Fatal: another goroutine
					return
				}
			}
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-done:
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("writer did not finish")
		}
		r, err := x.FilterHeadersRange(200, c.hash(249))
		if err != nil || len(r.Headers) != 50 || r.Headers[49] != c.headers[249] {
			t.Fatalf("stable range: %v", err)
		}
	}
}
