package txscript

import "encoding/binary"

// Consensus script limits. MaxScriptSize and MaxOpsPerScript apply to
// legacy and segwit v0 scripts only; tapscript replaces them with the
// validation weight budget. The element and stack limits apply everywhere.
const (
	MaxScriptSize         = 10000 // legacy and segwit v0 scripts
	MaxScriptElementSize  = 520
	MaxOpsPerScript       = 201 // legacy and segwit v0 only
	MaxStackSize          = 1000
	MaxPubKeysPerMultiSig = 20
)

// scriptTokenizer walks a script one operation at a time without
// allocating; data slices alias the script.
type scriptTokenizer struct {
	script []byte
	pos    int
	op     byte
	data   []byte
	err    bool
}

// next advances to the following operation. It returns false at the end of
// the script or on a truncated push, which sets err (Core's GetOp failing).
func (t *scriptTokenizer) next() bool {
	if t.pos >= len(t.script) || t.err {
		// Like Core's GetOp, a failed read reports OP_INVALIDOPCODE.
		t.op, t.data = OP_INVALIDOPCODE, nil
		return false
	}
	op := t.script[t.pos]
	t.pos++
	t.op = op
	t.data = nil
	if op > OP_PUSHDATA4 {
		return true
	}
	var n int
	rem := len(t.script) - t.pos
	switch {
	case op < OP_PUSHDATA1:
		n = int(op)
	case op == OP_PUSHDATA1:
		if rem < 1 {
			t.err = true
			t.op = OP_INVALIDOPCODE
			return false
		}
		n = int(t.script[t.pos])
		t.pos++
	case op == OP_PUSHDATA2:
		if rem < 2 {
			t.err = true
			t.op = OP_INVALIDOPCODE
			return false
		}
		n = int(binary.LittleEndian.Uint16(t.script[t.pos:]))
		t.pos += 2
	default:
		if rem < 4 {
			t.err = true
			t.op = OP_INVALIDOPCODE
			return false
		}
		u := binary.LittleEndian.Uint32(t.script[t.pos:])
		t.pos += 4
		if uint64(u) > uint64(len(t.script)-t.pos) {
			t.err = true
			t.op = OP_INVALIDOPCODE
			return false
		}
		n = int(u)
	}
	if n > len(t.script)-t.pos {
		t.err = true
		t.op = OP_INVALIDOPCODE
		return false
	}
	t.data = t.script[t.pos : t.pos+n : t.pos+n]
	t.pos += n
	return true
}

// checkMinimalPush is Core's CheckMinimalPush.
func checkMinimalPush(data []byte, op byte) bool {
	n := len(data)
	switch {
	case n == 0:
		return op == OP_0
	case n == 1 && data[0] >= 1 && data[0] <= 16:
		return op == OP_1+data[0]-1
	case n == 1 && data[0] == 0x81:
		return op == OP_1NEGATE
	case n <= 75:
		return int(op) == n
	case n <= 255:
		return op == OP_PUSHDATA1
	case n <= 65535:
		return op == OP_PUSHDATA2
	}
	return true
}

// IsPushOnly reports whether script parses and contains only push
// operations (OP_RESERVED counts as a push, as in Core).
func IsPushOnly(script []byte) bool {
	t := scriptTokenizer{script: script}
	for t.next() {
		if t.op > OP_16 {
			return false
		}
	}
	return !t.err
}

// IsWitnessProgram reports whether script is a segwit output script and
// returns its version and program.
func IsWitnessProgram(script []byte) (version int, program []byte, ok bool) {
	n := len(script)
	if n < 4 || n > 42 {
		return 0, nil, false
	}
	if script[0] != OP_0 && (script[0] < OP_1 || script[0] > OP_16) {
		return 0, nil, false
	}
	if int(script[1])+2 != n {
		return 0, nil, false
	}
	return DecodeSmallInt(script[0]), script[2:], true
}

// IsPayToScriptHash reports whether script is a BIP16 P2SH output script.
func IsPayToScriptHash(script []byte) bool {
	return len(script) == 23 && script[0] == OP_HASH160 &&
		script[1] == OP_DATA_20 && script[22] == OP_EQUAL
}

// pushPrefix returns the canonical (CScript << data) push prefix for data
// of length n, as Core writes it.
func appendPushPrefix(dst []byte, n int) []byte {
	switch {
	case n < OP_PUSHDATA1:
		return append(dst, byte(n))
	case n <= 0xff:
		return append(dst, OP_PUSHDATA1, byte(n))
	case n <= 0xffff:
		return append(dst, OP_PUSHDATA2, byte(n), byte(n>>8))
	}
	return append(dst, OP_PUSHDATA4, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
}

// AppendPush appends data to script as one push encoded by its length
// alone (Core's CScript << vector): a direct push below 76 bytes, else the
// smallest OP_PUSHDATA that holds the length.
func AppendPush(script, data []byte) []byte {
	return append(appendPushPrefix(script, len(data)), data...)
}

// isCanonicalSinglePush reports whether script is exactly CScript() << data.
func isCanonicalSinglePush(script, data []byte) bool {
	var pre [5]byte
	p := appendPushPrefix(pre[:0], len(data))
	if len(script) != len(p)+len(data) {
		return false
	}
	for i := range p {
		if script[i] != p[i] {
			return false
		}
	}
	return string(script[len(p):]) == string(data)
}

// ScriptTokenizer iterates over a script's operations without allocating,
// with Core's parsing rules:
//
//	t := txscript.MakeScriptTokenizer(script)
//	for t.Next() { use(t.Opcode(), t.Data()) }
//	if t.Err() { ... }
type ScriptTokenizer struct{ t scriptTokenizer }

// MakeScriptTokenizer returns a tokenizer positioned before the first
// operation of script.
func MakeScriptTokenizer(script []byte) ScriptTokenizer {
	return ScriptTokenizer{t: scriptTokenizer{script: script}}
}

// Next advances to the next operation; it returns false at the end of the
// script or when a push runs past the end (then Err reports true).
func (s *ScriptTokenizer) Next() bool { return s.t.next() }

// Opcode returns the current operation's opcode.
func (s *ScriptTokenizer) Opcode() byte { return s.t.op }

// Data returns the current push's data (nil for non-push opcodes); it
// aliases the script.
func (s *ScriptTokenizer) Data() []byte { return s.t.data }

// Offset returns the byte offset just past the current operation.
func (s *ScriptTokenizer) Offset() int { return s.t.pos }

// Err reports whether parsing stopped at a truncated push.
func (s *ScriptTokenizer) Err() bool { return s.t.err }
