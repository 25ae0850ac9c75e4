package descriptor

import (
	"encoding/hex"
	"strings"
	"testing"
)

// scriptsAt expands d at indexes 0, 1, 2 (only 0 when not ranged) and
// returns the first script of each.
func scriptsAt(t *testing.T, d *Descriptor) []string {
	t.Helper()
	n := 1
	if d.IsRange() {
		n = 3
	}
	var out []string
	for i := range n {
		outs, err := d.Expand(uint32(i))
		if err != nil {
			t.Fatalf("%s: expand %d: %v", d, i, err)
		}
		out = append(out, hex.EncodeToString(outs[0].Script))
	}
	return out
}

// checkScripts parses each descriptor (mainnet) and compares the scripts of
// its first indexes.
func checkScripts(t *testing.T, vectors map[string][]string) {
	t.Helper()
	for desc, want := range vectors {
		ds, err := Parse(desc, MainNet, false)
		if err != nil {
			t.Errorf("%s: %v", desc, err)
			continue
		}
		if len(ds) != 1 {
			t.Errorf("%s: %d descriptors", desc, len(ds))
			continue
		}
		if got := scriptsAt(t, ds[0]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s:\n got %v\nwant %v", desc, got, want)
		}
		// The canonical private form describes the same scripts.
		again, err := Parse(ds[0].StringPrivate(), MainNet, true)
		if err != nil || strings.Join(scriptsAt(t, again[0]), " ") != strings.Join(want, " ") {
			t.Errorf("%s: canonical %s: %v", desc, ds[0].StringPrivate(), err)
		}
	}
}

// checkInvalid expects every descriptor to fail to parse.
func checkInvalid(t *testing.T, descs []string) {
	t.Helper()
	for _, d := range descs {
		if ds, err := Parse(d, MainNet, false); err == nil {
			t.Errorf("%s accepted as %s", d, ds[0])
		}
	}
}

const (
	wifC  = "L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1"
	wifU  = "5KYZdUEo39z3FPrtuX2QbbwGnNP5zTd7yyr2SC1j299sBCnWjss"
	pubC  = "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	pubU  = "04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235"
	xpub1 = "xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL"
	xprv1 = "xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc"
	xprv2 = "xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U"
	xpub2 = "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB"
	xprv3 = "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"
	xprv4 = "xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM1fwqWpWkeS3v86pgKt"
	xpub4 = "xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH"
	xprv5 = "xprv9uPDJpEQgRQfDcW7BkF7eTya6RPxXeJCqCJGHuCJ4GiRVLzkTXBAJMu2qaMWPrS7AANYqdq6vcBcBUdJCVVFceUvJFjaPdGZ2y9WACViL4L"
	xpub5 = "xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y"
)

// TestBIP380Keys runs BIP380's key expression vectors inside pk().
func TestBIP380Keys(t *testing.T) {
	for _, k := range []string{
		"0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600",
		pubU,
		"[deadbeef/0h/0h/0h]0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600",
		"[deadbeef/0'/0'/0']0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600",
		"[deadbeef/0'/0h/0']0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600",
		wifU, wifC, xpub1,
		"[deadbeef/0h/1h/2h]" + xpub1,
		"[deadbeef/0h/1h/2h]" + xpub1 + "/3/4/5",
		"[deadbeef/0h/1h/2h]" + xpub1 + "/3/4/5/*",
		xpub1 + "/3h/4h/5h/*",
		xpub1 + "/3h/4h/5h/*h",
		"[deadbeef/0h/1h/2]" + xpub1 + "/3h/4h/5h/*h",
		xprv1,
		"[deadbeef/0h/1h/2h]" + xprv1,
		"[deadbeef/0h/1h/2h]" + xprv1 + "/3/4/5",
		"[deadbeef/0h/1h/2h]" + xprv1 + "/3/4/5/*",
		xprv1 + "/3h/4h/5h/*",
		xprv1 + "/3h/4h/5h/*h",
		"[deadbeef/0h/1h/2]" + xprv1 + "/3h/4h/5h/*h",
	} {
		if _, err := Parse("pk("+k+")", MainNet, false); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	for k, want := range map[string]string{
		"[deadbeef/0h/0h/0h/*]0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600": "pk(): Key path value '*' is not a valid uint32",
		"[deadbeef/0h/0h/0h/]0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600":  "pk(): Key path value '' is not a valid uint32",
		"[deadbef/0h/0h/0h]0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600":    "pk(): Fingerprint is not 4 bytes (7 characters instead of 8 characters)",
		"[deadbeeef/0h/0h/0h]0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600":  "pk(): Fingerprint is not 4 bytes (9 characters instead of 8 characters)",
		"[deadbeef/0f/0f/0f]0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600":   "pk(): Key path value '0f' is not a valid uint32",
		"[deadbeef/0H/0H/0H]0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600":   "pk(): Key path value '0H' is not a valid uint32",
		"[deadbeef/-0/-0/-0]0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600":   "pk(): Key path value '-0' is not a valid uint32",
		wifC + "/0":           "pk(): key '" + wifC + "' is not valid",
		wifC + "/*":           "pk(): key '" + wifC + "' is not valid",
		xprv2 + "/2147483648": "pk(): Key path value 2147483648 is out of range",
		xprv2 + "/1aa":        "pk(): Key path value '1aa' is not a valid uint32",
		"[aaaaaaaa][aaaaaaaa]" + xprv2 + "/2147483647'/0": "pk(): Multiple ']' characters found for a single pubkey",
		"aaaaaaaa]" + xprv2 + "/2147483647'/0":            "pk(): Key origin start '[ character expected but not found, got 'a' instead",
		"[gaaaaaaa]" + xprv2 + "/2147483647'/0":           "pk(): Fingerprint 'gaaaaaaa' is not hex",
		"[deadbeef]":                                      "pk(): No key provided",
	} {
		_, err := Parse("pk("+k+")", MainNet, false)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", k, err, want)
		}
	}
}

