package chaincfg

import (
	"encoding/hex"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// The genesis blocks are built from their known contents rather than decoded
// from a hex dump, so the construction documents what is in them; the tests
// pin the resulting hashes and merkle roots to the well-known values.

const (
	// satoshiTimestamp is the text Satoshi embedded in the first coinbase.
	satoshiTimestamp = "The Times 03/Jan/2009 Chancellor on brink of second bailout for banks"

	// satoshiPubKey is the uncompressed key the first coinbase pays to.
	satoshiPubKey = "04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb6" +
		"49f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f"

	// testnet4Timestamp commits to a recent mainnet block hash, proving the
	// testnet4 genesis was not premined.
	testnet4Timestamp = "03/May/2024 000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e"

	// genesisReward is the 50 BTC every genesis coinbase pays.
	genesisReward = 50 * 100_000_000
)

// genesisCoinbase builds a genesis coinbase: the scriptSig pushes the
// difficulty-1 bits (0x1d00ffff as a 4-byte number), the number 4, and the
// timestamp text; the single output pays the reward to a bare pubkey.
func genesisCoinbase(timestamp string, pubKey []byte) *wire.MsgTx {
	sig := txscript.AppendPush(nil, []byte{0xff, 0xff, 0x00, 0x1d})
	sig = txscript.AppendPush(sig, []byte{0x04})
	sig = txscript.AppendPush(sig, []byte(timestamp))

	pk := txscript.AppendPush(nil, pubKey)
	pk = append(pk, txscript.OP_CHECKSIG)

	return &wire.MsgTx{
		Version: 1,
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
			SignatureScript:  sig,
			Sequence:         wire.MaxTxInSequenceNum,
		}},
		TxOut: []wire.TxOut{{
			Value:    genesisReward,
			PkScript: pk,
		}},
	}
}

// newGenesisBlock wraps coinbase in a version-1 block with the given header
// fields. With a single transaction the merkle root is its txid.
func newGenesisBlock(coinbase *wire.MsgTx, timestamp, bits, nonce uint32) *wire.MsgBlock {
	return &wire.MsgBlock{
		Header: wire.BlockHeader{
			Version:    1,
			MerkleRoot: coinbase.TxHash(),
			Timestamp:  timestamp,
			Bits:       bits,
			Nonce:      nonce,
		},
		Transactions: []*wire.MsgTx{coinbase},
	}
}

func mustDecodeHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic("chaincfg: bad hex constant: " + err.Error())
	}
	return b
}

func mustHash(s string) wire.Hash {
	h, err := wire.NewHashFromStr(s)
	if err != nil || len(s) != wire.MaxHashStringSize {
		panic("chaincfg: bad hash constant " + s)
	}
	return h
}

// satoshiGenesis returns a block carrying Satoshi's coinbase, which the
// mainnet, testnet3, signet and regtest genesis blocks all share; only the
// header's time, bits and nonce differ.
func satoshiGenesis(timestamp, bits, nonce uint32) *wire.MsgBlock {
	cb := genesisCoinbase(satoshiTimestamp, mustDecodeHex(satoshiPubKey))
	return newGenesisBlock(cb, timestamp, bits, nonce)
}

// testnet4Genesis returns the BIP94 testnet4 genesis block, whose coinbase
// has its own text and pays to a 33-byte all-zero (unspendable) key.
func testnet4Genesis() *wire.MsgBlock {
	cb := genesisCoinbase(testnet4Timestamp, make([]byte, 33))
	return newGenesisBlock(cb, 1714777860, 0x1d00ffff, 393743547)
}

// copyBlock returns a deep copy of b (used by Params.Clone so a clone's
// genesis block can be modified without touching the original).
func copyBlock(b *wire.MsgBlock) *wire.MsgBlock {
	if b == nil {
		return nil
	}
	c := &wire.MsgBlock{Header: b.Header, Transactions: make([]*wire.MsgTx, len(b.Transactions))}
	for i, tx := range b.Transactions {
		c.Transactions[i] = tx.Copy()
	}
	return c
}
