package mempool

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// simulateFees feeds the estimator blocks in which transactions at three
// fee rates confirm after 1, 5 and 20 blocks.
func simulateFees(f *FeeEstimator, blocks int) {
	type pending struct {
		id     wire.Hash
		height int32
		fee    int64
		due    int
	}
	var queue []pending
	var n uint64
	kinds := []struct {
		rate int64
		wait int
	}{{50_000, 1}, {10_000, 5}, {2_000, 20}}
	start := 100
	f.ProcessBlock(int32(start), nil)
	for h := start; h < start+blocks; h++ {
		for _, k := range kinds {
			for i := 0; i < 10; i++ {
				n++
				var id wire.Hash
				binary.LittleEndian.PutUint64(id[:], n)
				fee := k.rate * 200 / 1000
				f.processTx(id, int32(h), fee, 200, true)
				queue = append(queue, pending{id, int32(h), fee, h + k.wait})
			}
		}
		var conf []ConfirmedTx
		rest := queue[:0]
		for _, p := range queue {
			if p.due == h+1 {
				conf = append(conf, ConfirmedTx{TxID: p.id, Height: p.height, Fee: p.fee, VSize: 200})
			} else {
				rest = append(rest, p)
			}
		}
		queue = rest
		f.ProcessBlock(int32(h+1), conf)
	}
}

func near(got FeeRate, want float64) bool {
	return float64(got) > want*0.95 && float64(got) < want*1.05
}

func TestFeeEstimatorConverges(t *testing.T) {
	f := NewFeeEstimator()
	if r, _ := f.EstimateSmartFee(2, false); r != 0 {
		t.Fatalf("estimate without data: %v", r)
	}
	simulateFees(f, 300)
	for _, c := range []struct {
		target int
		want   float64
	}{{1, 50_000}, {2, 50_000}, {4, 50_000}, {10, 10_000}, {48, 2_000}} {
		got, blocks := f.EstimateSmartFee(c.target, false)
		if !near(got, c.want) {
			t.Errorf("target %d: got %v (for %d blocks), want ~%v", c.target, got, blocks, c.want)
		}
	}
	econ, _ := f.EstimateSmartFee(48, false)
	cons, _ := f.EstimateSmartFee(48, true)
	if cons < econ {
		t.Fatalf("conservative %v below economical %v", cons, econ)
	}
	if _, blocks := f.EstimateSmartFee(1000, false); blocks != 149 {
		t.Fatalf("target not capped by history: %d", blocks)
	}
}