// TestBIP381 to TestBIP386 run the script vectors of those BIPs.
func TestBIP381(t *testing.T) {
	checkScripts(t, map[string][]string{
		"pk(" + wifC + ")":                      {"21" + pubC + "ac"},
		"pk(" + pubC + ")":                      {"21" + pubC + "ac"},
		"pkh([deadbeef/1/2'/3/4']" + wifC + ")": {"76a9149a1c78a507689f6f54b847ad1cef1e614ee23f1e88ac"},
		"pkh([deadbeef/1/2'/3/4']" + pubC + ")": {"76a9149a1c78a507689f6f54b847ad1cef1e614ee23f1e88ac"},
		"pkh([deadbeef/1/2h/3/4h]" + pubC + ")": {"76a9149a1c78a507689f6f54b847ad1cef1e614ee23f1e88ac"},
		"pk(" + wifU + ")":                      {"41" + pubU + "ac"},
		"pk(" + pubU + ")":                      {"41" + pubU + "ac"},
		"pkh(" + wifU + ")":                     {"76a914b5bd079c4d57cc7fc28ecf8213a6b791625b818388ac"},
		"pkh(" + pubU + ")":                     {"76a914b5bd079c4d57cc7fc28ecf8213a6b791625b818388ac"},
		"sh(pk(" + wifC + "))":                  {"a9141857af51a5e516552b3086430fd8ce55f7c1a52487"},
		"sh(pk(" + pubC + "))":                  {"a9141857af51a5e516552b3086430fd8ce55f7c1a52487"},
		"sh(pkh(" + wifC + "))":                 {"a9141a31ad23bf49c247dd531a623c2ef57da3c400c587"},
		"sh(pkh(" + pubC + "))":                 {"a9141a31ad23bf49c247dd531a623c2ef57da3c400c587"},
		"pkh(" + xprv2 + "/2147483647'/0)":      {"76a914ebdc90806a9c4356c1c88e42216611e1cb4c1c1788ac"},
		"pkh([bd16bee5/2147483647h]xpub69H7F5dQzmVd3vPuLKtcXJziMEQByuDidnX3YdwgtNsecY5HRGtAAQC5mXTt4dsv9RzyjgDjAQs9VGVV6ydYCHnprc9vvaA5YtqWyL6hyds/0)": {"76a914ebdc90806a9c4356c1c88e42216611e1cb4c1c1788ac"},
		"pk(" + xprv5 + "/0)": {"210379e45b3cf75f9c5f9befd8e9506fb962f6a9d185ac87001ec44a8d3df8d4a9e3ac"},
		"pk(" + xpub5 + "/0)": {"210379e45b3cf75f9c5f9befd8e9506fb962f6a9d185ac87001ec44a8d3df8d4a9e3ac"},
	})
	checkInvalid(t, []string{
		"pk(pk(" + pubC + "))",
		"pkh(pk(" + pubC + "))",
		"sh(" + pubC + ")",
		"sh(sh(pkh(" + pubC + ")))",
	})
}

