package descriptor

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/txscript"
)

// Keys of Core's miniscript descriptor vectors.
const (
	msKeyA = "0375bdf05ad80cb5f2e8f4a5913634577563d2ba23db256f12b737393348cc0684"
	msKeyB = "032707170c71d8f75e4ca4e3fce870b9409dcaf12b051d3bcadff74747fa7619c0"
	msKeyC = "02aa27e5eb2c185e87cd1dbc3e0efc9cb1175235e0259df1713424941c3cb40402"
	msKeyD = "03cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204"
)

func expandHex(t *testing.T, d *Descriptor, pos uint32) string {
	t.Helper()
	outs, err := d.Expand(pos)
	if err != nil || len(outs) != 1 {
		t.Fatalf("%s: expand: %v", d, err)
	}
	return hex.EncodeToString(outs[0].Script)
}

// TestMiniscriptCoreVectors checks Core's descriptor_tests miniscript
// vectors: canonical public form and output script, and that the output
// infers back to the same descriptor.
func TestMiniscriptCoreVectors(t *testing.T) {
	for _, c := range []struct{ in, pub, spk string }{
		{"wsh(and_v(v:ripemd160(095ff41131e5946f3c85f79e44adbcf8e27e080e),multi(1," + xprv1 + "," + xprv5 + "/0)))",
			"wsh(and_v(v:ripemd160(095ff41131e5946f3c85f79e44adbcf8e27e080e),multi(1," + xpub1 + "," + xpub5 + "/0)))",
			"0020acf425291b98a1d7e0d4690139442abc289175be32ef1f75945e339924246d73"},
		{"sh(wsh(thresh(1,pkh(" + msKeyA + "),a:and_n(multi(1," + xprv1 + "," + xprv5 + "/0),n:older(2)))))",
			"sh(wsh(thresh(1,pkh(" + msKeyA + "),a:and_n(multi(1," + xpub1 + "," + xpub5 + "/0),n:older(2)))))",
			"a914006e643dcef9cb9706cff532d17b058d8ca96f6c87"},
		{"sh(wsh(thresh(1,pkh(" + msKeyD + "),a:and_n(multi(1," + xprv1 + "," + xprv5 + "/0),n:older(2)))))",
			"sh(wsh(thresh(1,pkh(" + msKeyD + "),a:and_n(multi(1," + xpub1 + "," + xpub5 + "/0),n:older(2)))))",
			"a914767e9119ff3b3ac0cb6dcfe21de1842ccf85f1c487"},
		{"wsh(thresh(1,pk(" + xprv1 + "),a:pkh(" + xprv5 + "/0)))",
			"wsh(thresh(1,pk(" + xpub1 + "),a:pkh(" + xpub5 + "/0)))",
			"00204a4528fbc0947e02e921b54bd476fc8cc2ebb5c6ae2ccf10ed29fe2937fb6892"},
		{"sh(wsh(thresh(2,ndv:after(1000),a:and_n(multi(1," + xprv1 + "," + xprv5 + "/0),n:older(2)))))",
			"sh(wsh(thresh(2,ndv:after(1000),a:and_n(multi(1," + xpub1 + "," + xpub5 + "/0),n:older(2)))))",
			"a914099f400961f930d4c16c3b33c0e2a58ef53ac38f87"},
		{"wsh(and_v(v:ripemd160(ff9aa1829c90d26e73301383f549e1497b7d6325),pk(" + xprv1 + ")))",
			"wsh(and_v(v:ripemd160(ff9aa1829c90d26e73301383f549e1497b7d6325),pk(" + xpub1 + ")))",
			"002001549deda34cbc4a5982263191380f522695a2ddc2f99fc3a65c736264bd6cab"},
		{"wsh(and_v(v:sha256(7426ba0604c3f8682c7016b44673f85c5bd9da2fa6c1080810cf53ae320c9863),pk(" + xprv1 + ")))",
			"wsh(and_v(v:sha256(7426ba0604c3f8682c7016b44673f85c5bd9da2fa6c1080810cf53ae320c9863),pk(" + xpub1 + ")))",
			"002071f7283dbbb9a55ed43a54cda16ba0efd0f16dc48fe200f299e57bb5d7be8dd4"},
		{"wsh(and_v(v:hash160(292e2df59e3a22109200beed0cdc84b12e66793e),pk(" + xprv1 + ")))",
			"wsh(and_v(v:hash160(292e2df59e3a22109200beed0cdc84b12e66793e),pk(" + xpub1 + ")))",
			"00209b9d5b45735d0e15df5b41d6594602d3de472262f7b75edc6cf5f3e3fa4e3ae4"},
		{"wsh(and_v(v:hash256(ae253ca2a54debcac7ecf414f6734f48c56421a08bb59182ff9f39a6fffdb588),pk(" + xprv1 + ")))",
			"wsh(and_v(v:hash256(ae253ca2a54debcac7ecf414f6734f48c56421a08bb59182ff9f39a6fffdb588),pk(" + xpub1 + ")))",
			"0020cf62bf97baf977aec69cbc290c372899f913337a9093e8f066ab59b8657a365c"},
	} {
		ds := mustParse(t, c.in, MainNet)
		d := ds[0]
		if got := d.String(); got != AddChecksum(c.pub) {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, AddChecksum(c.pub))
		}
		if !d.HasPrivateKeys() || d.IsRange() || !d.IsSolvable() {
			t.Errorf("%s: flags", c.in)
		}
		if got := expandHex(t, d, 0); got != c.spk {
			t.Errorf("%s: script %s, want %s", c.in, got, c.spk)
		}
		checkRoundTrip(t, d, MainNet)
	}
}

