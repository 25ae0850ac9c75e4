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
	// maxPubKeysPerMultiSig is what an unknown-count multisig counts as.
	maxPubKeysPerMultiSig = 20
)

const (
	opPushData1          = 0x4c
	opPushData2          = 0x4d
	opPushData4          = 0x4e
	op16                 = 0x60
	opCheckSig           = 0xac
	opCheckSigVerify     = 0xad
	opCheckMultiSig      = 0xae
	opCheckMultiSigVerif = 0xaf
)

// scriptOp reads the operation at script[pos:] as Core's GetOp does and
// returns its opcode, pushed data, the next position, and false when the
// script ends in a truncated push.
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

// CountSigOps counts signature operations in script as Core's
// GetSigOpCount: CHECKSIG counts one, CHECKMULTISIG twenty, or with
// accurate set the preceding OP_1..OP_16. Counting stops at a truncated
// push.
func CountSigOps(script []byte, accurate bool) int {
	n := 0
	var last byte = 0xff
	for pos := 0; pos < len(script); {
		op, _, next, ok := scriptOp(script, pos)
		if !ok {
			break
		}
		pos = next
		switch op {
		case opCheckSig, opCheckSigVerify:
			n++
		case opCheckMultiSig, opCheckMultiSigVerif:
			if accurate && last >= op1 && last <= op16 {
				n += int(last - op1 + 1)
			} else {
				n += maxPubKeysPerMultiSig
			}
		}
		last = op
	}
	return n
}

// lastPush returns the data of the last operation of a scriptSig and
// whether every operation was a push (Core's P2SH sigop rule).
func lastPush(sigScript []byte) ([]byte, bool) {
	var data []byte
	for pos := 0; pos < len(sigScript); {
		op, d, next, ok := scriptOp(sigScript, pos)
		if !ok || op > op16 {
			return nil, false
		}
		data, pos = d, next
	}
	return data, true
}

// LegacySigOps counts the sigops of tx's scriptSigs and output scripts the
// pre-P2SH way (Core's GetLegacySigOpCount).
func LegacySigOps(tx *wire.MsgTx) int {
	n := 0
	for i := range tx.TxIn {
		n += CountSigOps(tx.TxIn[i].SignatureScript, false)
	}
	for i := range tx.TxOut {
		n += CountSigOps(tx.TxOut[i].PkScript, false)
	}
	return n
}

// p2shSigOps counts the sigops of a P2SH redeem script in sigScript.
func p2shSigOps(sigScript, pkScript []byte) int {
	if !txscript.IsPayToScriptHash(pkScript) {
		return 0
	}
	redeem, ok := lastPush(sigScript)
	if !ok {
		return 0
	}
	return CountSigOps(redeem, true)
}

// witnessSigOps counts the sigops of a spend of a witness program, bare
// or nested in P2SH (Core's CountWitnessSigOps).
func witnessSigOps(sigScript, pkScript []byte, witness [][]byte) int {
	ver, prog, ok := txscript.IsWitnessProgram(pkScript)
	if !ok && txscript.IsPayToScriptHash(pkScript) && txscript.IsPushOnly(sigScript) {
		redeem, _ := lastPush(sigScript)
		ver, prog, ok = txscript.IsWitnessProgram(redeem)
	}
	if !ok || ver != 0 {
		return 0
	}
	switch {
	case len(prog) == 20:
		return 1
	case len(prog) == 32 && len(witness) > 0:
		return CountSigOps(witness[len(witness)-1], true)
	}
	return 0
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
			cost += p2shSigOps(in.SignatureScript, pk) * wire.WitnessScaleFactor
		}
		if witness {
			cost += witnessSigOps(in.SignatureScript, pk, in.Witness)
		}
	}
	return cost
}