func TestBIP382(t *testing.T) {
	checkScripts(t, map[string][]string{
		"wpkh(" + wifC + ")":                      {"00149a1c78a507689f6f54b847ad1cef1e614ee23f1e"},
		"wpkh(" + pubC + ")":                      {"00149a1c78a507689f6f54b847ad1cef1e614ee23f1e"},
		"wpkh([ffffffff/13']" + xprv4 + "/1/2/0)": {"0014326b2249e3a25d5dc60935f044ee835d090ba859"},
		"wpkh([ffffffff/13']" + xpub4 + "/1/2/*)": {"0014326b2249e3a25d5dc60935f044ee835d090ba859", "0014af0bd98abc2f2cae66e36896a39ffe2d32984fb7", "00141fa798efd1cbf95cebf912c031b8a4a6e9fb9f27"},
		"sh(wpkh(" + xprv3 + "/10/20/30/40/*'))":  {"a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87", "a914bed59fc0024fae941d6e20a3b44a109ae740129287", "a9148483aa1116eb9c05c482a72bada4b1db24af654387"},
		"sh(wpkh(" + xprv3 + "/10/20/30/40/*h))":  {"a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87", "a914bed59fc0024fae941d6e20a3b44a109ae740129287", "a9148483aa1116eb9c05c482a72bada4b1db24af654387"},
		"wsh(pkh(" + wifC + "))":                  {"0020338e023079b91c58571b20e602d7805fb808c22473cbc391a41b1bd3a192e75b"},
		"wsh(pkh(" + pubC + "))":                  {"0020338e023079b91c58571b20e602d7805fb808c22473cbc391a41b1bd3a192e75b"},
		"wsh(pk(" + wifC + "))":                   {"00202e271faa2325c199d25d22e1ead982e45b64eeb4f31e73dbdf41bd4b5fec23fa"},
		"wsh(pk(" + pubC + "))":                   {"00202e271faa2325c199d25d22e1ead982e45b64eeb4f31e73dbdf41bd4b5fec23fa"},
		"sh(wsh(pkh(" + wifC + ")))":              {"a914b61b92e2ca21bac1e72a3ab859a742982bea960a87"},
		"sh(wsh(pkh(" + pubC + ")))":              {"a914b61b92e2ca21bac1e72a3ab859a742982bea960a87"},
	})
	checkInvalid(t, []string{
		"wpkh(" + wifU + ")", "sh(wpkh(" + wifU + "))", "wpkh(" + pubU + ")", "sh(wpkh(" + pubU + "))",
		"wsh(pk(" + wifU + "))", "wsh(pk(" + pubU + "))",
		"wsh(wpkh(" + pubC + "))", "wsh(wsh(pkh(" + pubC + ")))", "sh(wsh(wsh(pkh(" + pubC + "))))",
		"wpkh(wsh(pkh(" + pubC + ")))", "wsh(" + pubC + ")",
	})
}

// bip383Keys16 are the 16 keys of BIP383's largest P2SH-P2WSH vector.
const bip383Keys16 = "03669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0,0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600,0362a74e399c39ed5593852a30147f2959b56bb827dfa3e60e464b02ccf87dc5e8,0261345b53de74a4d721ef877c255429961b7e43714171ac06168d7e08c542a8b8,02da72e8b46901a65d4374fe6315538d8f368557dda3a1dcf9ea903f3afe7314c8,0318c82dd0b53fd3a932d16e0ba9e278fcc937c582d5781be626ff16e201f72286,0297ccef1ef99f9d73dec9ad37476ddb232f1238aff877af19e72ba04493361009,02e502cfd5c3f972fe9a3e2a18827820638f96b6f347e54d63deb839011fd5765d,03e687710f0e3ebe81c1037074da939d409c0025f17eb86adb9427d28f0f7ae0e9,02c04d3a5274952acdbc76987f3184b346a483d43be40874624b29e3692c1df5af,02ed06e0f418b5b43a7ec01d1d7d27290fa15f75771cb69b642a51471c29c84acd,036d46073cbb9ffee90473f3da429abc8de7f8751199da44485682a989a4bebb24,02f5d1ff7c9029a80a4e36b9a5497027ef7f3e73384a4a94fbfe7c4e9164eec8bc,02e41deffd1b7cce11cde209a781adcffdabd1b91c0ba0375857a2bfd9302419f3,02d76625f7956a7fc505ab02556c23ee72d832f1bac391bcd2d3abce5710a13d06,0399eb0a5487515802dc14544cf10b3666623762fbed2ec38a3975716e2c29c232"

