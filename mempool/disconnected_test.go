package mempool

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestReorgDisconnectedBound: when the transactions of the blocks a reorg
// disconnects pass Core's 20 MB accounting bound, those of the most
// recently confirmed block, last first, do not return to the pool, and
// neither do pool transactions spending them.
func TestReorgDisconnectedBound(t *testing.T) {
	h := newHarness(t, nil)
	const perBlock, blocks = 20, 20
	type mined struct {
		blk   *wire.MsgBlock
		spent map[wire.OutPoint]Coin
		txs   []*wire.MsgTx
	}
	var chain []mined
	for b := 0; b < blocks; b++ {
		m := mined{spent: make(map[wire.OutPoint]Coin)}
		for i := 0; i < perBlock; i++ {
			op := h.coin(100_000)
			m.spent[op] = h.chain.coins[op]
			tx := spend([]wire.OutPoint{op}, 90_000)
			tx.TxOut = append(tx.TxOut, wire.TxOut{PkScript: nullData(50_000)})
			m.txs = append(m.txs, tx)
		}
		m.blk = h.chain.connect(m.txs...)
		h.pool.BlockConnected(m.blk, h.chain.height)
		chain = append(chain, m)
	}
	h.pool.ChainUpdated()
	tip := chain[len(chain)-1]
	last := tip.txs[perBlock-1]
	child := spend([]wire.OutPoint{outpoint(last, 0)}, 80_000)
	h.mustAccept(child)

	// How many Core drops: the queue is filled tip first, each block's
	// transactions last to first (coinbase included), and emptied from
	// the front while over the bound.
	var total int64
	var queue []int64
	for i := len(chain) - 1; i >= 0; i-- {
		txs := chain[i].blk.Transactions
		for j := len(txs) - 1; j >= 0; j-- {
			u := coreQueuedTxUsage(txs[j])
			queue = append(queue, u)
			total += u
		}
	}
	drop := 0
	for total > maxDisconnectedBytes {
		total -= queue[drop]
		drop++
	}
	if drop == 0 || drop >= perBlock {
		t.Fatalf("test sizes give %d drops, want a few", drop)
	}

	for i := len(chain) - 1; i >= 0; i-- {
		h.chain.disconnect(chain[i].blk, chain[i].spent)
		h.pool.BlockDisconnected(chain[i].blk)
	}
	h.pool.BlockConnected(h.chain.connect(), h.chain.height) // the new chain
	h.pool.ChainUpdated()
	h.check()
	for i, m := range chain {
		for j, tx := range m.txs {
			wantIn := !(i == len(chain)-1 && j >= perBlock-drop)
			if got := h.pool.Has(tx.TxHash()); got != wantIn {
				t.Fatalf("block %d tx %d: in pool %v, want %v (%d dropped)", i, j, got, wantIn, drop)
			}
		}
	}
	if h.pool.Has(child.TxHash()) {
		t.Fatal("child of a dropped transaction is back in the pool")
	}
}
