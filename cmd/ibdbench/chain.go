package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/btcnode/btcd/wire"
)

// regtestMagic opens every record of a regtest block file.
var regtestMagic = [4]byte{0xfa, 0xbf, 0xb5, 0xda}

// ErrBlockFile reports a malformed block file.
var ErrBlockFile = errors.New("ibdbench: malformed block file")

// chainInfo summarises the chain in the block files.
type chainInfo struct {
	blocks, txs, inputs int
	tip                 string
	last                wire.BlockHeader
	// cumTxs[h] is the number of non-coinbase transactions in blocks
	// 1..h (cumTxs[0] is 0), for the per-tenth rates.
	cumTxs []int
	// utxos is the size of the UTXO set at the tip: spendable outputs
	// less inputs.
	utxos int
}

// blockFiles lists dir's blk?????.dat files in order.
func blockFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "blk[0-9][0-9][0-9][0-9][0-9].dat"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// scanChain decodes every block of the files (written in chain order by
// chaingen) to count blocks, non-coinbase transactions and their inputs.
func scanChain(files []string) (chainInfo, error) {
	ci := chainInfo{cumTxs: []int{0}}
	var blk wire.MsgBlock
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return ci, err
		}
		for len(b) >= 8 {
			if [4]byte(b[:4]) == [4]byte{} {
				break // zero padding at the end of a preallocated file
			}
			if [4]byte(b[:4]) != regtestMagic {
				return ci, fmt.Errorf("%w: %s: bad magic", ErrBlockFile, f)
			}
			n := int(binary.LittleEndian.Uint32(b[4:8]))
			if n > len(b)-8 || n > wire.MaxBlockSerializedSize {
				return ci, fmt.Errorf("%w: %s: record of %d bytes", ErrBlockFile, f, n)
			}
			if _, err := blk.Decode(b[8 : 8+n]); err != nil {
				return ci, fmt.Errorf("%w: %s: %v", ErrBlockFile, f, err)
			}
			ci.blocks++
			ci.txs += len(blk.Transactions) - 1
			for i, tx := range blk.Transactions {
				if i > 0 {
					ci.inputs += len(tx.TxIn)
					ci.utxos -= len(tx.TxIn)
				}
				for _, o := range tx.TxOut {
					if len(o.PkScript) == 0 || o.PkScript[0] != 0x6a { // OP_RETURN
						ci.utxos++
					}
				}
			}
			ci.cumTxs = append(ci.cumTxs, ci.txs)
			h := blk.BlockHash()
			ci.tip = h.String()
			ci.last = blk.Header
			b = b[8+n:]
		}
	}
	if ci.blocks == 0 {
		return ci, fmt.Errorf("%w: no blocks", ErrBlockFile)
	}
	return ci, nil
}
