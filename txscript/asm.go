package txscript

import (
	"encoding/hex"
	"strconv"
	"strings"
)

var sigHashNames = map[byte]string{
	0x01: "ALL", 0x81: "ALL|ANYONECANPAY",
	0x02: "NONE", 0x82: "NONE|ANYONECANPAY",
	0x03: "SINGLE", 0x83: "SINGLE|ANYONECANPAY",
}

// DisasmString renders script in Core's asm format (ScriptToAsmStr):
// pushes of up to 4 bytes as decimal numbers, longer ones as hex, opcodes
// by name and "[error]" at an unparsable tail. With decodeSigHash (as for
// scriptSigs in getrawtransaction) strictly encoded signatures are shown
// with their hash type, e.g. "3044...01" becomes "3044...[ALL]".
func DisasmString(script []byte, decodeSigHash bool) string {
	var sb strings.Builder
	t := scriptTokenizer{script: script}
	unspendable := IsUnspendable(script)
	for t.pos < len(script) {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		if !t.next() {
			sb.WriteString("[error]")
			break
		}
		if t.op > OP_PUSHDATA4 {
			sb.WriteString(OpcodeName(t.op))
			continue
		}
		d := t.data
		if len(d) <= 4 {
			n, _ := parseScriptNum(d, false, defaultScriptNumLen)
			sb.WriteString(strconv.Itoa(clampInt32(n)))
			continue
		}
		if decodeSigHash && !unspendable &&
			checkSignatureEncoding(d, ScriptVerifyStrictEnc) == nil {
			if name, ok := sigHashNames[d[len(d)-1]]; ok {
				sb.WriteString(hex.EncodeToString(d[:len(d)-1]))
				sb.WriteString("[" + name + "]")
				continue
			}
		}
		sb.WriteString(hex.EncodeToString(d))
	}
	return sb.String()
}
