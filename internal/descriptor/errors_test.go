package descriptor

import (
	"strings"
	"testing"
)

// TestParseErrors checks Core's messages for descriptors that break its
// rules.
func TestParseErrors(t *testing.T) {
	x := "a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	hybrid := "06" + pubU[2:]
	keys := func(n int, k string) string { return strings.Repeat(","+k, n) }
	deep := "tr(" + x + "," + strings.Repeat("{", 129) + "pk(" + x + ")"
	for desc, want := range map[string]string{
		"pk(" + hybrid + ")":                            "pk(): Hybrid public keys are not allowed",
		"pk(" + x + ")":                                 "pk(): Pubkey '" + x + "' is invalid",
		"pk(02" + strings.Repeat("00", 32) + ")":        "pk(): Pubkey '02" + strings.Repeat("00", 32) + "' is invalid",
		"pk(xyz)":                                       "pk(): key 'xyz' is not valid",
		"pkh()":                                         "pkh(): No key provided",
		"wpkh(" + pubU + ")":                            "wpkh(): Uncompressed keys are not allowed",
		"wsh(pk(" + wifU + "))":                         "pk(): Uncompressed keys are not allowed",
		"tr(" + pubU + ")":                              "tr(): Uncompressed keys are not allowed",
		"combo(" + x + ")":                              "combo(): Pubkey '" + x + "' is invalid",
		"sh(combo(" + pubC + "))":                       "Can only have combo() at top level",
		"sh(sh(pk(" + pubC + ")))":                      "Can only have sh() at top level",
		"wsh(wsh(pk(" + pubC + ")))":                    "Can only have wsh() at top level or inside sh()",
		"wsh(wpkh(" + pubC + "))":                       "Can only have wpkh() at top level or inside sh()",
		"sh(addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j))":  "Can only have addr() at top level",
		"sh(raw(00))":                                   "Can only have raw() at top level",
		"sh(tr(" + x + "))":                             "Can only have tr at top level",
		"sh(rawtr(" + x + "))":                          "Can only have rawtr at top level",
		"sh(foo)":                                       "A function is needed within P2SH",
		"wsh(foo)":                                      "A function is needed within P2WSH",
		"foo(1)":                                        "'foo(1)' is not a valid descriptor function",
		"tr(" + x + ",pkh(" + pubC + "x))":              "key '" + pubC + "x' is not valid",
		"tr(" + x + ",multi(1," + pubC + "))":           "Can only have multi/sortedmulti at top level, in sh(), or in wsh()",
		"multi_a(1," + x + ")":                          "Can only have multi_a/sortedmulti_a inside tr()",
		"multi(x," + pubC + ")":                         "Multi threshold 'x' is not valid",
		"multi(-1," + pubC + ")":                        "Multi threshold '-1' is not valid",
		"multi(0," + pubC + ")":                         "Multisig threshold cannot be 0, must be at least 1",
		"multi(2," + pubC + ")":                         "Multisig threshold cannot be larger than the number of keys; threshold is 2 but only 1 keys specified",
		"multi(1)":                                      "Cannot have 0 keys in multisig; must have between 1 and 20 keys, inclusive",
		"wsh(multi(1" + keys(21, pubC) + "))":           "Cannot have 21 keys in multisig; must have between 1 and 20 keys, inclusive",
		"multi(1" + keys(4, pubC) + ")":                 "Cannot have 4 pubkeys in bare multisig; only at most 3 pubkeys",
		"sh(multi(1" + keys(16, pubC) + "))":            "P2SH script is too large, 547 bytes is larger than 520 bytes",
		"sh(multi(1" + keys(8, pubU) + "))":             "P2SH script is too large, 531 bytes is larger than 520 bytes",
		"tr(" + x + ",multi_a(1" + keys(1000, x) + "))": "Cannot have 1000 keys in multi_a; must have between 1 and 999 keys, inclusive",
		"multi(1," + pubC + "x)":                        "Multi: key '" + pubC + "x' is not valid",
		"multi(1," + pubC + ")x,y)":                     "'multi(1," + pubC + ")x' is not a valid descriptor function",
		"pk(" + pubC + "),foo":                          "",
		"sh(pk(" + pubC + "),foo)":                      "",
		"tr(" + x + "x" + ")":                           "tr(): key '" + x + "x' is not valid",
		"tr(" + x + ",{pk(" + x + "))":                  "tr(): expected ',' after script expression",
		"tr(" + x + ",{pk(" + x + "),pk(" + x + "))":    "tr(): expected '}' after script expression",
		"tr(" + x + ",pk(" + x + "),pk(" + x + "))":     "tr(): expected ')' after script expression",
		"tr(" + x + ",)":                                "'' is not a valid descriptor function",
		deep:                                            "tr() supports at most 128 nesting levels",
		"rawtr(" + x + "," + x + ")":                    "rawtr(): only one key expected.",
		"raw()":                                         "Raw script is not hex",
		"raw(0)":                                        "Raw script is not hex",
		"addr(mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ)":      "Address is not valid",
		"pkh(" + coreTPub + ")":                         "pkh(): key '" + coreTPub + "' is not valid",
		"pkh(" + xpub1 + "/*/1)":                        "pkh(): Key path value '*' is not a valid uint32",
	} {
		_, err := Parse(desc, MainNet, false)
		if err == nil || err.Error() != want {
			t.Errorf("%.80s: %v, want %q", desc, err, want)
		}
	}
	if _, err := Parse(strings.Repeat("a", MaxLength+1), MainNet, false); err == nil {
		t.Error("overlong descriptor accepted")
	}
}

