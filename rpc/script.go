package rpc

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// This file is the narrow script adapter: disassembly in Bitcoin Core's asm
// format, Core's Solver classification, address extraction and descriptor
// inference. Package txscript will own these; when its API is importable,
// these functions can forward to it.

const (
	op0            = 0x00
	opPushData1    = 0x4c
	opPushData2    = 0x4d
	opPushData4    = 0x4e
	op1Negate      = 0x4f
	op1            = 0x51
	op16           = 0x60
	opReturn       = 0x6a
	opDup          = 0x76
	opEqual        = 0x87
	opEqualVerify  = 0x88
	opHash160      = 0xa9
	opCheckSig     = 0xac
	opCheckMulti   = 0xae
	opCheckSigAdd  = 0xba
	maxScriptSize  = 10000
	maxMultisigKey = 16
)

// Script types with Core's names (TxoutType).
const (
	typeNonstandard = "nonstandard"
	typePubKey      = "pubkey"
	typePubKeyHash  = "pubkeyhash"
	typeScriptHash  = "scripthash"
	typeMultisig    = "multisig"
	typeNullData    = "nulldata"
	typeWitnessV0KH = "witness_v0_keyhash"
	typeWitnessV0SH = "witness_v0_scripthash"
	typeTaproot     = "witness_v1_taproot"
	typeWitnessUnk  = "witness_unknown"
	typeAnchor      = "anchor"
)

var opNames = func() (t [256]string) {
	named := map[byte]string{
		0x50: "OP_RESERVED", 0x61: "OP_NOP", 0x62: "OP_VER", 0x63: "OP_IF", 0x64: "OP_NOTIF",
		0x65: "OP_VERIF", 0x66: "OP_VERNOTIF", 0x67: "OP_ELSE", 0x68: "OP_ENDIF", 0x69: "OP_VERIFY",
		0x6a: "OP_RETURN", 0x6b: "OP_TOALTSTACK", 0x6c: "OP_FROMALTSTACK", 0x6d: "OP_2DROP",
		0x6e: "OP_2DUP", 0x6f: "OP_3DUP", 0x70: "OP_2OVER", 0x71: "OP_2ROT", 0x72: "OP_2SWAP",
		0x73: "OP_IFDUP", 0x74: "OP_DEPTH", 0x75: "OP_DROP", 0x76: "OP_DUP", 0x77: "OP_NIP",
		0x78: "OP_OVER", 0x79: "OP_PICK", 0x7a: "OP_ROLL", 0x7b: "OP_ROT", 0x7c: "OP_SWAP",
		0x7d: "OP_TUCK", 0x7e: "OP_CAT", 0x7f: "OP_SUBSTR", 0x80: "OP_LEFT", 0x81: "OP_RIGHT",
		0x82: "OP_SIZE", 0x83: "OP_INVERT", 0x84: "OP_AND", 0x85: "OP_OR", 0x86: "OP_XOR",
		0x87: "OP_EQUAL", 0x88: "OP_EQUALVERIFY", 0x89: "OP_RESERVED1", 0x8a: "OP_RESERVED2",
		0x8b: "OP_1ADD", 0x8c: "OP_1SUB", 0x8d: "OP_2MUL", 0x8e: "OP_2DIV", 0x8f: "OP_NEGATE",
		0x90: "OP_ABS", 0x91: "OP_NOT", 0x92: "OP_0NOTEQUAL", 0x93: "OP_ADD", 0x94: "OP_SUB",
		0x95: "OP_MUL", 0x96: "OP_DIV", 0x97: "OP_MOD", 0x98: "OP_LSHIFT", 0x99: "OP_RSHIFT",
		0x9a: "OP_BOOLAND", 0x9b: "OP_BOOLOR", 0x9c: "OP_NUMEQUAL", 0x9d: "OP_NUMEQUALVERIFY",
		0x9e: "OP_NUMNOTEQUAL", 0x9f: "OP_LESSTHAN", 0xa0: "OP_GREATERTHAN",
		0xa1: "OP_LESSTHANOREQUAL", 0xa2: "OP_GREATERTHANOREQUAL", 0xa3: "OP_MIN", 0xa4: "OP_MAX",
		0xa5: "OP_WITHIN", 0xa6: "OP_RIPEMD160", 0xa7: "OP_SHA1", 0xa8: "OP_SHA256",
		0xa9: "OP_HASH160", 0xaa: "OP_HASH256", 0xab: "OP_CODESEPARATOR", 0xac: "OP_CHECKSIG",
		0xad: "OP_CHECKSIGVERIFY", 0xae: "OP_CHECKMULTISIG", 0xaf: "OP_CHECKMULTISIGVERIFY",
		0xb0: "OP_NOP1", 0xb1: "OP_CHECKLOCKTIMEVERIFY", 0xb2: "OP_CHECKSEQUENCEVERIFY",
		0xb3: "OP_NOP4", 0xb4: "OP_NOP5", 0xb5: "OP_NOP6", 0xb6: "OP_NOP7", 0xb7: "OP_NOP8",
		0xb8: "OP_NOP9", 0xb9: "OP_NOP10", 0xba: "OP_CHECKSIGADD", 0xff: "OP_INVALIDOPCODE",
		0x4c: "OP_PUSHDATA1", 0x4d: "OP_PUSHDATA2", 0x4e: "OP_PUSHDATA4",
	}
	for i := range t {
		t[i] = "OP_UNKNOWN"
	}
	for k, v := range named {
		t[k] = v
	}
	t[op0] = "0"
	t[op1Negate] = "-1"
	for i := 1; i <= 16; i++ {
		t[op1+i-1] = strconv.Itoa(i)
	}
	return t
}()

