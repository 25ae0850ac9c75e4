package node

import (
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// rpcCoins is the Coins backend (signrawtransactionwithkey's previous
// outputs). A mempool transaction's outputs are found first, as Core's
// CCoinsViewMemPool does, whether or not another pool transaction spends
// them: a replacement must be signable while the original is pooled.
func (s *server) rpcCoins(ops []wire.OutPoint, includeMempool bool) ([]*rpc.PrevOut, error) {
	out := make([]*rpc.PrevOut, len(ops))
	for i, op := range ops {
		if includeMempool {
			if e, ok := s.pool.Get(op.Hash); ok {
				if int(op.Index) < len(e.Tx.TxOut) {
					o := e.Tx.TxOut[op.Index]
					out[i] = &rpc.PrevOut{Value: o.Value, PkScript: o.PkScript}
				}
				continue
			}
		}
		e, ok, err := s.chain.FetchUtxo(op)
		if err != nil {
			return nil, err
		}
		if ok {
			out[i] = &rpc.PrevOut{Generated: e.IsCoinBase, Height: e.Height, Value: e.Amount, PkScript: e.PkScript}
		}
	}
	return out, nil
}
