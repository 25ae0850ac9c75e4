package database

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/btcnode/btcd/internal/muhash"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// hashCoin is a coin with its outpoint, as the tests add it.
type hashCoin struct {
	op wire.OutPoint
	e  UtxoEntry
}

// flushedChainState writes coins (in the given order) through a cache and
// flushes them at height 7.
func flushedChainState(t testing.TB, coins []hashCoin) *ChainState {
	t.Helper()
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 64 << 20})
	for i := range coins {
		if err := c.AddEntry(&coins[i].op, &coins[i].e, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(wire.Hash{7}, 7); err != nil {
		t.Fatal(err)
	}
	return cs
}

func sha256d(b []byte) wire.Hash {
	first := sha256.Sum256(b)
	return sha256.Sum256(first[:])
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHashUtxoSetHandBuilt spells out Core's TxOutSer bytes of three coins
// and checks both digests against them. The coins are added out of
// Core's order; the expected hash_serialized_3 preimage is in that order.
func TestHashUtxoSetHandBuilt(t *testing.T) {
	txA := wire.Hash(bytes.Repeat([]byte{0xaa}, 32))
	txB := wire.Hash(bytes.Repeat([]byte{0x01}, 32))
	p2pkh := unhex(t, "76a914"+strings.Repeat("22", 20)+"88ac")
	// Uncompressed P2PK of the secp256k1 generator: the chainstate stores
	// only x and must restore y exactly for the hash to match Core.
	gen := "04" + "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798" +
		"483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
	p2pk := unhex(t, "41"+gen+"ac")
	coins := []hashCoin{
		// txA:1, coinbase at height 5, 50 BTC to P2PKH.
		{wire.OutPoint{Hash: txA, Index: 1}, UtxoEntry{Amount: 5_000_000_000, PkScript: p2pkh, Height: 5, IsCoinBase: true}},
		// txB:0, height 100, 1 sat to OP_TRUE.
		{wire.OutPoint{Hash: txB, Index: 0}, UtxoEntry{Amount: 1, PkScript: []byte{0x51}, Height: 100}},
		// txA:0, coinbase at height 5, 2500 sat to uncompressed P2PK.
		{wire.OutPoint{Hash: txA, Index: 0}, UtxoEntry{Amount: 2500, PkScript: p2pk, Height: 5, IsCoinBase: true}},
	}
	serA1 := unhex(t, strings.Repeat("aa", 32)+" 01000000"+" 0b000000"+ // 5*2+1
		" 00f2052a01000000"+" 19 76a914"+strings.Repeat("22", 20)+"88ac")
	serB0 := unhex(t, strings.Repeat("01", 32)+" 00000000"+" c8000000"+ // 100*2
		" 0100000000000000"+" 01 51")
	serA0 := unhex(t, strings.Repeat("aa", 32)+" 00000000"+" 0b000000"+
		" c409000000000000"+" 43 41"+gen+"ac")
	for i, want := range [][]byte{serA1, serB0, serA0} {
		c := coins[i]
		if got := AppendTxOutSer(nil, &c.op.Hash, c.op.Index, &c.e); !bytes.Equal(got, want) {
			t.Fatalf("coin %d: TxOutSer %x, want %x", i, got, want)
		}
	}

	cs := flushedChainState(t, coins)
	info, err := cs.HashUtxoSet(HashSerialized3 | HashMuHash)
	if err != nil {
		t.Fatal(err)
	}
	// Core's order: txid bytes ascending (01.. before aa..), then index.
	wantSer := sha256d(slices.Concat(serB0, serA0, serA1))
	if info.HashSerialized3 != wantSer {
		t.Errorf("hash_serialized_3 %v, want %v", info.HashSerialized3, wantSer)
	}
	mh := muhash.New()
	for _, b := range [][]byte{serA1, serB0, serA0} {
		mh.Insert(b)
	}
	if want := wire.Hash(mh.Finalize()); info.MuHash != want {
		t.Errorf("muhash %v, want %v", info.MuHash, want)
	}
	want := UtxoSetInfo{Best: BlockMarker{Hash: wire.Hash{7}, Height: 7}, Outputs: 3, Txs: 2,
		TotalAmount: 5_000_002_501, BogoSize: 3*50 + 25 + 1 + 67,
		HashSerialized3: info.HashSerialized3, MuHash: info.MuHash, DiskBytes: info.DiskBytes}
	if info != want {
		t.Errorf("info %+v\nwant %+v", info, want)
	}
	st, err := cs.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.DiskBytes != info.DiskBytes || st.Outputs != info.Outputs || st.Txs != info.Txs {
		t.Errorf("Stats %+v disagrees with %+v", st, info)
	}

	// Each digest alone gives the same value; none gives neither.
	for _, k := range []UtxoHashKind{HashSerialized3, HashMuHash, 0} {
		got, err := cs.HashUtxoSet(k)
		if err != nil {
			t.Fatal(err)
		}
		if (k == HashSerialized3) != (got.HashSerialized3 == wantSer) ||
			(k == HashMuHash) != (got.MuHash == info.MuHash) ||
			got.Txs != 2 || got.Outputs != 3 || got.BogoSize != info.BogoSize {
			t.Errorf("kind %d: %+v", k, got)
		}
	}
}

// TestHashUtxoSetIndexOrder covers the case where the chainstate's key
// order is not Core's: VARINT(16512) sorts before VARINT(16511), but Core
// hashes a transaction's outputs by numeric index.
func TestHashUtxoSetIndexOrder(t *testing.T) {
	tx := wire.Hash{0x42}
	other := wire.Hash{0x43}
	idx := []uint32{16512, 3, 16511, 200, 1 << 31}
	var coins []hashCoin
	for i, n := range idx {
		coins = append(coins, hashCoin{wire.OutPoint{Hash: tx, Index: n},
			UtxoEntry{Amount: int64(1000 + i), PkScript: []byte{0x51, byte(i)}, Height: 9}})
	}
	coins = append(coins, hashCoin{wire.OutPoint{Hash: other, Index: 0},
		UtxoEntry{Amount: 5, PkScript: []byte{0x52}, Height: 10}})
	cs := flushedChainState(t, coins)

	// The premise: LevelDB returns 16512 and 2^31 before 16511.
	it := cs.db.NewIterator(util.BytesPrefix([]byte{prefixCoin}), nil)
	var seen []uint64
	for it.Next() {
		n, _, _ := ReadVarInt(it.Key()[33:])
		seen = append(seen, n)
	}
	it.Release()
	if fmt.Sprint(seen) != "[3 200 16512 2147483648 16511 0]" {
		t.Fatalf("key order %v", seen)
	}

	byIndex := slices.Clone(coins[:len(idx)])
	slices.SortFunc(byIndex, func(a, b hashCoin) int { return int(int64(a.op.Index) - int64(b.op.Index)) })
	var pre []byte
	for _, c := range append(byIndex, coins[len(idx)]) {
		pre = AppendTxOutSer(pre, &c.op.Hash, c.op.Index, &c.e)
	}
	info, err := cs.HashUtxoSet(HashSerialized3 | HashMuHash)
	if err != nil {
		t.Fatal(err)
	}
	if want := sha256d(pre); info.HashSerialized3 != want {
		t.Errorf("hash_serialized_3 %v, want %v (numeric index order)", info.HashSerialized3, want)
	}
	// MuHash ignores order: inserting in reverse gives the same digest.
	mh := muhash.New()
	for i := len(coins) - 1; i >= 0; i-- {
		mh.Insert(AppendTxOutSer(nil, &coins[i].op.Hash, coins[i].op.Index, &coins[i].e))
	}
	if want := wire.Hash(mh.Finalize()); info.MuHash != want {
		t.Errorf("muhash %v, want %v", info.MuHash, want)
	}
	if info.Txs != 2 || info.Outputs != 6 {
		t.Errorf("txs %d outputs %d", info.Txs, info.Outputs)
	}
}

func TestHashUtxoSetEmptyAndErrors(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	info, err := cs.HashUtxoSet(HashSerialized3 | HashMuHash)
	if err != nil {
		t.Fatal(err)
	}
	if info.Best.Height != -1 || info.Outputs != 0 || info.HashSerialized3 != sha256d(nil) ||
		info.MuHash != muhash.New().Finalize() {
		t.Errorf("empty set: %+v", info)
	}

	// A snapshot between two batches of a flush: head-blocks marker, no
	// best block.
	hb := appendMarker(appendMarker(nil, BlockMarker{Hash: wire.Hash{2}, Height: 2}), BlockMarker{Hash: wire.Hash{1}, Height: 1})
	if err := cs.db.Put([]byte{keyHeadBlocks}, hb, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.HashUtxoSet(HashMuHash); !errors.Is(err, ErrFlushInProgress) {
		t.Errorf("mid-flush snapshot: %v", err)
	}
	cs.db.Delete([]byte{keyHeadBlocks}, nil)

	// Corrupt records.
	for _, kv := range [][2][]byte{
		{append([]byte{prefixCoin}, 1, 2, 3), {0}},
		{append(append([]byte{prefixCoin}, make([]byte, 32)...), 0x80), {0}}, // truncated VARINT
		{append(append([]byte{prefixCoin}, make([]byte, 32)...), 0), {0x80}}, // truncated value
		{append(append([]byte{prefixCoin}, make([]byte, 32)...), 0), {0, 0, 0, 0}},
	} {
		cs.db.Put(kv[0], kv[1], nil)
		if _, err := cs.HashUtxoSet(HashSerialized3 | HashMuHash); !errors.Is(err, ErrCorrupt) {
			t.Errorf("key %x value %x: %v", kv[0], kv[1], err)
		}
		cs.db.Delete(kv[0], nil)
	}
}

// TestMuWorkersBatches forces many small batches through 1 to 3 workers
// and compares with inserting every coin into one MuHash.
func TestMuWorkersBatches(t *testing.T) {
	defer func(v int) { muBatchBytes = v }(muBatchBytes)
	muBatchBytes = 300
	coins := make([]hashCoin, 2000)
	want := muhash.New()
	for i := range coins {
		h := sha256.Sum256(binary.LittleEndian.AppendUint32(nil, uint32(i/3)))
		coins[i] = hashCoin{wire.OutPoint{Hash: h, Index: uint32(i % 3)},
			UtxoEntry{Amount: int64(i), PkScript: append([]byte{0x51}, h[:i%32]...), Height: int32(i)}}
		want.Insert(AppendTxOutSer(nil, &coins[i].op.Hash, coins[i].op.Index, &coins[i].e))
	}
	for n := 1; n <= 3; n++ {
		w := newMuWorkers(n)
		for i := range coins {
			w.insert(AppendTxOutSer(nil, &coins[i].op.Hash, coins[i].op.Index, &coins[i].e))
		}
		if got := w.finish(); got != want.Finalize() {
			t.Errorf("%d workers: %x", n, got)
		}
		w.stop() // after finish: no-op
	}
	// Abandoned midway: stop ends the goroutines.
	w := newMuWorkers(2)
	for i := range 100 {
		w.insert(AppendTxOutSer(nil, &coins[i].op.Hash, coins[i].op.Index, &coins[i].e))
	}
	w.stop()

	cs := flushedChainState(t, coins)
	info, err := cs.HashUtxoSet(HashMuHash)
	if err != nil || info.MuHash != want.Finalize() || info.Txs != 667 {
		t.Errorf("HashUtxoSet: %+v %v", info, err)
	}
}

// BenchmarkHashUtxoSet scans 100k synthetic P2WPKH coins (2 per
// transaction) for each hash type. cpu-ns/op is per coin and counts the
// muhash workers too.
func BenchmarkHashUtxoSet(b *testing.B) {
	const n = 100_000
	coins := make([]hashCoin, n)
	for i := range coins {
		var txid wire.Hash
		h := sha256.Sum256(binary.LittleEndian.AppendUint32(nil, uint32(i/2)))
		copy(txid[:], h[:])
		script := append([]byte{0x00, 0x14}, h[:20]...)
		coins[i] = hashCoin{wire.OutPoint{Hash: txid, Index: uint32(i % 2)},
			UtxoEntry{Amount: int64(1000 + i), PkScript: script, Height: int32(i / 1000)}}
	}
	cs := flushedChainState(b, coins)
	for _, k := range []struct {
		name string
		kind UtxoHashKind
	}{{"none", 0}, {"hash_serialized_3", HashSerialized3}, {"muhash", HashMuHash}, {"both", HashSerialized3 | HashMuHash}} {
		b.Run(k.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU(b)
			for b.Loop() {
				info, err := cs.HashUtxoSet(k.kind)
				if err != nil || info.Outputs != n {
					b.Fatal(info.Outputs, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/coin")
			cpu.report(b.N * n) // cpu-ns per coin, all goroutines
		})
	}
}

// TestForEachCoin visits every flushed coin once with its values, stops
// when asked, and reports the set's block.
func TestForEachCoin(t *testing.T) {
	var coins []hashCoin
	for i := range 20 {
		coins = append(coins, hashCoin{wire.OutPoint{Hash: wire.Hash{byte(i)}, Index: uint32(i % 3)},
			UtxoEntry{Amount: int64(i + 1), PkScript: []byte{0x51, byte(i)}, Height: int32(i), IsCoinBase: i%2 == 0}})
	}
	cs := flushedChainState(t, coins)
	seen := map[wire.OutPoint]UtxoEntry{}
	best, err := cs.ForEachCoin(func(op wire.OutPoint, e *UtxoEntry) bool {
		c := *e
		c.PkScript = slices.Clone(e.PkScript)
		seen[op] = c
		return true
	})
	if err != nil || best.Height != 7 || best.Hash != (wire.Hash{7}) {
		t.Fatalf("best %+v err %v", best, err)
	}
	if len(seen) != len(coins) {
		t.Fatalf("visited %d coins of %d", len(seen), len(coins))
	}
	for _, c := range coins {
		got, ok := seen[c.op]
		if !ok || got.Amount != c.e.Amount || !bytes.Equal(got.PkScript, c.e.PkScript) || got.Height != c.e.Height || got.IsCoinBase != c.e.IsCoinBase {
			t.Errorf("%v: %+v, want %+v", c.op, got, c.e)
		}
	}
	n := 0
	if _, err := cs.ForEachCoin(func(wire.OutPoint, *UtxoEntry) bool { n++; return n < 5 }); err != nil || n != 5 {
		t.Fatalf("early stop after %d coins, err %v", n, err)
	}
}
