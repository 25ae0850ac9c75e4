package txscript

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// tapSpend verifies a script path spend of a single-leaf tree (internal key
// NUMS_H) with the given leaf version, leaf script and initial stack.
func tapSpend(t *testing.T, leafVer byte, script []byte, stack [][]byte, annex []byte, flags ScriptFlags) error {
	t.Helper()
	internal, _ := hex.DecodeString(numsH)
	leaf := TapLeafHash(leafVer, script)
	key, odd, ok := ComputeTaprootOutputKey(internal, leaf[:])
	if !ok {
		t.Fatal("tweak failed")
	}
	cb := append([]byte{leafVer}, internal...)
	if odd {
		cb[0] |= 1
	}
	witness := append(append([][]byte{}, stack...), script, cb)
	if annex != nil {
		witness = append(witness, annex)
	}
	pk := PayToWitnessScript(1, key[:])
	credit, spend := creditSpend(pk, nil, witness, 1000)
	prev := credit.TxOut[0]
	return VerifyInput(spend, 0, &prev, flags, nil, NewTxSigHashes(spend, []wire.TxOut{prev}))
}

func TestTapscriptPolicyAndLimits(t *testing.T) {
	cons := ScriptVerifyP2SH | ScriptVerifyWitness | ScriptVerifyTaproot
	unknownKey := bytes.Repeat([]byte{2}, 33)
	manySigs := func(n int) []byte {
		b := NewScriptBuilder(0)
		for i := 0; i < n; i++ {
			b.AddOp(OP_DUP).AddData(unknownKey).AddOp(OP_CHECKSIGVERIFY)
		}
		s, _ := b.AddOp(OP_DROP).AddOp(OP_1).Script()
		return s
	}
	sig := bytes.Repeat([]byte{1}, 64)
	for _, c := range []struct {
		name    string
		leafVer byte
		script  []byte
		stack   [][]byte
		annex   []byte
		flags   ScriptFlags
		want    error
	}{
		{"op_success", 0xc0, []byte{0x50}, nil, nil, cons, nil},
		{"op_success before bad push", 0xc0, []byte{0xbb, OP_PUSHDATA1}, nil, nil, cons, nil},
		{"op_success discouraged", 0xc0, []byte{0x50}, nil, nil, cons | ScriptVerifyDiscourageOpSuccess, ErrDiscourageOpSuccess},
		{"bad push", 0xc0, []byte{OP_1, OP_PUSHDATA1}, nil, nil, cons, ErrBadOpcode},
		{"unknown leaf version", 0xc2, []byte{OP_RETURN}, nil, nil, cons, nil},
		{"unknown leaf version discouraged", 0xc2, []byte{OP_RETURN}, nil, nil, cons | ScriptVerifyDiscourageUpgradableTaprootVersion, ErrDiscourageUpgradableTaprootVersion},
		{"unknown pubkey type", 0xc0, append([]byte{OP_DATA_33}, append(unknownKey, OP_CHECKSIG)...), [][]byte{sig}, nil, cons, nil},
		{"unknown pubkey type discouraged", 0xc0, append([]byte{OP_DATA_33}, append(unknownKey, OP_CHECKSIG)...), [][]byte{sig}, nil, cons | ScriptVerifyDiscourageUpgradablePubKeyType, ErrDiscourageUpgradablePubKeyType},
		{"validation weight ok", 0xc0, manySigs(3), [][]byte{sig}, nil, cons, nil},
		{"validation weight exceeded", 0xc0, manySigs(20), [][]byte{sig}, nil, cons, ErrTapscriptValidationWeight},
		{"annex raises budget", 0xc0, manySigs(20), [][]byte{sig}, append([]byte{annexTag}, make([]byte, 400)...), cons, nil},
		{"checkmultisig", 0xc0, []byte{OP_0, OP_0, OP_CHECKMULTISIG}, nil, nil, cons, ErrTapscriptCheckMultiSig},
		{"minimal if", 0xc0, []byte{OP_IF, OP_1, OP_ENDIF}, [][]byte{{2}}, nil, cons, ErrTapscriptMinimalIf},
		{"checksigadd empty sig", 0xc0, append(append([]byte{OP_0, OP_DATA_33}, unknownKey...), OP_CHECKSIGADD), [][]byte{{}}, nil, cons, ErrEvalFalse},
		{"checksigadd counts", 0xc0, append(append([]byte{OP_0, OP_DATA_33}, unknownKey...), OP_CHECKSIGADD), [][]byte{sig}, nil, cons, nil},
		{"no 201 op limit", 0xc0, append(bytes.Repeat([]byte{OP_NOP}, 300), OP_1), nil, nil, cons, nil},
		{"stack limit", 0xc0, []byte{OP_1}, make([][]byte, 1000), nil, cons, ErrStackSize},
		{"cleanstack", 0xc0, []byte{OP_1, OP_1}, nil, nil, cons, ErrCleanStack},
	} {
		err := tapSpend(t, c.leafVer, c.script, c.stack, c.annex, c.flags)
		if !errors.Is(err, c.want) && !(err == nil && c.want == nil) {
			t.Errorf("%s: got %v want %v", c.name, err, c.want)
		}
	}
}

func TestLegacyOnlyOpcodes(t *testing.T) {
	for _, c := range []struct {
		pk   []byte
		want error
	}{
		{[]byte{OP_1, OP_1, OP_1, OP_CHECKSIGADD}, ErrBadOpcode},
		{[]byte{OP_1, OP_RESERVED}, ErrBadOpcode},
		{[]byte{OP_0, OP_IF, OP_RESERVED, OP_ENDIF, OP_1}, nil},
		{[]byte{OP_0, OP_IF, OP_VERIF, OP_ENDIF, OP_1}, ErrBadOpcode},
		{[]byte{OP_0, OP_IF, OP_CAT, OP_ENDIF, OP_1}, ErrDisabledOpcode},
	} {
		credit, spend := creditSpend(c.pk, nil, nil, 0)
		err := VerifyInput(spend, 0, &credit.TxOut[0], StandardVerifyFlags, nil, nil)
		if !errors.Is(err, c.want) && !(err == nil && c.want == nil) {
			t.Errorf("%x: got %v want %v", c.pk, err, c.want)
		}
	}
}
