package txscript

import (
	"encoding/hex"
	"errors"
	"sync"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestRipemd160(t *testing.T) {
	for in, want := range map[string]string{
		"":    "9c1185a5c5e9fc54612808977ee8f548b2258d31",
		"abc": "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc",
		"12345678901234567890123456789012345678901234567890123456789012345678901234567890": "9b752e45573d4b39f4dbd3323cab82bf63326bfb",
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq":                         "12a053384a9c0c88e405a06c27dcf49ada62eb2b",
	} {
		h := ripemd160Sum([]byte(in))
		if got := hex.EncodeToString(h[:]); got != want {
			t.Errorf("ripemd160(%q) = %s want %s", in, got, want)
		}
	}
}

func TestScriptNum(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 127, 128, -128, 255, 256, 0x7fffffff, -0x7fffffff, 1 << 40} {
		b := appendScriptNum(nil, n)
		got, err := parseScriptNum(b, true, 8)
		if err != nil || got != n {
			t.Errorf("%d: round trip %x -> %d %v", n, b, got, err)
		}
	}
	if _, err := parseScriptNum([]byte{1, 0}, true, 4); !errors.Is(err, ErrScriptNum) {
		t.Errorf("non-minimal accepted: %v", err)
	}
	if _, err := parseScriptNum([]byte{1, 2, 3, 4, 5}, false, 4); !errors.Is(err, ErrScriptNum) {
		t.Error("5-byte operand accepted")
	}
}

func TestErrorKinds(t *testing.T) {
	seen := map[string]bool{}
	for k := ErrOK; k < numErrorKinds; k++ {
		if k.Name() == "" || k.Message() == "" || seen[k.Name()] {
			t.Errorf("kind %d: bad or duplicate name %q", k, k.Name())
		}
		seen[k.Name()] = true
		if back, ok := ErrorKindFromName(k.Name()); !ok || back != k {
			t.Errorf("%s does not round trip", k.Name())
		}
	}
	var err error = ErrEvalFalse
	if !errors.Is(err, ErrEvalFalse) || err.Error() != "Script evaluated without error but finished with a false/empty top stack element" {
		t.Error("ErrEvalFalse text")
	}
}

func TestFlags(t *testing.T) {
	f, ok := FlagsFromString("P2SH,WITNESS,TAPROOT")
	if !ok || f != ScriptVerifyP2SH|ScriptVerifyWitness|ScriptVerifyTaproot || f.String() != "P2SH,WITNESS,TAPROOT" {
		t.Errorf("flags %v", f)
	}
	if ScriptVerifyP2SH != 1 || ScriptVerifyDiscourageUpgradablePubKeyType != 1<<20 {
		t.Error("flag bits differ from Core's")
	}
	all := ConsensusFlags(Deployments{true, true, true, true, true, true})
	if all != MandatoryVerifyFlags {
		t.Errorf("consensus flags %s", all)
	}
	if StandardVerifyFlags&MandatoryVerifyFlags != MandatoryVerifyFlags {
		t.Error("standard must include mandatory")
	}
}

func TestDisasm(t *testing.T) {
	sig := "3045022100f16703104aab4e4088317c862daec83440242411b039d14280e03dd33b487ab802201318a7be236672c5c56083eb7a5a195bc57a40af7923ff8545016cd3b571e2a6"
	pub := "03c40e5d339df3f30bf753e7e04450ae4ef76c9e45587d1d993bdc4cd06f0651c7"
	sigScript := mustHex(t, "48"+sig+"01"+"21"+pub)
	for _, c := range []struct {
		script string
		decode bool
		want   string
	}{
		{"76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac", false, "OP_DUP OP_HASH160 77bff20c60e522dfaa3350c39b030a5d004e839a OP_EQUALVERIFY OP_CHECKSIG"},
		{hex.EncodeToString(sigScript), true, sig + "[ALL] " + pub},
		{hex.EncodeToString(sigScript), false, sig + "01 " + pub},
		{"004f5160010502ff0001850485000000", false, "0 -1 1 16 5 255 -5 133"},
		{"6a0b68656c6c6f20776f726c64", true, "OP_RETURN 68656c6c6f20776f726c64"},
		{"b1b2ba50ff4c", false, "OP_CHECKLOCKTIMEVERIFY OP_CHECKSEQUENCEVERIFY OP_CHECKSIGADD OP_RESERVED OP_INVALIDOPCODE [error]"},
		{"bb", false, "OP_UNKNOWN"},
	} {
		if got := DisasmString(mustHex(t, c.script), c.decode); got != c.want {
			t.Errorf("%s: got %q want %q", c.script, got, c.want)
		}
	}
}

