package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// scanRetries is how often scanUTXOs starts over when the tip moves while
// it runs, before it answers with the last attempt.
const scanRetries = 3

// scanUTXOs serves scantxoutset. The database package offers no cursor
// over the stored coins, so the scan reads the active chain's blocks
// instead: every output whose script matches is looked up in the UTXO
// set, which keeps it only while unspent. Like Core, it first flushes the
// cache and counts the flushed set (gettxoutsetinfo's count), so "txouts",
// "height" and "bestblock" agree with gettxoutsetinfo. Reading all blocks
// costs far more than a cursor over the set would on a large chain, and a
// pruned node lacks the blocks: both want a coin cursor in database.
func (s *server) scanUTXOs(ctx context.Context, match func([]byte) bool, progress func(float64)) (*rpc.UTXOScan, error) {
	var scan *rpc.UTXOScan
	var err error
	for range scanRetries {
		var st database.UtxoSetInfo
		st, err = s.flushedUtxoInfo()
		if err != nil {
			return nil, err
		}
		scan, err = s.scanBlocks(ctx, st, match, progress)
		if err != nil {
			return scan, err
		}
		if s.chain.BestSnapshot().Hash == st.Best.Hash {
			break
		}
	}
	return scan, err
}

// flushedUtxoInfo flushes the UTXO cache and returns the stored set's
// counts and tip, retrying a snapshot that fell between two batches of a
// background flush (as gettxoutsetinfo does).
func (s *server) flushedUtxoInfo() (database.UtxoSetInfo, error) {
	var st database.UtxoSetInfo
	var err error
	for range 3 {
		if err = s.chain.Flush(); err != nil {
			return st, err
		}
		st, err = s.cs.HashUtxoSet(0)
		if !errors.Is(err, database.ErrFlushInProgress) {
			break
		}
	}
	return st, err
}

// scanBlocks looks for unspent matching outputs in the blocks up to the
// tip st names.
func (s *server) scanBlocks(ctx context.Context, st database.UtxoSetInfo, match func([]byte) bool, progress func(float64)) (*rpc.UTXOScan, error) {
	scan := &rpc.UTXOScan{Height: st.Best.Height, BestBlock: st.Best.Hash}
	if st.Best.Height < 0 {
		// Nothing stored yet: the set is empty at the current tip.
		b := s.chain.BestSnapshot()
		scan.Height, scan.BestBlock = b.Height, b.Hash
		return scan, nil
	}
	var buf []byte
	var blk wire.MsgBlock
	for h := int32(0); h <= st.Best.Height; h++ {
		if err := ctx.Err(); err != nil {
			return scan, err
		}
		if progress != nil && h%64 == 0 {
			progress(float64(h) / float64(st.Best.Height+1))
		}
		hash, ok := s.chain.BlockHashByHeight(h)
		if !ok {
			// The chain was reorganised below the scanned tip.
			return scan, fmt.Errorf("block at height %d left the active chain during the scan", h)
		}
		var err error
		if buf, err = s.chain.BlockBytesByHash(&hash, buf[:0]); err != nil {
			return scan, rpc.NewError(rpc.ErrMisc, fmt.Sprintf("Block %v not available (pruned data?): scantxoutset reads the blocks", hash))
		}
		blk = wire.MsgBlock{}
		if _, err := blk.Decode(buf); err != nil {
			return scan, fmt.Errorf("block %v: %w", hash, err)
		}
		txids := blk.TxHashes()
		for ti, tx := range blk.Transactions {
			for vi, out := range tx.TxOut {
				if !match(out.PkScript) {
					continue
				}
				op := wire.OutPoint{Hash: txids[ti], Index: uint32(vi)}
				e, ok, err := s.chain.FetchUtxo(op)
				if err != nil {
					return scan, err
				}
				// A duplicate coinbase (BIP30) names the later coin:
				// report it at its own block only.
				if !ok || e.Height != h {
					continue
				}
				scan.Hits = append(scan.Hits, rpc.ScannedUTXO{OutPoint: op, Value: e.Amount, PkScript: e.PkScript,
					Height: e.Height, BlockHash: hash, Coinbase: e.IsCoinBase})
			}
		}
	}
	scan.TxOuts = int64(st.Outputs)
	if progress != nil {
		progress(1)
	}
	return scan, nil
}
