package mining

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/wire"
)

// fakeChain is the chain a Miner reads: a tip, a UTXO set shared with
// the pool's view, and deployment states by index.
type fakeChain struct {
	mu       sync.Mutex
	tip      blockchain.BestState
	coins    map[wire.OutPoint]mempool.Coin
	next     uint32
	states   map[int]blockchain.ThresholdState
	version  int32
	checkErr error
	blocks   map[wire.Hash]blockchain.BlockStatus
}

func newFakeChain() *fakeChain {
	return &fakeChain{
		tip:     blockchain.BestState{Height: 1000, MedianTime: 1_700_000_000, Bits: 0x207fffff},
		coins:   map[wire.OutPoint]mempool.Coin{},
		states:  map[int]blockchain.ThresholdState{},
		version: 0x20000000,
		blocks:  map[wire.Hash]blockchain.BlockStatus{},
	}
}

func (c *fakeChain) BestSnapshot() *blockchain.BestState {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tip
	return &t
}

func (c *fakeChain) BlockVersionAfter(wire.Hash) (int32, error) { return c.version, nil }
func (c *fakeChain) CalcNextRequiredBits(int64) uint32          { return 0x207fffff }

func (c *fakeChain) DeploymentState(id int, _ wire.Hash) (blockchain.DeploymentStatus, error) {
	return blockchain.DeploymentStatus{Next: c.states[id]}, nil
}

func (c *fakeChain) FetchUtxo(op wire.OutPoint) (database.UtxoEntry, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	co, ok := c.coins[op]
	return database.UtxoEntry{Amount: co.Value, PkScript: co.PkScript, Height: co.Height}, ok, nil
}

func (c *fakeChain) CheckBlockTemplate(*wire.MsgBlock) error { return c.checkErr }

func (c *fakeChain) LookupBlock(h *wire.Hash) (blockchain.BlockStatus, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.blocks[*h]
	return st, ok
}

func (c *fakeChain) BlockHashByHeight(int32) (wire.Hash, bool) { return wire.Hash{}, false }

// setTip moves the tip to a new block.
func (c *fakeChain) setTip(hash wire.Hash) {
	c.mu.Lock()
	c.tip.Hash = hash
	c.tip.Height++
	c.mu.Unlock()
}

// addCoin creates a confirmed coin paying a P2WPKH script.
func (c *fakeChain) addCoin(value int64) wire.OutPoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	var h wire.Hash
	binary.LittleEndian.PutUint32(h[:], c.next)
	h[31] = 0xcc
	op := wire.OutPoint{Hash: h}
	c.coins[op] = mempool.Coin{Value: value, PkScript: p2wpkh(1), Height: c.tip.Height - 10}
	return op
}

func (c *fakeChain) view() mempool.ChainView {
	return mempool.ChainView{
		FetchCoin: func(op wire.OutPoint) (mempool.Coin, bool) {
			c.mu.Lock()
			defer c.mu.Unlock()
			co, ok := c.coins[op]
			return co, ok
		},
		Tip: func() mempool.ChainTip {
			t := c.BestSnapshot()
			return mempool.ChainTip{Height: t.Height, Hash: t.Hash, MedianTimePast: t.MedianTime}
		},
		MedianTimePast: func(h int32) int64 { return 1_700_000_000 - int64(1000-h)*600 },
	}
}

func p2wpkh(seed byte) []byte {
	s := make([]byte, 22)
	s[0], s[1] = 0x00, 0x14
	for i := 2; i < 22; i++ {
		s[i] = seed + byte(i)
	}
	return s
}

// spend builds a P2WPKH-shaped transaction (scripts are not checked).
func spend(ins []wire.OutPoint, values ...int64) *wire.MsgTx {
	tx := &wire.MsgTx{Version: 2}
	for _, op := range ins {
		key := make([]byte, 33)
		key[0] = 2
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: op, Witness: [][]byte{make([]byte, 71), key}, Sequence: 0xfffffffd})
	}
	for i, v := range values {
		tx.TxOut = append(tx.TxOut, wire.TxOut{Value: v, PkScript: p2wpkh(byte(i))})
	}
	return tx
}

func outpoint(tx *wire.MsgTx, i uint32) wire.OutPoint {
	return wire.OutPoint{Hash: tx.TxHash(), Index: i}
}

// harness is a real pool over a fake chain and a Miner over both.
type harness struct {
	t      *testing.T
	chain  *fakeChain
	pool   *mempool.Pool
	miner  *Miner
	params chaincfg.Params
	mined  []*wire.MsgBlock
	quit   chan struct{}
}

func newHarness(t *testing.T, mutate func(*Config)) *harness {
	h := &harness{t: t, chain: newFakeChain(), params: chaincfg.RegressionNetParams, quit: make(chan struct{})}
	mc := mempool.DefaultConfig()
	mc.Chain = h.chain.view()
	mc.VerifyScripts = func(*wire.MsgTx, []mempool.Coin, bool) error { return nil }
	mc.Now = func() time.Time { return time.Unix(1_700_000_000, 0) }
	h.pool = mempool.New(mc)
	cfg := Config{
		Chain:  h.chain,
		Params: &h.params,
		Pool:   h.pool,
		Submit: func(blk *wire.MsgBlock) error {
			h.mined = append(h.mined, blk)
			h.chain.setTip(blk.BlockHash())
			return nil
		},
		Quit: h.quit,
		Now:  func() int64 { return 1_700_000_100 },
	}
	if mutate != nil {
		mutate(&cfg)
	}
	h.miner = New(cfg)
	return h
}

func (h *harness) coin(v int64) wire.OutPoint { return h.chain.addCoin(v) }

func (h *harness) accept(txs ...*wire.MsgTx) {
	h.t.Helper()
	for _, tx := range txs {
		if _, err := h.pool.AcceptTransaction(tx, mempool.AcceptOptions{}); err != nil {
			h.t.Fatalf("accept %v: %v", tx.TxHash(), err)
		}
	}
}

func (h *harness) selection(pol Policy) *Selection { return Select(h.pool.Candidates(), pol) }

// ids lists the txids of txs.
func ids(txs ...*wire.MsgTx) []wire.Hash {
	out := make([]wire.Hash, len(txs))
	for i, tx := range txs {
		out[i] = tx.TxHash()
	}
	return out
}
