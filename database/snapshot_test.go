package database

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// memFile is an in-memory SnapshotFile.
type memFile struct{ b []byte }

func (m *memFile) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if int(off)+len(p) > len(m.b) {
		return 0, errors.New("write past the end")
	}
	return copy(m.b[off:], p), nil
}

// TestWriteUTXOSnapshotHandBuilt spells out the snapshot of three coins in
// Core's format: metadata, then txids in order with their coins in key
// order, each coin in the compressed Coin serialization.
func TestWriteUTXOSnapshotHandBuilt(t *testing.T) {
	txA := wire.Hash(bytes.Repeat([]byte{0xaa}, 32))
	txB := wire.Hash(bytes.Repeat([]byte{0x01}, 32))
	p2pkh := unhex(t, "76a914"+strings.Repeat("22", 20)+"88ac")
	gx := "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
	p2pk := unhex(t, "4104"+gx+"483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8ac")
	cs := flushedChainState(t, []hashCoin{
		{wire.OutPoint{Hash: txA, Index: 1}, UtxoEntry{Amount: 5_000_000_000, PkScript: p2pkh, Height: 5, IsCoinBase: true}},
		{wire.OutPoint{Hash: txB, Index: 0}, UtxoEntry{Amount: 1, PkScript: []byte{0x51}, Height: 100}},
		{wire.OutPoint{Hash: txA, Index: 0}, UtxoEntry{Amount: 2500, PkScript: p2pk, Height: 5, IsCoinBase: true}},
	})
	var f memFile
	info, err := cs.WriteUTXOSnapshot(&f, wire.RegTest, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, "7574786fff"+"0200"+"fabfb5da"+"07"+strings.Repeat("00", 31)+"0300000000000000"+
		// txB: one coin, index 0: height 100 not coinbase (VARINT 200 =
		// 80 48), amount 1 (compressed 1), raw script of one byte (07 51).
		strings.Repeat("01", 32)+"01"+"00"+"8048"+"01"+"0751"+
		// txA: two coins. Index 0: code 11, 2500 sat (compressed 223 =
		// VARINT 80 5f), P2PK of G with even y (04 || x).
		strings.Repeat("aa", 32)+"02"+"00"+"0b"+"805f"+"04"+gx+
		// Index 1: code 11, 50 BTC (compressed 50 = 32), P2PKH (00 || hash).
		"01"+"0b"+"32"+"00"+strings.Repeat("22", 20))
	if !bytes.Equal(f.b, want) {
		t.Fatalf("snapshot\n%x\nwant\n%x", f.b, want)
	}
	hs, err := cs.HashUtxoSet(HashSerialized3)
	if err != nil {
		t.Fatal(err)
	}
	if info.Coins != 3 || info.Base != (BlockMarker{Hash: wire.Hash{7}, Height: 7}) || info.HashSerialized3 != hs.HashSerialized3 {
		t.Fatalf("info %+v, hash_serialized_3 %v", info, hs.HashSerialized3)
	}
}

// readSnapshot decodes a snapshot the way Core's loader does.
func readSnapshot(t *testing.T, b []byte) (net uint32, base wire.Hash, coins map[wire.OutPoint]UtxoEntry) {
	t.Helper()
	if len(b) < SnapshotHeaderLen || !bytes.Equal(b[:5], SnapshotMagic[:]) || binary.LittleEndian.Uint16(b[5:]) != SnapshotVersion {
		t.Fatalf("bad header %x", b[:min(len(b), SnapshotHeaderLen)])
	}
	net = binary.LittleEndian.Uint32(b[7:])
	copy(base[:], b[11:43])
	n := binary.LittleEndian.Uint64(b[43:])
	b = b[SnapshotHeaderLen:]
	coins = map[wire.OutPoint]UtxoEntry{}
	seen := map[wire.Hash]bool{}
	for uint64(len(coins)) < n {
		var txid wire.Hash
		copy(txid[:], b)
		if seen[txid] {
			t.Fatalf("txid %v appears twice", txid)
		}
		seen[txid] = true
		cnt, used, err := wire.ReadVarInt(b[32:])
		if err != nil || cnt == 0 {
			t.Fatalf("coin count %d: %v", cnt, err)
		}
		b = b[32+used:]
		for range cnt {
			idx, used, err := wire.ReadVarInt(b)
			if err != nil {
				t.Fatal(err)
			}
			e, _, m, err := DecodeCoin(b[used:], nil)
			if err != nil {
				t.Fatal(err)
			}
			coins[wire.OutPoint{Hash: txid, Index: uint32(idx)}] = e
			b = b[used+m:]
		}
	}
	if len(b) != 0 {
		t.Fatalf("%d bytes after the last coin", len(b))
	}
	return net, base, coins
}

