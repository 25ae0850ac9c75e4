package blockchain

import (
	"bytes"

	"github.com/btcnode/btcd/wire"
)

// Script opcodes the coinbase and witness commitment rules look at.
const (
	op0      = 0x00
	op1      = 0x51
	opReturn = 0x6a
)

// witnessCommitmentHeader starts a BIP141 commitment output: OP_RETURN, a
// 36-byte push, and the 0xaa21a9ed tag.
var witnessCommitmentHeader = [6]byte{opReturn, 0x24, 0xaa, 0x21, 0xa9, 0xed}

// witnessCommitmentLen is the minimum commitment script length: header
// plus the 32-byte commitment.
const witnessCommitmentLen = 38

// AppendHeightScript appends the script Core's CScript() << height
// produces, which a BIP34 coinbase must start with: OP_0 for 0, OP_1 to
// OP_16 for 1 to 16, otherwise a push of the minimal little-endian
// sign-magnitude number.
func AppendHeightScript(dst []byte, height int32) []byte {
	switch {
	case height == 0:
		return append(dst, op0)
	case height >= 1 && height <= 16:
		return append(dst, byte(op1-1+height))
	}
	var num [5]byte
	n := 0
	for v := uint32(height); v > 0; v >>= 8 {
		num[n] = byte(v)
		n++
	}
	if num[n-1]&0x80 != 0 {
		num[n] = 0
		n++
	}
	dst = append(dst, byte(n))
	return append(dst, num[:n]...)
}

// CheckCoinbaseHeight is the BIP34 rule: the coinbase scriptSig starts with
// the block height ("bad-cb-height").
func CheckCoinbaseHeight(coinbase *wire.MsgTx, height int32) error {
	var buf [8]byte
	want := AppendHeightScript(buf[:0], height)
	if !bytes.HasPrefix(coinbase.TxIn[0].SignatureScript, want) {
		return ruleError(ErrBadCoinbaseHeight, "block height mismatch in coinbase")
	}
	return nil
}

// WitnessCommitmentIndex returns the index of the coinbase output holding
// the BIP141 witness commitment (the last one matching), or -1.
func WitnessCommitmentIndex(coinbase *wire.MsgTx) int {
	idx := -1
	for i := range coinbase.TxOut {
		pk := coinbase.TxOut[i].PkScript
		if len(pk) >= witnessCommitmentLen && [6]byte(pk[:6]) == witnessCommitmentHeader {
			idx = i
		}
	}
	return idx
}

// WitnessCommitment returns the commitment a coinbase must carry for a
// block whose witness merkle root is root and whose coinbase witness
// nonce is nonce: sha256d(root || nonce).
func WitnessCommitment(root *wire.Hash, nonce []byte) wire.Hash {
	var buf [64]byte
	copy(buf[:32], root[:])
	copy(buf[32:], nonce)
	return wire.DoubleHashH(buf[:32+len(nonce)])
}

// AppendWitnessCommitmentScript appends the output script committing to
// commitment.
func AppendWitnessCommitmentScript(dst []byte, commitment *wire.Hash) []byte {
	dst = append(dst, witnessCommitmentHeader[:]...)
	return append(dst, commitment[:]...)
}

// CheckWitnessCommitment is BIP141's block rule (Core's
// CheckWitnessMalleation). When segwit is active and the coinbase carries
// a commitment, its witness must be a single 32-byte nonce
// ("bad-witness-nonce-size") and the commitment must match the witness
// merkle root ("bad-witness-merkle-match"). Otherwise no transaction may
// carry witness data ("unexpected-witness"). All three are mutations: a
// peer can alter witnesses without changing the block hash.
func CheckWitnessCommitment(b *wire.MsgBlock, segwitActive bool) error {
	if segwitActive && len(b.Transactions) > 0 {
		cb := b.Transactions[0]
		if idx := WitnessCommitmentIndex(cb); idx >= 0 && len(cb.TxIn) > 0 {
			w := cb.TxIn[0].Witness
			if len(w) != 1 || len(w[0]) != 32 {
				return ruleError(ErrBadWitnessNonceSize, "CheckWitnessMalleation : invalid witness reserved value size")
			}
			root := b.WitnessMerkleRoot()
			c := WitnessCommitment(&root, w[0])
			if !bytes.Equal(c[:], cb.TxOut[idx].PkScript[6:38]) {
				return ruleError(ErrBadWitnessMerkle, "CheckWitnessMalleation : witness merkle commitment mismatch")
			}
			return nil
		}
	}
	for _, tx := range b.Transactions {
		if tx.HasWitness() {
			return ruleError(ErrUnexpectedWitness, "CheckWitnessMalleation : unexpected witness data found")
		}
	}
	return nil
}
