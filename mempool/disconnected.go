package mempool

import "github.com/btcnode/btcd/wire"

// Core keeps the transactions of the blocks a reorg disconnects in a
// pool bounded by MAX_DISCONNECTED_TX_POOL_BYTES of its own memory
// accounting; when the bound is passed it drops the transactions queued
// first, which are those of the most recently confirmed block, last
// transaction first. The pool here returns each block's transactions at
// once, so the same queue is kept beside it (disconnectQueue) and what
// Core would have dropped leaves the pool again, with its descendants.
// The queue lasts for one batch of chain changes (see ChainUpdated).

// maxDisconnectedBytes is Core's MAX_DISCONNECTED_TX_POOL_BYTES.
const maxDisconnectedBytes = 20_000_000

// queuedDisconnect is one transaction of the disconnect queue.
type queuedDisconnect struct {
	txid  wire.Hash
	usage int64
}

// disconnectQueue mirrors Core's disconnected-transactions pool.
type disconnectQueue struct {
	txs   []queuedDisconnect
	head  int // txs[:head] have been dropped
	bytes int64
}

// add queues a disconnected block's transactions in Core's order (the
// block's transactions last to first, coinbase included) and returns the
// txids that the bound now drops.
func (q *disconnectQueue) add(block *wire.MsgBlock, txids []wire.Hash) map[wire.Hash]struct{} {
	for i := len(block.Transactions) - 1; i >= 0; i-- {
		u := coreQueuedTxUsage(block.Transactions[i])
		q.txs = append(q.txs, queuedDisconnect{txid: txids[i], usage: u})
		q.bytes += u
	}
	var dropped map[wire.Hash]struct{}
	for q.head < len(q.txs) && q.bytes > maxDisconnectedBytes {
		if dropped == nil {
			dropped = make(map[wire.Hash]struct{})
		}
		d := q.txs[q.head]
		dropped[d.txid] = struct{}{}
		q.bytes -= d.usage
		q.head++
	}
	return dropped
}

// reset empties the queue.
func (q *disconnectQueue) reset() { *q = disconnectQueue{} }

// The accounting below models Core's on a 64-bit build: heap blocks are
// rounded as its MallocUsage does, scripts of up to 28 bytes live inside
// their prevector, and each queued transaction carries the fixed cost of
// its list node, shared pointer and txid index entry.
const (
	coreTxInSize   = 96  // sizeof(CTxIn)
	coreTxOutSize  = 40  // sizeof(CTxOut)
	coreVectorSize = 24  // sizeof(std::vector)
	corePrevector  = 28  // CScript's inline capacity
	coreQueuedCost = 256 // the queue's per-transaction allocation
	coreIndexCost  = 72  // the txid index node and bucket
)

// coreMallocUsage is the heap a block of n bytes takes.
func coreMallocUsage(n int) int64 {
	if n == 0 {
		return 0
	}
	return int64((n+31)>>4) << 4
}

func coreScriptUsage(s []byte) int64 {
	if len(s) <= corePrevector {
		return 0
	}
	return coreMallocUsage(len(s))
}

// coreQueuedTxUsage is what one transaction counts towards
// maxDisconnectedBytes.
func coreQueuedTxUsage(tx *wire.MsgTx) int64 {
	u := int64(coreQueuedCost + coreIndexCost)
	u += coreMallocUsage(len(tx.TxIn)*coreTxInSize) + coreMallocUsage(len(tx.TxOut)*coreTxOutSize)
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		u += coreScriptUsage(in.SignatureScript)
		u += coreMallocUsage(len(in.Witness) * coreVectorSize)
		for _, w := range in.Witness {
			u += coreMallocUsage(len(w))
		}
	}
	for i := range tx.TxOut {
		u += coreScriptUsage(tx.TxOut[i].PkScript)
	}
	return u
}

// dropDisconnectedLocked takes the transactions the disconnect queue
// dropped out of the pool (with their descendants) and out of the reorg's
// pending transactions.
func (p *Pool) dropDisconnectedLocked(dropped map[wire.Hash]struct{}) {
	if len(dropped) == 0 {
		return
	}
	var gone []*Entry
	for txid := range dropped {
		if e, ok := p.byTxID[txid]; ok {
			gone = append(gone, e)
		}
		log.Debugf("Transaction %s not returned to the mempool after a reorg: disconnected transactions over %d bytes", txid, maxDisconnectedBytes)
	}
	if len(gone) > 0 {
		p.removeSet(p.withDescendants(gone), removeReorg)
	}
	kept := p.reorgPending[:0]
	p.reorgPendingBytes = 0
	for _, rt := range p.reorgPending {
		if _, drop := dropped[rt.tx.TxHash()]; drop {
			continue
		}
		kept = append(kept, rt)
		p.reorgPendingBytes += rt.tx.SerializeSize()
	}
	clear(p.reorgPending[len(kept):])
	p.reorgPending = kept
}

// ChainUpdated ends one batch of chain changes (the daemon calls it on
// each new tip, after the batch's connected and disconnected blocks):
// the next reorg starts with an empty disconnect queue, as Core's
// disconnected-transactions pool lives for one activation step.
func (p *Pool) ChainUpdated() {
	p.mu.Lock()
	p.disconnected.reset()
	p.mu.Unlock()
}
