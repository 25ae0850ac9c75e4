package blockchain

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// inputsFixture is a builder chain whose tip block spends P2WPKH, P2PKH,
// P2TR and OP_TRUE outputs, one of them created earlier in the same block,
// with the coins each input spends as an undo record would list them.
type inputsFixture struct {
	b     *chaintest.Builder
	chain []*chaintest.Entry // chain[h-1] is the block at height h
	tip   *chaintest.Entry
}

func newInputsFixture(t *testing.T) *inputsFixture {
	t.Helper()
	b := chaintest.New(regtest(t))
	b.MineCoinbases(int(b.Params.CoinbaseMaturity) + 2)
	cbs := b.MatureCoinbases(b.Tip)
	kinds := []chaintest.Kind{chaintest.P2WPKH, chaintest.P2PKH, chaintest.P2TR, chaintest.OpTrue}
	outs := make([]wire.TxOut, len(kinds))
	for i, k := range kinds {
		outs[i] = wire.TxOut{Value: 1_000_000_000, PkScript: b.Script(k)}
	}
	fan := b.Spend(cbs[:1], outs, 0)
	b.NextBlock(nil, []*wire.MsgTx{fan}, nil)
	fanID := fan.TxHash()
	var txs []*wire.MsgTx
	for i := range kinds {
		o := b.Output(wire.OutPoint{Hash: fanID, Index: uint32(i)})
		var outs []wire.TxOut
		if i == 0 {
			outs = []wire.TxOut{{Value: o.Value - 1000, PkScript: []byte{0x51}}}
		}
		txs = append(txs, b.Spend([]*chaintest.Output{o}, outs, 1000))
	}
	// A spend of an output created in the same block, and a two-input
	// spend of two coinbases.
	txs = append(txs, opTrueChild(b, txs[0]))
	txs = append(txs, b.Spend(cbs[1:3], nil, 2000))
	b.NextBlock(nil, txs, nil)
	return &inputsFixture{b: b, chain: chaintest.Chain(b.Tip), tip: b.Tip}
}

// opTrueChild spends output 0 of parent, an OP_TRUE output, to P2WPKH
// with a fee of 1000. The builder cannot sign for an output of a block it
// has not built yet, hence the anyone-can-spend parent.
func opTrueChild(b *chaintest.Builder, parent *wire.MsgTx) *wire.MsgTx {
	return &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: parent.TxHash()}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: parent.TxOut[0].Value - 1000, PkScript: b.Script(chaintest.P2WPKH)}}}
}

// spent returns the coins e's inputs spend, in block order.
func (f *inputsFixture) spent(e *chaintest.Entry) []database.UtxoEntry {
	var out []database.UtxoEntry
	for _, tx := range e.Block.Transactions[1:] {
		for i := range tx.TxIn {
			o := f.b.Output(tx.TxIn[i].PreviousOutPoint)
			out = append(out, database.UtxoEntry{Amount: o.Value, PkScript: slices.Clone(o.PkScript),
				Height: o.Height, IsCoinBase: o.Coinbase})
		}
	}
	return out
}

