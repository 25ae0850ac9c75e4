package descriptor

import (
	"strings"
	"testing"
)

// These tests hold the package to what Bitcoin Core's functional tests
// (rpc_getdescriptorinfo.py, rpc_deriveaddresses.py, rpc_scantxoutset.py)
// expect of its descriptors.

const (
	coreTPub = "tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B"
	coreTPrv = "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK"
)

func mustParse(t *testing.T, s string, net *Network) []*Descriptor {
	t.Helper()
	ds, err := Parse(s, net, false)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return ds
}

// TestCoreDescriptorInfo checks rpc_getdescriptorinfo.py's descriptors:
// each is already canonical, with its flags and multipath expansions.
func TestCoreDescriptorInfo(t *testing.T) {
	for _, c := range []struct {
		desc              string
		isRange, solvable bool
		expanded          []string
	}{
		{"pk(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)", false, true, nil},
		{"pkh(02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5)", false, true, nil},
		{"wpkh(02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9)", false, true, nil},
		{"sh(wpkh(03fff97bd5755eeea420453a14355235d382f6472f8568a18b2f057a1460297556))", false, true, nil},
		{"combo(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)", false, true, nil},
		{"sh(wsh(pkh(02e493dbf1c10d80f3581e4904930b1404cc6c13900ee0758474fa94abe8c4cd13)))", false, true, nil},
		{"multi(1,022f8bde4d1a07209355b4a7250a5c5128e88b84bddc619ab7cba8d569b240efe4,025cbdf0646e5db4eaa398f365f2ea7a0e3d419b7e0330e39ce92bddedcac4f9bc)", false, true, nil},
		{"sh(multi(2,022f01e5e15cca351daff3843fb70f3c2f0a1bdd05e5af888a67784ef3e10a2a01,03acd484e2f0c7f65309ad178a9f559abde09796974c57e714c35f110dfc27ccbe))", false, true, nil},
		{"wsh(multi(2,03a0434d9e47f3c86235477c7b1ae6ae5d3442d49b1943c2b752a68e2a47e247c7,03774ae7f858a9411e5ef4246b70c65aac5649980be5c17891bbec17895da008cb,03d01115d548e7561b15c38f004d734633687cf4419620095bc5b0f47070afe85a))", false, true, nil},
		{"sh(wsh(multi(1,03f28773c2d975288bc7d1d205c3748651b075fbc6610e58cddeeddf8f19405aa8,03499fdf9e895e719cfd64e67f07d38e3226aa7b63678949e6e49b241a60e823e4,02d7924d4f7d43ea965a465ae3095ff41131e5946f3c85f79e44adbcf8e27e080e)))", false, true, nil},
		{"pk(" + coreTPub + ")", false, true, nil},
		{"pkh(" + coreTPub + "/1h/2)", false, true, nil},
		{"pkh([d34db33f/44h/0h/0h]" + coreTPub + "/1/*)", true, true, nil},
		{"wsh(multi(1," + coreTPub + "/1/0/*," + coreTPub + "/0/0/*))", true, true, nil},
		{"wpkh(" + coreTPub + "/<0;1>/*)", true, true, []string{"wpkh(" + coreTPub + "/0/*)", "wpkh(" + coreTPub + "/1/*)"}},
		{"wsh(multi(1," + coreTPub + "/<1;2>/0/*," + coreTPub + "/<2;3>/0/*))", true, true, []string{
			"wsh(multi(1," + coreTPub + "/1/0/*," + coreTPub + "/2/0/*))",
			"wsh(multi(1," + coreTPub + "/2/0/*," + coreTPub + "/3/0/*))"}},
	} {
		for _, in := range []string{c.desc, AddChecksum(c.desc)} {
			ds := mustParse(t, in, RegTest)
			want := c.expanded
			if want == nil {
				want = []string{c.desc}
			}
			if len(ds) != len(want) {
				t.Fatalf("%s: %d descriptors", in, len(ds))
			}
			for i, d := range ds {
				if d.String() != AddChecksum(want[i]) || d.IsRange() != c.isRange || d.IsSolvable() != c.solvable || d.HasPrivateKeys() {
					t.Errorf("%s [%d]: %s range=%v solvable=%v priv=%v", in, i, d, d.IsRange(), d.IsSolvable(), d.HasPrivateKeys())
				}
			}
		}
	}
	for desc, want := range map[string]string{
		"": "'' is not a valid descriptor function",
		"pk( 0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)": "pk(): Key ' 0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798' is invalid due to whitespace",
		"pk(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798 )": "pk(): Key '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798 ' is invalid due to whitespace",
		"wsh(multi(2, 03a0434d9e47f3c86235477c7b1ae6ae5d3442d49b1943c2b752a68e2a47e247c7,03774ae7f858a9411e5ef4246b70c65aac5649980be5c17891bbec17895da008cb,03d01115d548e7561b15c38f004d734633687cf4419620095bc5b0f47070afe85a))": "Multi: Key ' 03a0434d9e47f3c86235477c7b1ae6ae5d3442d49b1943c2b752a68e2a47e247c7' is invalid due to whitespace",
		"pk( cVt4o7BGAig1UXywgGSmARhxMdzP5qvQsxKkSsc1XEkw3tDTQFpy)": "pk(): Key ' cVt4o7BGAig1UXywgGSmARhxMdzP5qvQsxKkSsc1XEkw3tDTQFpy' is invalid due to whitespace",
	} {
		_, err := Parse(desc, RegTest, false)
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", desc, err, want)
		}
	}
}