func TestAddresses(t *testing.T) {
	main := &AddressParams{PubKeyHashAddrID: 0x00, ScriptHashAddrID: 0x05, Bech32HRP: "bc"}
	test := &AddressParams{PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "tb"}
	for _, c := range []struct {
		addr   string
		p      *AddressParams
		script string
	}{
		{"1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", main, "76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac"},
		{"3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", main, "a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87"},
		{"BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", main, "0014751e76e8199196d454941c45d1b3a323f1433bd6"},
		{"tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", test, "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262"},
		{"bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", main, "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6"},
		{"BC1SW50QGDZ25J", main, "6002751e"},
		{"bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", main, "5210751e76e8199196d454941c45d1b3a323"},
		{"tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c", test, "5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433"},
	} {
		a, err := DecodeAddress(c.addr, c.p)
		if err != nil {
			t.Errorf("%s: %v", c.addr, err)
			continue
		}
		if got := hex.EncodeToString(a.PkScript()); got != c.script {
			t.Errorf("%s: script %s want %s", c.addr, got, c.script)
		}
		back, ok := AddressFromPkScript(a.PkScript())
		if !ok || (back.Encode(c.p) != c.addr && back.Encode(c.p) != lower(c.addr)) {
			t.Errorf("%s: re-encoded as %s", c.addr, back.Encode(c.p))
		}
	}
	for _, bad := range []string{
		"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh",                               // v0 with bech32m
		"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd",           // v1 with bech32
		"tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",           // wrong network
		"bc1zw508d6qejxtdg4y5r3zarvaryvg6kdaj",                                     // v2 with bech32
		"bc1gmk9yu",                                                                // empty data
		"1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3",                                       // bad checksum
		"BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3t4",                               // mixed case
		"bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", // too long
	} {
		if _, err := DecodeAddress(bad, main); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func TestClassifyAndSigOps(t *testing.T) {
	k := make([]byte, 33)
	k[0] = 2
	ms, _ := MultiSigScript(2, [][]byte{k, k, k})
	for _, c := range []struct {
		script string
		class  ScriptClass
	}{
		{"76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac", PubKeyHashTy},
		{"a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87", ScriptHashTy},
		{"0014751e76e8199196d454941c45d1b3a323f1433bd6", WitnessV0PubKeyHashTy},
		{"00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262", WitnessV0ScriptHashTy},
		{"5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433", WitnessV1TaprootTy},
		{"51024e73", AnchorTy},
		{"6002751e", WitnessUnknownTy},
		{"6a0b68656c6c6f20776f726c64", NullDataTy},
		{"6a", NullDataTy},
		{"2103c40e5d339df3f30bf753e7e04450ae4ef76c9e45587d1d993bdc4cd06f0651c7ac", PubKeyTy},
		{hex.EncodeToString(ms), MultiSigTy},
		{"00", NonStandardTy},
		{"001501020304050607080910111213141516171819202122", NonStandardTy},
	} {
		if got := GetScriptClass(mustHex(t, c.script)); got != c.class {
			t.Errorf("%s: class %s want %s", c.script, got, c.class)
		}
	}
	if n := GetSigOpCount(ms, true); n != 3 {
		t.Errorf("accurate multisig sigops %d", n)
	}
	if n := GetSigOpCount(ms, false); n != 20 {
		t.Errorf("inaccurate multisig sigops %d", n)
	}
	redeem := ms
	sigScript, _ := NewScriptBuilder(0).AddOp(OP_0).AddData(redeem).Script()
	h := Hash160(redeem)
	if n := GetP2SHSigOpCount(sigScript, PayToScriptHashScript(h[:])); n != 3 {
		t.Errorf("p2sh sigops %d", n)
	}
	wsh := sha256Sum(redeem)
	if n := CountWitnessSigOps(nil, PayToWitnessScript(0, wsh[:]), [][]byte{{}, redeem}, StandardVerifyFlags); n != 3 {
		t.Errorf("p2wsh sigops %d", n)
	}
	wpkh := PayToWitnessScript(0, h[:])
	p2shSig, _ := NewScriptBuilder(0).AddData(wpkh).Script()
	wh := Hash160(wpkh)
	if n := CountWitnessSigOps(p2shSig, PayToScriptHashScript(wh[:]), [][]byte{{1}, {2}}, StandardVerifyFlags); n != 1 {
		t.Errorf("p2sh-p2wpkh sigops %d", n)
	}
}

func TestScriptBuilder(t *testing.T) {
	s, err := NewScriptBuilder(64).AddInt64(0).AddInt64(-1).AddInt64(16).AddInt64(17).AddInt64(-1000).
		AddData(nil).AddData([]byte{5}).AddData([]byte{0x81}).AddData(make([]byte, 76)).Script()
	if err != nil {
		t.Fatal(err)
	}
	if got := DisasmString(s, false); got != "0 -1 16 17 -1000 0 5 -1 "+hex.EncodeToString(make([]byte, 76)) {
		t.Errorf("built %q", got)
	}
	if _, err := NewScriptBuilder(0).AddData(make([]byte, 521)).Script(); err == nil {
		t.Error("oversized push accepted")
	}
}

// TestConcurrentVerify shares one TxSigHashes and SigCache between
// goroutines (run with -race).
func TestConcurrentVerify(t *testing.T) {
	var v bip341Vectors
	loadJSON(t, "bip341/wallet-test-vectors.json", &v)
	ks := v.KeyPathSpending[0]
	tx := decodeTx(t, ks.Auxiliary.FullySignedTx)
	prevs := make([]wire.TxOut, len(ks.Given.UtxosSpent))
	for i, u := range ks.Given.UtxosSpent {
		prevs[i] = wire.TxOut{Value: u.AmountSats, PkScript: mustHex(t, u.ScriptPubKey)}
	}
	hs := NewTxSigHashes(tx, prevs)
	cache := NewSigCache(4)
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(tx.TxIn))
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tx.TxIn {
				if err := VerifyInput(tx, i, &prevs[i], StandardVerifyFlags, cache, hs); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if cache.Len() > 4 {
		t.Errorf("cache exceeded its bound: %d", cache.Len())
	}
}

// TestFindAndDelete pins Core's exact-encoding semantics: only the
// canonical push of the signature, at an opcode boundary, is removed
// (CVE-2024-38365 was btcd also removing non-canonical pushes).
func TestFindAndDelete(t *testing.T) {
	for _, c := range []struct {
		script, sig, want string
		n                 int
	}{
		{"0302ff030302ff03", "02ff03", "", 2},
		{"4c0302ff03", "02ff03", "4c0302ff03", 0},         // PUSHDATA1 form is kept
		{"4c0302ff030302ff03", "02ff03", "4c0302ff03", 1}, // only the canonical one goes
		{"0002feed", "feed", "00", 1},                     // after another op
		{"02feed02feed51", "feed", "51", 2},               // consecutive matches
		{"0102feed", "feed", "0102feed", 0},               // inside a push: not a boundary
		{"ab02feedab", "feed", "abab", 1},                 // codeseparators stay
		{"0051", "", "51", 1},                             // empty sig deletes OP_0
		{"02feed4d", "feed", "4d", 1},                     // truncated tail kept
		{"4d0200feed", "feed", "4d0200feed", 0},           // PUSHDATA2 form kept
	} {
		got, n := findAndDelete(mustHex(t, c.script), mustHex(t, c.sig))
		if hex.EncodeToString(got) != c.want || n != c.n {
			t.Errorf("%s - %s: got %x (%d) want %s (%d)", c.script, c.sig, got, n, c.want, c.n)
		}
	}
}

// TestPayToAnchorPolicy pins BIP 433: a bare pay-to-anchor output is
// spendable under standard flags, while other short v1 programs and the
// same program wrapped in P2SH stay discouraged.
func TestPayToAnchorPolicy(t *testing.T) {
	spend := func(pk, sigScript []byte) error {
		tx := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{SignatureScript: sigScript, Sequence: 0xffffffff}},
			TxOut: []wire.TxOut{{Value: 0, PkScript: []byte{OP_RETURN}}}}
		return VerifyInput(tx, 0, &wire.TxOut{Value: 240, PkScript: pk}, StandardVerifyFlags, nil, nil)
	}
	anchor := []byte{OP_1, 0x02, 0x4e, 0x73}
	if err := spend(anchor, nil); err != nil {
		t.Fatalf("pay-to-anchor spend: %v", err)
	}
	if err := spend([]byte{OP_1, 0x02, 0x4e, 0x74}, nil); !errors.Is(err, ErrDiscourageUpgradableWitnessProgram) {
		t.Fatalf("other v1 2-byte program: %v", err)
	}
	h := Hash160(anchor)
	p2sh := append(append([]byte{OP_HASH160, 0x14}, h[:]...), OP_EQUAL)
	if err := spend(p2sh, append([]byte{byte(len(anchor))}, anchor...)); !errors.Is(err, ErrDiscourageUpgradableWitnessProgram) {
		t.Fatalf("P2SH-wrapped anchor: %v", err)
	}
}

// OP_IF and OP_NOTIF with nothing to test are a malformed conditional in
// Core (SCRIPT_ERR_UNBALANCED_CONDITIONAL), not a stack underflow: the
// reject reason peers and RPC see is "Invalid OP_IF construction".
func TestIfOnEmptyStack(t *testing.T) {
	for _, op := range []byte{OP_IF, OP_NOTIF} {
		sigScript := []byte{op, op}
		credit, spend := creditSpend([]byte{OP_1}, sigScript, nil, 0)
		prev := credit.TxOut[0]
		hashes := NewTxSigHashes(spend, []wire.TxOut{prev})
		err := VerifyInput(spend, 0, &prev, ScriptVerifyP2SH, nil, hashes)
		if !errors.Is(err, ErrUnbalancedConditional) {
			t.Fatalf("opcode %#x: got %v, want %v", op, err, ErrUnbalancedConditional)
		}
		if err.Error() != "Invalid OP_IF construction" {
			t.Errorf("opcode %#x: message %q", op, err.Error())
		}
	}
}
