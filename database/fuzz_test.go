package database

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// Decoders must never panic, must report failures as ErrCorrupt (or
// ErrUnknownVersion), and whatever they accept must survive re-encoding.

func FuzzDecodeCoin(f *testing.F) {
	for _, c := range testScripts(f) {
		f.Add(AppendCoin(nil, 123456789, c.script, 500000, true))
	}
	b, _ := hex.DecodeString(block1Coin)
	f.Add(b)
	f.Add([]byte{0x80, 0x80, 0x80})
	f.Add([]byte{0x00, 0x00, 0x04, 1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, _, n, err := DecodeCoin(b, nil)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error kind: %v", err)
			}
			return
		}
		if n > len(b) || e.Amount < 0 || e.Height < 0 {
			t.Fatalf("decoded %+v from %d of %d bytes", e, n, len(b))
		}
		enc := AppendCoin(nil, e.Amount, e.PkScript, e.Height, e.IsCoinBase)
		e2, _, n2, err := DecodeCoin(enc, nil)
		if err != nil || n2 != len(enc) || !entriesEqual(e, e2) {
			t.Fatalf("re-encode of %+v: %+v %v", e, e2, err)
		}
	})
}

func FuzzBlockUndo(f *testing.F) {
	scripts := testScripts(f)
	spent := []UtxoEntry{
		{Amount: 1, PkScript: scripts["p2pkh"].script, Height: 0, IsCoinBase: true},
		{Amount: 5e9, PkScript: scripts["p2pk-uncompressed"].script, Height: 170},
		{Amount: 0, PkScript: scripts["big"].script, Height: 800000},
	}
	f.Add(AppendBlockUndo(nil, []uint32{2, 1}, spent))
	f.Add(AppendBlockUndo(nil, nil, nil))
	f.Add([]byte{0xfe, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{1, 0xfd, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		var u BlockUndo
		if err := u.Decode(b); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error kind: %v", err)
			}
			return
		}
		enc := AppendBlockUndo(nil, u.TxInputs, u.Spent)
		var u2 BlockUndo
		if err := u2.Decode(enc); err != nil || len(u2.Spent) != len(u.Spent) {
			t.Fatalf("re-decode: %v", err)
		}
		for i := range u.Spent {
			if !entriesEqual(u.Spent[i], u2.Spent[i]) {
				t.Fatalf("entry %d changed", i)
			}
		}
	})
}

func FuzzBlockIndexRecord(f *testing.F) {
	r := BlockIndexRecord{Height: 1, Status: 3, NumTx: 1, File: 2, DataOffset: 8, DataSize: 285}
	r.ChainWork[31] = 2
	f.Add(r.AppendTo(nil))
	f.Add((&BlockIndexRecord{}).AppendTo(nil))
	f.Add(appendTxLoc(nil, &TxLoc{Block: BlockLoc{File: 1, Offset: 8, Size: 100}, TxOffset: 81, TxSize: 10}))
	f.Add(appendFileInfo(nil, FileInfo{Blocks: 3, Size: 999, MinHeight: 1, MaxHeight: 3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if rec, err := DecodeBlockIndexRecord(b); err == nil {
			if !bytes.Equal(rec.AppendTo(nil), b) {
				t.Fatalf("record does not re-encode to the same bytes")
			}
		} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnknownVersion) {
			t.Fatalf("error kind: %v", err)
		}
		if l, err := DecodeTxLoc(b); err == nil {
			if l2, err := DecodeTxLoc(appendTxLoc(nil, &l)); err != nil || l2 != l {
				t.Fatalf("txloc round trip")
			}
		}
		if fi, err := decodeFileInfo(b); err == nil {
			if fi2, err := decodeFileInfo(appendFileInfo(nil, fi)); err != nil || fi2 != fi {
				t.Fatalf("file info round trip")
			}
		}
	})
}

func FuzzBlockFileReader(f *testing.F) {
	blk := bytes.Repeat([]byte{7}, 300)
	good := frame(wire.MainNet, blk)
	f.Add(good)
	f.Add(append(append(append([]byte{1, 2, 3}, good...), make([]byte, 100)...), good[:50]...))
	f.Add(append(good[:20], good...))
	f.Add([]byte{0xf9, 0xbe, 0xb4, 0xd9, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		br := NewBlockFileReader(bytes.NewReader(b), wire.MainNet)
		total := 0
		for i := 0; ; i++ {
			blk, err := br.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(blk) < minBlockSize || len(blk) > MaxImportBlockSize {
				t.Fatalf("block of %d bytes", len(blk))
			}
			off := br.Offset()
			if off < 8 || off+int64(len(blk)) > int64(len(b)) || !bytes.Equal(b[off:off+int64(len(blk))], blk) {
				t.Fatalf("offset %d does not locate the block", off)
			}
			total += len(blk) + 8
			if i%2 == 1 {
				br.Resync()
			}
			if i > len(b) {
				t.Fatal("reader does not progress")
			}
		}
		_ = total
	})
}
