package blockchain

import (
	"encoding/binary"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// Sigop limits (BIP141 counts cost: legacy sigops weigh four).
const (
	// MaxBlockSigOpsCost is the most sigop cost a block may have.
	MaxBlockSigOpsCost = 80_000
)

const (
	opPushData1     = 0x4c
	opPushData2     = 0x4d
	opPushData4     = 0x4e
	opCheckSig      = 0xac
	opCheckMultiSig = 0xae
)

// scriptOp reads the operation at script[pos:] as Core's GetOp does and
// returns its opcode, pushed data, the next position, and false when the
// script ends in a truncated push. The signet rules split the commitment
// script with it; sigops are counted by txscript.
func scriptOp(script []byte, pos int) (op byte, data []byte, next int, ok bool) {
	op = script[pos]
	pos++
	if op > opPushData4 {
		return op, nil, pos, true
	}
	var n int
	rem := len(script) - pos
	switch op {
	case opPushData1:
		if rem < 1 {
			return op, nil, pos, false
		}
		n = int(script[pos])
		pos++
	case opPushData2:
		if rem < 2 {
			return op, nil, pos, false
		}
		n = int(binary.LittleEndian.Uint16(script[pos:]))
		pos += 2
	case opPushData4:
		if rem < 4 {
			return op, nil, pos, false
		}
		u := binary.LittleEndian.Uint32(script[pos:])
		pos += 4
		if uint64(u) > uint64(len(script)-pos) {
			return op, nil, pos, false
		}
		n = int(u)
	default:
		n = int(op)
	}
	if n > len(script)-pos {
		return op, nil, pos, false
	}
	return op, script[pos : pos+n], pos + n, true
}

// LegacySigOps counts the sigops of tx's scriptSigs and output scripts the
// pre-P2SH way (Core's GetLegacySigOpCount).
func LegacySigOps(tx *wire.MsgTx) int {
	n := 0
	for i := range tx.TxIn {
		n += txscript.GetSigOpCount(tx.TxIn[i].SignatureScript, false)
	}
	for i := range tx.TxOut {
		n += txscript.GetSigOpCount(tx.TxOut[i].PkScript, false)
	}
	return n
}

// TxSigOpCost returns tx's BIP141 sigop cost given the coins it spends:
// legacy sigops times four, plus P2SH sigops times four when p2sh is set,
// plus witness sigops when witness is set (Core's GetTransactionSigOpCost).
func TxSigOpCost(tx *wire.MsgTx, coins []database.UtxoEntry, p2sh, witness bool) int {
	cost := LegacySigOps(tx) * wire.WitnessScaleFactor
	if tx.IsCoinBase() {
		return cost
	}
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		pk := coins[i].PkScript
		if p2sh {
			cost += txscript.GetP2SHSigOpCount(in.SignatureScript, pk) * wire.WitnessScaleFactor
		}
		if witness {
			cost += txscript.CountWitnessSigOps(in.SignatureScript, pk, in.Witness, txscript.ScriptVerifyWitness)
		}
	}
	return cost
}
