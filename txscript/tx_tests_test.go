package txscript

import (
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestSigHashJSON(t *testing.T) {
	var tests [][]any
	loadJSON(t, "core/sighash.json", &tests)
	n := 0
	for i, test := range tests {
		if len(test) == 1 {
			continue
		}
		tx := decodeTx(t, test[0].(string))
		script := mustHex(t, test[1].(string))
		idx := int(test[2].(float64))
		ht := uint32(int32(test[3].(float64)))
		h := CalcSignatureHash(script, ht, tx, idx)
		got := wire.Hash(h).String()
		if got != test[4].(string) {
			t.Errorf("test %d: got %s want %s", i, got, test[4])
		}
		n++
	}
	t.Logf("%d sighash tests", n)
}

const maxMoney = 21000000 * 100000000

// checkTransactionSanity is a minimal context-free CheckTransaction used to
// recognise the BADTX vectors; the real rule set lives in blockchain.
func checkTransactionSanity(tx *wire.MsgTx) error {
	if len(tx.TxIn) == 0 {
		return errors.New("bad-txns-vin-empty")
	}
	if len(tx.TxOut) == 0 {
		return errors.New("bad-txns-vout-empty")
	}
	if tx.SerializeSizeStripped()*4 > 4000000 {
		return errors.New("bad-txns-oversize")
	}
	var total int64
	for _, o := range tx.TxOut {
		if o.Value < 0 {
			return errors.New("bad-txns-vout-negative")
		}
		if o.Value > maxMoney {
			return errors.New("bad-txns-vout-toolarge")
		}
		total += o.Value
		if total > maxMoney {
			return errors.New("bad-txns-txouttotal-toolarge")
		}
	}
	seen := map[wire.OutPoint]bool{}
	for _, in := range tx.TxIn {
		if seen[in.PreviousOutPoint] {
			return errors.New("bad-txns-inputs-duplicate")
		}
		seen[in.PreviousOutPoint] = true
	}
	if tx.IsCoinBase() {
		if n := len(tx.TxIn[0].SignatureScript); n < 2 || n > 100 {
			return errors.New("bad-cb-length")
		}
	} else {
		for _, in := range tx.TxIn {
			if in.PreviousOutPoint.Index == math.MaxUint32 && in.PreviousOutPoint.Hash == (wire.Hash{}) {
				return errors.New("bad-txns-prevout-null")
			}
		}
	}
	return nil
}

type txVector struct {
	tx    *wire.MsgTx
	prevs []wire.TxOut
	ok    bool // every input's prevout was listed
	flags string
}

func parseTxVector(t *testing.T, test []any) txVector {
	var v txVector
	v.tx = decodeTx(t, test[1].(string))
	v.flags = test[2].(string)
	type key struct {
		h wire.Hash
		i uint32
	}
	m := map[key]wire.TxOut{}
	for _, p := range test[0].([]any) {
		p := p.([]any)
		h, err := wire.NewHashFromStr(p[0].(string))
		if err != nil {
			t.Fatal(err)
		}
		idx := uint32(int64(p[1].(float64)))
		script, err := parseShortAsm(p[2].(string))
		if err != nil {
			t.Fatalf("%v: %v", p[2], err)
		}
		var amt int64
		if len(p) > 3 {
			amt = int64(p[3].(float64))
		}
		m[key{h, idx}] = wire.TxOut{Value: amt, PkScript: script}
	}
	v.ok = true
	for _, in := range v.tx.TxIn {
		o, found := m[key{in.PreviousOutPoint.Hash, in.PreviousOutPoint.Index}]
		if !found {
			v.ok = false
		}
		v.prevs = append(v.prevs, o)
	}
	return v
}

// checkTxScripts verifies every input; it returns the first failure.
func checkTxScripts(v txVector, flags ScriptFlags) error {
	if !v.ok {
		return errors.New("missing prevout")
	}
	hashes := NewTxSigHashes(v.tx, v.prevs)
	for i := range v.tx.TxIn {
		if err := VerifyInput(v.tx, i, &v.prevs[i], flags, nil, hashes); err != nil {
			return err
		}
	}
	return nil
}

// fillFlags mirrors Core's test helper: CLEANSTACK implies WITNESS and
// WITNESS implies P2SH.
func fillFlags(f ScriptFlags) ScriptFlags {
	if f&ScriptVerifyCleanStack != 0 {
		f |= ScriptVerifyWitness
	}
	if f&ScriptVerifyWitness != 0 {
		f |= ScriptVerifyP2SH
	}
	return f
}

// trimFlags is the inverse: dropping P2SH drops WITNESS, dropping WITNESS
// drops CLEANSTACK.
func trimFlags(f ScriptFlags) ScriptFlags {
	if f&ScriptVerifyP2SH == 0 {
		f &^= ScriptVerifyWitness
	}
	if f&ScriptVerifyWitness == 0 {
		f &^= ScriptVerifyCleanStack
	}
	return f
}

func TestTxValidJSON(t *testing.T) {
	var tests [][]any
	loadJSON(t, "core/tx_valid.json", &tests)
	n := 0
	for i, test := range tests {
		if len(test) == 1 {
			continue
		}
		v := parseTxVector(t, test)
		excluded, ok := FlagsFromString(v.flags)
		if !ok {
			t.Fatalf("test %d: flags %q", i, v.flags)
		}
		if err := checkTransactionSanity(v.tx); err != nil {
			t.Errorf("test %d: sanity: %v", i, err)
			continue
		}
		flags := AllVerifyFlags &^ excluded
		if err := checkTxScripts(v, flags); err != nil {
			t.Errorf("test %d: %v (flags %s)", i, err, flags)
		}
		// Flags are maximal: adding any excluded flag must break it.
		for _, fn := range flagNames {
			if excluded&fn.flag == 0 {
				continue
			}
			f := fillFlags(flags | fn.flag)
			if checkTxScripts(v, f) == nil {
				t.Errorf("test %d: still valid with %s", i, fn.name)
			}
		}
		n++
	}
	t.Logf("%d tx_valid tests", n)
}

func TestTxInvalidJSON(t *testing.T) {
	var tests [][]any
	loadJSON(t, "core/tx_invalid.json", &tests)
	n := 0
	for i, test := range tests {
		if len(test) == 1 {
			continue
		}
		v := parseTxVector(t, test)
		n++
		if v.flags == "BADTX" {
			if checkTransactionSanity(v.tx) == nil {
				t.Errorf("test %d: passes sanity checks", i)
			}
			continue
		}
		if err := checkTransactionSanity(v.tx); err != nil {
			t.Errorf("test %d: sanity: %v", i, err)
			continue
		}
		flags, ok := FlagsFromString(v.flags)
		if !ok {
			t.Fatalf("test %d: flags %q", i, v.flags)
		}
		if checkTxScripts(v, flags) == nil {
			t.Errorf("test %d: valid with %s", i, v.flags)
		}
		// Flags are minimal: removing any one makes it valid.
		for _, fn := range flagNames {
			if flags&fn.flag == 0 {
				continue
			}
			f := trimFlags(flags &^ fn.flag)
			if err := checkTxScripts(v, f); err != nil {
				t.Errorf("test %d: still invalid without %s: %v", i, fn.name, err)
			}
		}
	}
	t.Logf("%d tx_invalid tests", n)
}

var _ = hex.EncodeToString
var _ = strings.TrimSpace
