package main

import (
	"encoding/binary"
	"os"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

// writeTail appends n coinbase-only blocks after the chain's tip into a
// new block file, so that -assumevalid tip can take effect: Core's rule
// (and ours) checks the scripts of every block within two weeks of
// equivalent work (2,016 regtest blocks) below the best header, whatever
// the assumed-valid block. It returns the new tip.
func writeTail(path string, last *wire.BlockHeader, height, n int) (wire.Hash, error) {
	target := chaincfg.CompactToBig(last.Bits)
	prev := last.BlockHash()
	ts := last.Timestamp
	var buf []byte
	for i := range n {
		h := int32(height + 1 + i)
		sig := blockchain.AppendHeightScript(nil, h)
		sig = append(sig, 8)
		sig = append(sig, "ibdbench"...)
		cb := &wire.MsgTx{
			Version: 1,
			TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
				SignatureScript: sig, Sequence: wire.MaxTxInSequenceNum}},
			// Unspendable and worthless: adds nothing to the UTXO set.
			TxOut: []wire.TxOut{{Value: 0, PkScript: []byte{0x6a}}},
		}
		ts++
		blk := wire.MsgBlock{
			Header: wire.BlockHeader{Version: 0x20000000, PrevBlock: prev,
				MerkleRoot: cb.TxHash(), Timestamp: ts, Bits: last.Bits},
			Transactions: []*wire.MsgTx{cb},
		}
		for nonce := uint32(0); ; nonce++ {
			blk.Header.Nonce = nonce
			prev = blk.Header.BlockHash()
			if blockchain.HashToBig(&prev).Cmp(target) <= 0 {
				break
			}
		}
		start := len(buf)
		buf = append(buf, regtestMagic[:]...)
		buf = append(buf, 0, 0, 0, 0)
		buf = blk.AppendTo(buf, true)
		binary.LittleEndian.PutUint32(buf[start+4:], uint32(len(buf)-start-8))
	}
	return prev, os.WriteFile(path, buf, 0o644)
}
