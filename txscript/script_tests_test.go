package txscript

import (
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// numsH is BIP341's provably unspendable internal key, which Core's test
// harness uses for the #CONTROLBLOCK# placeholder.
const numsH = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"

func TestScriptTestsJSON(t *testing.T) {
	var tests [][]any
	loadJSON(t, "core/script_tests.json", &tests)
	cache := NewSigCache(1000)
	ran := 0
	for i, test := range tests {
		if len(test) == 1 {
			continue
		}
		var witness [][]byte
		var amount int64
		var tapscript []byte
		var wantTaproot bool
		if w, ok := test[0].([]any); ok {
			test = test[1:]
			amount = int64(math.Round(w[len(w)-1].(float64) * 1e8))
			for _, it := range w[:len(w)-1] {
				s := it.(string)
				switch {
				case strings.HasPrefix(s, "#SCRIPT#"):
					sc, err := parseShortAsm(strings.TrimPrefix(s, "#SCRIPT#"))
					if err != nil {
						t.Fatalf("test %d: %v", i, err)
					}
					tapscript = sc
					witness = append(witness, sc)
				case s == "#CONTROLBLOCK#":
					wantTaproot = true
					witness = append(witness, nil) // filled below
				default:
					witness = append(witness, mustHex(t, s))
				}
			}
		}
		if len(test) < 4 {
			t.Fatalf("test %d: malformed", i)
		}
		sigAsm, pkAsm := test[0].(string), test[1].(string)
		flagStr, want := test[2].(string), test[3].(string)
		var outKey [32]byte
		if wantTaproot {
			internal, _ := hex.DecodeString(numsH)
			leaf := TapLeafHash(TapscriptLeafVersion, tapscript)
			key, odd, ok := ComputeTaprootOutputKey(internal, leaf[:])
			if !ok {
				t.Fatal("taproot tweak failed")
			}
			outKey = key
			cb := []byte{TapscriptLeafVersion}
			if odd {
				cb[0] |= 1
			}
			cb = append(cb, internal...)
			for j := range witness {
				if witness[j] == nil {
					witness[j] = cb
				}
			}
			pkAsm = strings.ReplaceAll(pkAsm, "#TAPROOTOUTPUT#", "0x"+hex.EncodeToString(outKey[:]))
		}
		sigScript, err := parseShortAsm(sigAsm)
		if err != nil {
			t.Fatalf("test %d %q: %v", i, sigAsm, err)
		}
		pkScript, err := parseShortAsm(pkAsm)
		if err != nil {
			t.Fatalf("test %d %q: %v", i, pkAsm, err)
		}
		flags, ok := FlagsFromString(flagStr)
		if !ok {
			t.Fatalf("test %d: bad flags %q", i, flagStr)
		}
		credit, spend := creditSpend(pkScript, sigScript, witness, amount)
		prev := credit.TxOut[0]
		hashes := NewTxSigHashes(spend, []wire.TxOut{prev})
		err = VerifyInput(spend, 0, &prev, flags, cache, hashes)
		got := "OK"
		if err != nil {
			var k ErrorKind
			if errors.As(err, &k) {
				got = k.Name()
			} else {
				got = err.Error()
			}
		}
		ran++
		if got != want {
			t.Errorf("test %d: got %s want %s: %v", i, got, want, test)
		}
	}
	t.Logf("%d script tests", ran)
}