// deriveAll lists the addresses of d over [lo,hi] as deriveaddresses does
// (combo()'s P2PK output has none and is skipped).
func deriveAll(t *testing.T, d *Descriptor, lo, hi uint32) []string {
	t.Helper()
	var out []string
	for i := lo; i <= hi; i++ {
		outs, err := d.Expand(i)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		for _, o := range outs {
			if a, ok := ScriptAddress(o.Script, d.net); ok {
				out = append(out, a)
			}
		}
	}
	return out
}

// TestCoreDeriveAddresses checks rpc_deriveaddresses.py's addresses.
func TestCoreDeriveAddresses(t *testing.T) {
	addr := "bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5"
	if _, err := Parse("a", RegTest, true); err == nil || err.Error() != "Missing checksum" {
		t.Errorf("checksum not required: %v", err)
	}
	ds := mustParse(t, "wpkh("+coreTPrv+"/1/1/0)#t6wfjs64", RegTest)
	if got := deriveAll(t, ds[0], 0, 0); strings.Join(got, ",") != addr || !ds[0].HasPrivateKeys() {
		t.Errorf("wpkh: %v", got)
	}
	ds = mustParse(t, "wpkh("+coreTPub+"/1/1/0)#s9ga3alw", RegTest)
	if got := deriveAll(t, ds[0], 0, 0); strings.Join(got, ",") != addr {
		t.Errorf("wpkh tpub: %v", got)
	}
	ranged := mustParse(t, "wpkh("+coreTPrv+"/1/1/*)#kft60nuy", RegTest)[0]
	if got := deriveAll(t, ranged, 1, 2); strings.Join(got, ",") != "bcrt1qhku5rq7jz8ulufe2y6fkcpnlvpsta7rq4442dy,bcrt1qpgptk2gvshyl0s9lqshsmx932l9ccsv265tvaq" {
		t.Errorf("ranged: %v", got)
	}
	if got := deriveAll(t, ranged, 2147483647, 2147483647); strings.Join(got, ",") != "bcrt1qtzs23vgzpreks5gtygwxf8tv5rldxvvsyfpdkg" {
		t.Errorf("index 2^31-1: %v", got)
	}
	mp := mustParse(t, AddChecksum("wpkh("+coreTPrv+"/1/<0;1>/*)"), RegTest)
	if len(mp) != 2 || strings.Join(deriveAll(t, mp[0], 1, 2), ",") != "bcrt1q7c8mdmdktrzs8xgpjmqw90tjn65j5a3yj04m3n,bcrt1qs6n37uzu0v0qfzf0r0csm0dwa7prc0v5uavgy0" ||
		strings.Join(deriveAll(t, mp[1], 1, 2), ",") != "bcrt1qhku5rq7jz8ulufe2y6fkcpnlvpsta7rq4442dy,bcrt1qpgptk2gvshyl0s9lqshsmx932l9ccsv265tvaq" {
		t.Errorf("multipath")
	}
	combo := mustParse(t, "combo("+coreTPrv+"/1/1/0)", RegTest)[0]
	if got := deriveAll(t, combo, 0, 0); strings.Join(got, ",") != "mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ,"+addr+",2NDvEwGfpEqJWfybzpKPHF2XH3jwoQV3D7x" {
		t.Errorf("combo: %v", got)
	}
	hard := mustParse(t, "wpkh("+coreTPub+"/1'/1/0)", RegTest)[0]
	if _, err := hard.Expand(0); err != ErrCannotDerive {
		t.Errorf("hardened from tpub: %v", err)
	}
	if got := hard.String(); got != AddChecksum("wpkh("+coreTPub+"/1'/1/0)") {
		t.Errorf("apostrophe not kept: %s", got)
	}
	bare := mustParse(t, "multi(1,"+coreTPub+"/1/1/0,"+coreTPub+"/1/1/1)", RegTest)[0]
	if got := deriveAll(t, bare, 0, 0); len(got) != 0 {
		t.Errorf("bare multisig has an address: %v", got)
	}
}

