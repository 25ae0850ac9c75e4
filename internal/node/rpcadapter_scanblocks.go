package node

import (
	"context"
	"errors"
	"sort"

	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/wire"
)

// rpcBlockFilters is scanblocks' view of the filter index, or nil
// without --blockfilterindex. A range the index has not reached yet (or
// that a reorganisation moved) yields nothing, as Core's filter lookup.
func (s *server) rpcBlockFilters() func(context.Context, string, int32, int32, func(wire.Hash, []byte) error) error {
	idx := s.filters
	if idx == nil {
		return nil
	}
	return func(ctx context.Context, _ string, start, stop int32, visit func(wire.Hash, []byte) error) error {
		if start < 0 || stop < start || stop-start >= blockfilter.MaxFiltersRange {
			return errors.New("filter range out of bounds")
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		stopHash, ok := s.chain.BlockHashByHeight(stop)
		if !ok {
			return nil
		}
		err := idx.FiltersRange(uint32(start), stopHash, func(h wire.Hash, f []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return visit(h, f)
		})
		if errors.Is(err, blockfilter.ErrNotFound) {
			return nil
		}
		return err
	}
}

// mempoolTxs lists the pool's transactions as Core's entryAll orders
// them: by ancestor count, so parents come first, then by fee rate.
func (s *server) mempoolTxs() ([]*wire.MsgTx, error) {
	es := s.pool.Entries()
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.AncCount != b.AncCount {
			return a.AncCount < b.AncCount
		}
		// Higher modified fee rate first: compare fee/size cross-multiplied.
		if l, r := a.ModFee*b.VSize, b.ModFee*a.VSize; l != r {
			return l > r
		}
		return a.TxID.String() < b.TxID.String()
	})
	out := make([]*wire.MsgTx, len(es))
	for i, e := range es {
		out[i] = e.Tx
	}
	return out, nil
}