// TestMiniscriptChecksum checks a checksum Core reports for a miniscript
// descriptor and a multipath one from a published wallet.
func TestMiniscriptChecksum(t *testing.T) {
	d := "wsh(and_v(vc:andor(pk(" + msKeyA + "),pk_k(" + msKeyB + "),and_v(v:older(1),pk_k(" + msKeyC + "))),after(10)))"
	if _, err := Parse(d+"#abcdef12", MainNet, true); err == nil || err.Error() != "Provided checksum 'abcdef12' does not match computed checksum 'hj69xv3e'" {
		t.Fatalf("checksum error: %v", err)
	}
	ds := mustParse(t, d+"#hj69xv3e", MainNet)
	if ds[0].String() != d+"#hj69xv3e" {
		t.Fatalf("got %s", ds[0])
	}
	d = strings.Replace(d, msKeyA, msKeyD, 1)
	if got := mustParse(t, d, MainNet)[0].String(); got != d+"#tyzp6a7p" {
		t.Fatalf("got %s", got)
	}

	const tpubA = "tpubDEN9WSToTyy9ZQfaYqSKfmVqmq1VVLNtYfj3Vkqh67et57eJ5sTKZQBkHqSwPUsoSskJeaYnPttHe2VrkCsKA27kUaN9SDc5zhqeLzKa1rr"
	const tpubB = "tpubD8LYfn6njiA2inCoxwM7EuN3cuLVcaHAwLYeups13dpevd3nHLRdK9NdQksWXrhLQVxcUZRpnp5CkJ1FhE61WRAsHxDNAkvGkoQkAeWDYjV"
	single := "wsh(andor(pk(" + tpubA + "/*),older(10000),pk(" + tpubB + "/*)))"
	if got := mustParse(t, single, TestNet3)[0].String(); got != single+"#y5wcna2d" {
		t.Fatalf("got %s", got)
	}
	multi := "wsh(andor(pk(" + tpubA + "/<0;1>/*),older(10000),pk(" + tpubB + "/<0;1>/*)))#5f6qd0d9"
	ds = mustParse(t, multi, TestNet3)
	if len(ds) != 2 || !ds[0].IsRange() {
		t.Fatalf("multipath: %d", len(ds))
	}
	// Its receive address at index 11 is bc1q26gtczlz03u6juf5cxppapk4sr4fyz53s3g4zs2cgactcahqv6yqc2t8e6.
	if got := expandHex(t, ds[0], 11); got != "00205690bc0be27c79a97134c1821e86d580ea920a9184515141584770bc76e06688" {
		t.Fatalf("index 11: %s", got)
	}
}

