package database

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

// batchKeys records the keys of a batch's records.
type batchKeys struct{ coins, other [][]byte }

func (k *batchKeys) add(key []byte) {
	key = bytes.Clone(key)
	if key[0] == prefixCoin {
		k.coins = append(k.coins, key)
	} else {
		k.other = append(k.other, key)
	}
}

func (k *batchKeys) Put(key, _ []byte) { k.add(key) }
func (k *batchKeys) Delete(key []byte) { k.add(key) }

// TestFlushBatchesInKeyOrder: entries changed while a split flush writes,
// ahead of its position and behind it, join its batches in key order, so
// that every batch's coins continue the ascending run of the batches
// before it (a table LevelDB makes of a batch then spans only its own run
// of keys), the markers of the last batch included; and LevelDB ends with
// exactly the snapshot.
func TestFlushBatchesInKeyOrder(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 64 << 20, MaxBatchBytes: 32 << 10})
	const n = 20000
	want := make(model, n)
	ops := make([]wire.OutPoint, n)
	for i := range n {
		ops[i] = benchOutPoint(i)
		e := UtxoEntry{Amount: int64(i + 1), PkScript: benchScript, Height: 1}
		if err := c.AddEntry(&ops[i], &e, false); err != nil {
			t.Fatal(err)
		}
		want[ops[i]] = e
	}
	r := rand.New(rand.NewPCG(3, 4))
	order := r.Perm(n)
	var batches []batchKeys
	testBatchHook = func(b *leveldb.Batch) {
		var k batchKeys
		if err := b.Replay(&k); err != nil {
			t.Error(err)
		}
		batches = append(batches, k)
	}
	spent := 0
	testWriteHook = func() {
		// Spend and re-add coins anywhere in the key space while the
		// batch waits (the hook runs without the cache lock).
		for range 150 {
			if spent == len(order) {
				return
			}
			op := &ops[order[spent]]
			spent++
			if ok, err := c.SpendEntry(op, nil); err != nil || !ok {
				t.Errorf("spend %v: %v %v", op, ok, err)
			}
			if spent%3 == 0 {
				e := UtxoEntry{Amount: 7, PkScript: benchScript, Height: 2}
				if err := c.AddEntry(op, &e, true); err != nil {
					t.Error(err)
				}
			}
		}
	}
	defer func() { testBatchHook, testWriteHook = nil, nil }()
	if err := <-c.FlushAsync(blockHash(1), 1); err != nil {
		t.Fatal(err)
	}
	testBatchHook, testWriteHook = nil, nil
	if len(batches) < 10 || spent < 1000 {
		t.Fatalf("%d batches, %d coins changed during the write: flush not exercised", len(batches), spent)
	}
	var prev []byte
	for i, b := range batches {
		// Only the last batch holds the markers, and their keys sort
		// after the coins.
		want := map[bool]string{false: "", true: string([]byte{keyBestBlock, keyHeadBlocks})}[i == len(batches)-1]
		if string(bytes.Join(b.other, nil)) != want {
			t.Errorf("batch %d of %d holds non-coin keys %q, want %q", i, len(batches), b.other, want)
		}
		for _, k := range b.coins {
			if prev != nil && bytes.Compare(prev, k) >= 0 {
				t.Fatalf("batch %d: coin key %x after %x", i, k, prev)
			}
			prev = k
		}
		for _, k := range b.other {
			if bytes.Compare(k, prev) <= 0 {
				t.Fatalf("batch %d: marker key %x before coin key %x", i, k, prev)
			}
		}
	}
	compareModels(t, "after the flush", dbContents(t, cs), want)
	if best := cs.BestBlock(); best.Height != 1 || best.Hash != blockHash(1) {
		t.Fatalf("best block %+v", best)
	}
	if _, ok := cs.HeadBlocks(); ok {
		t.Fatal("head-blocks marker left after the flush")
	}
}
