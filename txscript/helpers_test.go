package txscript

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

const vectorsDir = "../../shared/vectors"

// vectorPath returns the path of a shared vector file or skips the test.
func vectorPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(vectorsDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skip("../shared/vectors not present")
	}
	return p
}

func loadJSON(t testing.TB, rel string, v any) {
	t.Helper()
	b, err := os.ReadFile(vectorPath(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// asmOpcodes maps Core's ParseScript names (with and without "OP_") to
// opcodes; small-number names are excluded as in Core.
var asmOpcodes = func() map[string]byte {
	m := map[string]byte{}
	for op := 0; op <= 0xff; op++ {
		if op < OP_NOP && op != OP_RESERVED {
			continue
		}
		name := OpcodeName(byte(op))
		if name == "OP_UNKNOWN" || op == OP_INVALIDOPCODE {
			continue
		}
		m[name] = byte(op)
		m[strings.TrimPrefix(name, "OP_")] = byte(op)
	}
	m["OP_NOP2"], m["NOP2"] = OP_NOP2, OP_NOP2
	m["OP_NOP3"], m["NOP3"] = OP_NOP3, OP_NOP3
	return m
}()

// pushInt64 appends Core's CScript::push_int64 encoding.
func pushInt64(dst []byte, n int64) []byte {
	if n == -1 || (n >= 1 && n <= 16) {
		return append(dst, byte(n+(OP_1-1)))
	}
	if n == 0 {
		return append(dst, OP_0)
	}
	b := appendScriptNum(nil, n)
	dst = appendPushPrefix(dst, len(b))
	return append(dst, b...)
}

// parseShortAsm parses Core's test asm form (decimal numbers, 0x raw hex,
// 'strings', opcode names with or without OP_).
func parseShortAsm(s string) ([]byte, error) {
	out := []byte{}
	for _, w := range strings.Fields(s) {
		isNum := len(w) > 0
		for i, c := range w {
			if !(c >= '0' && c <= '9') && !(i == 0 && c == '-' && len(w) > 1) {
				isNum = false
			}
		}
		switch {
		case isNum:
			n, err := strconv.ParseInt(w, 10, 64)
			if err != nil {
				return nil, err
			}
			out = pushInt64(out, n)
		case strings.HasPrefix(w, "0x") && len(w) > 2:
			b, err := hex.DecodeString(w[2:])
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		case len(w) >= 2 && w[0] == '\'' && w[len(w)-1] == '\'':
			d := w[1 : len(w)-1]
			out = appendPushPrefix(out, len(d))
			out = append(out, d...)
		default:
			op, ok := asmOpcodes[w]
			if !ok {
				return nil, fmt.Errorf("unknown opcode %q", w)
			}
			out = append(out, op)
		}
	}
	return out, nil
}

// creditSpend builds Core's test crediting and spending transactions.
func creditSpend(pkScript, sigScript []byte, witness [][]byte, amount int64) (*wire.MsgTx, *wire.MsgTx) {
	credit := &wire.MsgTx{
		Version: 1,
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Index: 0xffffffff},
			SignatureScript:  []byte{OP_0, OP_0},
			Sequence:         0xffffffff,
		}},
		TxOut: []wire.TxOut{{Value: amount, PkScript: pkScript}},
	}
	spend := &wire.MsgTx{
		Version: 1,
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Hash: credit.TxHash(), Index: 0},
			SignatureScript:  sigScript,
			Witness:          witness,
			Sequence:         0xffffffff,
		}},
		TxOut: []wire.TxOut{{Value: amount, PkScript: []byte{}}},
	}
	return credit, spend
}

func decodeTx(t testing.TB, s string) *wire.MsgTx {
	t.Helper()
	var tx wire.MsgTx
	b := mustHex(t, s)
	n, err := tx.Decode(b)
	if err != nil {
		t.Fatalf("decode tx: %v", err)
	}
	if n != len(b) {
		t.Fatalf("decode tx: %d trailing bytes", len(b)-n)
	}
	return &tx
}