// TestMiniscriptErrors checks Core's messages for miniscript that is
// invalid, insane, or used outside wsh().
func TestMiniscriptErrors(t *testing.T) {
	andor := "andor(pk(" + msKeyA + "),pk_k(" + msKeyB + "),and_v(v:older(1),pk_k(" + msKeyC + ")))"
	for _, c := range []struct{ in, err string }{
		{"sh(and_v(vc:" + andor + ",after(10)))", "Miniscript expressions can only be used in wsh or tr."},
		{"and_v(vc:" + andor + ",after(10))", "Miniscript expressions can only be used in wsh or tr."},
		{"wsh(and_b(vc:" + andor + ",after(10)))", "and_b(vc:" + andor + ",after(10)) is invalid"},
		{"wsh(and_v(vc:andor(v:pk_k(" + msKeyA + "),pk_k(" + msKeyB + "),and_v(v:older(1),pk_k(" + msKeyC + "))),after(10)))",
			"v:pk_k(" + msKeyA + ") is invalid"},
		{"wsh(or_i(older(1),pk(" + msKeyD + ")))", "or_i(older(1),pk(" + msKeyD + ")) is not sane: witnesses without signature exist"},
		{"wsh(or_b(sha256(cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204),s:pk(" + msKeyD + ")))",
			"or_b(sha256(cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204),s:pk(" + msKeyD + ")) is not sane: malleable witnesses exist"},
		{"wsh(and_b(and_b(older(1),a:older(100000000)),s:pk(" + msKeyD + ")))",
			"and_b(older(1),a:older(100000000)) is not sane: contains mixes of timelocks expressed in blocks and seconds"},
		{"wsh(and_b(or_b(pkh(" + msKeyD + "),s:pk(" + msKeyB + ")),s:pk(" + msKeyD + ")))",
			"and_b(or_b(pkh(" + msKeyD + "),s:pk(" + msKeyB + ")),s:pk(" + msKeyD + ")) is not sane: contains duplicate public keys"},
		{"wsh(older(1))", "older(1) is not sane: witnesses without signature exist"},
		{"wsh(and_v(v:pk(" + msKeyA + "),pk_k(nokey)))", "key 'nokey' is not valid"},
		{"wsh(and_v(v:pk(" + pubU + "),older(1)))", "Uncompressed keys are not allowed"},
		{"wsh(and_v(v:pk(" + msKeyA + "),foo(1)))", "A function is needed within P2WSH"},
		{"wsh(and_v(v:pk(" + msKeyA + "),older(0)))", "A function is needed within P2WSH"},
		{"wsh(thresh(3,pk(" + msKeyA + "),s:pk(" + msKeyB + ")))", "A function is needed within P2WSH"},
	} {
		_, err := Parse(c.in, MainNet, false)
		if err == nil || err.Error() != c.err {
			t.Errorf("%s:\n got %v\nwant %s", c.in, err, c.err)
		}
	}
}

