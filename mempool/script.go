package mempool

import "github.com/btcnode/btcd/txscript"

// This file adapts txscript's classifier and sigop counters to the small
// names policy.go uses, so policy reads in Core's vocabulary while the
// script rules themselves live in one place (txscript).

// Opcodes policy tests build scripts from; aliases keep one definition.
const (
	opPushData1   = txscript.OP_PUSHDATA1
	opPushData2   = txscript.OP_PUSHDATA2
	opPushData4   = txscript.OP_PUSHDATA4
	op1           = txscript.OP_1
	opReturn      = txscript.OP_RETURN
	opDup         = txscript.OP_DUP
	opEqual       = txscript.OP_EQUAL
	opEqualVerify = txscript.OP_EQUALVERIFY
	opHash160     = txscript.OP_HASH160
	opCheckSig    = txscript.OP_CHECKSIG
	opCheckMulti  = txscript.OP_CHECKMULTISIG
)

// scriptClass is an output script type, as Core's TxoutType.
type scriptClass = txscript.ScriptClass

const (
	classNonStandard         = txscript.NonStandardTy
	classPubKey              = txscript.PubKeyTy
	classPubKeyHash          = txscript.PubKeyHashTy
	classScriptHash          = txscript.ScriptHashTy
	classMultiSig            = txscript.MultiSigTy
	classNullData            = txscript.NullDataTy
	classWitnessV0KeyHash    = txscript.WitnessV0PubKeyHashTy
	classWitnessV0ScriptHash = txscript.WitnessV0ScriptHashTy
	classWitnessV1Taproot    = txscript.WitnessV1TaprootTy
	classAnchor              = txscript.AnchorTy
	classWitnessUnknown      = txscript.WitnessUnknownTy
)

// anchorScript is the BIP-433 pay-to-anchor output (OP_1 <0x4e73>).
var anchorScript = [...]byte{txscript.OP_1, 0x02, 0x4e, 0x73}

func isPushOnly(s []byte) bool { return txscript.IsPushOnly(s) }

func isP2SH(s []byte) bool { return txscript.IsPayToScriptHash(s) }

func isAnchor(s []byte) bool { return string(s) == string(anchorScript[:]) }

func isUnspendable(s []byte) bool { return txscript.IsUnspendable(s) }

func witnessProgram(s []byte) (version int, program []byte, ok bool) {
	return txscript.IsWitnessProgram(s)
}

func sigOpCount(s []byte, accurate bool) int { return txscript.GetSigOpCount(s, accurate) }

// lastPush evaluates a push-only scriptSig far enough to return the top
// stack item, as Core's EvalScript with no flags would leave it. ok is
// false when the script is not push-only, fails to parse or pushes nothing;
// unlike a plain "last data push" it also yields the values of OP_1NEGATE
// and OP_1..OP_16, and fails on OP_RESERVED as evaluation would.
func lastPush(s []byte) (top []byte, ok bool) {
	pushed := false
	t := txscript.MakeScriptTokenizer(s)
	for t.Next() {
		switch op := t.Opcode(); {
		case op <= txscript.OP_PUSHDATA4:
			top = t.Data()
		case op == txscript.OP_1NEGATE:
			top = []byte{0x81}
		case op >= txscript.OP_1 && op <= txscript.OP_16:
			top = []byte{byte(txscript.DecodeSmallInt(op))}
		default: // OP_RESERVED and anything else fails evaluation
			return nil, false
		}
		pushed = true
	}
	if t.Err() {
		return nil, false
	}
	return top, pushed
}

// classify returns the standard type of an output script (Core's Solver).
// For multisig it also returns m and n.
func classify(s []byte) (c scriptClass, m, n int) {
	c = txscript.GetScriptClass(s)
	if c == classMultiSig {
		required, keys, _ := txscript.MultiSigInfo(s)
		return c, required, len(keys)
	}
	return c, 0, 0
}

// p2shSigOps is Core's GetSigOpCount(scriptSig) on a previous output
// script: for P2SH the accurate count of the redeem script (the last push
// of a push-only scriptSig), otherwise the accurate count of the script.
func p2shSigOps(pkScript, sigScript []byte) int {
	if !isP2SH(pkScript) {
		return sigOpCount(pkScript, true)
	}
	return txscript.GetP2SHSigOpCount(sigScript, pkScript)
}

// witnessSigOps counts the sigops of one input's witness program (BIP141);
// mempool always runs with segwit active.
func witnessSigOps(sigScript, pkScript []byte, witness [][]byte) int {
	return txscript.CountWitnessSigOps(sigScript, pkScript, witness, txscript.ScriptVerifyWitness)
}