// getOp reads the operation at pc: its opcode, push data, and the next
// position. ok is false for a truncated push.
func getOp(script []byte, pc int) (op byte, data []byte, next int, ok bool) {
	if pc >= len(script) {
		return 0, nil, pc, false
	}
	op = script[pc]
	pc++
	if op > opPushData4 {
		return op, nil, pc, true
	}
	var n int
	switch {
	case op < opPushData1:
		n = int(op)
	case op == opPushData1:
		if len(script)-pc < 1 {
			return op, nil, len(script), false
		}
		n = int(script[pc])
		pc++
	case op == opPushData2:
		if len(script)-pc < 2 {
			return op, nil, len(script), false
		}
		n = int(binary.LittleEndian.Uint16(script[pc:]))
		pc += 2
	default:
		if len(script)-pc < 4 {
			return op, nil, len(script), false
		}
		n64 := uint64(binary.LittleEndian.Uint32(script[pc:]))
		pc += 4
		if n64 > uint64(len(script)-pc) {
			return op, nil, len(script), false
		}
		n = int(n64)
	}
	if n > len(script)-pc {
		return op, nil, len(script), false
	}
	return op, script[pc : pc+n], pc + n, true
}

// scriptNumInt decodes a push of at most 4 bytes as a little-endian
// sign-magnitude number (CScriptNum without minimality checks).
func scriptNumInt(v []byte) int64 {
	if len(v) == 0 {
		return 0
	}
	var r int64
	for i, b := range v {
		r |= int64(b) << (8 * uint(i))
	}
	if v[len(v)-1]&0x80 != 0 {
		return -(r & ^(int64(0x80) << (8 * uint(len(v)-1))))
	}
	return r
}

var sigHashNames = map[byte]string{
	0x01: "ALL", 0x81: "ALL|ANYONECANPAY", 0x02: "NONE", 0x82: "NONE|ANYONECANPAY",
	0x03: "SINGLE", 0x83: "SINGLE|ANYONECANPAY",
}