// TestMiniscriptTypes checks the type properties BIP379 gives fragments
// and their compositions.
func TestMiniscriptTypes(t *testing.T) {
	for _, c := range []struct{ ms, typ string }{
		{"pk_k(" + msKeyA + ")", "Konudemsxk"},
		{"pk(" + msKeyA + ")", "Bonudemsk"},
		{"pkh(" + msKeyA + ")", "Bnudemsk"},
		{"older(1)", "Bzfmxhk"},
		{"older(4194305)", "Bzfmxgk"},
		{"after(500000000)", "Bzfmxik"},
		{"sha256(" + strings.Repeat("00", 32) + ")", "Bonudmk"},
		{"v:pk(" + msKeyA + ")", "Vonsfmxk"},
		{"s:pk(" + msKeyA + ")", "Wudemsk"},
		{"a:older(1)", "Wfmxhk"},
		{"dv:older(1)", "Bondexmhk"},
		{"j:pk(" + msKeyA + ")", "Bondumsxk"},
		{"n:pk(" + msKeyA + ")", "Bonudemsxk"},
		{"l:pk(" + msKeyA + ")", "Bdusmxk"},
		{"u:pk(" + msKeyA + ")", "Bdusmxk"},
		{"tv:pk(" + msKeyA + ")", "Bonufmsxk"},
		{"and_v(v:pk(" + msKeyA + "),older(1))", "Bonfmsxhk"},
		{"or_d(pk(" + msKeyA + "),older(1))", "Bofmxhk"},
		{"multi(1," + msKeyA + "," + msKeyB + ")", "Bnudemsk"},
		{"thresh(1,pk(" + msKeyA + "),s:pk(" + msKeyB + "))", "Budemsk"},
		{"and_b(older(1),a:older(100000000))", "Bufmxgh"},
		{"thresh(1,older(1),a:older(4194305))", ""},
	} {
		mp := &msParser{p: &parser{net: MainNet}, src: c.ms}
		mp.matchParens()
		n := mp.parse(span{0, len(c.ms)}, 0)
		if n == nil {
			t.Fatalf("%s does not parse", c.ms)
		}
		if got, want := n.typ, mst(c.typ); got != want {
			t.Errorf("%s: type %s, want %s", c.ms, got, want)
		}
	}
}

// TestMiniscriptLimits checks the resource limits: script size, opcode
// count and witness stack size.
func TestMiniscriptLimits(t *testing.T) {
	// 20 thresh branches of pk(): 21 stack items, fine; the opcode count
	// of a big multi chain is what fails.
	var keys []string
	for i := 0; i < 20; i++ {
		keys = append(keys, msTestKey(t, i))
	}
	// or_b of multis: every CHECKMULTISIG counts its keys as opcodes.
	ms := "multi(1," + strings.Join(keys, ",") + ")"
	for i := 0; i < 3; i++ {
		ms = "or_d(" + ms + ",multi(1," + strings.Join(keys, ",") + "))"
	}
	_, err := Parse("wsh("+ms+")", MainNet, false)
	if err == nil || !strings.HasSuffix(err.Error(), "is not sane: contains duplicate public keys") {
		t.Fatalf("duplicates: %v", err)
	}
	// Distinct keys: 11 multis of 20 keys exceed 201 opcodes.
	var parts []string
	for i := 0; i < 11; i++ {
		var ks []string
		for j := 0; j < 20; j++ {
			ks = append(ks, msTestKey(t, 100+i*20+j))
		}
		parts = append(parts, "multi(1,"+strings.Join(ks, ",")+")")
	}
	ms = parts[0]
	for _, p := range parts[1:3] {
		ms = "or_d(" + ms + "," + p + ")"
	}
	if _, err := Parse("wsh("+ms+")", MainNet, false); err != nil {
		t.Fatalf("3 multis: %v", err)
	}
	ms = parts[0]
	for _, p := range parts[1:] {
		ms = "or_d(" + ms + "," + p + ")"
	}
	_, err = Parse("wsh("+ms+")", MainNet, false)
	if err == nil || err.Error() != "A function is needed within P2WSH" {
		// 11 x 20 keys is more than 3600 bytes of script: Core gives
		// up parsing.
		t.Fatalf("11 multis: %v", err)
	}
	// 5 and_v'd multi(20,...) need 105 witness elements; 4 need 84.
	var chain []string
	for i := 0; i < 5; i++ {
		chain = append(chain, strings.ReplaceAll(parts[i], "multi(1,", "multi(20,"))
	}
	ms = chain[4]
	for i := 3; i >= 0; i-- {
		ms = "and_v(v:" + chain[i] + "," + ms + ")"
		_, err = Parse("wsh("+ms+")", MainNet, false)
		if i > 0 && err != nil {
			t.Fatalf("%d multis: %v", 5-i, err)
		}
	}
	if err == nil || !strings.HasSuffix(err.Error(), "is not sane: needs witnesses that may exceed resource limits") {
		t.Fatalf("5 multis: %v", err)
	}
	// thresh of 70 pk()s executes more than 201 opcodes; of 60, 179.
	var subs []string
	for i := 0; i < 70; i++ {
		f := "s:pk("
		if i == 0 {
			f = "pk("
		}
		subs = append(subs, f+msTestKey(t, 500+i)+")")
	}
	_, err = Parse("wsh(thresh(1,"+strings.Join(subs, ",")+"))", MainNet, false)
	if err == nil || !strings.HasSuffix(err.Error(), "is not sane: needs witnesses that may exceed resource limits") {
		t.Fatalf("70 keys: %v", err)
	}
	if _, err := Parse("wsh(thresh(1,"+strings.Join(subs[:60], ",")+"))", MainNet, false); err != nil {
		t.Fatalf("60 keys: %v", err)
	}
}

