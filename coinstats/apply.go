package coinstats

import (
	"sync"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/muhash"
	"github.com/btcnode/btcd/wire"
)

// bip30Unspendable are the two mainnet blocks whose coinbase a later block
// repeated before BIP30: the later coinbase overwrote the earlier one in
// the UTXO set, so the earlier one's subsidy can never be spent. Core
// counts it as unspendable (and leaves the outputs out of the set) at the
// earlier block.
var bip30Unspendable = map[int32]wire.Hash{
	91722: mustHash("00000000000271a2dc26e7667f8419f2e15416dc6955e5a6c6cdf3f2574dd08e"),
	91812: mustHash("00000000000af0aed4792b1acee3d966af36cf5def14935db8de83d6f9306f2f"),
}

func mustHash(s string) wire.Hash {
	h, err := wire.NewHashFromStr(s)
	if err != nil {
		panic(err)
	}
	return h
}

// elemList holds serialized coins (database.AppendTxOutSer) back to back.
type elemList struct {
	buf  []byte
	ends []int
}

func (l *elemList) reset() { l.buf, l.ends = l.buf[:0], l.ends[:0] }

func (l *elemList) add(txid *wire.Hash, index uint32, e *database.UtxoEntry) {
	l.buf = database.AppendTxOutSer(l.buf, txid, index, e)
	l.ends = append(l.ends, len(l.buf))
}

func (l *elemList) len() int { return len(l.ends) }

func (l *elemList) get(i int) []byte {
	start := 0
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.buf[start:l.ends[i]]
}

// elemBuf is a block's coins: those it creates and those it spends.
type elemBuf struct{ created, spent elemList }

func (b *elemBuf) reset() { b.created.reset(); b.spent.reset() }

// blockDelta is what a block changes, before it is added to the previous
// block's statistics.
type blockDelta struct {
	block    BlockStats
	subsidy  int64
	txOuts   int64 // outputs created minus outputs spent
	bogoSize int64
	amount   int64
}

// collect walks a block: it fills b with the coins the block creates
// (spendable outputs, except a BIP30-overwritten coinbase) and spends, and
// returns the amounts. spent are the outputs the block's non-coinbase
// inputs spend, in input order (the block's undo data).
func (x *Index) collect(block *wire.MsgBlock, hash *wire.Hash, height int32, spent []database.UtxoEntry, b *elemBuf) (blockDelta, error) {
	d := blockDelta{subsidy: blockchain.CalcBlockSubsidy(height, x.o.HalvingInterval)}
	if height == 0 {
		// As in Core, the genesis coinbase never enters the UTXO set.
		d.block.Unspendables.GenesisBlock = d.subsidy
		return d, nil
	}
	if len(block.Transactions) == 0 {
		return d, kinds.New(ErrInvalidArg, "block %v has no transactions", hash)
	}
	k := 0
	bip30Hash, bip30 := bip30Unspendable[height]
	bip30 = bip30 && bip30Hash == *hash
	txids := block.TxHashes()
	for i, tx := range block.Transactions {
		coinbase := i == 0
		if coinbase && bip30 {
			d.block.Unspendables.BIP30 += d.subsidy
			continue
		}
		txid := &txids[i]
		for j := range tx.TxOut {
			out := &tx.TxOut[j]
			if out.Value < 0 || out.Value > MaxMoney {
				return d, kinds.New(ErrInvalidArg, "block %v: output value %d", hash, out.Value)
			}
			if database.IsUnspendable(out.PkScript) {
				d.block.Unspendables.Scripts += out.Value
				continue
			}
			e := database.UtxoEntry{Amount: out.Value, PkScript: out.PkScript, Height: height, IsCoinBase: coinbase}
			b.created.add(txid, uint32(j), &e)
			if coinbase {
				d.block.Coinbase += out.Value
			} else {
				d.block.NewOutputsExCoinbase += out.Value
			}
			d.txOuts++
			d.amount += out.Value
			d.bogoSize += bogoPerCoin + int64(len(out.PkScript))
		}
		if coinbase {
			continue
		}
		for j := range tx.TxIn {
			if k >= len(spent) {
				return d, kinds.New(ErrInvalidArg, "block %v: %d spent outputs for more inputs", hash, len(spent))
			}
			e := &spent[k]
			k++
			if e.Amount < 0 || e.Amount > MaxMoney {
				return d, kinds.New(ErrInvalidArg, "block %v: spent value %d", hash, e.Amount)
			}
			op := &tx.TxIn[j].PreviousOutPoint
			b.spent.add(&op.Hash, op.Index, e)
			d.block.PrevoutSpent += e.Amount
			d.txOuts--
			d.amount -= e.Amount
			d.bogoSize -= bogoPerCoin + int64(len(e.PkScript))
		}
	}
	if k != len(spent) {
		return d, kinds.New(ErrInvalidArg, "block %v: %d spent outputs for %d inputs", hash, len(spent), k)
	}
	// What the subsidy and the spent coins could pay for but no output
	// (spendable or not) received was left unclaimed by the miner.
	u := &d.block.Unspendables
	unclaimed := d.block.PrevoutSpent + d.subsidy -
		(d.block.NewOutputsExCoinbase + d.block.Coinbase + u.GenesisBlock + u.BIP30 + u.Scripts)
	if unclaimed < 0 {
		return d, kinds.New(ErrInvalidArg, "block %v creates %d more than its inputs and subsidy", hash, -unclaimed)
	}
	u.UnclaimedRewards = unclaimed
	return d, nil
}

