package database

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
)

func fakeBlock(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestBlockFilesWriteReadRoll(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.MainNet, BlockDBOptions{MaxFileSize: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var blocks [][]byte
	var locs []BlockLoc
	for h := range 20 {
		b := fakeBlock(r, 1000+r.IntN(3000))
		loc, err := db.WriteBlock(b, int32(h))
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, b)
		locs = append(locs, loc)
	}
	if locs[len(locs)-1].File < 3 {
		t.Fatalf("expected several files, last block in file %d", locs[len(locs)-1].File)
	}
	// Undo data for every block, in the block's file.
	prev := wire.Hash{1}
	var ulocs []UndoLoc
	for i, l := range locs {
		u, err := db.WriteUndo(l.File, blocks[i][:100], &prev)
		if err != nil {
			t.Fatal(err)
		}
		ulocs = append(ulocs, u)
	}
	check := func(db *BlockDB) {
		t.Helper()
		var buf []byte
		for i, l := range locs {
			got, err := db.ReadBlock(l, buf)
			if err != nil || !bytes.Equal(got, blocks[i]) {
				t.Fatalf("block %d at %+v: err %v", i, l, err)
			}
			u, err := db.ReadUndo(ulocs[i], &prev, nil)
			if err != nil || !bytes.Equal(u, blocks[i][:100]) {
				t.Fatalf("undo %d: %v", i, err)
			}
		}
		// A wrong previous hash fails the checksum.
		if _, err := db.ReadUndo(ulocs[0], &wire.Hash{2}, nil); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bad undo checksum err = %v", err)
		}
		if _, err := db.ReadBlock(BlockLoc{File: locs[0].File, Offset: locs[0].Offset + 1, Size: locs[0].Size}, nil); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("misaligned read err = %v", err)
		}
	}
	check(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Files are Core-framed: magic f9beb4d9 then LE length.
	raw, err := os.ReadFile(filepath.Join(dir, "blocks", "blk00000.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw[:4], []byte{0xf9, 0xbe, 0xb4, 0xd9}) || binary.LittleEndian.Uint32(raw[4:]) != uint32(len(blocks[0])) {
		t.Fatalf("bad framing %x", raw[:8])
	}
	db, err = OpenBlockDB(dir, wire.MainNet, BlockDBOptions{MaxFileSize: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check(db)
	// Appending continues in the last file.
	last := locs[len(locs)-1]
	loc, err := db.WriteBlock(blocks[0][:200], 20)
	if err != nil || loc.File < last.File {
		t.Fatalf("append after reopen at %+v (last %+v): %v", loc, last, err)
	}
	fi, ok := db.FileInfo(0)
	if !ok || fi.MinHeight != 0 || fi.Blocks == 0 {
		t.Fatalf("file info %+v", fi)
	}

	// Prune everything up to height 10.
	pruned, err := db.PruneFiles(10)
	if err != nil || len(pruned) == 0 {
		t.Fatalf("prune: %v %v", pruned, err)
	}
	for _, n := range pruned {
		if _, err := os.Stat(db.BlockFilePath(n)); err == nil {
			t.Errorf("file %d still present", n)
		}
		fi, _ := db.FileInfo(n)
		if fi.MaxHeight > 10 || !fi.Pruned {
			t.Errorf("pruned file %d info %+v", n, fi)
		}
	}
	ph := db.PrunedHeight()
	if ph < 0 || ph > 10 {
		t.Fatalf("pruned height %d", ph)
	}
	if _, err := db.ReadBlock(locs[0], nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read of pruned block err = %v", err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
}

func TestBlockIndexRecordRoundTrip(t *testing.T) {
	r := BlockIndexRecord{Height: 840000, Status: 0x1f, NumTx: 3050, File: 4000, DataOffset: 123456789,
		DataSize: 1_999_999, UndoFile: 4000, UndoOffset: 55, UndoSize: 700_000}
	r.ChainWork[20] = 0x5a
	r.ChainWork[31] = 1
	for i := range r.Header {
		r.Header[i] = byte(i)
	}
	enc := r.AppendTo(nil)
	if len(enc) > blockIndexMaxLen {
		t.Fatalf("encoded %d > max %d", len(enc), blockIndexMaxLen)
	}
	got, err := DecodeBlockIndexRecord(enc)
	if err != nil || got != r {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	bad := bytes.Clone(enc)
	bad[0] = 2
	if _, err := DecodeBlockIndexRecord(bad); !errors.Is(err, ErrUnknownVersion) {
		t.Fatalf("version 2 err = %v", err)
	}
	if _, err := DecodeBlockIndexRecord(enc[:len(enc)-1]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("truncated err = %v", err)
	}
	if _, err := DecodeBlockIndexRecord(append(enc, 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing err = %v", err)
	}

	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := wire.Hash{9, 9}
	db.PutBlockIndex(&h, &r)
	if err := db.OpenTxIndex(); err != nil {
		t.Fatal(err)
	}
	tx := wire.Hash{7}
	tl := TxLoc{Block: BlockLoc{File: 1, Offset: 8, Size: 1000}, TxOffset: 81, TxSize: 200}
	db.PutTxLoc(&tx, &tl)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = OpenBlockDB(dir, wire.RegTest, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.OpenTxIndex(); err != nil {
		t.Fatal(err)
	}
	got, err = db.BlockIndex(&h)
	if err != nil || got != r {
		t.Fatalf("stored record %+v %v", got, err)
	}
	if _, err := db.BlockIndex(&wire.Hash{1}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing record err = %v", err)
	}
	n := 0
	if err := db.ForEachBlockIndex(func(hash wire.Hash, rec BlockIndexRecord) error {
		n++
		if hash != h || rec != r {
			t.Errorf("iterated %v %+v", hash, rec)
		}
		return nil
	}); err != nil || n != 1 {
		t.Fatalf("ForEach: %d %v", n, err)
	}
	gl, err := db.TxLoc(&tx)
	if err != nil || gl != tl {
		t.Fatalf("txloc %+v %v", gl, err)
	}
	db.DeleteTxLoc(&tx)
	db.Flush()
	if _, err := db.TxLoc(&tx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted txloc err = %v", err)
	}
	db.Close()
}

// An unknown version key stops the open with an error naming --reindex.
func TestUnknownVersion(t *testing.T) {
	dir := t.TempDir()
	cs, err := OpenChainState(dir, ChainStateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	ldb, err := leveldb.OpenFile(filepath.Join(dir, "chainstate"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ldb.Put([]byte{keyVersion}, []byte{99, 0, 0, 0}, nil)
	ldb.Close()
	_, err = OpenChainState(dir, ChainStateOptions{})
	if !errors.Is(err, ErrUnknownVersion) || !bytes.Contains([]byte(err.Error()), []byte("--reindex")) {
		t.Fatalf("err = %v", err)
	}
	// Data without a version key is corrupt, not silently adopted.
	ldb, _ = leveldb.OpenFile(filepath.Join(dir, "chainstate"), nil)
	ldb.Delete([]byte{keyVersion}, nil)
	ldb.Put([]byte{keyBestBlock}, make([]byte, 36), nil)
	ldb.Close()
	if _, err = OpenChainState(dir, ChainStateOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("missing version err = %v", err)
	}
	// A bad coin value is reported as corruption by the scan.
	ldb, _ = leveldb.OpenFile(filepath.Join(dir, "chainstate"), nil)
	ldb.Put([]byte{keyVersion}, []byte{ChainStateVersion, 0, 0, 0}, nil)
	ldb.Put(append([]byte{prefixCoin}, make([]byte, 33)...), []byte{0x80}, nil)
	ldb.Close()
	cs, err = OpenChainState(dir, ChainStateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.Stats(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("stats err = %v", err)
	}
	c := NewUtxoCache(cs, UtxoCacheOptions{})
	if _, err := c.SpendEntry(&wire.OutPoint{}, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("spend of corrupt coin err = %v", err)
	}
}

func TestUndoRoundTrip(t *testing.T) {
	scripts := testScripts(t)
	var spent []UtxoEntry
	for _, name := range []string{"p2pkh", "p2sh", "p2pk-compressed", "p2pk-uncompressed", "p2pk-invalid", "p2wpkh", "empty", "big"} {
		spent = append(spent, UtxoEntry{Amount: int64(len(spent)) * 12345, PkScript: scripts[name].script,
			Height: int32(len(spent)), IsCoinBase: len(spent)%3 == 0})
	}
	counts := []uint32{1, 0, 4, 3}
	enc := AppendBlockUndo(nil, counts, spent)
	var u BlockUndo
	if err := u.Decode(enc); err != nil {
		t.Fatal(err)
	}
	if len(u.TxInputs) != len(counts) || len(u.Spent) != len(spent) {
		t.Fatalf("decoded %d txs %d spent", len(u.TxInputs), len(u.Spent))
	}
	for i := range counts {
		if u.TxInputs[i] != counts[i] {
			t.Errorf("tx %d inputs %d", i, u.TxInputs[i])
		}
	}
	for i, e := range spent {
		g := u.Spent[i]
		if g.Amount != e.Amount || g.Height != e.Height || g.IsCoinBase != e.IsCoinBase || !bytes.Equal(g.PkScript, e.PkScript) {
			t.Errorf("entry %d: %+v want %+v", i, g, e)
		}
	}
	// Height 0 entries have no version placeholder; others do (Core).
	if enc[0] != 4 || enc[1] != 1 || enc[2] != 1 || enc[3] != 0x00 {
		t.Errorf("unexpected prefix %x", enc[:4])
	}
	for cut := 0; cut < len(enc); cut++ {
		if err := u.Decode(enc[:cut]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated at %d: %v", cut, err)
		}
	}
}

// TestReindexMainnet writes real mainnet blocks through BlockDB, resets the
// index as --reindex does, and finds every block again with the reader at
// the locations WriteBlock returned.
func TestReindexMainnet(t *testing.T) {
	f, err := os.Open("../../shared/vectors/mainnet/blocks1-256.dat.bz2")
	if err != nil {
		t.Skip("../shared/vectors not present")
	}
	defer f.Close()
	blocks, _ := readAll(t, bzip2.NewReader(f), nil)
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.MainNet, BlockDBOptions{MaxFileSize: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	var locs []BlockLoc
	for i, b := range blocks {
		loc, err := db.WriteBlock(b, int32(i+1))
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	db.Close()
	if err := ResetForReindex(dir); err != nil {
		t.Fatal(err)
	}
	db, err = OpenBlockDB(dir, wire.MainNet, BlockDBOptions{MaxFileSize: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nums, err := db.BlockFiles()
	if err != nil || len(nums) < 2 {
		t.Fatalf("block files %v %v", nums, err)
	}
	i := 0
	for _, n := range nums {
		bf, err := os.Open(db.BlockFilePath(n))
		if err != nil {
			t.Fatal(err)
		}
		br := NewBlockFileReader(bf, wire.MainNet)
		for {
			b, err := br.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			loc := BlockLoc{File: n, Offset: uint32(br.Offset()), Size: uint32(len(b))}
			if loc != locs[i] || !bytes.Equal(b, blocks[i]) {
				t.Fatalf("block %d at %+v, written at %+v", i+1, loc, locs[i])
			}
			db.NoteExistingBlock(loc, int32(i+1))
			i++
		}
		bf.Close()
	}
	if i != len(blocks) {
		t.Fatalf("reindex found %d of %d blocks", i, len(blocks))
	}
	if fi, _ := db.FileInfo(0); fi.MinHeight != 1 || fi.Blocks == 0 {
		t.Fatalf("file 0 info %+v", fi)
	}
}

// TestBlockFileTornTail simulates a kill in the middle of appending a
// block: the torn record is ignored, appends continue after it, and both
// reads by location and the import reader still find every block.
func TestBlockFileTornTail(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.MainNet, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	b1 := fakeBlock(r, 1000)
	l1, _ := db.WriteBlock(b1, 1)
	db.Close()
	path := filepath.Join(dir, "blocks", "blk00000.dat")
	fh, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fh.Write(frame(wire.MainNet, fakeBlock(r, 900))[:400]) // torn
	fh.Close()

	db, err = OpenBlockDB(dir, wire.MainNet, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b2 := fakeBlock(r, 1200)
	l2, err := db.WriteBlock(b2, 2)
	if err != nil || l2.File != 0 || l2.Offset <= l1.Offset+l1.Size+400 {
		t.Fatalf("append after torn tail at %+v: %v", l2, err)
	}
	for _, c := range []struct {
		loc BlockLoc
		b   []byte
	}{{l1, b1}, {l2, b2}} {
		got, err := db.ReadBlock(c.loc, nil)
		if err != nil || !bytes.Equal(got, c.b) {
			t.Fatalf("read %+v: %v", c.loc, err)
		}
	}
	raw, _ := os.ReadFile(path)
	known := map[string]bool{string(b1): true, string(b2): true}
	got, _ := readAll(t, bytes.NewReader(raw), func(b []byte) bool { return known[string(b)] })
	if len(got) != 2 {
		t.Fatalf("reader found %d blocks", len(got))
	}
}

// TestRevFileWithBlockFile: each new block file gets its rev file at once,
// as in Core, though no undo data was written (a chain of only the genesis
// block has blk00000.dat and rev00000.dat).
func TestRevFileWithBlockFile(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.MainNet, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.WriteBlock(fakeBlock(rand.New(rand.NewPCG(3, 4)), 300), 0); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"blk00000.dat", "rev00000.dat"} {
		if _, err := os.Stat(filepath.Join(db.blk.dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestReadUndoAfterFileDeleted: an undo file deleted under the running node
// makes ReadUndo fail, though the file was written (and so held open) in
// this process; a cached handle would go on reading the unlinked file.
func TestReadUndoAfterFileDeleted(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.MainNet, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	loc, err := db.WriteBlock(fakeBlock(rand.New(rand.NewPCG(5, 6)), 300), 1)
	if err != nil {
		t.Fatal(err)
	}
	prev := wire.Hash{9}
	uloc, err := db.WriteUndo(loc.File, []byte("undo record"), &prev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ReadUndo(uloc, &prev, nil); err != nil {
		t.Fatalf("read before delete: %v", err)
	}
	if err := os.Remove(db.rev.path(loc.File)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ReadUndo(uloc, &prev, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read after delete: %v, want ErrNotFound", err)
	}
}

// TestBlockIndexNoBufferPool: the block index runs without goleveldb's
// buffer pool, which kept compaction-sized buffers alive (blockdb.go).
func TestBlockIndexNoBufferPool(t *testing.T) {
	db, err := OpenBlockDB(t.TempDir(), wire.MainNet, BlockDBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Without the pool goleveldb reports no pool statistics.
	if v, err := db.idx.GetProperty("leveldb.blockpool"); err != nil || v != "<nil>" {
		t.Fatalf("block index buffer pool = %q (%v), want none", v, err)
	}
}
