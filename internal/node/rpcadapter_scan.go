package node

import (
	"context"
	"errors"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// scanProgressEvery is how many coins pass between progress reports.
const scanProgressEvery = 1 << 14

// scanUTXOs serves scantxoutset: as Core, it flushes the UTXO cache and
// walks the stored coin set once, from one snapshot, matching each
// coin's script. "height" and "bestblock" name the block the set is at.
func (s *server) scanUTXOs(ctx context.Context, match func([]byte) bool, progress func(float64)) (*rpc.UTXOScan, error) {
	var scan *rpc.UTXOScan
	var err error
	for range 3 {
		if err = s.chain.Flush(); err != nil {
			return nil, err
		}
		scan, err = s.scanCoins(ctx, match, progress)
		if !errors.Is(err, database.ErrFlushInProgress) {
			break
		}
	}
	return scan, err
}

// scanCoins walks the flushed set once.
func (s *server) scanCoins(ctx context.Context, match func([]byte) bool, progress func(float64)) (*rpc.UTXOScan, error) {
	scan := &rpc.UTXOScan{}
	var visited int64
	var ctxErr error
	best, err := s.cs.ForEachCoin(func(op wire.OutPoint, e *database.UtxoEntry) bool {
		visited++
		if visited%scanProgressEvery == 0 {
			if ctxErr = ctx.Err(); ctxErr != nil {
				return false
			}
			// Coins come in txid order, so the txid's first two bytes
			// tell how far through the key space the scan is (as Core
			// estimates it).
			if progress != nil {
				progress(float64(uint32(op.Hash[0])<<8|uint32(op.Hash[1])) / 65536)
			}
		}
		if !match(e.PkScript) {
			return true
		}
		scan.Hits = append(scan.Hits, rpc.ScannedUTXO{OutPoint: op, Value: e.Amount,
			PkScript: append([]byte(nil), e.PkScript...), Height: e.Height, Coinbase: e.IsCoinBase})
		return true
	})
	if err != nil {
		return scan, err
	}
	if ctxErr != nil {
		return scan, ctxErr
	}
	scan.Height, scan.BestBlock, scan.TxOuts = best.Height, best.Hash, visited
	if best.Height < 0 {
		// Nothing stored yet: the set is empty at the current tip.
		b := s.chain.BestSnapshot()
		scan.Height, scan.BestBlock = b.Height, b.Hash
	}
	for i := range scan.Hits {
		if h, ok := s.chain.BlockHashByHeight(scan.Hits[i].Height); ok {
			scan.Hits[i].BlockHash = h
		}
	}
	if progress != nil {
		progress(1)
	}
	return scan, nil
}