// bip383WIF20 are the 20 private keys of BIP383's 20-of-20 vectors.
const bip383WIF20 = "KzoAz5CanayRKex3fSLQ2BwJpN7U52gZvxMyk78nDMHuqrUxuSJy,KwGNz6YCCQtYvFzMtrC6D3tKTKdBBboMrLTsjr2NYVBwapCkn7Mr,KxogYhiNfwxuswvXV66eFyKcCpm7dZ7TqHVqujHAVUjJxyivxQ9X,L2BUNduTSyZwZjwNHynQTF14mv2uz2NRq5n5sYWTb4FkkmqgEE9f,L1okJGHGn1kFjdXHKxXjwVVtmCMR2JA5QsbKCSpSb7ReQjezKeoD,KxDCNSST75HFPaW5QKpzHtAyaCQC7p9Vo3FYfi2u4dXD1vgMiboK,L5edQjFtnkcf5UWURn6UuuoFrabgDQUHdheKCziwN42aLwS3KizU,KzF8UWFcEC7BYTq8Go1xVimMkDmyNYVmXV5PV7RuDicvAocoPB8i,L3nHUboKG2w4VSJ5jYZ5CBM97oeK6YuKvfZxrefdShECcjEYKMWZ,KyjHo36dWkYhimKmVVmQTq3gERv3pnqA4xFCpvUgbGDJad7eS8WE,KwsfyHKRUTZPQtysN7M3tZ4GXTnuov5XRgjdF2XCG8faAPmFruRF,KzCUbGhN9LJhdeFfL9zQgTJMjqxdBKEekRGZX24hXdgCNCijkkap,KzgpMBwwsDLwkaC5UrmBgCYaBD2WgZ7PBoGYXR8KT7gCA9UTN5a3,KyBXTPy4T7YG4q9tcAM3LkvfRpD1ybHMvcJ2ehaWXaSqeGUxEdkP,KzJDe9iwJRPtKP2F2AoN6zBgzS7uiuAwhWCfGdNeYJ3PC1HNJ8M8,L1xbHrxynrqLKkoYc4qtoQPx6uy5qYXR5ZDYVYBSRmCV5piU3JG9,KzRedjSwMggebB3VufhbzpYJnvHfHe9kPJSjCU5QpJdAW3NSZxYS,Kyjtp5858xL7JfeV4PNRCKy2t6XvgqNNepArGY9F9F1SSPqNEMs3,L2D4RLHPiHBidkHS8ftx11jJk1hGFELvxh8LoxNQheaGT58dKenW,KyLPZdwY4td98bKkXqEXTEBX3vwEYTQo1yyLjX2jKXA63GBpmSjv"