// next adds d to the statistics of the previous block (zero for genesis).
func next(prev *Stats, d *blockDelta, hash wire.Hash, height int32) (Stats, error) {
	st := Stats{
		Hash:         hash,
		Height:       height,
		TotalSubsidy: prev.TotalSubsidy + d.subsidy,
		Unspendables: prev.Unspendables.add(d.block.Unspendables),
		Block:        d.block,
	}
	txOuts := int64(prev.TxOuts) + d.txOuts
	bogo := int64(prev.BogoSize) + d.bogoSize
	st.TotalAmount = prev.TotalAmount + d.amount
	if txOuts < 0 || bogo < 0 || st.TotalAmount < 0 || st.TotalAmount > MaxMoney ||
		st.TotalSubsidy > MaxMoney || st.Unspendables.Total() > MaxMoney {
		return st, kinds.New(ErrInvalidArg, "block %v spends coins the index does not hold", hash)
	}
	st.TxOuts, st.BogoSize = uint64(txOuts), uint64(bogo)
	return st, nil
}

// minPerWorker is the fewest coins worth a goroutine: an insertion costs
// about 2.5 us, starting a goroutine and combining its result a few.
const minPerWorker = 256

// delta returns the MuHash of add over remove. MuHash is a product, so a
// large block's coins are split between goroutines whose partial products
// are combined.
func (x *Index) delta(add, remove *elemList) *muhash.MuHash {
	n := add.len() + remove.len()
	workers := min(x.o.Workers, n/minPerWorker)
	if workers <= 1 {
		m := muhash.New()
		for i := range add.len() {
			m.Insert(add.get(i))
		}
		for i := range remove.len() {
			m.Remove(remove.get(i))
		}
		return m
	}
	parts := make([]*muhash.MuHash, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := muhash.New()
			for i := w; i < add.len(); i += workers {
				m.Insert(add.get(i))
			}
			for i := w; i < remove.len(); i += workers {
				m.Remove(remove.get(i))
			}
			parts[w] = m
		}()
	}
	wg.Wait()
	for _, p := range parts[1:] {
		parts[0].Combine(p)
	}
	return parts[0]
}

// cloneMuHash copies a MuHash through its serialization (the type must
// not be copied by value).
func cloneMuHash(m *muhash.MuHash) (*muhash.MuHash, error) {
	state, err := m.MarshalBinary()
	if err != nil {
		return nil, err
	}
	c := muhash.New()
	if err := c.UnmarshalBinary(state); err != nil {
		return nil, kinds.Wrap(ErrCorrupt, err, "MuHash state")
	}
	return c, nil
}
