package blockchain

import (
	"bytes"
	"testing"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

func validTx() *wire.MsgTx {
	return &wire.MsgTx{
		Version: 2,
		TxIn:    []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{1}, Index: 0}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut:   []wire.TxOut{{Value: 1000, PkScript: []byte{0x51}}},
	}
}

func TestCheckTransaction(t *testing.T) {
	cases := []struct {
		name string
		mod  func(tx *wire.MsgTx)
		kind ErrorKind
	}{
		{"valid", func(*wire.MsgTx) {}, ""},
		{"no inputs", func(tx *wire.MsgTx) { tx.TxIn = nil }, ErrTxVinEmpty},
		{"no outputs", func(tx *wire.MsgTx) { tx.TxOut = nil }, ErrTxVoutEmpty},
		{"oversize", func(tx *wire.MsgTx) { tx.TxOut[0].PkScript = make([]byte, wire.MaxBlockWeight/4) }, ErrTxOversize},
		{"negative", func(tx *wire.MsgTx) { tx.TxOut[0].Value = -1 }, ErrTxVoutNegative},
		{"too large", func(tx *wire.MsgTx) { tx.TxOut[0].Value = MaxMoney + 1 }, ErrTxVoutTooLarge},
		{"max money ok", func(tx *wire.MsgTx) { tx.TxOut[0].Value = MaxMoney }, ""},
		{"total too large", func(tx *wire.MsgTx) {
			tx.TxOut = []wire.TxOut{{Value: MaxMoney}, {Value: 1}}
		}, ErrTxOutTotalTooLarge},
		{"duplicate inputs", func(tx *wire.MsgTx) { tx.TxIn = append(tx.TxIn, tx.TxIn[0]) }, ErrTxInputsDuplicate},
		{"duplicate inputs (map path)", func(tx *wire.MsgTx) {
			for i := range 40 {
				tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{2}, Index: uint32(i)}})
			}
			tx.TxIn = append(tx.TxIn, tx.TxIn[17])
		}, ErrTxInputsDuplicate},
		{"many distinct inputs", func(tx *wire.MsgTx) {
			for i := range 40 {
				tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{2}, Index: uint32(i)}})
			}
		}, ""},
		{"coinbase script short", func(tx *wire.MsgTx) {
			tx.TxIn[0].PreviousOutPoint = wire.OutPoint{Index: wire.MaxPrevOutIndex}
			tx.TxIn[0].SignatureScript = []byte{1}
		}, ErrTxBadCoinbaseLength},
		{"coinbase script long", func(tx *wire.MsgTx) {
			tx.TxIn[0].PreviousOutPoint = wire.OutPoint{Index: wire.MaxPrevOutIndex}
			tx.TxIn[0].SignatureScript = make([]byte, 101)
		}, ErrTxBadCoinbaseLength},
		{"coinbase script ok", func(tx *wire.MsgTx) {
			tx.TxIn[0].PreviousOutPoint = wire.OutPoint{Index: wire.MaxPrevOutIndex}
			tx.TxIn[0].SignatureScript = make([]byte, 100)
		}, ""},
		{"null prevout", func(tx *wire.MsgTx) {
			tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex}})
		}, ErrTxPrevOutNull},
	}
	for _, c := range cases {
		tx := validTx()
		c.mod(tx)
		err := CheckTransaction(tx)
		if c.kind == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !isKind(err, c.kind) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.kind)
		}
	}
}

func TestCheckTxInputs(t *testing.T) {
	tx := validTx()
	coins := []database.UtxoEntry{{Amount: 5000, Height: 10}}
	fee, err := CheckTxInputs(tx, coins, 11, 100)
	if err != nil || fee != 4000 {
		t.Fatalf("fee %d err %v", fee, err)
	}
	coins[0].IsCoinBase = true
	if _, err := CheckTxInputs(tx, coins, 109, 100); !isKind(err, ErrTxPrematureCoinbase) {
		t.Errorf("maturity 99: %v", err)
	}
	if _, err := CheckTxInputs(tx, coins, 110, 100); err != nil {
		t.Errorf("maturity 100: %v", err)
	}
	coins[0] = database.UtxoEntry{Amount: MaxMoney + 1}
	if _, err := CheckTxInputs(tx, coins, 1, 100); !isKind(err, ErrTxInputValuesRange) {
		t.Errorf("input out of range: %v", err)
	}
	tx.TxIn = append(tx.TxIn, wire.TxIn{})
	two := []database.UtxoEntry{{Amount: MaxMoney}, {Amount: 1}}
	if _, err := CheckTxInputs(tx, two, 1, 100); !isKind(err, ErrTxInputValuesRange) {
		t.Errorf("sum out of range: %v", err)
	}
	two = []database.UtxoEntry{{Amount: 400}, {Amount: 500}}
	if _, err := CheckTxInputs(tx, two, 1, 100); !isKind(err, ErrTxInBelowOut) {
		t.Errorf("below out: %v", err)
	}
}