// scriptToAsm disassembles as Core's ScriptToAsmStr. With sigHashDecode
// (scriptSigs), a push that is a strictly encoded signature shows its
// sighash type as "[ALL]" etc.
func scriptToAsm(script []byte, sigHashDecode bool) string {
	var b strings.Builder
	unspendable := len(script) > 0 && script[0] == opReturn || len(script) > maxScriptSize
	for pc := 0; pc < len(script); {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		op, data, next, ok := getOp(script, pc)
		if !ok {
			b.WriteString("[error]")
			break
		}
		pc = next
		if op > opPushData4 {
			b.WriteString(opNames[op])
			continue
		}
		if len(data) <= 4 {
			b.WriteString(strconv.FormatInt(scriptNumInt(data), 10))
			continue
		}
		if sigHashDecode && !unspendable && isStrictSig(data) {
			if name, ok := sigHashNames[data[len(data)-1]]; ok {
				b.WriteString(hex.EncodeToString(data[:len(data)-1]))
				b.WriteString("[" + name + "]")
				continue
			}
		}
		b.WriteString(hex.EncodeToString(data))
	}
	return b.String()
}

// isStrictSig reports a BIP66 strict-DER signature with a hash type byte
// (the defined-type check is done by the caller's table lookup).
func isStrictSig(sig []byte) bool {
	if len(sig) < 9 || len(sig) > 73 || sig[0] != 0x30 || int(sig[1]) != len(sig)-3 {
		return false
	}
	lenR := int(sig[3])
	if 5+lenR >= len(sig) {
		return false
	}
	lenS := int(sig[5+lenR])
	if lenR+lenS+7 != len(sig) || sig[2] != 0x02 || lenR == 0 || sig[4]&0x80 != 0 {
		return false
	}
	if lenR > 1 && sig[4] == 0 && sig[5]&0x80 == 0 {
		return false
	}
	if sig[lenR+4] != 0x02 || lenS == 0 || sig[lenR+6]&0x80 != 0 {
		return false
	}
	if lenS > 1 && sig[lenR+6] == 0 && sig[lenR+7]&0x80 == 0 {
		return false
	}
	return true
}

// validPubKeySize is CPubKey::ValidSize: the length implied by the first
// byte.
func validPubKeySize(pk []byte) bool {
	if len(pk) == 0 {
		return false
	}
	switch pk[0] {
	case 2, 3:
		return len(pk) == 33
	case 4, 6, 7:
		return len(pk) == 65
	}
	return false
}

// witnessProgram reports a witness program (version op, one direct push
// of 2..40 bytes, nothing else).
func witnessProgram(script []byte) (int, []byte, bool) {
	if len(script) < 4 || len(script) > 42 {
		return 0, nil, false
	}
	if script[0] != op0 && (script[0] < op1 || script[0] > op16) {
		return 0, nil, false
	}
	if int(script[1])+2 != len(script) {
		return 0, nil, false
	}
	v := 0
	if script[0] != op0 {
		v = int(script[0]-op1) + 1
	}
	return v, script[2:], true
}

// isPushOnly reports whether every operation from pc is a push (opcodes up
// to OP_16) and the script parses.
func isPushOnly(script []byte, pc int) bool {
	for pc < len(script) {
		op, _, next, ok := getOp(script, pc)
		if !ok || op > op16 {
			return false
		}
		pc = next
	}
	return true
}

// classify is Core's Solver: the script type and its solutions (hashes,
// keys, or for multisig m, keys..., n as one-byte values).
func classify(script []byte) (string, [][]byte) {
	if len(script) == 23 && script[0] == opHash160 && script[1] == 20 && script[22] == opEqual {
		return typeScriptHash, [][]byte{script[2:22]}
	}
	if v, prog, ok := witnessProgram(script); ok {
		switch {
		case v == 1 && len(prog) == 2 && prog[0] == 0x4e && prog[1] == 0x73:
			return typeAnchor, nil
		case v == 0 && len(prog) == 20:
			return typeWitnessV0KH, [][]byte{prog}
		case v == 0 && len(prog) == 32:
			return typeWitnessV0SH, [][]byte{prog}
		case v == 1 && len(prog) == 32:
			return typeTaproot, [][]byte{prog}
		case v != 0:
			return typeWitnessUnk, [][]byte{{byte(v)}, prog}
		}
		return typeNonstandard, nil
	}
	if len(script) >= 1 && script[0] == opReturn && isPushOnly(script, 1) {
		return typeNullData, nil
	}
	if (len(script) == 35 || len(script) == 67) && int(script[0]) == len(script)-2 &&
		script[len(script)-1] == opCheckSig && validPubKeySize(script[1:len(script)-1]) {
		return typePubKey, [][]byte{script[1 : len(script)-1]}
	}
	if len(script) == 25 && script[0] == opDup && script[1] == opHash160 && script[2] == 20 &&
		script[23] == opEqualVerify && script[24] == opCheckSig {
		return typePubKeyHash, [][]byte{script[3:23]}
	}
	if sols, ok := matchMultisig(script); ok {
		return typeMultisig, sols
	}
	return typeNonstandard, nil
}

