package rpc

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
)

func TestHash160(t *testing.T) {
	// The P2PKH hash of the generator point's compressed encoding.
	got := hash160(mustHex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"))
	if hex.EncodeToString(got[:]) != "751e76e8199196d454941c45d1b3a323f1433bd6" {
		t.Fatalf("hash160 = %x", got)
	}
}

func TestGetDifficulty(t *testing.T) {
	for _, c := range []struct {
		bits uint32
		want string
	}{
		{0x207fffff, "4.656542373906925e-10"},
		{0x1d00ffff, "1"},
		{0x1b0404cb, "16307.42093852398"},
		{0x1a05db8b, "2864140.507810974"},
	} {
		if got, _ := json.Marshal(GetDifficulty(c.bits)); string(got) != c.want {
			t.Errorf("GetDifficulty(%#x) = %s, want %s", c.bits, got, c.want)
		}
	}
	b, _ := json.Marshal(GetDifficulty(0x207fffff))
	if string(b) != "4.656542373906925e-10" {
		t.Errorf("JSON form %s", b)
	}
	if got := TargetHex(0x1d00ffff); got != "00000000ffff0000000000000000000000000000000000000000000000000000" {
		t.Errorf("TargetHex = %s", got)
	}
}

func TestAmounts(t *testing.T) {
	for _, c := range []struct {
		in   string
		sat  int64
		fail bool
	}{
		{"1", 100000000, false},
		{"0.00000001", 1, false},
		{"0.000000001", 0, true},
		{"21000000", 2100000000000000, false},
		{"21000000.00000001", 0, true},
		{"-1", 0, true},
		{"1e-8", 1, false},
		{"1.5E2", 15000000000, false},
		{`"0.1"`, 10000000, false},
		{`"abc"`, 0, true},
		{"true", 0, true},
		{"0.10000000", 10000000, false},
		{"1e30", 0, true},
	} {
		got, err := amountFromJSON(json.RawMessage(c.in))
		if (err != nil) != c.fail || (!c.fail && got != c.sat) {
			t.Errorf("amount %s = %d, %v", c.in, got, err)
		}
	}
	for sat, want := range map[int64]string{0: "0.00000000", 1: "0.00000001", 5000000000: "50.00000000", -150000000: "-1.50000000"} {
		if got := formatBTC(sat); string(got) != want {
			t.Errorf("formatBTC(%d) = %s", sat, got)
		}
	}
}

func TestAddresses(t *testing.T) {
	main, reg := NetParamsOf(&chaincfg.MainNetParams), NetParamsOf(&chaincfg.RegressionNetParams)
	for _, c := range []struct {
		net    *NetParams
		addr   string
		script string
		canon  string
	}{
		{&main, "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac", ""},
		{&main, "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", "a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87", ""},
		{&main, "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "0014751e76e8199196d454941c45d1b3a323f1433bd6", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"},
		{&main, "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6", ""},
		{&main, "BC1SW50QGDZ25J", "6002751e", "bc1sw50qgdz25j"},
		{&main, "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "5210751e76e8199196d454941c45d1b3a323", ""},
		{&main, "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr", "5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c", ""},
		{&reg, "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", "0014751e76e8199196d454941c45d1b3a323f1433bd6", ""},
		{&main, "bc1pfeessrawgf", "51024e73", ""},
	} {
		a, msg := decodeAddress(c.addr, c.net)
		if msg != "" {
			t.Errorf("%s: %s", c.addr, msg)
			continue
		}
		if got := hex.EncodeToString(a.script()); got != c.script {
			t.Errorf("%s: script %s, want %s", c.addr, got, c.script)
		}
		canon := c.canon
		if canon == "" {
			canon = c.addr
		}
		if got := a.encode(c.net); got != canon {
			t.Errorf("%s: re-encoded %s", c.addr, got)
		}
		if got, ok := scriptAddress(a.script(), c.net); !ok || got != canon {
			t.Errorf("%s: scriptAddress %s %v", c.addr, got, ok)
		}
	}
	for addr, want := range map[string]string{
		"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5":                     "Invalid Bech32 checksum",
		"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh":                     "Version 0 witness address must use Bech32 checksum",
		"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd": "Version 1+ witness address must use Bech32m checksum",
		"tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx":                     "Invalid or unsupported Segwit (Bech32) or Base58 encoding.",
		"1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3":                             "Invalid checksum or length of Base58 address (P2PKH or P2SH)",
		"mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn":                             "Invalid or unsupported Base58-encoded address.",
		"0OIl":                                                           "Invalid or unsupported Segwit (Bech32) or Base58 encoding.",
		"bc1gmk9yu":                                                      "Empty Bech32 data section",
		"bc1qr508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4":                     "Invalid Bech32 checksum",
		"BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2":                     "Version 1+ witness address must use Bech32m checksum",
		"bc1rw5uspcuh":                                                   "Version 1+ witness address must use Bech32m checksum",
		"bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du":                          "Version 1+ witness address must use Bech32m checksum",
	} {
		if _, msg := decodeAddress(addr, &main); msg != want {
			t.Errorf("%s: %q, want %q", addr, msg, want)
		}
	}
}

func TestDescriptorChecksum(t *testing.T) {
	if got := descriptorChecksum("raw(deadbeef)"); got != "89f8spxm" {
		t.Fatalf("checksum = %s", got)
	}
	net := NetParamsOf(&chaincfg.MainNetParams)
	d, err := parseDescriptor("raw(deadbeef)#89f8spxm", &net)
	if err != nil || hex.EncodeToString(d.script) != "deadbeef" {
		t.Fatalf("%v %+v", err, d)
	}
	if _, err := parseDescriptor("raw(deadbeef)#89f8spxn", &net); err == nil {
		t.Fatal("bad checksum accepted")
	}
	// BIP86 first receive address of the test mnemonic.
	d, err = parseDescriptor("tr(cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115)", &net)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(d.script); got != "5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c" {
		t.Fatalf("tr script %s", got)
	}
	key := "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	for desc, script := range map[string]string{
		"pk(" + key + ")":                  "21" + key + "ac",
		"pkh(" + key + ")":                 "76a914" + h160(key) + "88ac",
		"wpkh(" + key + ")":                "0014" + h160(key),
		"sh(wpkh(" + key + "))":            "a914" + h160("0014"+h160(key)) + "87",
		"multi(1," + key + "," + key + ")": "51" + "21" + key + "21" + key + "52ae",
	} {
		d, err := parseDescriptor(desc, &net)
		if err != nil {
			t.Errorf("%s: %v", desc, err)
			continue
		}
		if got := hex.EncodeToString(d.script); got != script {
			t.Errorf("%s: script %s, want %s", desc, got, script)
		}
		if d.canonical != desc {
			t.Errorf("%s: canonical %s", desc, d.canonical)
		}
	}
	for _, bad := range []string{"foo(00)", "wpkh(04" + strings.Repeat("11", 64) + ")", "sh(sh(wpkh(" + key + ")))", "pkh(xyz)", "raw(zz)", "multi(3," + key + "," + key + ")"} {
		if _, err := parseDescriptor(bad, &net); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func h160(h string) string {
	b, _ := hex.DecodeString(h)
	s := hash160(b)
	return hex.EncodeToString(s[:])
}

func TestScriptAsmAndClassify(t *testing.T) {
	for _, c := range []struct {
		hex, asm, class string
	}{
		{"76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac", "OP_DUP OP_HASH160 77bff20c60e522dfaa3350c39b030a5d004e839a OP_EQUALVERIFY OP_CHECKSIG", typePubKeyHash},
		{"0105", "5", typeNonstandard},
		{"02ff00", "255", typeNonstandard},
		{"0181", "-1", typeNonstandard},
		{"00", "0", typeNonstandard},
		{"4f5160", "-1 1 16", typeNonstandard},
		{"4c", "[error]", typeNonstandard},
		{"0201", "[error]", typeNonstandard},
		{"0102", "2", typeNonstandard},
		{"6a0568656c6c6f", "OP_RETURN 68656c6c6f", typeNullData},
		{"6a", "OP_RETURN", typeNullData},
		{"bbff", "OP_UNKNOWN OP_INVALIDOPCODE", typeNonstandard},
		{"0020" + strings.Repeat("ab", 32), "0 " + strings.Repeat("ab", 32), typeWitnessV0SH},
		{"51024e73", "1 29518", typeAnchor},
		{"5128" + strings.Repeat("00", 40), "1 " + strings.Repeat("00", 40), typeWitnessUnk},
		{"0015" + strings.Repeat("00", 21), "0 " + strings.Repeat("00", 21), typeNonstandard},
		{"5121" + "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd" + "51ae", "1 03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd 1 OP_CHECKMULTISIG", typeMultisig},
		{"21" + "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd" + "ac", "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd OP_CHECKSIG", typePubKey},
	} {
		b, _ := hex.DecodeString(c.hex)
		if got := scriptToAsm(b, false); got != c.asm {
			t.Errorf("asm(%s) = %q, want %q", c.hex, got, c.asm)
		}
		if got, _ := classify(b); got != c.class {
			t.Errorf("classify(%s) = %s, want %s", c.hex, got, c.class)
		}
	}
	sig := "47304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901"
	b, _ := hex.DecodeString(sig)
	want := "304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d09[ALL]"
	if got := scriptToAsm(b, true); got != want {
		t.Errorf("scriptSig asm %s", got)
	}
	if got := scriptToAsm(b, false); got != want[:len(want)-5]+"01" {
		t.Errorf("scriptPubKey-style asm %s", got)
	}
}

func TestBech32ErrorLocations(t *testing.T) {
	net := NetParamsOf(&chaincfg.MainNetParams)
	good := "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
	flip := func(s string, i int) string {
		c := byte('q')
		if s[i] == 'q' {
			c = 'p'
		}
		return s[:i] + string(c) + s[i+1:]
	}
	for _, c := range []struct {
		addr string
		msg  string
		locs []int
	}{
		{flip(good, 10), "Invalid Bech32 checksum", []int{10}},
		{flip(flip(good, 5), 30), "Invalid Bech32 checksum", []int{5, 30}},
		{flip("bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr", 20), "Invalid Bech32m checksum", []int{20}},
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3tq", "Invalid Bech32 checksum", []int{41}},
		{"bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "Invalid character or mixed case", []int{4}},
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3tb" + strings.Repeat("q", 50), "Bech32 string too long", nil},
		{"bc1qw5o8d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "Invalid Base 32 character", []int{6}},
		{"bc1qqqqq", "Invalid separator position", []int{2}},
	} {
		_, msg, locs := decodeAddressDetail(c.addr, &net)
		if msg != c.msg {
			t.Errorf("%s: %q, want %q", c.addr, msg, c.msg)
		}
		if c.locs != nil && !equalInts(locs, c.locs) {
			t.Errorf("%s: locations %v, want %v", c.addr, locs, c.locs)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestErrorKeepsCause(t *testing.T) {
	cause := errors.New("backend detail")
	err := fmt.Errorf("wrapped: %w", NewError(ErrVerifyRejected, "rejected").WithCause(cause))
	if !errors.Is(err, cause) {
		t.Fatal("errors.Is does not reach the cause")
	}
	if !errors.Is(err, &Error{Code: ErrVerifyRejected}) {
		t.Fatal("errors.Is no longer matches the code")
	}
	var re *Error
	if !errors.As(err, &re) || re.Cause != cause || re.Message != "rejected" {
		t.Fatalf("errors.As: %+v", re)
	}
	b, _ := json.Marshal(re)
	if string(b) != `{"code":-26,"message":"rejected"}` {
		t.Fatalf("cause leaked into JSON: %s", b)
	}
}