func TestFeeEstimatesPersistence(t *testing.T) {
	f := NewFeeEstimator()
	simulateFees(f, 200)
	now := time.Now()
	path := filepath.Join(t.TempDir(), "fee_estimates.dat")
	if err := f.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	g, err := LoadFeeEstimates(path, now.Add(time.Hour), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []int{2, 6, 12, 24, 48, 100} {
		for _, cons := range []bool{false, true} {
			a, ab := f.EstimateSmartFee(target, cons)
			b, bb := g.EstimateSmartFee(target, cons)
			if a != b || ab != bb {
				t.Fatalf("target %d cons %v: %v/%d vs %v/%d", target, cons, a, ab, b, bb)
			}
		}
	}
	// Stale by the file's modification time (feature_fee_estimation.py
	// backdates it), unless stale files are accepted.
	old := now.Add(-61 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFeeEstimates(path, now, false); !errors.Is(err, ErrStaleFile) {
		t.Fatalf("stale: %v", err)
	}
	if g, err := LoadFeeEstimates(path, now, true); err != nil {
		t.Fatalf("stale file refused with acceptStale: %v", err)
	} else if a, _ := g.EstimateSmartFee(6, false); a == 0 {
		t.Fatal("stale file accepted but empty")
	}
	// Saving an unchanged estimator writes the same bytes (Core's test
	// compares the file across flushes without blocks).
	data1, _ := os.ReadFile(path)
	g.SaveFile(path)
	if data2, _ := os.ReadFile(path); string(data1) != string(data2) {
		t.Fatal("unchanged estimator saved differently")
	}
	// Corrupt: a bad version byte and a truncation both fail and give an
	// empty estimator.
	data, _ := os.ReadFile(path)
	for _, bad := range [][]byte{append([]byte("BNFE\x09"), data[5:]...), data[:len(data)-3], []byte("junk")} {
		os.WriteFile(path, bad, 0o600)
		e, err := LoadFeeEstimates(path, now, false)
		if !errors.Is(err, ErrCorruptFile) {
			t.Fatalf("corrupt file accepted: %v", err)
		}
		if r, _ := e.EstimateSmartFee(2, false); r != 0 {
			t.Fatal("corrupt load is not empty")
		}
	}
	// Missing file: empty, no error.
	if _, err := LoadFeeEstimates(filepath.Join(t.TempDir(), "none"), now, false); err != nil {
		t.Fatal(err)
	}
}

func TestPoolFeesReachEstimator(t *testing.T) {
	h := newHarness(t, nil)
	h.est.ProcessBlock(h.chain.height, nil)
	for round := 0; round < 60; round++ {
		var txs []*wire.MsgTx
		for i := 0; i < 5; i++ {
			tx := spend([]wire.OutPoint{h.coin(100_000)}, 100_000-5000)
			h.mustAccept(tx)
			txs = append(txs, tx)
		}
		blk := h.chain.connect(txs...)
		h.pool.BlockConnected(blk, h.chain.height)
	}
	rate, _ := h.pool.EstimateSmartFee(2, false)
	e := spend([]wire.OutPoint{h.coin(100_000)}, 1)
	want := float64(5000*1000) / float64(VirtualSize(e.Weight(), 1, 20))
	if !near(rate, want) {
		t.Fatalf("estimate %v want ~%v", rate, want)
	}
}

func FuzzLoadFeeEstimates(f *testing.F) {
	e := NewFeeEstimator()
	simulateFees(e, 30)
	valid := e.Encode()
	f.Add(valid)
	f.Add(valid[:100])
	// Version 1 carried an 8-byte save time after the version byte.
	v1 := append([]byte("BNFE\x01"), make([]byte, 8)...)
	f.Add(append(v1, valid[5:]...))
	f.Add([]byte("BNFE\x02"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := DecodeFeeEstimates(b)
		if err != nil {
			if !errors.Is(err, ErrCorruptFile) {
				t.Fatalf("error of wrong kind: %v", err)
			}
			return
		}
		if again := g.Encode(); b[4] == feeVersion && string(again) != string(b) {
			t.Fatal("round trip differs")
		}
		g.EstimateSmartFee(6, true)
	})
}

// Blocks seen before any transaction was tracked (initial sync) skip the
// decay, which cannot change all-zero averages; once data exists it
// decays every block again.
func TestFeeEstimatorSkipsDecayWithoutData(t *testing.T) {
	f := NewFeeEstimator()
	for h := int32(1); h <= 500; h++ {
		f.ProcessBlock(h, nil)
	}
	for _, s := range []*confirmStats{f.short, f.med, f.long} {
		if s.hasData {
			t.Fatal("averages marked non-zero without any transaction")
		}
	}
	var id wire.Hash
	id[0] = 1
	f.processTx(id, 500, 2000, 200, true)
	f.ProcessBlock(501, []ConfirmedTx{{TxID: id, Height: 500, Fee: 2000, VSize: 200}})
	if !f.short.hasData {
		t.Fatal("a confirmation did not mark the averages")
	}
	b := f.bucketIndex(10_000)
	before := f.short.txCtAvg[b]
	f.ProcessBlock(502, nil)
	if got, want := f.short.txCtAvg[b], before*f.short.decay; before != 1 || got != want {
		t.Fatalf("count %v after one more block, want %v (from %v)", got, want, before)
	}
}