// mtp is the median time past of the builder's block at height h.
func (f *inputsFixture) mtp(h int32) int64 {
	var ts []int64
	for i := h; i >= 0 && len(ts) < 11; i-- {
		if i == 0 {
			ts = append(ts, int64(f.b.Params.GenesisBlock.Header.Timestamp))
			continue
		}
		ts = append(ts, int64(f.chain[i-1].Block.Header.Timestamp))
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}

func (f *inputsFixture) check(e *chaintest.Entry, spent []database.UtxoEntry, workers int) error {
	return CheckBlockInputs(f.b.Params, e.Block, e.Height, e.Hash, spent, f.mtp, workers)
}

func TestCheckBlockInputsValid(t *testing.T) {
	f := newInputsFixture(t)
	for _, e := range f.chain {
		for _, w := range []int{1, 4, 0} {
			if err := f.check(e, f.spent(e), w); err != nil {
				t.Fatalf("block %d, %d workers: %v", e.Height, w, err)
			}
		}
	}
}

func TestCheckBlockInputsScriptFailures(t *testing.T) {
	f := newInputsFixture(t)
	tests := []struct {
		name   string
		mutate func(s []database.UtxoEntry)
	}{
		// The prevout script of the P2WPKH input pays to another key.
		{"tampered prevout script", func(s []database.UtxoEntry) { s[0].PkScript[len(s[0].PkScript)-1] ^= 1 }},
		// BIP143 and BIP341 signatures commit to the spent amount.
		// (Raised: a lower amount would first break the coinbase limit.)
		{"tampered P2WPKH amount", func(s []database.UtxoEntry) { s[0].Amount++ }},
		{"tampered P2TR amount", func(s []database.UtxoEntry) { s[2].Amount++ }},
		// The P2PKH input's coin replaced by a P2WPKH coin.
		{"wrong script type", func(s []database.UtxoEntry) { s[1].PkScript = f.b.Script(chaintest.P2WPKH) }},
		// The coinbase input of the block's last transaction.
		{"last transaction", func(s []database.UtxoEntry) { s[len(s)-2].PkScript = []byte{0x00} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range []int{1, 3} {
				s := f.spent(f.tip)
				tc.mutate(s)
				err := f.check(f.tip, s, w)
				if !errors.Is(err, ErrScriptVerifyMandatory) {
					t.Fatalf("%d workers: got %v, want %v", w, err, ErrScriptVerifyMandatory)
				}
			}
		})
	}
}

func TestCheckBlockInputsTamperedSignature(t *testing.T) {
	f := newInputsFixture(t)
	tx := f.tip.Block.Transactions[1] // spends the P2WPKH output
	sig := tx.TxIn[0].Witness[0]
	orig := sig[10]
	sig[10] ^= 0x01
	defer func() { sig[10] = orig }()
	err := f.check(f.tip, f.spent(f.tip), 2)
	if !errors.Is(err, ErrScriptVerifyMandatory) {
		t.Fatalf("got %v, want %v", err, ErrScriptVerifyMandatory)
	}
	var re *RuleError
	if !errors.As(err, &re) || !bytes.Contains([]byte(re.Desc), []byte("input 0 of "+tx.TxHash().String())) {
		t.Fatalf("error %v does not name input %v:0", err, tx.TxHash())
	}
	sig[10] = orig
	if err := f.check(f.tip, f.spent(f.tip), 2); err != nil {
		t.Fatal(err)
	}
}

// TestCheckBlockInputsLowestFailure checks that with several bad inputs
// the first one is reported whatever the scheduling.
func TestCheckBlockInputsLowestFailure(t *testing.T) {
	f := newInputsFixture(t)
	s := f.spent(f.tip)
	s[1].PkScript = []byte{0x00}
	s[len(s)-2].PkScript = []byte{0x00}
	want := "input 0 of " + f.tip.Block.Transactions[2].TxHash().String()
	for range 20 {
		var re *RuleError
		err := f.check(f.tip, s, 4)
		if !errors.As(err, &re) || !bytes.Contains([]byte(re.Desc), []byte(want)) {
			t.Fatalf("got %v, want the failure of %s", err, want)
		}
	}
}

func TestCheckBlockInputsRuleFailures(t *testing.T) {
	f := newInputsFixture(t)
	tipH := f.tip.Height
	tests := []struct {
		name   string
		mutate func(s []database.UtxoEntry)
		want   ErrorKind
	}{
		{"input below output", func(s []database.UtxoEntry) { s[0].Amount = 1 }, ErrTxInBelowOut},
		{"input value out of range", func(s []database.UtxoEntry) { s[0].Amount = MaxMoney + 1 }, ErrTxInputValuesRange},
		{"premature coinbase", func(s []database.UtxoEntry) {
			s[len(s)-2].Height = tipH - 5 // the coinbase input of the last transaction
		}, ErrTxPrematureCoinbase},
		{"coin from above the block", func(s []database.UtxoEntry) { s[0].Height = tipH + 1 }, ErrBadTxnsMissingInputs},
		{"in-block coin differs", func(s []database.UtxoEntry) { s[4].Amount++ }, ErrBadTxnsMissingInputs},
		{"coin claims to be from this block", func(s []database.UtxoEntry) { s[0].Height = tipH }, ErrBadTxnsMissingInputs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := f.spent(f.tip)
			tc.mutate(s)
			if err := f.check(f.tip, s, 2); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	if err := f.check(f.tip, f.spent(f.tip)[1:], 2); !errors.Is(err, ErrBadTxnsMissingInputs) {
		t.Fatalf("short spent list: got %v", err)
	}
}

func TestCheckBlockInputsCoinbaseAmount(t *testing.T) {
	f := newInputsFixture(t)
	cbs := f.b.MatureCoinbases(f.tip)
	tx := f.b.Spend(cbs[3:4], nil, 5000)
	// The coinbase claims the fee plus one satoshi.
	e := f.b.NextBlock(nil, []*wire.MsgTx{tx}, &chaintest.BlockOpts{CoinbaseExtra: 1})
	f.chain = append(f.chain, e)
	if err := f.check(e, f.spent(e), 2); !errors.Is(err, ErrBadCoinbaseAmount) {
		t.Fatalf("got %v, want %v", err, ErrBadCoinbaseAmount)
	}
	// With the fee unaccounted for (the input worth 5000 less), too.
	e2 := f.b.NextBlock(e.Parent, []*wire.MsgTx{tx}, nil)
	f.chain[len(f.chain)-1] = e2
	s := f.spent(e2)
	if err := f.check(e2, s, 2); err != nil {
		t.Fatal(err)
	}
	s[0].Amount -= 5000
	// The coinbase value check precedes script checks, as in Core, even
	// though the changed amount also breaks the signature.
	if err := f.check(e2, s, 2); !errors.Is(err, ErrBadCoinbaseAmount) {
		t.Fatalf("got %v, want %v", err, ErrBadCoinbaseAmount)
	}
}

func TestCheckBlockInputsSequenceLock(t *testing.T) {
	f := newInputsFixture(t)
	// Spend the P2WPKH output of the tip's in-block child spend with a
	// relative lock of one block: met in the tip's child.
	o := f.b.Output(wire.OutPoint{Hash: f.tip.Block.Transactions[5].TxHash()})
	tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: o.OutPoint, Sequence: 1}},
		TxOut: []wire.TxOut{{Value: o.Value - 1000, PkScript: f.b.Script(chaintest.P2WPKH)}}}
	if err := f.b.Sign(tx); err != nil {
		t.Fatal(err)
	}
	e := f.b.NextBlock(nil, []*wire.MsgTx{tx}, nil)
	f.chain = append(f.chain, e)
	if err := f.check(e, f.spent(e), 2); err != nil {
		t.Fatal(err)
	}
	tx.TxIn[0].Sequence = 2 // two blocks: not met by a coin one block old
	if err := f.b.Sign(tx); err != nil {
		t.Fatal(err)
	}
	if err := f.check(e, f.spent(e), 2); !errors.Is(err, ErrBadTxnsNonFinal) {
		t.Fatalf("got %v, want %v", err, ErrBadTxnsNonFinal)
	}
}