func TestIsFinalTx(t *testing.T) {
	tx := validTx()
	tx.TxIn[0].Sequence = 0
	tx.LockTime = 100
	if IsFinalTx(tx, 100, 0) || !IsFinalTx(tx, 101, 0) {
		t.Error("height lock")
	}
	tx.LockTime = LockTimeThreshold + 50
	if IsFinalTx(tx, 1e6, LockTimeThreshold+50) || !IsFinalTx(tx, 1, LockTimeThreshold+51) {
		t.Error("time lock")
	}
	tx.TxIn[0].Sequence = wire.MaxTxInSequenceNum
	if !IsFinalTx(tx, 1, 0) {
		t.Error("final sequence")
	}
}

func TestSequenceLock(t *testing.T) {
	tx := validTx()
	tx.TxIn[0].Sequence = 10
	mtp := func(h int32) int64 { return int64(h) * 600 }
	l := CalcSequenceLock(tx, []int32{100}, true, mtp)
	if l.MinHeight != 109 || l.Satisfied(109, 0) || !l.Satisfied(110, 0) {
		t.Errorf("height lock %+v", l)
	}
	tx.Version = 1
	if l := CalcSequenceLock(tx, []int32{100}, true, mtp); l.MinHeight != -1 {
		t.Error("version 1 must not be locked")
	}
	tx.Version = 0xffffffff // unsigned >= 2
	if l := CalcSequenceLock(tx, []int32{100}, true, mtp); l.MinHeight != 109 {
		t.Error("version 0xffffffff must be locked")
	}
	tx.Version = 2
	tx.TxIn[0].Sequence = wire.SequenceLockTimeIsSeconds | 2
	l = CalcSequenceLock(tx, []int32{100}, true, mtp)
	if want := int64(100*600 + 2*512 - 1); l.MinTime != want {
		t.Errorf("time lock %d, want %d", l.MinTime, want)
	}
	tx.TxIn[0].Sequence |= wire.SequenceLockTimeDisabled
	if l := CalcSequenceLock(tx, []int32{100}, true, mtp); l.MinTime != -1 {
		t.Error("disabled flag")
	}
}

func TestHeightScript(t *testing.T) {
	cases := map[int32][]byte{
		0: {0x00}, 1: {0x51}, 16: {0x60}, 17: {0x01, 17}, 127: {0x01, 127}, 128: {0x02, 0x80, 0x00},
		255: {0x02, 0xff, 0x00}, 256: {0x02, 0x00, 0x01}, 227931: {0x03, 0x5b, 0x7a, 0x03},
		32768: {0x03, 0x00, 0x80, 0x00},
	}
	for h, want := range cases {
		if got := AppendHeightScript(nil, h); !bytes.Equal(got, want) {
			t.Errorf("height %d: %x, want %x", h, got, want)
		}
	}
}

func TestSigOpCounting(t *testing.T) {
	multi := []byte{0x52, 0x21, 0x02}
	multi = append(multi, make([]byte, 32)...)
	multi = append(multi, 0x52, opCheckMultiSig) // 2-of-? : accurate count 2
	if n := txscript.GetSigOpCount(multi, true); n != 2 {
		t.Errorf("accurate multisig %d", n)
	}
	if n := txscript.GetSigOpCount(multi, false); n != 20 {
		t.Errorf("legacy multisig %d", n)
	}
	// A truncated push stops counting.
	if n := txscript.GetSigOpCount([]byte{opCheckSig, 0x4c}, false); n != 1 {
		t.Errorf("truncated %d", n)
	}
	// P2SH: the redeem script's sigops count accurately, times four.
	redeem := []byte{opCheckSig, opCheckSig}
	sig := append([]byte{byte(len(redeem))}, redeem...)
	p2sh := append([]byte{0xa9, 0x14}, make([]byte, 20)...)
	p2sh = append(p2sh, 0x87)
	tx := &wire.MsgTx{TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{1}}, SignatureScript: sig}},
		TxOut: []wire.TxOut{{PkScript: []byte{opCheckSig}}}}
	coins := []database.UtxoEntry{{PkScript: p2sh}}
	// legacy: scriptSig push (0) + output 1 = 1 -> 4; P2SH 2 -> 8.
	if c := TxSigOpCost(tx, coins, true, true); c != 12 {
		t.Errorf("p2sh cost %d", c)
	}
	if c := TxSigOpCost(tx, coins, false, true); c != 4 {
		t.Errorf("no-p2sh cost %d", c)
	}
	// P2WPKH counts one unscaled; P2WSH counts the witness script.
	tx.TxIn[0].SignatureScript = nil
	coins[0].PkScript = append([]byte{0x00, 0x14}, make([]byte, 20)...)
	if c := TxSigOpCost(tx, coins, true, true); c != 5 {
		t.Errorf("p2wpkh cost %d", c)
	}
	coins[0].PkScript = append([]byte{0x00, 0x20}, make([]byte, 32)...)
	tx.TxIn[0].Witness = [][]byte{{1}, multi}
	if c := TxSigOpCost(tx, coins, true, true); c != 6 {
		t.Errorf("p2wsh cost %d", c)
	}
	if c := TxSigOpCost(tx, coins, true, false); c != 4 {
		t.Errorf("p2wsh without witness flag %d", c)
	}
}

func TestCheckBlockBodyEmpty(t *testing.T) {
	blk := &wire.MsgBlock{}
	if err := checkBlockBody(blk); !isKind(err, ErrBadBlockLength) {
		t.Errorf("empty block: %v", err)
	}
}