func TestBIP383(t *testing.T) {
	checkScripts(t, map[string][]string{
		"multi(1," + wifC + "," + wifU + ")":                            {"5121" + pubC + "41" + pubU + "52ae"},
		"multi(1," + pubC + "," + pubU + ")":                            {"5121" + pubC + "41" + pubU + "52ae"},
		"sortedmulti(1," + pubU + "," + pubC + ")":                      {"5121" + pubC + "41" + pubU + "52ae"},
		"sh(multi(2,[00000000/111'/222]" + xprv1 + "," + xprv5 + "/0))": {"a91445a9a622a8b0a1269944be477640eedc447bbd8487"},
		"sortedmulti(2," + xpub1 + "/*," + xpub5 + "/0/0/*)": {
			"5221025d5fc65ebb8d44a5274b53bac21ff8307fec2334a32df05553459f8b1f7fe1b62102fbd47cc8034098f0e6a94c6aeee8528abf0a2153a5d8e46d325b7284c046784652ae",
			"52210264fd4d1f5dea8ded94c61e9641309349b62f27fbffe807291f664e286bfbe6472103f4ece6dfccfa37b211eb3d0af4d0c61dba9ef698622dc17eecdf764beeb005a652ae",
			"5221022ccabda84c30bad578b13c89eb3b9544ce149787e5b538175b1d1ba259cbb83321024d902e1a2fc7a8755ab5b694c575fce742c48d9ff192e63df5193e4c7afe1f9c52ae"},
		"wsh(multi(2," + xprv2 + "/2147483647'/0," + xprv4 + "/1/2/*," + xprv3 + "/10/20/30/40/*'))": {
			"0020b92623201f3bb7c3771d45b2ad1d0351ea8fbf8cfe0a0e570264e1075fa1948f",
			"002036a08bbe4923af41cf4316817c93b8d37e2f635dd25cfff06bd50df6ae7ea203",
			"0020a96e7ab4607ca6b261bfe3245ffda9c746b28d3f59e83d34820ec0e2b36c139c"},
		"sh(wsh(multi(16," + bip383Keys16 + ")))": {"a9147fc63e13dc25e8a95a3cee3d9a714ac3afd96f1e87"},
		"wsh(multi(20," + bip383WIF20 + "))":      {"0020376bd8344b8b6ebe504ff85ef743eaa1aa9272178223bcb6887e9378efb341ac"},
		"sh(wsh(multi(20," + bip383WIF20 + ")))":  {"a914c2c9c510e9d7f92fd6131e94803a8d34a8ef675e87"},
	})
	checkInvalid(t, []string{
		"sh(multi(16," + bip383Keys16 + "))",
		"multi(a," + pubC + "," + pubU + ")",
		"multi(0," + pubC + "," + pubU + ")",
		"multi(3," + wifC + "," + wifU + ")",
	})
}

func TestBIP385(t *testing.T) {
	checkScripts(t, map[string][]string{
		"raw(deadbeef)": {"deadbeef"},
		"raw(5121" + pubC + "41" + pubU + "52ae)":             {"5121" + pubC + "41" + pubU + "52ae"},
		"raw(a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87)": {"a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87"},
		"addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j)":            {"a914eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee87"},
	})
	checkInvalid(t, []string{"raw(asdf)", "addr(asdf)", "sh(raw(deadbeef))", "wsh(raw(deadbeef))",
		"sh(addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j))", "wsh(addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j))"})
}

func TestBIP386(t *testing.T) {
	checkScripts(t, map[string][]string{
		"tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd)": {"512077aab6e066f8a7419c5ab714c12c67d25007ed55a43cadcacb4d7a970a093f11"},
		"tr(" + wifC + ")": {"512077aab6e066f8a7419c5ab714c12c67d25007ed55a43cadcacb4d7a970a093f11"},
		"tr(" + xprv1 + "/0/*,pk(" + xprv1 + "/1/*))": {
			"512078bc707124daa551b65af74de2ec128b7525e10f374dc67b64e00ce0ab8b3e12",
			"512001f0a02a17808c20134b78faab80ef93ffba82261ccef0a2314f5d62b6438f11",
			"512021024954fcec88237a9386fce80ef2ced5f1e91b422b26c59ccfc174c8d1ad25"},
		"tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd,pk(669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0))":                                                                                                                                                                  {"512017cf18db381d836d8923b1bdb246cfcd818da1a9f0e6e7907f187f0b2f937754"},
		"tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd,{pk(xprvA2JDeKCSNNZky6uBCviVfJSKyQ1mDYahRjijr5idH2WwLsEd4Hsb2Tyh8RfQMuPh7f7RtyzTtdrbdqqsunu5Mm3wDvUAKRHSC34sJ7in334/0),{{pk(" + xpub1 + "),pk(02df12b7035bdac8e3bab862a3a83d06ea6b17b6753d52edecba9be46f5d09e076)},pk(" + wifC + ")}})": {"512071fff39599a7b78bc02623cbe814efebf1a404f5d8ad34ea80f213bd8943f574"},
	})
	checkInvalid(t, []string{
		"tr(" + wifU + ")", "tr(" + pubU + ")",
		"wsh(tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd))",
		"sh(tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd))",
		"tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd, pkh(" + wifC + "))",
	})
}

