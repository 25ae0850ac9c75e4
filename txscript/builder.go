package txscript

import "errors"

// ErrScriptTooBig is returned by ScriptBuilder.Script when the script or a
// pushed element exceeds consensus limits.
var ErrScriptTooBig = errors.New("script exceeds size limits")

// ScriptBuilder assembles scripts with minimal pushes. Give NewScriptBuilder
// a capacity hint so building allocates once.
type ScriptBuilder struct {
	script []byte
	err    error
}

// NewScriptBuilder returns a builder whose buffer starts with capacity
// sizeHint bytes.
func NewScriptBuilder(sizeHint int) *ScriptBuilder {
	if sizeHint < 0 || sizeHint > MaxScriptSize {
		sizeHint = 0
	}
	return &ScriptBuilder{script: make([]byte, 0, sizeHint)}
}

// AddOp appends an opcode.
func (b *ScriptBuilder) AddOp(op byte) *ScriptBuilder {
	b.script = append(b.script, op)
	return b
}

// AddOps appends several opcodes.
func (b *ScriptBuilder) AddOps(ops ...byte) *ScriptBuilder {
	b.script = append(b.script, ops...)
	return b
}

// AddData pushes data with the smallest encoding (OP_0, OP_1..OP_16 and
// OP_1NEGATE for the matching single values), as MINIMALDATA requires.
func (b *ScriptBuilder) AddData(data []byte) *ScriptBuilder {
	if len(data) > MaxScriptElementSize {
		b.err = ErrScriptTooBig
	}
	switch {
	case len(data) == 0:
		return b.AddOp(OP_0)
	case len(data) == 1 && data[0] >= 1 && data[0] <= 16:
		return b.AddOp(OP_1 + data[0] - 1)
	case len(data) == 1 && data[0] == 0x81:
		return b.AddOp(OP_1NEGATE)
	}
	return b.AddFullData(data)
}

// AddFullData pushes data with a length prefix even where a small-number
// opcode would be shorter (Core's CScript << vector).
func (b *ScriptBuilder) AddFullData(data []byte) *ScriptBuilder {
	b.script = appendPushPrefix(b.script, len(data))
	b.script = append(b.script, data...)
	return b
}

// AddInt64 pushes a number as Core's CScript << int64 does.
func (b *ScriptBuilder) AddInt64(n int64) *ScriptBuilder {
	if n == -1 || (n >= 1 && n <= 16) {
		return b.AddOp(byte(n + (OP_1 - 1)))
	}
	if n == 0 {
		return b.AddOp(OP_0)
	}
	var tmp [9]byte
	return b.AddFullData(appendScriptNum(tmp[:0], n))
}

// Reset empties the builder, keeping its buffer.
func (b *ScriptBuilder) Reset() *ScriptBuilder {
	b.script, b.err = b.script[:0], nil
	return b
}

// Script returns the built script; it fails if a pushed element exceeded
// 520 bytes or the script exceeds 10,000 bytes.
func (b *ScriptBuilder) Script() ([]byte, error) {
	if b.err != nil {
		return nil, b.err
	}
	if len(b.script) > MaxScriptSize {
		return nil, ErrScriptTooBig
	}
	return b.script, nil
}

// PayToPubKeyHashScript returns OP_DUP OP_HASH160 <h> OP_EQUALVERIFY
// OP_CHECKSIG.
func PayToPubKeyHashScript(h []byte) []byte {
	return Address{Type: AddrP2PKH, Hash: h}.PkScript()
}

// PayToScriptHashScript returns OP_HASH160 <h> OP_EQUAL.
func PayToScriptHashScript(h []byte) []byte {
	return Address{Type: AddrP2SH, Hash: h}.PkScript()
}

// PayToWitnessScript returns OP_n <program>.
func PayToWitnessScript(version byte, program []byte) []byte {
	return Address{Type: AddrWitness, WitnessVersion: version, Hash: program}.PkScript()
}

// MultiSigScript returns OP_m <keys...> OP_n OP_CHECKMULTISIG.
func MultiSigScript(required int, keys [][]byte) ([]byte, error) {
	if required < 1 || required > len(keys) || len(keys) > 16 {
		return nil, errors.New("invalid multisig parameters")
	}
	n := 3
	for _, k := range keys {
		n += 1 + len(k)
	}
	b := NewScriptBuilder(n).AddInt64(int64(required))
	for _, k := range keys {
		b.AddData(k)
	}
	return b.AddInt64(int64(len(keys))).AddOp(OP_CHECKMULTISIG).Script()
}

// NullDataScript returns OP_RETURN <data>.
func NullDataScript(data []byte) ([]byte, error) {
	return NewScriptBuilder(len(data) + 4).AddOp(OP_RETURN).AddData(data).Script()
}
