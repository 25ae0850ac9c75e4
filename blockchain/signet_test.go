package blockchain

import (
	"testing"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
)

// signetParams is regtest with a signet challenge, so that blocks are
// cheap to mine.
func signetParams(t *testing.T, challenge []byte) *testChain {
	p := regtest(t).Clone()
	p.SignetChallenge = challenge
	return newTestChain(t, p, nil)
}

func TestSignetTrivialChallenges(t *testing.T) {
	// OP_TRUE is satisfied by the empty solution.
	tc := signetParams(t, []byte{0x51})
	tc.mine(3)
	// OP_FALSE never is.
	tc2 := signetParams(t, []byte{0x00})
	tc2.reject(tc2.b.NextBlock(nil, nil, nil), ErrBadSignetBlockSig)
}

// TestSignetSignedBlock signs a block for a <pubkey> OP_CHECKSIG challenge
// by building BIP325's to_spend/to_sign transactions independently.
func TestSignetSignedBlock(t *testing.T) {
	b0 := chaintest.New(regtest(t))
	pub := b0.Key.PubKey().SerializeCompressed()
	challenge := append(append([]byte{byte(len(pub))}, pub...), opCheckSig)
	tc := signetParams(t, challenge)
	b := tc.b

	sign := func(e *chaintest.Entry, corrupt bool) {
		blk := e.Block
		cb := blk.Transactions[0]
		commit := &cb.TxOut[len(cb.TxOut)-1]
		base := append([]byte(nil), commit.PkScript...)
		// The block with an empty solution section gives the merkle root
		// the signature commits to.
		commit.PkScript = append(append(append([]byte(nil), base...), 4), signetHeader[:]...)
		blk.ClearHashCache()
		root, _ := blk.MerkleRoot()
		var data []byte
		data = binaryAppendU32(data, uint32(blk.Header.Version))
		data = append(data, blk.Header.PrevBlock[:]...)
		data = append(data, root[:]...)
		data = binaryAppendU32(data, blk.Header.Timestamp)
		toSpend := &wire.MsgTx{
			TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex}, SignatureScript: append([]byte{0, byte(len(data))}, data...)}},
			TxOut: []wire.TxOut{{PkScript: challenge}},
		}
		toSign := &wire.MsgTx{
			TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: toSpend.TxHash()}}},
			TxOut: []wire.TxOut{{PkScript: []byte{opReturn}}},
		}
		h := txscript.CalcSignatureHash(challenge, 1, toSign, 0)
		sig := append(ecdsa.Sign(b.Key, h[:]).Serialize(), 1)
		if corrupt {
			sig[8] ^= 1
		}
		scriptSig := append([]byte{byte(len(sig))}, sig...)
		sol := append([]byte(nil), signetHeader[:]...)
		sol = wire.AppendVarInt(sol, uint64(len(scriptSig)))
		sol = append(sol, scriptSig...)
		sol = append(sol, 0) // empty witness stack
		commit.PkScript = txscript.AppendPush(append([]byte(nil), base...), sol)
		b.Rehash(e)
	}
	good := b.NextBlock(nil, nil, nil)
	sign(good, false)
	tc.accept(good)
	bad := b.NextBlock(nil, nil, nil)
	sign(bad, true)
	tc.reject(bad, ErrBadSignetBlockSig)
	unsigned := b.NextBlock(good, nil, nil)
	tc.reject(unsigned, ErrBadSignetBlockSig)
}
