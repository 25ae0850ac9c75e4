package netsync

import (
	"sync"

	"github.com/btcnode/btcd/wire"
)

// DefaultExtraTxns is how many transactions outside the mempool are kept
// for compact block reconstruction (bitcoind's
// -blockreconstructionextratxn default).
const DefaultExtraTxns = 100

// maxExtraTxSize bounds the transactions kept: a large one would crowd
// the memory of many small ones for the same one slot (bitcoind keeps
// those under 100,000 bytes of memory).
const maxExtraTxSize = 100_000

// extraTx is one kept transaction with its wtxid, which short ids hash.
type extraTx struct {
	wtxid wire.Hash
	tx    *wire.MsgTx
}

// extraTxns keeps the last transactions seen that are not in the
// mempool: refused, orphaned or replaced. A miner may include what our
// pool would not take, and each one found here is one a compact block
// does not make us ask for (bitcoind's extra transactions for compact
// blocks). It is a ring: the oldest is overwritten.
type extraTxns struct {
	mu   sync.Mutex
	ring []extraTx
	next int
	max  int
}

// add keeps tx, of witness hash wtxid, dropping the oldest once the ring
// is full.
func (e *extraTxns) add(tx *wire.MsgTx, wtxid wire.Hash) {
	if e.max <= 0 || tx == nil || tx.SerializeSize() > maxExtraTxSize {
		return
	}
	x := extraTx{wtxid: wtxid, tx: tx}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.ring) < e.max {
		e.ring = append(e.ring, x)
		return
	}
	e.ring[e.next] = x
	e.next = (e.next + 1) % e.max
}

// snapshot returns the kept transactions (shared; the slice is a copy).
func (e *extraTxns) snapshot() []extraTx {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]extraTx(nil), e.ring...)
}

// AddExtraTx keeps a transaction that left or never entered the mempool
// (the mempool's replaced transactions come through here) for compact
// block reconstruction. It takes only its own lock, so the mempool may
// call it with its lock held.
func (m *Manager) AddExtraTx(tx *wire.MsgTx, wtxid wire.Hash) { m.extra.add(tx, wtxid) }