// msTestKey derives a distinct compressed public key.
func msTestKey(t *testing.T, i int) string {
	t.Helper()
	ds := mustParse(t, "pk("+xpub1+"/"+itoa(i)+")", MainNet)
	outs, err := ds[0].Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(outs[0].Script[1:34])
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

// TestMiniscriptInfer checks decodescript's three cases from Core's
// rpc_decodescript.py and round trips of every fragment through its
// script.
func TestMiniscriptInfer(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"82012088a914ffffffffffffffffffffffffffffffffffffffff88210250929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0ad51b2",
			"and_v(and_v(v:hash160(ffffffffffffffffffffffffffffffffffffffff),v:pk(0250929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0)),older(1))"},
		{"82012088a914ffffffffffffffffffffffffffffffffffffffff882102ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffacb2", ""},
	} {
		s, _ := hex.DecodeString(c.script)
		got, ok := InferMiniscript(s)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("%s: got %q %v", c.script, got, ok)
		}
	}

	k := func(i int) string { return msTestKey(t, i) }
	h32, h20 := strings.Repeat("ab", 32), strings.Repeat("cd", 20)
	for _, ms := range []string{
		"and_v(v:pk(" + k(0) + "),older(144))",
		"andor(pk(" + k(0) + "),older(1000),pk(" + k(1) + "))",
		"and_n(pk(" + k(0) + "),sha256(" + h32 + "))",
		"or_b(pk(" + k(0) + "),s:pk(" + k(1) + "))",
		"or_b(pk(" + k(0) + "),a:pk(" + k(1) + "))",
		"t:or_c(pk(" + k(0) + "),and_v(v:ripemd160(" + h20 + "),v:pk(" + k(1) + ")))",
		"or_d(multi(2," + k(0) + "," + k(1) + "," + k(2) + "),and_v(v:older(4032),pk(" + k(3) + ")))",
		"or_i(and_v(v:after(500000001),pk(" + k(0) + ")),pk(" + k(1) + "))",
		"and_b(pk(" + k(0) + "),s:pk(" + k(1) + "))",
		"thresh(2,pk(" + k(0) + "),s:pk(" + k(1) + "),sln:older(12))",
		"and_v(v:hash160(" + h20 + "),pk(" + k(0) + "))",
		"t:and_v(v:pk(" + k(0) + "),vn:older(3))",
		"and_v(v:pk(" + k(0) + "),j:and_v(v:pk(" + k(1) + "),older(2)))",
		"or_d(pk(" + k(0) + "),and_v(v:pk(" + k(1) + "),after(100)))",
		"and_v(v:multi(1," + k(0) + "," + k(1) + "),dv:older(5))",
		"u:pk(" + k(0) + ")",
	} {
		ds, err := Parse("wsh("+ms+")", MainNet, false)
		if err != nil {
			t.Errorf("%s: %v", ms, err)
			continue
		}
		outs, _ := ds[0].Expand(0)
		wsh := outs[0].prov.wscripts
		var witness []byte
		for _, w := range wsh {
			witness = w
		}
		got, ok := InferMiniscript(witness)
		if !ok || got != ms {
			t.Errorf("%s: inferred %q", ms, got)
		}
		checkRoundTrip(t, ds[0], MainNet)
	}
	// pkh() needs the key behind the hash: inference with what the
	// expansion knows finds it; decodescript, knowing nothing, does not.
	d := mustParse(t, "wsh(and_v(v:pkh("+k(0)+"),older(1)))", MainNet)[0]
	outs, _ := d.Expand(0)
	if got := outs[0].Describe(); !strings.HasPrefix(got, "wsh(and_v(v:pkh([") {
		t.Errorf("pkh: described %s", got)
	}
	for _, w := range outs[0].prov.wscripts {
		if _, ok := InferMiniscript(w); ok {
			t.Errorf("pkh inferred without the key")
		}
	}
}