func matchMultisig(script []byte) ([][]byte, bool) {
	if len(script) < 1 || script[len(script)-1] != opCheckMulti {
		return nil, false
	}
	op, _, pc, ok := getOp(script, 0)
	if !ok || op < op1 || op > op16 {
		return nil, false
	}
	m := int(op-op1) + 1
	sols := [][]byte{{byte(m)}}
	var data []byte
	for {
		op, data, pc, ok = getOp(script, pc)
		if !ok || !validPubKeySize(data) {
			break
		}
		sols = append(sols, data)
	}
	if !ok || op < op1 || op > op16 {
		return nil, false
	}
	n := int(op-op1) + 1
	if n < m || len(sols)-1 != n || pc+1 != len(script) {
		return nil, false
	}
	return append(sols, []byte{byte(n)}), true
}

// scriptAddress returns the address of a script as Core's ExtractDestination
// restricted to what decode results show (P2PK and multisig have none).
func scriptAddress(script []byte, net *NetParams) (string, bool) {
	class, sols := classify(script)
	switch class {
	case typePubKeyHash:
		return address{kind: addrP2PKH, program: sols[0]}.encode(net), true
	case typeScriptHash:
		return address{kind: addrP2SH, program: sols[0]}.encode(net), true
	case typeWitnessV0KH, typeWitnessV0SH, typeTaproot, typeWitnessUnk, typeAnchor:
		v, prog, _ := witnessProgram(script)
		return address{kind: addrWitness, version: v, program: prog}.encode(net), true
	}
	return "", false
}

// inferDescriptor returns the descriptor Core's InferDescriptor gives a
// script with no extra information (with checksum): pk(), multi(), rawtr()
// and addr() for the standard forms, raw() for the rest. inner, when
// non-nil, is the known witness script of a P2WSH script.
func inferDescriptor(script []byte, net *NetParams, inner []byte) string {
	return addChecksum(inferDesc(script, net, inner, true))
}

func inferDesc(script []byte, net *NetParams, inner []byte, top bool) string {
	class, sols := classify(script)
	switch class {
	case typePubKey:
		if top || len(sols[0]) == 33 {
			return "pk(" + hex.EncodeToString(sols[0]) + ")"
		}
	case typeMultisig:
		keys := make([]string, 0, len(sols)-2)
		ok := true
		for _, k := range sols[1 : len(sols)-1] {
			if !top && len(k) != 33 {
				ok = false
			}
			keys = append(keys, hex.EncodeToString(k))
		}
		if ok {
			return "multi(" + strconv.Itoa(int(sols[0][0])) + "," + strings.Join(keys, ",") + ")"
		}
	case typeTaproot:
		if top {
			if _, err := schnorr.ParsePubKey(sols[0]); err == nil {
				return "rawtr(" + hex.EncodeToString(sols[0]) + ")"
			}
		}
	case typeWitnessV0SH:
		if top && inner != nil && wshHash(inner) == [32]byte(sols[0]) {
			if d := inferDesc(inner, net, nil, false); d != "" {
				return "wsh(" + d + ")"
			}
		}
	}
	if !top {
		return ""
	}
	if a, ok := scriptAddress(script, net); ok {
		return "addr(" + a + ")"
	}
	return "raw(" + hex.EncodeToString(script) + ")"
}
