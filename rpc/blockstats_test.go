package rpc

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestFeeRatePercentiles uses the cases of Bitcoin Core's
// rpc_getblockstats_calculate_percentiles_by_weight test.
func TestFeeRatePercentiles(t *testing.T) {
	var flat [][2]int64
	for i := 0; i < 100; i++ {
		flat = append(flat, [2]int64{1, 1})
	}
	for i := 0; i < 100; i++ {
		flat = append(flat, [2]int64{2, 1})
	}
	cases := []struct {
		scores [][2]int64
		total  int64
		want   [5]int64
	}{
		{flat, 200, [5]int64{1, 1, 1, 2, 2}},
		{[][2]int64{{1, 9}, {2, 16}, {4, 50}, {5, 10}, {9, 15}}, 100, [5]int64{2, 2, 4, 4, 9}},
		{[][2]int64{{1, 9}, {2, 11}, {2, 5}, {4, 50}, {5, 10}, {9, 15}}, 100, [5]int64{2, 2, 4, 4, 9}},
		{[][2]int64{{1, 100}, {2, 1}, {3, 1}, {3, 1}, {999999, 1}}, 104, [5]int64{1, 1, 1, 1, 1}},
		{nil, 0, [5]int64{}},
	}
	for i, c := range cases {
		if got := feeRatePercentiles(c.scores, c.total); got != c.want {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
}

func TestTruncatedMedian(t *testing.T) {
	for _, c := range []struct {
		v    []int64
		want int64
	}{{nil, 0}, {[]int64{5}, 5}, {[]int64{3, 1, 2}, 2}, {[]int64{4, 1, 2, 3}, 2}, {[]int64{1, 4}, 2}} {
		if got := truncatedMedian(c.v); got != c.want {
			t.Errorf("median of %v = %d, want %d", c.v, got, c.want)
		}
	}
}

// TestBlockStatsOf computes the statistics of a coinbase and one
// transaction spending a 10,000-satoshi output into 9,000 satoshis and an
// OP_RETURN output.
func TestBlockStatsOf(t *testing.T) {
	p2wpkh := append([]byte{0x00, 0x14}, make([]byte, 20)...)
	coinbase := wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: 0xffffffff}, SignatureScript: []byte{1, 7}, Sequence: 0xffffffff}},
		TxOut: []wire.TxOut{{Value: 50_0000_1000, PkScript: p2wpkh}}}
	spend := wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{1}}, Sequence: 0xfffffffd}},
		TxOut: []wire.TxOut{{Value: 9000, PkScript: p2wpkh}, {Value: 0, PkScript: []byte{0x6a, 0x01, 0x02}}}}
	blk := &wire.MsgBlock{Header: wire.BlockHeader{Timestamp: 1_700_000_000}, Transactions: []*wire.MsgTx{&coinbase, &spend}}
	in := &BlockStatsInput{
		Hash: wire.Hash{9}, Block: blk, Height: 7, MedianTime: 1_699_999_000, Subsidy: 50_0000_0000,
		Spent: []PrevOut{{Value: 10_000, PkScript: p2wpkh}},
	}
	r := BlockStatsOf(in)
	size := int64(spend.SerializeSize())
	weight := spend.Weight()
	outSize := int64(8+1+len(p2wpkh)) + perUTXOOverhead
	opRetSize := int64(8+1+3) + perUTXOOverhead
	checks := []struct {
		name      string
		got, want int64
	}{
		{"txs", r.Txs, 2},
		{"ins", r.Ins, 1},
		{"outs", r.Outs, 3},
		{"totalfee", r.TotalFee, 1000},
		{"avgfee", r.AvgFee, 1000},
		{"minfee", r.MinFee, 1000},
		{"medianfee", r.MedianFee, 1000},
		{"total_out", r.TotalOut, 9000},
		{"total_size", r.TotalSize, size},
		{"total_weight", r.TotalWeight, weight},
		{"avgfeerate", r.AvgFeeRate, 1000 * 4 / weight},
		{"swtxs", r.SwTxs, 0},
		{"utxo_increase", r.UTXOIncrease, 2},
		{"utxo_increase_actual", r.UTXOIncreaseActual, 1},
		{"utxo_size_inc", r.UTXOSizeInc, 2*outSize + opRetSize - outSize},
		{"utxo_size_inc_actual", r.UTXOSizeIncActual, 2*outSize - outSize},
		{"subsidy", r.Subsidy, 50_0000_0000},
		{"time", r.Time, 1_700_000_000},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if r.Height != 7 || r.BlockHash != in.Hash.String() {
		t.Errorf("height %d hash %s", r.Height, r.BlockHash)
	}

	// The genesis block spends nothing and adds nothing to the set.
	g := BlockStatsOf(&BlockStatsInput{Block: &wire.MsgBlock{Transactions: []*wire.MsgTx{&coinbase}}})
	if g.UTXOIncreaseActual != 0 || g.UTXOIncrease != 1 || g.MinFee != 0 || g.MinFeeRate != 0 || g.MinTxSize != 0 {
		t.Errorf("genesis: %+v", g)
	}
}
