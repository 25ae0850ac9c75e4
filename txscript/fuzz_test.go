package txscript

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

func FuzzParseScript(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{OP_PUSHDATA4, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{OP_PUSHDATA2, 0x02})
	f.Add(PayToPubKeyHashScript(make([]byte, 20)))
	f.Add([]byte{OP_1, OP_DATA_33})
	f.Fuzz(func(t *testing.T, s []byte) {
		n := 0
		tk := scriptTokenizer{script: s}
		for tk.next() {
			n++
			if len(tk.data) > len(s) {
				t.Fatal("data longer than script")
			}
		}
		_ = DisasmString(s, true)
		_ = GetScriptClass(s)
		_ = GetSigOpCount(s, true)
		_ = GetSigOpCount(s, false)
		_ = GetP2SHSigOpCount(s, PayToScriptHashScript(make([]byte, 20)))
		_ = CountWitnessSigOps(s, PayToScriptHashScript(make([]byte, 20)), [][]byte{s}, AllVerifyFlags)
		_ = IsPushOnly(s)
		_, _ = findAndDelete(s, []byte{1, 2})
		_ = PushedData(s)
		_, _, _ = parseDERLax(s)
		_ = isValidSignatureEncoding(s)
	})
}

// FuzzExecute runs arbitrary scriptSig/scriptPubKey/witness combinations
// under arbitrary flags; nothing may panic.
func FuzzExecute(f *testing.F) {
	f.Add([]byte{OP_1}, []byte{OP_DUP, OP_DROP}, []byte{}, uint32(0))
	f.Add([]byte{}, []byte{OP_0, OP_DATA_20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, []byte{1, 2}, uint32(AllVerifyFlags))
	f.Add([]byte{OP_1, OP_2}, []byte{OP_IF, OP_CHECKMULTISIG, OP_ELSE, OP_2ROT, OP_ENDIF}, []byte{}, uint32(StandardVerifyFlags))
	f.Add([]byte{}, []byte{OP_1, OP_DATA_32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}, []byte{0xba, 0x51}, uint32(AllVerifyFlags))
	f.Fuzz(func(t *testing.T, sig, pk, wit []byte, flags uint32) {
		fl := ScriptFlags(flags) & AllVerifyFlags
		// Core asserts these combinations never happen.
		if fl&ScriptVerifyWitness != 0 || fl&ScriptVerifyCleanStack != 0 {
			fl |= ScriptVerifyP2SH | ScriptVerifyWitness
		}
		var witness [][]byte
		// Split the witness bytes into items at 0xff markers and
		// append a control-block-like tail so script paths get exercised.
		start := 0
		for i, b := range wit {
			if b == 0xff {
				witness = append(witness, wit[start:i])
				start = i + 1
			}
		}
		if start < len(wit) {
			witness = append(witness, wit[start:])
		}
		_, spend := creditSpend(pk, sig, witness, 1000)
		prev := wire.TxOut{Value: 1000, PkScript: pk}
		hs := NewTxSigHashes(spend, []wire.TxOut{prev})
		_ = VerifyInput(spend, 0, &prev, fl, nil, hs)
		// Tapscript execution of pk as a leaf script.
		e := NewEngine()
		e.tx, e.idx, e.amount, e.flags, e.hashes = spend, 0, 1000, fl, hs
		e.weightLeft = int64(len(pk)) + 50
		_ = e.executeWitnessScript(witness, pk, sigVersionTapscript)
		_ = e.executeWitnessScript(witness, pk, sigVersionWitnessV0)
	})
}

func FuzzDecodeAddress(f *testing.F) {
	f.Add("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")
	f.Add("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")
	f.Add("bc1pz37fc4cn9ah8anwm4xqqhvxygjf9rjf2resrw8h8w4tmvcs0863sa2e586")
	p := &AddressParams{PubKeyHashAddrID: 0, ScriptHashAddrID: 5, Bech32HRP: "bc"}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := DecodeAddress(s, p)
		if err != nil {
			return
		}
		back, err := DecodeAddress(a.Encode(p), p)
		if err != nil || string(back.PkScript()) != string(a.PkScript()) {
			t.Fatalf("round trip of %q failed", s)
		}
	})
}