func TestCheckBlockInputsSigOps(t *testing.T) {
	f := newInputsFixture(t)
	s := f.spent(f.tip)
	// Make the P2WPKH input's coin a P2WSH whose witness script (the
	// last witness item) holds 4001 bare CHECKMULTISIGs, 20 sigops each:
	// the sigop limit is checked before any script runs.
	tx := f.tip.Block.Transactions[1]
	saved := tx.TxIn[0].Witness
	defer func() { tx.TxIn[0].Witness = saved }()
	ws := bytes.Repeat([]byte{0xae}, 4001)
	tx.TxIn[0].Witness = [][]byte{ws}
	s[0].PkScript = append([]byte{0x00, 0x20}, make([]byte, 32)...)
	if err := f.check(f.tip, s, 2); !errors.Is(err, ErrBadBlockSigOps) {
		t.Fatalf("got %v, want %v", err, ErrBadBlockSigOps)
	}
	// 3990 are within the limit (with the block's other sigops); the
	// script then fails instead.
	tx.TxIn[0].Witness = [][]byte{ws[:3990]}
	if err := f.check(f.tip, s, 2); !errors.Is(err, ErrScriptVerifyMandatory) {
		t.Fatalf("got %v, want %v", err, ErrScriptVerifyMandatory)
	}
}