// TestCoreScanDescriptors checks the addresses rpc_scantxoutset.py pays to
// and the descriptors it expects scantxoutset to report.
func TestCoreScanDescriptors(t *testing.T) {
	// The P2PKH address of each path, as the test's comments list them.
	for path, want := range map[string]string{
		"0'/0'/0'": "mkHV1C6JLheLoUSSZYk7x3FH5tnx9bu7yc", "0'/0'/1'": "mipUSRmJAj2KrjSvsPQtnP8ynUon7FhpCR",
		"0'/0'/1500'": "n37dAGe6Mq1HGM9t4b6rFEEsDGq7Fcgfqg", "0'/0'/0": "mqS9Rpg8nNLAzxFExsgFLCnzHBsoQ3PRM6",
		"0'/0'/1": "mnTg5gVWr3rbhHaKjJv7EEEc76ZqHgSj4S", "0'/0'/1500": "mketCd6B9U9Uee1iCsppDJJBHfvi6U6ukC",
		"1/1/0'": "mj8zFzrbBcdaWXowCQ1oPZ4qioBVzLzAp7", "1/1/1'": "mfnKpKQEftniaoE1iXuMMePQU3PUpcNisA",
		"1/1/1500'": "mou6cB1kaP1nNJM1sryW6YRwnd4shTbXYQ", "1/1/0": "mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ",
		"1/1/1": "mxp7w7j8S1Aq6L8StS2PqVvtt4HGxXEvdy", "1/1/1500": "mpQ8rokAhp1TAtJQR6F6TaUmjAWkAWYYBq",
	} {
		d := mustParse(t, "pkh("+coreTPrv+"/"+path+")", RegTest)[0]
		if got := deriveAll(t, d, 0, 0); len(got) != 1 || got[0] != want {
			t.Errorf("%s: %v, want %s", path, got, want)
		}
	}
	describe := func(desc string, index uint32, out int) string {
		t.Helper()
		d := mustParse(t, desc, RegTest)[0]
		outs, err := d.Expand(index)
		if err != nil {
			t.Fatal(err)
		}
		return outs[out].Describe()
	}
	for _, c := range []struct {
		desc  string
		index uint32
		want  string
	}{
		{"combo(" + coreTPrv + "/1/1/0)", 0, "pkh([0c5f9a1e/1/1/0]03e1c5b6e650966971d7e71ef2674f80222752740fc1dfd63bbbd220d2da9bd0fb)#cxmct4w8"},
		{"combo(" + coreTPrv + "/0h/0h/*)", 0, "pkh([0c5f9a1e/0h/0h/0]026dbd8b2315f296d36e6b6920b1579ca75569464875c7ebe869b536a7d9503c8c)#rthll0rg"},
		{"combo(" + coreTPrv + "/0h/0h/*)", 1, "pkh([0c5f9a1e/0h/0h/1]033e6f25d76c00bedb3a8993c7d5739ee806397f0529b1b31dda31ef890f19a60c)#mcjajulr"},
		{"combo(" + coreTPub + "/1/1/*)", 0, "pkh([0c5f9a1e/1/1/0]03e1c5b6e650966971d7e71ef2674f80222752740fc1dfd63bbbd220d2da9bd0fb)#cxmct4w8"},
		{"combo(" + coreTPub + "/1/1/*)", 1500, "pkh([0c5f9a1e/1/1/1500]03832901c250025da2aebae2bfb38d5c703a57ab66ad477f9c578bfbcd78abca6f)#vchwd07g"},
		{"combo(" + coreTPub + "/1/1/*)", 1, "pkh([0c5f9a1e/1/1/1]030d820fc9e8211c4169be8530efbc632775d8286167afd178caaf1089b77daba7)#z2t3ypsa"},
	} {
		if got := describe(c.desc, c.index, 1); got != c.want {
			t.Errorf("%s at %d:\n got %s\nwant %s", c.desc, c.index, got, c.want)
		}
	}
	// An explicit origin replaces the key's own fingerprint and prefixes
	// the path; inferred paths always use "h".
	got := describe("combo([abcdef88/1/2'/3/4h]"+coreTPub+"/1/1/1)", 0, 2)
	if !strings.HasPrefix(got, "wpkh([abcdef88/1/2h/3/4h/1/1/1]030d820fc9e8211c4169be8530efbc632775d8286167afd178caaf1089b77daba7)#") {
		t.Errorf("origin: %s", got)
	}
	// The remaining combo outputs and other shapes.
	for desc, want := range map[string]string{
		"combo(" + coreTPub + "/1/1/0)": "sh(wpkh([0c5f9a1e/1/1/0]03e1c5b6e650966971d7e71ef2674f80222752740fc1dfd63bbbd220d2da9bd0fb))",
		"sh(multi(1," + coreTPub + "/1/1/0,02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5))": "sh(multi(1,[0c5f9a1e/1/1/0]03e1c5b6e650966971d7e71ef2674f80222752740fc1dfd63bbbd220d2da9bd0fb,[" + fingerprintHex("02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5") + "]02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5))",
		"raw(76a91490366dd83b32cef30aa48faba1216f047914e46388ac)":                                                "addr(mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ)",
		"raw(51)": "raw(51)",
		"addr(mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ)":                               "addr(mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ)",
		"rawtr(" + coreTPub + "/0)":                                              "rawtr([0c5f9a1e/0]",
		"tr(" + coreTPub + "/0,{pk(" + coreTPub + "/1),pk(" + coreTPub + "/2)})": "tr([0c5f9a1e/0]",
	} {
		got := describe(desc, 0, len(mustParse(t, desc, RegTest)[0].mustExpand(t))-1)
		if !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n got %s\nwant %s...", desc, got, want)
		}
	}
}

func (d *Descriptor) mustExpand(t *testing.T) []Output {
	outs, err := d.Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

func fingerprintHex(pubHex string) string {
	ds, _ := Parse("pk("+pubHex+")", RegTest, false)
	_, o, _ := ds[0].top.keys[0].pubKey(0)
	const digits = "0123456789abcdef"
	var b []byte
	for _, c := range o.fingerprint {
		b = append(b, digits[c>>4], digits[c&15])
	}
	return string(b)
}
