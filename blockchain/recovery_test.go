package blockchain

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// copyDir copies a closed LevelDB directory.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
}

// crash drops the chain without flushing anything, as a killed process
// would leave it.
func (tc *testChain) crash() {
	tc.chain.scripts.stop()
	tc.cs.Close()
	tc.db.Close()
	tc.chain = nil
}

// utxoStats opens the chainstate of the (closed) chain and returns its
// statistics.
func (tc *testChain) utxoStats() database.UtxoStats {
	tc.t.Helper()
	st, err := tc.cs.Stats()
	if err != nil {
		tc.t.Fatal(err)
	}
	return st
}

// interruptFlush turns the closed chainstate under dir, which is at block
// B, into what a split flush from state A (saved in oldDir) to B leaves
// when the process dies after part of its batches: A's coins with the
// first share of the A->B changes applied in key order (the order Flush
// writes them), the head-blocks marker (B, A) and no best-block marker.
// It returns the number of coin changes applied and in total.
func interruptFlush(t *testing.T, dir, oldDir string, share float64) (int, int) {
	t.Helper()
	csDir := filepath.Join(dir, "chainstate")
	newDB, err := leveldb.OpenFile(csDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	oldDB, err := leveldb.OpenFile(oldDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	type op struct {
		key, val []byte // val nil: delete
	}
	var ops []op
	coins := util.BytesPrefix([]byte{'C'})
	itN := newDB.NewIterator(coins, nil)
	itO := oldDB.NewIterator(coins, nil)
	okN, okO := itN.Next(), itO.Next()
	for okN || okO {
		c := 0
		switch {
		case !okN:
			c = 1
		case !okO:
			c = -1
		default:
			c = bytes.Compare(itN.Key(), itO.Key())
		}
		switch {
		case c < 0: // only in the new state: written by the flush
			ops = append(ops, op{bytes.Clone(itN.Key()), bytes.Clone(itN.Value())})
			okN = itN.Next()
		case c > 0: // only in the old state: deleted by the flush
			ops = append(ops, op{key: bytes.Clone(itO.Key())})
			okO = itO.Next()
		default:
			if !bytes.Equal(itN.Value(), itO.Value()) {
				ops = append(ops, op{bytes.Clone(itN.Key()), bytes.Clone(itN.Value())})
			}
			okN, okO = itN.Next(), itO.Next()
		}
	}
	itN.Release()
	itO.Release()
	newBest, err := newDB.Get([]byte{'T'}, nil)
	if err != nil {
		t.Fatal(err)
	}
	oldBest, err := oldDB.Get([]byte{'T'}, nil)
	if err != nil {
		t.Fatal(err)
	}
	newDB.Close()
	var b leveldb.Batch
	b.Put([]byte{'H'}, append(bytes.Clone(newBest), oldBest...))
	b.Delete([]byte{'T'})
	n := int(float64(len(ops)) * share)
	for _, o := range ops[:n] {
		if o.val == nil {
			b.Delete(o.key)
		} else {
			b.Put(o.key, o.val)
		}
	}
	if err := oldDB.Write(&b, nil); err != nil {
		t.Fatal(err)
	}
	oldDB.Close()
	if err := os.RemoveAll(csDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(oldDir, csDir); err != nil {
		t.Fatal(err)
	}
	return n, len(ops)
}

// testInterruptedFlush builds state A (tip a), saves it, moves to state B
// (tip b, built by toB), interrupts the A->B flush after share of its
// changes, reopens and checks that replay reproduces B exactly.
func testInterruptedFlush(t *testing.T, share float64, mode string) {
	rc, base := newReorgChain(t)
	var a, b *chaintest.Entry
	if mode != "extend" {
		xs := rc.extendN(base, 3)
		rc.process(xs...)
		a = xs[2]
	} else {
		a = base
	}
	rc.close()
	saved := filepath.Join(t.TempDir(), "chainstate-A")
	copyDir(t, filepath.Join(rc.dir, "chainstate"), saved)
	rc.open(nil)
	rc.check(a)
	switch mode {
	case "rollback":
		// The new head is an ancestor of the old one.
		if err := rc.chain.InvalidateBlock(&a.Parent.Parent.Hash); err != nil {
			t.Fatal(err)
		}
		b = base
	case "reorg":
		ys := rc.extendN(base, 5)
		rc.process(ys...)
		b = ys[4]
	default:
		ys := rc.extendN(a, 6)
		rc.process(ys...)
		b = ys[5]
	}
	rc.close()
	rc.open(nil)
	want := rc.utxoStats()
	rc.close()
	if want.Best.Hash != b.Hash {
		t.Fatalf("reference state at %v, want %v", want.Best.Hash, b.Hash)
	}

	applied, total := interruptFlush(t, rc.dir, saved, share)
	t.Logf("interrupted after %d of %d coin changes", applied, total)
	// Check the database really reports an interrupted flush.
	cs, err := database.OpenChainState(rc.dir, database.ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	hb, ok := cs.HeadBlocks()
	cs.Close()
	if !ok || hb.New.Hash != b.Hash || hb.Old.Hash != a.Hash {
		t.Fatalf("head blocks %+v %v", hb, ok)
	}

	rc.open(nil)
	if _, ok := rc.cs.HeadBlocks(); ok {
		t.Fatal("head-blocks marker still present after New")
	}
	got := rc.utxoStats()
	if got.Best != want.Best || got.Hash != want.Hash || got.Outputs != want.Outputs ||
		got.TotalAmount != want.TotalAmount {
		t.Fatalf("after replay: %+v\nwant %+v", got, want)
	}
	rc.check(b)
	// The chain goes on normally and survives another restart.
	c := rc.extendN(b, 2)
	rc.process(c...)
	rc.reopen()
	rc.check(c[1])
}

// TestReplayInterruptedFlush recovers from a chainstate flush that died
// after part of its batches, rolling forward from the old head to the new
// one with the blocks from the block files.
func TestReplayInterruptedFlush(t *testing.T) {
	for _, share := range []float64{0, 0.5, 1} {
		t.Run("share"+itoa(int(share*100)), func(t *testing.T) { testInterruptedFlush(t, share, "extend") })
	}
}

// TestReplayInterruptedFlushReorg recovers from an interrupted flush whose
// old head is on a branch the new head abandoned: the old branch is rolled
// back with its undo data before the new one is replayed (reorg), or only
// rolled back when the new head is an ancestor of the old (rollback).
func TestReplayInterruptedFlushReorg(t *testing.T) {
	for _, mode := range []string{"reorg", "rollback"} {
		t.Run(mode, func(t *testing.T) { testInterruptedFlush(t, 0.5, mode) })
	}
}

// TestIndexAheadOfChainState crashes after the block index (with the new
// blocks marked valid) was written but before the chainstate was: on
// start the chain connects the missing blocks from the block files.
func TestIndexAheadOfChainState(t *testing.T) {
	for _, reorg := range []bool{false, true} {
		name := "extend"
		if reorg {
			name = "reorg"
		}
		t.Run(name, func(t *testing.T) {
			rc, base := newReorgChain(t)
			var tip *chaintest.Entry
			if reorg {
				xs := rc.extendN(base, 2)
				rc.process(xs...)
				if err := rc.chain.Flush(); err != nil {
					t.Fatal(err)
				}
				ys := rc.extendN(base, 4)
				rc.process(ys...)
				tip = ys[3]
			} else {
				if err := rc.chain.Flush(); err != nil {
					t.Fatal(err)
				}
				ys := rc.extendN(base, 4)
				rc.process(ys...)
				tip = ys[3]
			}
			// Write the block index and block files, not the chainstate.
			c := rc.chain
			c.mu.Lock()
			c.index.writeDirty(rc.db)
			err := rc.db.Flush()
			c.mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			flushed := rc.cs.BestBlock()
			rc.crash()
			rc.open(nil)
			if flushed.Hash == tip.Hash {
				t.Fatal("chainstate was flushed; the test checks nothing")
			}
			rc.check(tip)
			rc.reopen()
			rc.check(tip)
		})
	}
}

// TestPrepareOverlapReorg connects a long stored fork with the next
// block's preparation overlapped (startPrepare), which must not change the
// outcome.
func TestPrepareOverlapReorg(t *testing.T) {
	rc, base := newReorgChain(t)
	rc.chain.prepareOverlap = true
	main := rc.extendN(base, 12)
	rc.process(main...)
	fork := rc.extendN(base, 14)
	rc.process(fork[:12]...)
	rc.check(main[11])
	rc.chain.mu.Lock()
	clear(rc.chain.recent)
	rc.chain.mu.Unlock()
	rc.process(fork[12:]...)
	rc.check(fork[13])
}