// TestCheckBlockInputsUndoRecords runs the check on a real chain's blocks
// with the coins read back from their undo records, and shows that a
// tampered record fails it.
func TestCheckBlockInputsUndoRecords(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(int(tc.p.CoinbaseMaturity) + 3)
	cbs := tc.b.MatureCoinbases(tc.b.Tip)
	kinds := []chaintest.Kind{chaintest.P2PKH, chaintest.P2TR, chaintest.OpTrue, chaintest.P2WPKH}
	outs := make([]wire.TxOut, len(kinds))
	for i, k := range kinds {
		outs[i] = wire.TxOut{Value: 100_000_000, PkScript: tc.b.Script(k)}
	}
	fan := tc.b.Spend(cbs[:1], outs, 1000)
	tc.accept(tc.b.NextBlock(nil, []*wire.MsgTx{fan}, nil))
	var txs []*wire.MsgTx
	for i := range kinds {
		o := tc.b.Output(wire.OutPoint{Hash: fan.TxHash(), Index: uint32(i)})
		var outs []wire.TxOut
		if i == 0 {
			outs = []wire.TxOut{{Value: o.Value - 1000, PkScript: []byte{0x51}}}
		}
		txs = append(txs, tc.b.Spend([]*chaintest.Output{o}, outs, 1000))
	}
	txs = append(txs, opTrueChild(tc.b, txs[0]))
	tc.accept(tc.b.NextBlock(nil, txs, nil))
	tc.mine(2)

	tip := tc.chain.BestSnapshot()
	var u database.BlockUndo
	for h := int32(1); h <= tip.Height; h++ {
		hash, _ := tc.chain.BlockHashByHeight(h)
		blk, err := tc.chain.BlockByHash(&hash)
		if err != nil {
			t.Fatal(err)
		}
		if err := tc.chain.SpentOutputs(&hash, &u); err != nil {
			t.Fatal(err)
		}
		if err := CheckBlockInputs(tc.p, blk, h, hash, u.Spent, tc.chain.MedianTimePast, 2); err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		if len(u.Spent) == 0 {
			continue
		}
		// Flip a byte of the first spent script, as a corrupted record
		// whose checksum was rewritten would read.
		pk := slices.Clone(u.Spent[0].PkScript)
		pk[len(pk)-1] ^= 0x80
		u.Spent[0].PkScript = pk
		if err := CheckBlockInputs(tc.p, blk, h, hash, u.Spent, tc.chain.MedianTimePast, 2); !errors.Is(err, ErrScriptVerifyMandatory) {
			t.Fatalf("block %d with a tampered record: got %v", h, err)
		}
	}
}

func BenchmarkCheckBlockInputs(b *testing.B) {
	tc := newTestChain(b, regtest(b), nil)
	tc.mine(int(tc.p.CoinbaseMaturity) + 1)
	cb := tc.b.MatureCoinbases(tc.b.Tip)[0]
	const n = 200
	outs := make([]wire.TxOut, n)
	for i := range outs {
		outs[i] = wire.TxOut{Value: cb.Value / (n + 1), PkScript: tc.b.Script(chaintest.P2WPKH)}
	}
	fan := tc.b.Spend([]*chaintest.Output{cb}, outs, 0)
	tc.accept(tc.b.NextBlock(nil, []*wire.MsgTx{fan}, nil))
	txs := make([]*wire.MsgTx, n)
	for i := range txs {
		txs[i] = tc.b.Spend([]*chaintest.Output{tc.b.Output(wire.OutPoint{Hash: fan.TxHash(), Index: uint32(i)})}, nil, 1000)
	}
	e := tc.b.NextBlock(nil, txs, nil)
	tc.accept(e)
	var u database.BlockUndo
	if err := tc.chain.SpentOutputs(&e.Hash, &u); err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 0} {
		name := "workers=all"
		if w == 1 {
			name = "workers=1"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := CheckBlockInputs(tc.p, e.Block, e.Height, e.Hash, u.Spent, tc.chain.MedianTimePast, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/input")
		})
	}
}
