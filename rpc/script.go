package rpc

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/txscript"
)

// This file is the narrow script adapter between the RPC results and
// package txscript: disassembly (txscript.DisasmString), Core's Solver
// classification (txscript.GetScriptClass), hash160, plus what txscript does
// not offer: the solutions of a classified script, address extraction with
// Core's ExtractDestination rules and descriptor inference.

// Opcodes and limits the RPC script builders use; aliases of txscript's.
const (
	op1            = txscript.OP_1
	opReturn       = txscript.OP_RETURN
	opPushData1    = txscript.OP_PUSHDATA1
	opPushData2    = txscript.OP_PUSHDATA2
	opPushData4    = txscript.OP_PUSHDATA4
	opCheckSig     = txscript.OP_CHECKSIG
	opCheckMulti   = txscript.OP_CHECKMULTISIG
	opCheckSigAdd  = txscript.OP_CHECKSIGADD
	maxScriptSize  = txscript.MaxScriptSize
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

// getOp reads the operation at pc: its opcode, push data, and the next
// position. ok is false for a truncated push.
func getOp(script []byte, pc int) (op byte, data []byte, next int, ok bool) {
	if pc >= len(script) {
		return 0, nil, pc, false
	}
	t := txscript.MakeScriptTokenizer(script[pc:])
	if !t.Next() {
		return script[pc], nil, len(script), false
	}
	return t.Opcode(), t.Data(), pc + t.Offset(), true
}

// scriptToAsm disassembles as Core's ScriptToAsmStr; sigHashDecode (for
// scriptSigs) shows a strictly encoded signature's hash type as "[ALL]".
func scriptToAsm(script []byte, sigHashDecode bool) string {
	return txscript.DisasmString(script, sigHashDecode)
}

// hash160 is RIPEMD160(SHA256(b)), the hash in P2PKH and P2SH scripts.
func hash160(b []byte) [20]byte { return txscript.Hash160(b) }

// witnessProgram reports a witness program (version op, one direct push
// of 2..40 bytes, nothing else).
func witnessProgram(script []byte) (int, []byte, bool) { return txscript.IsWitnessProgram(script) }

// classify is Core's Solver: the script type and its solutions (hashes,
// keys, or for multisig m, keys..., n with m and n as one-byte values).
func classify(script []byte) (string, [][]byte) {
	c := txscript.GetScriptClass(script)
	var sols [][]byte
	switch c {
	case txscript.PubKeyTy:
		sols = [][]byte{script[1 : len(script)-1]}
	case txscript.PubKeyHashTy:
		sols = [][]byte{script[3:23]}
	case txscript.ScriptHashTy:
		sols = [][]byte{script[2:22]}
	case txscript.WitnessV0PubKeyHashTy, txscript.WitnessV0ScriptHashTy, txscript.WitnessV1TaprootTy:
		_, prog, _ := witnessProgram(script)
		sols = [][]byte{prog}
	case txscript.WitnessUnknownTy:
		v, prog, _ := witnessProgram(script)
		sols = [][]byte{{byte(v)}, prog}
	case txscript.MultiSigTy:
		m, keys, _ := txscript.MultiSigInfo(script)
		sols = append(sols, []byte{byte(m)})
		sols = append(sols, keys...)
		sols = append(sols, []byte{byte(len(keys))})
	}
	return c.String(), sols
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

// nonHybridKey is CPubKey::IsValidNonHybrid: descriptors never show hybrid
// (0x06/0x07) keys.
func nonHybridKey(k []byte) bool { return len(k) > 0 && k[0] != 6 && k[0] != 7 }

// inferDescriptor returns the descriptor Core's InferDescriptor gives a
// script with no extra information (with checksum): pk(), multi(), rawtr()
// and addr() for the standard forms, raw() for the rest. inner, when
// non-nil, is the known witness script of a P2WSH script, shown as
// wsh(<miniscript>) when it is sane miniscript.
func inferDescriptor(script []byte, net *NetParams, inner []byte) string {
	return addChecksum(inferDesc(script, net, inner, true))
}

func inferDesc(script []byte, net *NetParams, inner []byte, top bool) string {
	class, sols := classify(script)
	switch class {
	case typePubKey:
		if nonHybridKey(sols[0]) && (top || len(sols[0]) == 33) {
			return "pk(" + hex.EncodeToString(sols[0]) + ")"
		}
	case typeMultisig:
		keys := make([]string, 0, len(sols)-2)
		ok := true
		for _, k := range sols[1 : len(sols)-1] {
			if !nonHybridKey(k) || (!top && len(k) != 33) {
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
			if d, ok := descriptor.InferMiniscript(inner); ok {
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