// TestCanonical checks the canonical forms: lower-case hex, x-only keys
// kept x-only, each key's hardened marker as the input last used it, and
// private keys only in StringPrivate.
func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"pk(" + strings.ToUpper(pubC) + ")":                "pk(" + pubC + ")",
		"pkh([DEADBEEF/1'/2h]" + pubC + ")":                "pkh([deadbeef/1h/2h]" + pubC + ")",
		"pkh([deadbeef/1h/2']" + pubC + ")":                "pkh([deadbeef/1'/2']" + pubC + ")",
		"pkh([deadbeef/1h]" + xpub1 + "/2'/*)":             "pkh([deadbeef/1'][xpub]/2'/*)",
		"pkh([deadbeef/1']" + xpub1 + "/2h/*h)":            "pkh([deadbeef/1h][xpub]/2h/*h)",
		"pkh([deadbeef/1']" + xpub1 + "/2/*)":              "pkh([deadbeef/1'][xpub]/2/*)",
		"tr(" + wifC + ")":                                 "tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd)",
		"tr(" + pubC + ")":                                 "tr(" + pubC + ")",
		"pk(" + wifC + ")":                                 "pk(" + pubC + ")",
		"pk(" + xprv1 + "/1)":                              "pk([xpub]/1)",
		"addr(BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4)": "addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)",
		"raw(DEADBEEF)":                                    "raw(deadbeef)",
		"tr(" + pubC + ",{pk(" + pubC + "),{pk(" + pubC + "),pk(" + pubC + ")}})": "tr(" + pubC + ",{pk(" + pubC + "),{pk(" + pubC + "),pk(" + pubC + ")}})",
	} {
		want = strings.ReplaceAll(want, "[xpub]", xpub1)
		ds, err := Parse(in, MainNet, false)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := ds[0].String(); got != AddChecksum(want) {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
	ds := mustParse(t, "wsh(multi(1,"+wifC+","+xprv1+"/0/*,"+pubC+"))", MainNet)
	if got, want := ds[0].StringPrivate(), AddChecksum("wsh(multi(1,"+wifC+","+xprv1+"/0/*,"+pubC+"))"); got != want {
		t.Errorf("private: %s", got)
	}
	if !ds[0].HasPrivateKeys() || !ds[0].IsRange() || !ds[0].IsSingleType() || ds[0].OutputType() != "bech32" {
		t.Error("flags")
	}
	c := mustParse(t, "combo("+wifU+")", MainNet)[0]
	if outs := c.mustExpand(t); len(outs) != 2 || c.IsSingleType() || c.OutputType() != "" {
		t.Errorf("uncompressed combo: %d outputs", len(outs))
	}
	a := mustParse(t, "addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j)", MainNet)[0]
	if a.IsSolvable() || a.OutputType() != "legacy" || a.HasPrivateKeys() {
		t.Error("addr flags")
	}
}

// TestTapscript covers multi_a and sortedmulti_a, the largest multi_a, and
// the order inferred trees come back in.
func TestTapscript(t *testing.T) {
	x1 := "a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	x2 := "669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0"
	d := mustParse(t, "tr("+x1+",sortedmulti_a(1,"+x1+","+x2+"))", MainNet)[0]
	outs := d.mustExpand(t)
	// The leaf is multi_a with the keys sorted; the internal key infers
	// with its own fingerprint as origin.
	got := outs[0].Describe()
	want := "tr([" + fingerprintHex("02"+x1) + "]" + x1 + ",multi_a(1,[" + fingerprintHex("02"+x2) + "]" + x2 + ",[" + fingerprintHex("02"+x1) + "]" + x1 + "))"
	if got != AddChecksum(want) {
		t.Errorf("sortedmulti_a inferred as\n %s\nwant %s", got, want)
	}
	// Leaves come back smallest script first at each branch.
	d = mustParse(t, "tr("+x1+",{pk("+x1+"),pk("+x2+")})", MainNet)[0]
	got = d.mustExpand(t)[0].Describe()
	if !strings.Contains(got, ",{pk([") || strings.Index(got, x2) > strings.LastIndex(got, x1) {
		t.Errorf("tree order: %s", got)
	}
	// 999 keys make a script beyond the legacy 10,000-byte limit.
	many := strings.Repeat(","+x1, maxMultiAKeys)
	d = mustParse(t, "tr("+x1+",multi_a(999"+many+"))", MainNet)[0]
	if _, err := d.Expand(0); err != nil {
		t.Fatal(err)
	}
	script := multiAScript(999, [][]byte{make([]byte, 32), make([]byte, 32)})
	if _, _, ok := matchMultiA(script); ok {
		// A threshold of 999 with two keys is out of range.
		t.Error("matchMultiA accepted an impossible threshold")
	}
}
