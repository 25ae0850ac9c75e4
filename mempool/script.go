package mempool

// This file is a small private script reader: just enough to classify
// output scripts, check push-only scriptSigs and count signature
// operations. It follows Core's Solver/GetSigOpCount semantics and can be
// replaced by txscript's equivalents without touching the rest of the
// package.

// Opcodes the reader needs.
const (
	op0           = 0x00
	opPushData1   = 0x4c
	opPushData2   = 0x4d
	opPushData4   = 0x4e
	op1Negate     = 0x4f
	op1           = 0x51
	op16          = 0x60
	opReturn      = 0x6a
	opDup         = 0x76
	opEqual       = 0x87
	opEqualVerify = 0x88
	opHash160     = 0xa9
	opCheckSig    = 0xac
	opCheckSigVfy = 0xad
	opCheckMulti  = 0xae
	opCheckMultiV = 0xaf
)

// maxScriptSize is the consensus script size limit; larger output scripts
// are unspendable.
const maxScriptSize = 10000

// scriptClass is an output script type, as Core's TxoutType.
type scriptClass uint8

const (
	classNonStandard scriptClass = iota
	classPubKey
	classPubKeyHash
	classScriptHash
	classMultiSig
	classNullData
	classWitnessV0KeyHash
	classWitnessV0ScriptHash
	classWitnessV1Taproot
	classAnchor
	classWitnessUnknown
)

var classNames = [...]string{"nonstandard", "pubkey", "pubkeyhash", "scripthash", "multisig",
	"nulldata", "witness_v0_keyhash", "witness_v0_scripthash", "witness_v1_taproot", "anchor", "witness_unknown"}

func (c scriptClass) String() string { return classNames[c] }

// nextOp reads one operation at s[i:]. It returns the opcode, its pushed
// data (if any), the offset of the next operation and whether the read
// succeeded (a push running past the end fails).
func nextOp(s []byte, i int) (op byte, data []byte, next int, ok bool) {
	op = s[i]
	i++
	var n int
	switch {
	case op < opPushData1:
		n = int(op)
	case op == opPushData1:
		if i+1 > len(s) {
			return op, nil, len(s), false
		}
		n = int(s[i])
		i++
	case op == opPushData2:
		if i+2 > len(s) {
			return op, nil, len(s), false
		}
		n = int(s[i]) | int(s[i+1])<<8
		i += 2
	case op == opPushData4:
		if i+4 > len(s) {
			return op, nil, len(s), false
		}
		v := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
		i += 4
		if v > uint32(len(s)) {
			return op, nil, len(s), false
		}
		n = int(v)
	default:
		return op, nil, i, true
	}
	if n > len(s)-i {
		return op, nil, len(s), false
	}
	return op, s[i : i+n], i + n, true
}

// isPushOnly reports whether s contains only push operations (opcodes up
// to OP_16, as Core's IsPushOnly, which counts OP_RESERVED as a push) and
// parses completely.
func isPushOnly(s []byte) bool {
	for i := 0; i < len(s); {
		op, _, next, ok := nextOp(s, i)
		if !ok || op > op16 {
			return false
		}
		i = next
	}
	return true
}

// lastPush evaluates a push-only scriptSig far enough to return the top
// stack item, as Core's EvalScript with no flags would leave it. ok is
// false when the script is not push-only, fails to parse or pushes nothing.
func lastPush(s []byte) (top []byte, ok bool) {
	pushed := false
	for i := 0; i < len(s); {
		op, data, next, good := nextOp(s, i)
		if !good {
			return nil, false
		}
		switch {
		case op <= opPushData4:
			top = data
		case op == op1Negate:
			top = []byte{0x81}
		case op >= op1 && op <= op16:
			top = []byte{op - op1 + 1}
		default: // OP_RESERVED and anything else fails evaluation
			return nil, false
		}
		pushed = true
		i = next
	}
	return top, pushed
}

// witnessProgram reports whether s is a BIP141 witness program and returns
// its version and program.
func witnessProgram(s []byte) (version int, program []byte, ok bool) {
	if len(s) < 4 || len(s) > 42 {
		return 0, nil, false
	}
	if s[0] != op0 && (s[0] < op1 || s[0] > op16) {
		return 0, nil, false
	}
	if int(s[1])+2 != len(s) {
		return 0, nil, false
	}
	if s[0] != op0 {
		version = int(s[0]-op1) + 1
	}
	return version, s[2:], true
}

func isP2SH(s []byte) bool {
	return len(s) == 23 && s[0] == opHash160 && s[1] == 0x14 && s[22] == opEqual
}

func isP2PKH(s []byte) bool {
	return len(s) == 25 && s[0] == opDup && s[1] == opHash160 && s[2] == 0x14 &&
		s[23] == opEqualVerify && s[24] == opCheckSig
}

func isAnchor(s []byte) bool {
	return len(s) == 4 && s[0] == op1 && s[1] == 0x02 && s[2] == 0x4e && s[3] == 0x73
}

