package coinstats

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func sampleStats() Stats {
	return Stats{
		Hash: wire.Hash{1, 2, 3}, Height: 108, MuHash: wire.Hash{9, 8, 7},
		TxOuts: 110, BogoSize: 110*bogoPerCoin + 2500,
		TotalAmount: 5399 * 1e8, TotalSubsidy: 5450 * 1e8,
		Unspendables: Unspendables{GenesisBlock: 50 * 1e8, Scripts: 2099 * 1e6, UnclaimedRewards: 1},
		Block: BlockStats{PrevoutSpent: 71 * 1e8, Coinbase: 5001001000, NewOutputsExCoinbase: 4999999000,
			Unspendables: Unspendables{Scripts: 2099 * 1e6, UnclaimedRewards: 1}},
	}
}

// TestRecordRoundTrip checks that every field survives encoding.
func TestRecordRoundTrip(t *testing.T) {
	st := sampleStats()
	v := encodeRecord(nil, &st)
	if len(v) != recordLen {
		t.Fatalf("record of %d bytes, want %d", len(v), recordLen)
	}
	got, err := DecodeRecord(v)
	if err != nil || got != st {
		t.Fatalf("decoded %+v, %v", got, err)
	}
}

// TestRecordRejectsCorruption checks each bound DecodeRecord enforces on
// values read back from disk.
func TestRecordRejectsCorruption(t *testing.T) {
	base := sampleStats()
	good := encodeRecord(nil, &base)
	amountAt := func(i int) int { return 84 + 8*i }
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"short", func(v []byte) []byte { return v[:recordLen-1] }},
		{"long", func(v []byte) []byte { return append(v, 0) }},
		{"negative height", func(v []byte) []byte { binary.LittleEndian.PutUint32(v[32:], 1<<31); return v }},
		{"amount above MaxMoney", func(v []byte) []byte {
			binary.LittleEndian.PutUint64(v[amountAt(0):], MaxMoney+1)
			return v
		}},
		{"negative amount", func(v []byte) []byte {
			binary.LittleEndian.PutUint64(v[amountAt(7):], 1<<63)
			return v
		}},
		{"bogosize below the outputs", func(v []byte) []byte {
			binary.LittleEndian.PutUint64(v[76:], bogoPerCoin*110-1)
			return v
		}},
		{"bogosize above the outputs", func(v []byte) []byte {
			binary.LittleEndian.PutUint64(v[76:], (bogoPerCoin+maxScriptBogo)*110+1)
			return v
		}},
		{"huge output count", func(v []byte) []byte {
			binary.LittleEndian.PutUint64(v[68:], 1<<62)
			binary.LittleEndian.PutUint64(v[76:], 1<<63)
			return v
		}},
		{"block unspendable above total", func(v []byte) []byte {
			binary.LittleEndian.PutUint64(v[amountAt(11):], 2100*1e6)
			return v
		}},
		{"unspendable totals above MaxMoney", func(v []byte) []byte {
			binary.LittleEndian.PutUint64(v[amountAt(2):], MaxMoney)
			binary.LittleEndian.PutUint64(v[amountAt(3):], MaxMoney)
			return v
		}},
	} {
		v := tc.edit(append([]byte(nil), good...))
		if _, err := DecodeRecord(v); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", tc.name, err)
		}
	}
}

// FuzzDecodeRecord decodes arbitrary bytes as a stored record: nothing may
// panic, failures are ErrCorrupt, and whatever decodes re-encodes to the
// same bytes and satisfies the bounds.
func FuzzDecodeRecord(f *testing.F) {
	st := sampleStats()
	f.Add(encodeRecord(nil, &st))
	var zero Stats
	f.Add(encodeRecord(nil, &zero))
	f.Add([]byte{})
	f.Add(make([]byte, recordLen))
	f.Fuzz(func(t *testing.T, v []byte) {
		st, err := DecodeRecord(v)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error kind: %v", err)
			}
			return
		}
		if string(encodeRecord(nil, &st)) != string(v) {
			t.Fatal("decoded record does not re-encode to its bytes")
		}
		for _, p := range st.amounts() {
			if *p < 0 || *p > MaxMoney {
				t.Fatalf("amount %d out of range", *p)
			}
		}
		if st.Height < 0 || st.Unspendables.Total() > MaxMoney {
			t.Fatalf("decoded out-of-range record %+v", st)
		}
	})
}
