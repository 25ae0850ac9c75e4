package database

import (
	"compress/bzip2"
	"os"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestMainnetConnectDisconnect connects real mainnet blocks 1-255 through
// the cache (fetching each block's inputs in one pass, spending them into
// an undo record, adding outputs), stores blocks and undo data in a
// BlockDB, then disconnects every block again from its stored undo data.
// The UTXO set hash at each height must be the same on the way down as on
// the way up, and the set must end empty.
func TestMainnetConnectDisconnect(t *testing.T) {
	f, err := os.Open("../../shared/vectors/mainnet/blocks1-256.dat.bz2")
	if err != nil {
		t.Skip("../shared/vectors not present")
	}
	defer f.Close()
	raws, _ := readAll(t, bzip2.NewReader(f), nil)
	dir := t.TempDir()
	bdb, err := OpenBlockDB(dir, wire.MainNet, BlockDBOptions{MaxFileSize: 16_000})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	cs, err := OpenChainState(dir, ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := NewUtxoCache(cs, UtxoCacheOptions{MaxBytes: 256 << 10}) // tiny: evictions and misses

	type stored struct {
		hash, prev wire.Hash
		undo       UndoLoc
		stats      UtxoStats
	}
	chain := make([]stored, len(raws)+1)
	chain[0].stats, _ = cs.Stats()
	var ops []wire.OutPoint
	var entries []UtxoEntry
	var scripts, undoBuf []byte
	var counts []uint32
	var spent []UtxoEntry
	for i, raw := range raws {
		h := int32(i + 1)
		var blk wire.MsgBlock
		if _, err := blk.Decode(raw); err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		txids := blk.TxHashes()
		ops, counts, spent = ops[:0], counts[:0], spent[:0]
		for _, tx := range blk.Transactions[1:] {
			for _, in := range tx.TxIn {
				ops = append(ops, in.PreviousOutPoint)
			}
			counts = append(counts, uint32(len(tx.TxIn)))
		}
		entries, scripts, err = c.FetchEntries(ops, entries, scripts)
		if err != nil {
			t.Fatal(err)
		}
		for k, e := range entries {
			if e.Missing {
				t.Fatalf("block %d spends missing %v", h, ops[k])
			}
		}
		for ti, tx := range blk.Transactions {
			if ti > 0 {
				for _, in := range tx.TxIn {
					var e UtxoEntry
					if ok, err := c.SpendEntry(&in.PreviousOutPoint, &e); !ok || err != nil {
						t.Fatalf("block %d: spend %v: %v %v", h, in.PreviousOutPoint, ok, err)
					}
					spent = append(spent, e)
				}
			}
			for j, out := range tx.TxOut {
				op := wire.OutPoint{Hash: txids[ti], Index: uint32(j)}
				e := UtxoEntry{Amount: out.Value, PkScript: out.PkScript, Height: h, IsCoinBase: ti == 0}
				if err := c.AddEntry(&op, &e, false); err != nil {
					t.Fatal(err)
				}
			}
		}
		loc, err := bdb.WriteBlock(raw, h)
		if err != nil {
			t.Fatal(err)
		}
		undoBuf = AppendBlockUndo(undoBuf[:0], counts, spent)
		prev := blk.Header.PrevBlock
		uloc, err := bdb.WriteUndo(loc.File, undoBuf, &prev)
		if err != nil {
			t.Fatal(err)
		}
		chain[h] = stored{hash: blk.BlockHash(), prev: prev, undo: uloc}
		if h > 1 && chain[h].prev != chain[h-1].hash {
			t.Fatalf("block %d does not connect", h)
		}
		bdb.Flush()
		if err := c.Flush(chain[h].hash, h); err != nil {
			t.Fatal(err)
		}
		if chain[h].stats, err = cs.Stats(); err != nil {
			t.Fatal(err)
		}
	}
	top := chain[len(raws)].stats
	// Every coinbase claimed exactly 50 BTC and the one early payment paid
	// no fee, so the set holds 255 * 50 BTC.
	if top.TotalAmount != int64(len(raws))*50*100_000_000 || top.Best.Height != int32(len(raws)) {
		t.Fatalf("UTXO set at %d: %+v", len(raws), top)
	}
	t.Logf("height %d: %d outputs in %d txs, hash %x", top.Best.Height, top.Outputs, top.Txs, top.Hash)

	var u BlockUndo
	var buf []byte
	for h := int32(len(raws)); h >= 1; h-- {
		var blk wire.MsgBlock
		if _, err := blk.Decode(raws[h-1]); err != nil {
			t.Fatal(err)
		}
		if buf, err = bdb.ReadUndo(chain[h].undo, &chain[h].prev, buf); err != nil {
			t.Fatal(err)
		}
		if err := u.Decode(buf); err != nil {
			t.Fatal(err)
		}
		txids := blk.TxHashes()
		// Remove outputs, then restore inputs, last transaction first.
		k := len(u.Spent)
		for ti := len(blk.Transactions) - 1; ti >= 0; ti-- {
			tx := blk.Transactions[ti]
			for j := range tx.TxOut {
				op := wire.OutPoint{Hash: txids[ti], Index: uint32(j)}
				if ok, err := c.SpendEntry(&op, nil); !ok || err != nil {
					t.Fatalf("disconnect %d: output %v: %v %v", h, op, ok, err)
				}
			}
			if ti == 0 {
				break
			}
			if int(u.TxInputs[ti-1]) != len(tx.TxIn) {
				t.Fatalf("undo of block %d tx %d has %d inputs, tx has %d", h, ti, u.TxInputs[ti-1], len(tx.TxIn))
			}
			for in := len(tx.TxIn) - 1; in >= 0; in-- {
				k--
				if err := c.AddEntry(&tx.TxIn[in].PreviousOutPoint, &u.Spent[k], true); err != nil {
					t.Fatal(err)
				}
			}
		}
		if k != 0 {
			t.Fatalf("undo of block %d has %d unused entries", h, k)
		}
		if err := c.Flush(chain[h-1].hash, h-1); err != nil {
			t.Fatal(err)
		}
		st, err := cs.Stats()
		if err != nil {
			t.Fatal(err)
		}
		want := chain[h-1].stats
		if st.Hash != want.Hash || st.Outputs != want.Outputs || st.TotalAmount != want.TotalAmount {
			t.Fatalf("after disconnecting %d: %+v, want %+v", h, st, want)
		}
	}
	if st := c.Stats(); st.Entries != 0 {
		t.Fatalf("cache not empty after disconnecting everything: %+v", st)
	}
}
