package rpc

import (
	"cmp"
	"slices"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// perUTXOOverhead is what Core adds to an output's serialized size for the
// outpoint, height and coinbase flag in getblockstats' utxo_size_inc.
const perUTXOOverhead = 36 + 4 + 1

// BlockStatsInput is what getblockstats reads of a block: the block, the
// outputs its transactions spend and its place in the chain.
type BlockStatsInput struct {
	Hash       wire.Hash
	Block      *wire.MsgBlock
	Height     int32
	MedianTime int64
	Subsidy    int64
	// Spent holds the outputs spent by the block's non-coinbase inputs,
	// in block order; only Value and PkScript are read. Every input must
	// have one (the genesis block has none).
	Spent []PrevOut
	// BIP30Repeat marks the two mainnet blocks whose coinbases repeat
	// earlier ones: their coinbase outputs do not add to the UTXO set.
	BIP30Repeat bool
}

// BlockStatsOf computes every getblockstats statistic as bitcoind does
// (amounts in satoshis, fee rates in sat/vB).
func BlockStatsOf(in *BlockStatsInput) *BlockStats {
	const maxMoney = 21_000_000 * 100_000_000 // Core's MAX_MONEY
	blk := in.Block
	r := &BlockStats{
		BlockHash:  in.Hash.String(),
		Height:     in.Height,
		MedianTime: in.MedianTime,
		Time:       int64(blk.Header.Timestamp),
		Subsidy:    in.Subsidy,
		Txs:        int64(len(blk.Transactions)),
		MinFee:     maxMoney, MinFeeRate: maxMoney, MinTxSize: wire.MaxBlockSerializedSize,
	}
	var utxos int64
	fees := make([]int64, 0, len(blk.Transactions))
	sizes := make([]int64, 0, len(blk.Transactions))
	scores := make([][2]int64, 0, len(blk.Transactions))
	k := 0 // index into in.Spent
	for i, tx := range blk.Transactions {
		r.Outs += int64(len(tx.TxOut))
		var txOut int64
		for j := range tx.TxOut {
			o := &tx.TxOut[j]
			txOut += o.Value
			size := int64(8+wire.VarIntSerializeSize(uint64(len(o.PkScript)))+len(o.PkScript)) + perUTXOOverhead
			r.UTXOSizeInc += size
			if in.Height == 0 || (in.BIP30Repeat && i == 0) || txscript.IsUnspendable(o.PkScript) {
				continue
			}
			utxos++
			r.UTXOSizeIncActual += size
		}
		if i == 0 {
			continue
		}
		r.Ins += int64(len(tx.TxIn))
		r.TotalOut += txOut
		size := int64(tx.SerializeSize())
		weight := tx.Weight()
		sizes = append(sizes, size)
		r.MaxTxSize = max(r.MaxTxSize, size)
		r.MinTxSize = min(r.MinTxSize, size)
		r.TotalSize += size
		r.TotalWeight += weight
		if tx.HasWitness() {
			r.SwTxs++
			r.SwTotalSize += size
			r.SwTotalWeight += weight
		}
		var txIn int64
		for range tx.TxIn {
			e := &in.Spent[k]
			k++
			txIn += e.Value
			ps := int64(8+wire.VarIntSerializeSize(uint64(len(e.PkScript)))+len(e.PkScript)) + perUTXOOverhead
			r.UTXOSizeInc -= ps
			r.UTXOSizeIncActual -= ps
		}
		fee := txIn - txOut
		fees = append(fees, fee)
		r.MaxFee = max(r.MaxFee, fee)
		r.MinFee = min(r.MinFee, fee)
		r.TotalFee += fee
		var rate int64
		if weight > 0 {
			rate = fee * wire.WitnessScaleFactor / weight
		}
		scores = append(scores, [2]int64{rate, weight})
		r.MaxFeeRate = max(r.MaxFeeRate, rate)
		r.MinFeeRate = min(r.MinFeeRate, rate)
	}
	r.FeeRatePercentiles = feeRatePercentiles(scores, r.TotalWeight)
	if n := int64(len(blk.Transactions)) - 1; n > 0 {
		r.AvgFee = r.TotalFee / n
		r.AvgTxSize = r.TotalSize / n
	}
	if r.TotalWeight > 0 {
		r.AvgFeeRate = r.TotalFee * wire.WitnessScaleFactor / r.TotalWeight
	}
	r.MedianFee = truncatedMedian(fees)
	r.MedianTxSize = truncatedMedian(sizes)
	if r.MinFee == maxMoney {
		r.MinFee = 0
	}
	if r.MinFeeRate == maxMoney {
		r.MinFeeRate = 0
	}
	if r.MinTxSize == wire.MaxBlockSerializedSize {
		r.MinTxSize = 0
	}
	r.UTXOIncrease = r.Outs - r.Ins
	r.UTXOIncreaseActual = utxos - r.Ins
	return r
}

// truncatedMedian is Core's CalculateTruncatedMedian.
func truncatedMedian(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// feeRatePercentiles is Core's CalculatePercentilesByWeight: the fee
// rates at the 10th, 25th, 50th, 75th and 90th percentile of weight.
func feeRatePercentiles(scores [][2]int64, totalWeight int64) [5]int64 {
	var out [5]int64
	if len(scores) == 0 {
		return out
	}
	slices.SortFunc(scores, func(a, b [2]int64) int {
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		return cmp.Compare(a[1], b[1])
	})
	tw := float64(totalWeight)
	bounds := [5]float64{tw / 10, tw / 4, tw / 2, tw * 3 / 4, tw * 9 / 10}
	next, cum := 0, int64(0)
	for _, sc := range scores {
		cum += sc[1]
		for next < 5 && float64(cum) >= bounds[next] {
			out[next] = sc[0]
			next++
		}
	}
	for ; next < 5; next++ {
		out[next] = scores[len(scores)-1][0]
	}
	return out
}