// TestBIP389 runs the multipath vectors: each descriptor expands into the
// listed ones (compared in the form with the private keys the input had).
func TestBIP389(t *testing.T) {
	xpub6 := "xpub661MyMwAqRbcGDZQUKLqmWodYLcoBQnQH33yYkkF3jjxeLvY8qr2wWGEWkiKFaaQfJCoi3HeEq3Dc5DptfbCyjD38fNhSqtKc1UHaP4ba3t"
	for desc, want := range map[string][]string{
		"pk(" + xpub5 + "/<0;1>)":                     {"pk(" + xpub5 + "/0)", "pk(" + xpub5 + "/1)"},
		"pkh(" + xprv2 + "/<2147483647h;0>/0)":        {"pkh(" + xprv2 + "/2147483647h/0)", "pkh(" + xprv2 + "/0/0)"},
		"wpkh([ffffffff/13h]" + xpub4 + "/<1;3>/2/*)": {"wpkh([ffffffff/13h]" + xpub4 + "/1/2/*)", "wpkh([ffffffff/13h]" + xpub4 + "/3/2/*)"},
		"multi(2," + xpub1 + "/<1;2>/*," + xpub5 + "/<3;4>/0/*)": {
			"multi(2," + xpub1 + "/1/*," + xpub5 + "/3/0/*)", "multi(2," + xpub1 + "/2/*," + xpub5 + "/4/0/*)"},
		"pkh(" + xpub2 + "/<0;1;2>)": {"pkh(" + xpub2 + "/0)", "pkh(" + xpub2 + "/1)", "pkh(" + xpub2 + "/2)"},
		"sh(multi(2," + xpub1 + "/<1;2;3>/0/*," + xpub5 + "/0/*," + xpub6 + "/0/0/<3;4;5>/*))": {
			"sh(multi(2," + xpub1 + "/1/0/*," + xpub5 + "/0/*," + xpub6 + "/0/0/3/*))",
			"sh(multi(2," + xpub1 + "/2/0/*," + xpub5 + "/0/*," + xpub6 + "/0/0/4/*))",
			"sh(multi(2," + xpub1 + "/3/0/*," + xpub5 + "/0/*," + xpub6 + "/0/0/5/*))"},
	} {
		ds, err := Parse(desc, MainNet, false)
		if err != nil {
			t.Errorf("%s: %v", desc, err)
			continue
		}
		if len(ds) != len(want) {
			t.Errorf("%s: %d descriptors, want %d", desc, len(ds), len(want))
			continue
		}
		for i, d := range ds {
			if got := d.StringPrivate(); got != AddChecksum(want[i]) {
				t.Errorf("%s [%d]:\n got %s\nwant %s", desc, i, got, want[i])
			}
		}
	}
	xprv6 := "xprv9s21ZrQH143K3jUwNHoqQNrtzJnJmx4Yup8NkNLdVQCymYbPbJXnPhwkfTfxZfptcs3rLAPUXS39oDLgrNKQGwbGsEmJJ8BU3RzQuvShEG4"
	xpub7 := "xpub661MyMwAqRbcF3yVrV2KyYetLMYA5mCbv4BhrKwUrFE9LZM6JRR1AEt8Jq4V4C8LwtTke6YEEdCZqgXp85YRk2j74EfJKhe3QybQ9kcUjs4"
	for desc, want := range map[string]string{
		"pkh(" + xprv2 + "/<0;1>/<2;3>)":       "pkh(): Multiple multipath key path specifiers found",
		"pkh([deadbeef/<0;1>]" + xpub2 + "/0)": "pkh(): Key path value '<0;1>' specifies multipath in a section where multipath is not allowed",
		"tr(" + xpub7 + "/<6;7;8;9>/*,{pk(" + xpub1 + "/<1;2;3>/0/*),pk(" + xpub6 + "/0/0/<3;4;5>/*)})": "tr(): Multipath subscripts have mismatched lengths",
		"sh(multi(2," + xprv1 + "/<1;2;3>/0/*," + xprv5 + "/0/*," + xprv6 + "/0/0/<3;4>/*))":            "multi(): Multipath derivation paths have mismatched lengths",
		"wpkh(" + xpub2 + "/<>/*)":    "wpkh(): Multipath key path specifiers must have at least two items",
		"wpkh(" + xpub2 + "/0>/*)":    "wpkh(): Key path value '0>' is not a valid uint32",
		"wpkh(" + xpub2 + "/<0/*)":    "wpkh(): Key path value '<0' is not a valid uint32",
		"wpkh(" + xpub2 + "/<0;>/*)":  "wpkh(): Key path value '' is not a valid uint32",
		"wpkh(" + xpub2 + "/<0;0>/*)": "wpkh(): Duplicated key path value 0 in multipath specifier",
	} {
		_, err := Parse(desc, MainNet, false)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", desc, err, want)
		}
	}
}