// TestMiniscriptTapscript checks Core's descriptor_tests vectors of
// miniscript in tr() leaves: x-only keys, pkh() of x-only keys, multi_a
// beside miniscript, and the output keys they commit to.
func TestMiniscriptTapscript(t *testing.T) {
	const (
		ik  = "a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
		w1  = "L1NKM8dVA1h52mwDrmk1YreTWkAZZTu2vmKLpmLEbFRqGQYjHeEV"
		x1  = "30a6069f344fb784a2b4c99540a91ee727c91e3a25ef6aae867d9c65b5f23529"
		w2  = "Kz3iCBy3HNGP5CZWDsAMmnCMFNwqdDohudVN9fvkrN7tAkzKNtM7"
		x2  = "9918d400c1b8c3c478340a40117ced4054b6b58f48cdb3c89b836bdfee1f5766"
		w3  = "KykUPmR5967F4URzMUeCv9kNMU9CNRWycrPmx3ZvfkWoQLabbimL"
		x3  = "1c9bc926084382e76da33b5a52d17b1fa153c072aae5fb5228ecc2ccf89d79d5"
		w4  = "L3Enys1jFgTq4E24b8Uom1kAz6cNkz3Z82XZpBKCE2ztErq9fqvJ"
		x4  = "0dd6b52b192ab195558d22dd8437a9ec4519ee5ded496c0d55bc9b1a8b0e8c2b"
		w5  = "KztMyyi1pXUtuZfJSB7JzVdmJMAz7wfGVFoSRUR5CVZxXxULXuGR"
		x5  = "14fa4ad085cdee1e2fc73d491b36a96c192382b1d9a21108eb3533f630364f9f"
		xpA = "xpub6AGbgdKcAGeUWaGNKH2o3sRvjtvJCGZ1NwrHqMJDwD4bN1QuwPQSsdeAYkPZGPt2FTAyu6nWGsC3fN2nsBELrLPcRNuwwr5k1X7yW5WV4aX"
		xvB = "xprv9wCN7tTqN5ATsmBGEijuNeUgQjma9tv3GmdWLmbYiuArPsAMj6tD1uASiBfm47kdoi7bDBAVxUZNLM2MkeouPK5menDTyCNZtExQrKhVu7C"
		xpB = "xpub6ABiXPzjCSim6FFjLkGujnRQxmc4ZMdtdzZ79A1AHEhqGfVWGeCTZhUvZTSf1mNnGUtyNqgfE9eWaYdYReDKbPYqgqi9LLVZSmWnLQRx477"
		h   = "ae253ca2a54debcac7ecf414f6734f48c56421a08bb59182ff9f39a6fffdb588"
	)
	for _, c := range []struct{ in, pub, spk string }{
		{"tr(" + ik + ",thresh(2,pk(" + w1 + "),s:pk(" + w2 + "),adv:older(42)))",
			"tr(" + ik + ",thresh(2,pk(" + x1 + "),s:pk(" + x2 + "),adv:older(42)))",
			"512033982eebe204dc66508e4b19cfc31b5ffc6e1bfcbf6e5597dfc2521a52270795"},
		{"tr(" + ik + ",pkh(" + w1 + "))", "tr(" + ik + ",pkh(" + x1 + "))",
			"51201e9875f690f5847404e4c5951e2f029887df0525691ee11a682afd37b608aad4"},
		{"tr(" + ik + ",{{pkh(" + w3 + "),pk(" + w4 + ")},thresh(1,pk(" + w1 + "),s:pk(" + w2 + "))})",
			"tr(" + ik + ",{{pkh(" + x3 + "),pk(" + x4 + ")},thresh(1,pk(" + x1 + "),s:pk(" + x2 + "))})",
			"5120d8ea39b29de2b550b68bd2ada8b075c888c2b2df3290c7a35856482747848934"},
		{"tr(" + ik + ",{and_v(v:pk(" + xpA + "/*),pk(02daf6e3477fc3906a1997820ed2940c8f5fa0942946d0368f981b001fdd85afcb)),and_v(v:pk(" + xvB + "/*),pk(03272c0c1ae2c07528283b91ca57b45d2cc84e7960e1f17f58815372285f35e99a))})",
			"tr(" + ik + ",{and_v(v:pk(" + xpA + "/*),pk(02daf6e3477fc3906a1997820ed2940c8f5fa0942946d0368f981b001fdd85afcb)),and_v(v:pk(" + xpB + "/*),pk(03272c0c1ae2c07528283b91ca57b45d2cc84e7960e1f17f58815372285f35e99a))})",
			"5120793185cd1a9a0bb710fa57df3845ac4ddf7df63b74beadce2573cbb0b508b3a4"},
		{"tr(" + ik + ",{and_v(and_v(v:hash256(" + h + "),v:pk(" + w3 + ")),older(42)),multi_a(2,adf586a32ad4b0674a86022b000348b681b4c97a811f67eefe4a6e066e55080c," + w5 + ")})",
			"tr(" + ik + ",{and_v(and_v(v:hash256(" + h + "),v:pk(" + x3 + ")),older(42)),multi_a(2,adf586a32ad4b0674a86022b000348b681b4c97a811f67eefe4a6e066e55080c," + x5 + ")})",
			"51209a3d79db56fbe3ba4d905d827b62e1ed31cd6df1198b8c759d589c0f4efc27bd"},
	} {
		d := mustParse(t, c.in, MainNet)[0]
		if got := d.String(); got != AddChecksum(c.pub) {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, AddChecksum(c.pub))
		}
		if got := d.StringPrivate(); got != AddChecksum(c.in) {
			t.Errorf("private form %s", got)
		}
		if got := expandHex(t, d, 0); got != c.spk {
			t.Errorf("%s: script %s, want %s", c.in, got, c.spk)
		}
		checkRoundTrip(t, d, MainNet)
	}
	for _, c := range []struct{ in, err string }{
		// multi() is P2WSH's, multi_a() tapscript's.
		{"wsh(and_v(v:multi_a(1," + msKeyA + "),older(1)))", "A function is needed within P2WSH"},
		{"tr(" + ik + ",and_v(v:multi(1," + x1 + "),older(1)))", "'and_v(v:multi(1," + x1 + "),older(1))' is not a valid descriptor function"},
		{"tr(" + ik + ",or_i(older(1),pk(" + x1 + ")))", "or_i(older(1),pk(" + x1 + ")) is not sane: witnesses without signature exist"},
	} {
		_, err := Parse(c.in, MainNet, false)
		if err == nil || err.Error() != c.err {
			t.Errorf("%s:\n got %v\nwant %s", c.in, err, c.err)
		}
	}
	// d: is u in tapscript (MINIMALIF is consensus there), not in P2WSH.
	for _, tap := range []bool{false, true} {
		mp := &msParser{p: &parser{net: MainNet}, src: "dv:older(1)", tap: tap}
		mp.matchParens()
		if n := mp.parse(span{0, len(mp.src)}, 0); n == nil || n.typ.has(tu) != tap {
			t.Errorf("tapscript %v: d:v:older(1) is %v", tap, n.typ)
		}
	}
}