// validPubKeySize is Core's CPubKey::ValidSize: a compressed (02/03) key
// of 33 bytes or an uncompressed/hybrid (04/06/07) key of 65.
func validPubKeySize(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	switch k[0] {
	case 2, 3:
		return len(k) == 33
	case 4, 6, 7:
		return len(k) == 65
	}
	return false
}

func smallInt(op byte) (int, bool) {
	if op >= op1 && op <= op16 {
		return int(op-op1) + 1, true
	}
	return 0, false
}

// multiSigInfo matches OP_m <key>... OP_n OP_CHECKMULTISIG and returns m
// and n.
func multiSigInfo(s []byte) (m, n int, ok bool) {
	if len(s) < 1 || s[len(s)-1] != opCheckMulti {
		return 0, 0, false
	}
	m, ok = smallInt(s[0])
	if !ok {
		return 0, 0, false
	}
	keys := 0
	i := 1
	for i < len(s) {
		op, data, next, good := nextOp(s, i)
		if !good {
			return 0, 0, false
		}
		if op > opPushData4 || !validPubKeySize(data) {
			break
		}
		keys++
		i = next
	}
	if i+2 != len(s) {
		return 0, 0, false
	}
	n, ok = smallInt(s[i])
	if !ok || n != keys || m > n {
		return 0, 0, false
	}
	return m, n, true
}

// classify returns the standard type of an output script (Core's Solver).
// For multisig it also returns m and n.
func classify(s []byte) (c scriptClass, m, n int) {
	switch {
	case isP2SH(s):
		return classScriptHash, 0, 0
	case isAnchor(s):
		return classAnchor, 0, 0
	}
	if v, prog, ok := witnessProgram(s); ok {
		switch {
		case v == 0 && len(prog) == 20:
			return classWitnessV0KeyHash, 0, 0
		case v == 0 && len(prog) == 32:
			return classWitnessV0ScriptHash, 0, 0
		case v == 1 && len(prog) == 32:
			return classWitnessV1Taproot, 0, 0
		case v != 0:
			return classWitnessUnknown, 0, 0
		}
		return classNonStandard, 0, 0
	}
	if len(s) >= 1 && s[0] == opReturn && isPushOnly(s[1:]) {
		return classNullData, 0, 0
	}
	if (len(s) == 35 || len(s) == 67) && int(s[0]) == len(s)-2 && s[len(s)-1] == opCheckSig && validPubKeySize(s[1:len(s)-1]) {
		return classPubKey, 0, 0
	}
	if isP2PKH(s) {
		return classPubKeyHash, 0, 0
	}
	if m, n, ok := multiSigInfo(s); ok {
		return classMultiSig, m, n
	}
	return classNonStandard, 0, 0
}

// isUnspendable reports whether an output can provably never be spent.
func isUnspendable(s []byte) bool {
	return (len(s) > 0 && s[0] == opReturn) || len(s) > maxScriptSize
}

// sigOpCount is Core's CScript::GetSigOpCount(fAccurate): CHECKSIG counts
// one, CHECKMULTISIG twenty, or with accurate counting the preceding
// OP_1..OP_16 key count. Counting stops at a parse error.
func sigOpCount(s []byte, accurate bool) int {
	n := 0
	var last byte = 0xff
	for i := 0; i < len(s); {
		op, _, next, ok := nextOp(s, i)
		if !ok {
			break
		}
		switch op {
		case opCheckSig, opCheckSigVfy:
			n++
		case opCheckMulti, opCheckMultiV:
			if k, small := smallInt(last); accurate && small {
				n += k
			} else {
				n += 20
			}
		}
		last = op
		i = next
	}
	return n
}

// p2shSigOps is Core's GetSigOpCount(scriptSig) on a previous output
// script: for P2SH the accurate count of the redeem script (the last push
// of a push-only scriptSig), otherwise the accurate count of the script.
func p2shSigOps(pkScript, sigScript []byte) int {
	if !isP2SH(pkScript) {
		return sigOpCount(pkScript, true)
	}
	var last []byte
	for i := 0; i < len(sigScript); {
		op, data, next, ok := nextOp(sigScript, i)
		if !ok || op > op16 {
			return 0
		}
		last = data
		i = next
	}
	return sigOpCount(last, true)
}

// witnessSigOps counts the sigops of one input's witness program (BIP141):
// one for P2WPKH, the accurate count of the witness script for P2WSH, none
// for other versions.
func witnessSigOps(sigScript, pkScript []byte, witness [][]byte) int {
	v, prog, ok := witnessProgram(pkScript)
	if !ok && isP2SH(pkScript) && isPushOnly(sigScript) {
		if top, pushed := lastPush(sigScript); pushed {
			v, prog, ok = witnessProgram(top)
		}
	}
	if !ok || v != 0 {
		return 0
	}
	if len(prog) == 20 {
		return 1
	}
	if len(prog) == 32 && len(witness) > 0 {
		return sigOpCount(witness[len(witness)-1], true)
	}
	return 0
}