// TestWriteUTXOSnapshotRoundTrip writes a larger set (many outputs per
// transaction, indexes whose VARINTs sort apart from their values) and
// reads every coin back.
func TestWriteUTXOSnapshotRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var coins []hashCoin
	for tx := range 300 {
		var txid wire.Hash
		binary.LittleEndian.PutUint64(txid[:], r.Uint64())
		txid[31] = byte(tx)
		outs := 1 + r.IntN(4)
		if tx%15 == 0 {
			outs = 300
		}
		if tx == 101 {
			outs = 30 // indexes 16500-16529: VARINT order differs at 16512
		}
		for i := range outs {
			idx := uint32(i)
			if tx == 101 {
				idx = uint32(16500 + i) // across a VARINT length step
			}
			script := make([]byte, r.IntN(80))
			for j := range script {
				script[j] = byte(r.Uint32())
			}
			if len(script) > 0 && script[0] == 0x6a {
				script[0] = 0x51
			}
			coins = append(coins, hashCoin{wire.OutPoint{Hash: txid, Index: idx},
				UtxoEntry{Amount: r.Int64N(1e12), PkScript: script, Height: int32(r.IntN(1e6)), IsCoinBase: i == 0}})
		}
	}
	cs := flushedChainState(t, coins)
	var f memFile
	info, err := cs.WriteUTXOSnapshot(&f, wire.MainNet, nil)
	if err != nil {
		t.Fatal(err)
	}
	net, base, got := readSnapshot(t, f.b)
	if net != uint32(wire.MainNet) || base != (wire.Hash{7}) || info.Coins != uint64(len(coins)) || len(got) != len(coins) {
		t.Fatalf("net %x base %v coins %d/%d of %d", net, base, info.Coins, len(got), len(coins))
	}
	for _, c := range coins {
		e, ok := got[c.op]
		if !ok || e.Amount != c.e.Amount || e.Height != c.e.Height || e.IsCoinBase != c.e.IsCoinBase || !bytes.Equal(e.PkScript, c.e.PkScript) {
			t.Fatalf("coin %v: %+v, want %+v", c.op, e, c.e)
		}
	}
	hs, err := cs.HashUtxoSet(HashSerialized3)
	if err != nil || hs.HashSerialized3 != info.HashSerialized3 {
		t.Fatalf("hash_serialized_3 %v, scan %v (%v)", info.HashSerialized3, hs.HashSerialized3, err)
	}

	stop := errors.New("stop")
	calls := 0
	_, err = cs.WriteUTXOSnapshot(&memFile{}, wire.MainNet, func() error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("interrupted dump: %v after %d calls", err, calls)
	}
}

// TestWriteUTXOSnapshotNeedsBestBlock checks that a chainstate that was
// never flushed (no best block) is refused rather than written with a
// zero base hash.
func TestWriteUTXOSnapshotNeedsBestBlock(t *testing.T) {
	cs, err := OpenChainState(t.TempDir(), ChainStateOptions{NoSyncOnFlush: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.WriteUTXOSnapshot(&memFile{}, wire.RegTest, nil); !errors.Is(err, ErrInvalidArg) {
		t.Fatalf("dump without a best block: %v", err)
	}
}

// TestMissingFilesAbove checks that block and undo files removed behind
// the store's back are reported for the heights they hold.
func TestMissingFilesAbove(t *testing.T) {
	dir := t.TempDir()
	db, err := OpenBlockDB(dir, wire.RegTest, BlockDBOptions{MaxFileSize: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(5, 6))
	prev := wire.Hash{1}
	for h := range 12 {
		b := fakeBlock(r, 3000)
		loc, err := db.WriteBlock(b, int32(h))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.WriteUndo(loc.File, b[:50], &prev); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if m := db.MissingFilesAbove(0); len(m) != 0 {
		t.Fatalf("missing %v with every file present", m)
	}
	last, _ := db.FileInfo(db.CurrentFile())
	rev := filepath.Join(dir, "blocks", "rev00000.dat")
	if err := os.Rename(rev, rev+".moved"); err != nil {
		t.Fatal(err)
	}
	first, _ := db.FileInfo(0)
	if m := db.MissingFilesAbove(first.MaxHeight); len(m) != 0 {
		t.Fatalf("file 0 reported for heights above it: %v", m)
	}
	if m := db.MissingFilesAbove(first.MaxHeight - 1); len(m) != 1 || m[0] != rev {
		t.Fatalf("missing %v, want %s", m, rev)
	}
	if m := db.MissingFilesAbove(last.MaxHeight); len(m) != 0 {
		t.Fatalf("missing above the last block: %v", m)
	}
}