// TestMiniscriptHostile checks that inputs built to cost the parser and
// the decoder much fail fast: deep nesting, long wrapper runs, huge
// thresh() argument lists and long scripts.
func TestMiniscriptHostile(t *testing.T) {
	pk := "pk(" + msKeyA + ")"
	for name, in := range map[string]string{
		"nesting":  "wsh(" + strings.Repeat("and_v(v:"+pk+",", 150000) + pk + strings.Repeat(")", 150000) + ")",
		"left":     "wsh(" + strings.Repeat("and_v(", 150000) + pk + strings.Repeat(",1)", 150000) + ")",
		"wrappers": "wsh(" + strings.Repeat("n", MaxLength-100) + ":" + pk + ")",
		"thresh":   "wsh(thresh(1," + pk + strings.Repeat(",s:"+pk, 14000) + "))",
		"tr":       "tr(" + msKeyA + "," + strings.Repeat("and_v(v:"+pk+",", 10000) + pk + strings.Repeat(")", 10000) + ")",
	} {
		if len(in) > MaxLength {
			in = in[:MaxLength]
		}
		start := time.Now()
		if _, err := Parse(in, MainNet, false); err == nil {
			t.Errorf("%s: parsed", name)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
	}
	// thresh(1,0,a:0,...) with 5,001 subs: past the 1,801 the decoder
	// builds.
	s := []byte{txscript.OP_0}
	for i := 0; i < 5000; i++ {
		s = append(s, txscript.OP_TOALTSTACK, txscript.OP_0, txscript.OP_FROMALTSTACK, txscript.OP_ADD)
	}
	s = append(s, txscript.OP_1, txscript.OP_EQUAL)
	start := time.Now()
	if n, _ := decodeMiniscript(s, true, NewProvider()); n != nil {
		t.Errorf("thresh of 5,001 decoded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("decode took %v", d)
	}
}

// TestMiniscriptTapStack checks tapscript's limit of 1,000 stack elements
// during execution: 999 signatures then a 2-of-2 need 1,002 at the peak,
// 997 and a 2-of-2 exactly 1,000.
func TestMiniscriptTapStack(t *testing.T) {
	var xs []string
	for i := 0; i < 1001; i++ {
		xs = append(xs, msTestKey(t, 2000+i)[2:])
	}
	leaf := func(n int) string {
		return "and_v(v:multi_a(" + itoa(n) + "," + strings.Join(xs[:n], ",") + "),multi_a(2," + strings.Join(xs[n:n+2], ",") + "))"
	}
	_, err := Parse("tr("+xs[1000]+","+leaf(999)+")", MainNet, false)
	if err == nil || !strings.HasSuffix(err.Error(), "is not sane: needs witnesses that may exceed resource limits") {
		t.Fatalf("999+2: %v", err)
	}
	d, err := Parse("tr("+xs[1000]+","+leaf(997)+")", MainNet, false)
	if err != nil {
		t.Fatalf("997+2: %v", err)
	}
	if got := d[0].top.subs[0].ms.execStack(); got != 1000 {
		t.Fatalf("997+2: peak %d", got)
	}
	checkRoundTrip(t, d[0], MainNet)
}
