package coinstats

import (
	"encoding/binary"
	"maps"
	"testing"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/muhash"
	"github.com/btcnode/btcd/wire"
)

// testHalving is a short halving interval, so tests cross a halving.
const testHalving = 150

// Amounts of the synthetic chain (satoshi).
const (
	testFee       = 500
	testBurn      = 1000 // sent to OP_RETURN every third block
	testUnclaimed = 100  // left unclaimed every fifth block
)

// utxoSet is the model the index is checked against.
type utxoSet map[wire.OutPoint]database.UtxoEntry

// testChain is a synthetic chain with a reference UTXO set after every
// block: block h pays its coinbase, and from height 2 spends the previous
// block's coinbase into a new output (plus an OP_RETURN burn every third
// block); every fifth coinbase leaves part of the reward unclaimed.
type testChain struct {
	blocks []*wire.MsgBlock
	spent  [][]database.UtxoEntry
	sets   []utxoSet
	// extra outputs each spend transaction makes (a wide block).
	wide map[int32]int
}

// byHash holds every block ever built by any chain of a test, for
// ChainSource.Block.
type byHash map[wire.Hash]struct {
	block *wire.MsgBlock
	spent []database.UtxoEntry
}

func script(tag uint32, n int) []byte {
	s := make([]byte, 22)
	s[0], s[1] = 0x00, 0x14
	binary.LittleEndian.PutUint32(s[2:], tag)
	binary.LittleEndian.PutUint32(s[6:], uint32(n))
	return s
}

// extend grows c to n blocks on branch (which makes sibling blocks differ).
func (c *testChain) extend(n int, branch uint32, all byHash) {
	for h := int32(len(c.blocks)); int(h) < n; h++ {
		var prev wire.Hash
		set := utxoSet{}
		if h > 0 {
			prev = c.blocks[h-1].BlockHash()
			set = maps.Clone(c.sets[h-1])
		}
		subsidy := blockchain.CalcBlockSubsidy(h, testHalving)
		var txs []*wire.MsgTx
		var spent []database.UtxoEntry
		fees := int64(0)
		if h >= 2 {
			prevCB := c.blocks[h-1].Transactions[0]
			op := wire.OutPoint{Hash: prevCB.TxHash(), Index: 0}
			e, ok := set[op]
			if !ok {
				panic("model lost a coinbase")
			}
			tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: op}}}
			left := e.Amount - testFee
			if h%3 == 0 {
				tx.TxOut = append(tx.TxOut, wire.TxOut{Value: testBurn, PkScript: []byte{0x6a, 0x01, byte(h)}})
				left -= testBurn
			}
			for k := range c.wide[h] {
				tx.TxOut = append(tx.TxOut, wire.TxOut{Value: 1, PkScript: script(branch+200, int(h)*1000+k)})
				left--
			}
			tx.TxOut = append(tx.TxOut, wire.TxOut{Value: left, PkScript: script(branch+100, int(h))})
			txs = append(txs, tx)
			spent = append(spent, e)
			fees += testFee
		}
		claim := subsidy + fees
		if h%5 == 0 && h > 0 {
			claim -= testUnclaimed
		}
		cb := &wire.MsgTx{Version: 1,
			TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: 0xffffffff},
				SignatureScript: []byte{4, byte(h), byte(h >> 8), byte(branch), 0}}},
			TxOut: []wire.TxOut{{Value: claim, PkScript: script(branch, int(h))}, {PkScript: []byte{0x6a, 0x24}}},
		}
		txs = append([]*wire.MsgTx{cb}, txs...)
		blk := &wire.MsgBlock{Header: wire.BlockHeader{Version: 1, PrevBlock: prev, Nonce: branch, Timestamp: uint32(h)}, Transactions: txs}
		if h > 0 {
			for i, tx := range txs {
				if i > 0 {
					for _, in := range tx.TxIn {
						delete(set, in.PreviousOutPoint)
					}
				}
				for j, out := range tx.TxOut {
					if database.IsUnspendable(out.PkScript) {
						continue
					}
					set[wire.OutPoint{Hash: tx.TxHash(), Index: uint32(j)}] = database.UtxoEntry{
						Amount: out.Value, PkScript: out.PkScript, Height: h, IsCoinBase: i == 0}
				}
			}
		}
		c.blocks = append(c.blocks, blk)
		c.spent = append(c.spent, spent)
		c.sets = append(c.sets, set)
		all[blk.BlockHash()] = struct {
			block *wire.MsgBlock
			spent []database.UtxoEntry
		}{blk, spent}
	}
}

func (c *testChain) truncate(n int) {
	c.blocks, c.spent, c.sets = c.blocks[:n], c.spent[:n], c.sets[:n]
}

func (c *testChain) hash(h int) wire.Hash { return c.blocks[h].BlockHash() }

func (c *testChain) source(all byHash) ChainSource {
	return ChainSource{
		TipHeight: func() int32 { return int32(len(c.blocks) - 1) },
		HashAt: func(h int32) (wire.Hash, bool) {
			if h < 0 || int(h) >= len(c.blocks) {
				return wire.Hash{}, false
			}
			return c.hash(int(h)), true
		},
		Block: all.block,
	}
}

func (all byHash) block(h wire.Hash) (*wire.MsgBlock, []database.UtxoEntry, error) {
	b, ok := all[h]
	if !ok {
		return nil, nil, kinds.New(ErrInvalidArg, "test chain has no block %v", h)
	}
	return b.block, b.spent, nil
}

// digest is the model's MuHash, computed from scratch.
func (s utxoSet) digest() wire.Hash {
	m := muhash.New()
	for op, e := range s {
		m.Insert(database.AppendTxOutSer(nil, &op.Hash, op.Index, &e))
	}
	return wire.Hash(m.Finalize())
}

// check compares a record with the model at its height.
func (c *testChain) check(t *testing.T, st Stats) {
	t.Helper()
	h := st.Height
	set := c.sets[h]
	var amount, bogo int64
	for _, e := range set {
		amount += e.Amount
		bogo += bogoPerCoin + int64(len(e.PkScript))
	}
	if st.Hash != c.hash(int(h)) {
		t.Fatalf("height %d: hash %v, want %v", h, st.Hash, c.hash(int(h)))
	}
	if st.MuHash != set.digest() {
		t.Fatalf("height %d: MuHash differs from the model's", h)
	}
	if st.TxOuts != uint64(len(set)) || st.TotalAmount != amount || st.BogoSize != uint64(bogo) {
		t.Fatalf("height %d: txouts %d amount %d bogo %d, want %d %d %d",
			h, st.TxOuts, st.TotalAmount, st.BogoSize, len(set), amount, bogo)
	}
	// Money is conserved: what was paid out equals what is left plus
	// what can never be spent.
	if st.TotalSubsidy != st.TotalAmount+st.Unspendables.Total() {
		t.Fatalf("height %d: subsidy %d != amount %d + unspendable %d", h, st.TotalSubsidy, st.TotalAmount, st.Unspendables.Total())
	}
	b := st.Block
	if b.PrevoutSpent+blockchain.CalcBlockSubsidy(h, testHalving) !=
		b.NewOutputsExCoinbase+b.Coinbase+b.Unspendables.Total() {
		t.Fatalf("height %d: block_info does not balance: %+v", h, b)
	}
}
