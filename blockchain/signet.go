package blockchain

import (
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// signetHeader tags the signet solution inside the witness commitment
// output's script (BIP325).
var signetHeader = [4]byte{0xec, 0xc7, 0xda, 0xa2}

// CheckSignetBlockSolution checks a block's BIP325 signet solution: the
// block's challenge script must be satisfied by the scriptSig and witness
// found after the signet header in the coinbase's witness commitment
// output, signing a virtual transaction that commits to the block with the
// solution removed ("bad-signet-blksig"). The genesis block is exempt.
func CheckSignetBlockSolution(challenge []byte, block *wire.MsgBlock) error {
	if block.Header.PrevBlock == (wire.Hash{}) {
		return nil
	}
	if len(block.Transactions) == 0 {
		return ruleError(ErrBadSignetBlockSig, "block has no transactions")
	}
	cb := block.Transactions[0]
	idx := WitnessCommitmentIndex(cb)
	if idx < 0 {
		return ruleError(ErrBadSignetBlockSig, "no witness commitment")
	}
	// Split the commitment script into its pushes; the one starting with
	// the signet header carries the solution and is removed from the
	// modified coinbase the signature commits to.
	pk := cb.TxOut[idx].PkScript
	var solution []byte
	modified := make([]byte, 0, len(pk))
	found := false
	for pos := 0; pos < len(pk); {
		op, data, next, ok := scriptOp(pk, pos)
		if !ok {
			break
		}
		pos = next
		if len(data) == 0 {
			modified = append(modified, op)
			continue
		}
		if !found && len(data) > len(signetHeader) && [4]byte(data[:4]) == signetHeader {
			found = true
			solution = data[4:]
			data = data[:4]
		}
		modified = txscript.AppendPush(modified, data)
	}
	var sigScript []byte
	var witness [][]byte
	if found {
		var ok bool
		sigScript, witness, ok = parseSignetSolution(solution)
		if !ok {
			return ruleError(ErrBadSignetBlockSig, "malformed signet solution")
		}
	}

	// The merkle root of the block with the modified coinbase.
	mcb := *cb
	mcb.TxOut = append([]wire.TxOut(nil), cb.TxOut...)
	if found {
		mcb.TxOut[idx].PkScript = modified
	}
	hashes := make([]wire.Hash, len(block.Transactions))
	copy(hashes, block.TxHashes())
	hashes[0] = mcb.TxHash()
	root, _ := wire.CalcMerkleRoot(hashes)

	// to_spend commits to the block; to_sign spends it with the solution.
	var hdr []byte
	hdr = binaryAppendU32(hdr, uint32(block.Header.Version))
	hdr = append(hdr, block.Header.PrevBlock[:]...)
	hdr = append(hdr, root[:]...)
	hdr = binaryAppendU32(hdr, block.Header.Timestamp)
	toSpendSig := txscript.AppendPush([]byte{op0}, hdr)
	toSpend := &wire.MsgTx{
		Version:  0,
		TxIn:     []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex}, SignatureScript: toSpendSig}},
		TxOut:    []wire.TxOut{{Value: 0, PkScript: challenge}},
		LockTime: 0,
	}
	toSign := &wire.MsgTx{
		Version:  0,
		TxIn:     []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: toSpend.TxHash()}, SignatureScript: sigScript, Witness: witness}},
		TxOut:    []wire.TxOut{{Value: 0, PkScript: []byte{opReturn}}},
		LockTime: 0,
	}
	flags := txscript.ScriptVerifyP2SH | txscript.ScriptVerifyWitness | txscript.ScriptVerifyDERSig |
		txscript.ScriptVerifyNullDummy
	if err := txscript.VerifyInput(toSign, 0, &toSpend.TxOut[0], flags, nil, nil); err != nil {
		return &RuleError{Kind: ErrBadSignetBlockSig, Reason: string(ErrBadSignetBlockSig),
			Desc: "signet solution does not satisfy the challenge", Err: err}
	}
	return nil
}

// parseSignetSolution reads a solution: a var-bytes scriptSig followed by
// a witness stack (count, then var-bytes items), with nothing left over.
func parseSignetSolution(b []byte) ([]byte, [][]byte, bool) {
	readBytes := func() ([]byte, bool) {
		n, k, err := wire.ReadVarInt(b)
		if err != nil || n > uint64(len(b)-k) {
			return nil, false
		}
		v := b[k : k+int(n)]
		b = b[k+int(n):]
		return v, true
	}
	sig, ok := readBytes()
	if !ok {
		return nil, nil, false
	}
	count, k, err := wire.ReadVarInt(b)
	if err != nil || count > uint64(len(b)) {
		return nil, nil, false
	}
	b = b[k:]
	wit := make([][]byte, 0, count)
	for range count {
		item, ok := readBytes()
		if !ok {
			return nil, nil, false
		}
		wit = append(wit, item)
	}
	return sig, wit, len(b) == 0
}

func binaryAppendU32(dst []byte, v uint32) []byte {
	return append(dst, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}
