package mempool

import (
	"fmt"

	"github.com/btcnode/btcd/wire"
)

// checkEphemeralSpends is Core's CheckEphemeralSpends: a transaction
// spending any output of a parent (an earlier member of txs, or a pool
// transaction) that has dust must spend all of that parent's dust, so
// ephemeral dust never outlives the child that pays for its parent. It
// returns the offending child with the rejection.
func (p *Pool) checkEphemeralSpends(txs []*acceptState) (*acceptState, *RejectError) {
	rate := p.cfg.Policy.DustRelayFee
	byTxID := make(map[wire.Hash]*wire.MsgTx, len(txs))
	for _, ws := range txs {
		byTxID[ws.txid] = ws.tx
	}
	var seen []wire.Hash
	var dust []wire.OutPoint
	for _, ws := range txs {
		seen, dust = seen[:0], dust[:0]
		for i := range ws.tx.TxIn {
			h := ws.tx.TxIn[i].PreviousOutPoint.Hash
			if containsHash(seen, h) {
				continue
			}
			seen = append(seen, h)
			parent := byTxID[h]
			if parent == nil {
				if e, ok := p.byTxID[h]; ok {
					parent = e.Tx
				}
			}
			if parent == nil {
				continue
			}
			for j := range parent.TxOut {
				if IsDust(&parent.TxOut[j], rate) {
					dust = append(dust, wire.OutPoint{Hash: h, Index: uint32(j)})
				}
			}
		}
		for _, op := range dust {
			spent := false
			for i := range ws.tx.TxIn {
				if ws.tx.TxIn[i].PreviousOutPoint == op {
					spent = true
					break
				}
			}
			if !spent {
				return ws, rejectPolicy(ReasonMissingEphemeralSpends,
					fmt.Sprintf("tx %s (wtxid=%s) did not spend parent's ephemeral dust", ws.txid, ws.wtxid))
			}
		}
	}
	return nil, nil
}

func containsHash(s []wire.Hash, h wire.Hash) bool {
	for _, x := range s {
		if x == h {
			return true
		}
	}
	return false
}
