package rpc

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/chaincfg"

	"context"

	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

const (
	testTPub = "tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B"
	testTPrv = "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK"
	testPubC = "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	testPubU = "04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235"
	testPub2 = "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
)

func TestGetDescriptorInfoMultipath(t *testing.T) {
	_, url := startServer(t, nil)
	in := "wpkh(" + testTPrv + "/<0;1>/*)"
	r := mustResult(t, url, "getdescriptorinfo", []any{in}).(map[string]any)
	checkShape(t, "getdescriptorinfo", r, shape{"descriptor": "string", "multipath_expansion": "array", "checksum": "string", "isrange": "boolean", "issolvable": "boolean", "hasprivatekeys": "boolean"})
	exp := r["multipath_expansion"].([]any)
	if len(exp) != 2 || r["descriptor"] != exp[0] || exp[1] != addChecksum("wpkh("+testTPub+"/1/*)") ||
		r["checksum"] != descriptorChecksum(in) || r["isrange"] != true || r["hasprivatekeys"] != true {
		t.Errorf("%v", r)
	}
	r = mustResult(t, url, "getdescriptorinfo", []any{"pkh(" + testTPub + "/1h/2)"}).(map[string]any)
	if _, ok := r["multipath_expansion"]; ok || r["isrange"] != false || r["hasprivatekeys"] != false {
		t.Errorf("%v", r)
	}
	e := mustError(t, url, "getdescriptorinfo", []any{""}, ErrInvalidAddress)
	if e.Message != "'' is not a valid descriptor function" {
		t.Errorf("%q", e.Message)
	}
	mustError(t, url, "getdescriptorinfo", []any{1}, ErrType)
}

func TestDeriveAddresses(t *testing.T) {
	_, url := startServer(t, nil)
	ranged := addChecksum("wpkh(" + testTPrv + "/1/1/*)")
	if got := mustResult(t, url, "deriveaddresses", []any{ranged, []any{1, 2}}); !sameStrings(got, "bcrt1qhku5rq7jz8ulufe2y6fkcpnlvpsta7rq4442dy", "bcrt1qpgptk2gvshyl0s9lqshsmx932l9ccsv265tvaq") {
		t.Errorf("range: %v", got)
	}
	if got := mustResult(t, url, "deriveaddresses", []any{ranged, 2}).([]any); len(got) != 3 || got[0] != "bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5" {
		t.Errorf("end only: %v", got)
	}
	mp := mustResult(t, url, "deriveaddresses", []any{addChecksum("wpkh(" + testTPrv + "/1/<0;1>/*)"), []any{1, 2}}).([]any)
	if len(mp) != 2 || !sameStrings(mp[1], "bcrt1qhku5rq7jz8ulufe2y6fkcpnlvpsta7rq4442dy", "bcrt1qpgptk2gvshyl0s9lqshsmx932l9ccsv265tvaq") {
		t.Errorf("multipath: %v", mp)
	}
	combo := addChecksum("combo(" + testTPrv + "/1/1/0)")
	if got := mustResult(t, url, "deriveaddresses", []any{combo}); !sameStrings(got, "mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ", "bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5", "2NDvEwGfpEqJWfybzpKPHF2XH3jwoQV3D7x") {
		t.Errorf("combo: %v", got)
	}
	for _, c := range []struct {
		params []any
		code   ErrorCode
		msg    string
	}{
		{[]any{"a"}, ErrInvalidAddress, "Missing checksum"},
		{[]any{"wpkh(" + testTPrv + "/1/1/0)"}, ErrInvalidAddress, "Missing checksum"},
		{[]any{addChecksum("wpkh(" + testTPrv + "/1/1/0)"), []any{0, 2}}, ErrInvalidParam, "Range should not be specified for an un-ranged descriptor"},
		{[]any{ranged}, ErrInvalidParam, "Range must be specified for a ranged descriptor"},
		{[]any{ranged, 10000000000}, ErrInvalidParam, "End of range is too high"},
		{[]any{ranged, []any{1000000000, 2000000000}}, ErrInvalidParam, "Range is too large"},
		{[]any{ranged, []any{2, 0}}, ErrInvalidParam, "Range specified as [begin,end] must not have begin after end"},
		{[]any{ranged, []any{-1, 0}}, ErrInvalidParam, "Range should be greater or equal than 0"},
		{[]any{ranged, "x"}, ErrInvalidParam, "Range must be specified as end or as [begin,end]"},
		{[]any{ranged, 1.5}, ErrMisc, "JSON integer out of range"},
		{[]any{addChecksum("pk(" + testTPrv + ")")}, ErrInvalidAddress, "Descriptor does not have a corresponding address"},
		{[]any{addChecksum("wpkh(" + testTPub + "/1'/1/0)")}, ErrInvalidAddress, "Cannot derive script without private keys"},
		{[]any{addChecksum("multi(1," + testTPub + "/1/1/0," + testTPub + "/1/1/1)")}, ErrInvalidAddress, "Descriptor does not have a corresponding address"},
	} {
		e := mustError(t, url, "deriveaddresses", c.params, c.code)
		if !strings.HasPrefix(e.Message, c.msg) {
			t.Errorf("%v: %q, want %q", c.params, e.Message, c.msg)
		}
	}
	// Range times keys is bounded.
	many := addChecksum("wsh(multi(1" + strings.Repeat(","+testTPub+"/*", 20) + "))")
	e := mustError(t, url, "deriveaddresses", []any{many, 999999}, ErrInvalidParam)
	if !strings.HasPrefix(e.Message, "Range is too large") {
		t.Errorf("%q", e.Message)
	}
}

func sameStrings(v any, want ...string) bool {
	got, ok := v.([]any)
	if !ok || len(got) != len(want) {
		return false
	}
	for i := range want {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestCreateMultisig(t *testing.T) {
	_, url := startServer(t, nil)
	keys := []any{testPubC, testPub2}
	redeem := "5221" + testPubC + "21" + testPub2 + "52ae"
	rs, _ := hex.DecodeString(redeem)
	net := NetParamsOf(&chaincfg.RegressionNetParams)
	for typ, want := range map[string]struct{ desc, addr string }{
		"legacy":      {"sh(multi(2," + testPubC + "," + testPub2 + "))", p2shAddr(rs, &net)},
		"bech32":      {"wsh(multi(2," + testPubC + "," + testPub2 + "))", p2wshAddr(rs, &net)},
		"p2sh-segwit": {"sh(wsh(multi(2," + testPubC + "," + testPub2 + ")))", p2shAddr(p2wshScript(rs), &net)},
	} {
		r := mustResult(t, url, "createmultisig", []any{2, keys, typ}).(map[string]any)
		checkShape(t, typ, r, shape{"address": "string", "redeemScript": "string", "descriptor": "string"})
		if r["redeemScript"] != redeem || r["descriptor"] != addChecksum(want.desc) || r["address"] != want.addr {
			t.Errorf("%s: %v, want %v", typ, r, want)
		}
	}
	if r := mustResult(t, url, "createmultisig", map[string]any{"nrequired": 1, "keys": keys}).(map[string]any); !strings.HasPrefix(r["descriptor"].(string), "sh(multi(1,") {
		t.Errorf("default type: %v", r)
	}
	// An uncompressed key forces legacy, with a warning.
	r := mustResult(t, url, "createmultisig", []any{2, []any{testPubC, testPubU}, "bech32"}).(map[string]any)
	if w, _ := r["warnings"].([]any); len(w) != 1 || w[0] != "Unable to make chosen address type, please ensure no uncompressed public keys are present." ||
		!strings.HasPrefix(r["descriptor"].(string), "sh(multi(2,"+testPubC+","+testPubU+"))#") {
		t.Errorf("uncompressed: %v", r)
	}
	// 20 keys: fine in segwit (numbers above 16 are pushed), too large
	// for P2SH.
	var twenty []any
	for range 20 {
		twenty = append(twenty, testPubC)
	}
	r = mustResult(t, url, "createmultisig", []any{20, twenty, "bech32"}).(map[string]any)
	if rs := r["redeemScript"].(string); !strings.HasPrefix(rs, "0114") || !strings.HasSuffix(rs, "0114ae") {
		t.Errorf("20 keys: %s", rs)
	}
	for _, c := range []struct {
		params []any
		code   ErrorCode
		msg    string
	}{
		{[]any{16, twenty, "legacy"}, ErrInvalidParam, "redeemScript exceeds size limit: 684 > 520"},
		{[]any{16, append(twenty, testPubC), "bech32"}, ErrInvalidParam, "Number of keys involved in the multisignature address creation > 20"},
		{[]any{2, keys, "bech32m"}, ErrInvalidAddress, "createmultisig cannot create bech32m multisig addresses"},
		{[]any{2, keys, "foo"}, ErrInvalidAddress, "Unknown address type 'foo'"},
		{[]any{0, keys}, ErrInvalidParam, "a multisignature address must require at least one key to redeem"},
		{[]any{3, keys}, ErrInvalidParam, "not enough keys supplied (got 2 keys, but need at least 3 to redeem)"},
		{[]any{1, []any{"zz"}}, ErrInvalidAddress, "Invalid public key: zz"},
		{[]any{1, []any{"0011"}}, ErrInvalidAddress, `Pubkey "0011" must have a length of either 33 or 65 bytes`},
		{[]any{1, []any{"02" + strings.Repeat("00", 32)}}, ErrInvalidAddress, `Pubkey "02` + strings.Repeat("00", 32) + `" must be cryptographically valid.`},
		{[]any{1, []any{1}}, ErrMisc, "JSON value of type number is not of expected type string"},
	} {
		e := mustError(t, url, "createmultisig", c.params, c.code)
		if !strings.HasPrefix(e.Message, c.msg) {
			t.Errorf("%v: %q, want %q", c.params[0], e.Message, c.msg)
		}
	}
}

func p2wshScript(s []byte) []byte {
	h := wshHash(s)
	return txscript.PayToWitnessScript(0, h[:])
}

func p2shAddr(s []byte, net *NetParams) string {
	h := hash160(s)
	return address{kind: addrP2SH, program: h[:]}.encode(net)
}

func p2wshAddr(s []byte, net *NetParams) string {
	h := wshHash(s)
	return address{kind: addrWitness, program: h[:]}.encode(net)
}

func TestParseDescriptorSingle(t *testing.T) {
	net := NetParamsOf(&chaincfg.RegressionNetParams)
	d, err := parseDescriptor("combo("+testPubC+")", &net)
	h := hash160(mustHex(testPubC))
	if err != nil || hex.EncodeToString(d.script) != "0014"+hex.EncodeToString(h[:]) {
		t.Errorf("combo: %v %x", err, d.script)
	}
	d, err = parseDescriptor("combo("+testPubU+")", &net)
	if err != nil || len(d.script) != 25 {
		t.Errorf("uncompressed combo: %v %x", err, d.script)
	}
	for desc, code := range map[string]ErrorCode{
		"wpkh(" + testTPub + "/*)":      ErrInvalidParam,
		"wpkh(" + testTPub + "/<0;1>)":  ErrInvalidAddress,
		"wpkh(" + testTPub + "/0h)":     ErrInvalidAddress,
		"wpkh(" + testTPub + "/0)#0000": ErrInvalidAddress,
	} {
		_, err := parseDescriptor(desc, &net)
		if err == nil || toRPCError(err).Code != code || isDescriptorSyntaxError(err) != strings.HasSuffix(desc, "#0000") {
			t.Errorf("%s: %v, want code %d", desc, err, code)
		}
	}
}

// fakeUTXOs is a UTXO set for scantxoutset tests. Scans wait on gate when
// it is set, so that a test can look at a running scan.
type fakeUTXOs struct {
	coins []ScannedUTXO
	gate  chan struct{}
	mu    sync.Mutex
	calls int
}

func (f *fakeUTXOs) scan(ctx context.Context, match func([]byte) bool, progress func(float64)) (*UTXOScan, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	out := &UTXOScan{Height: 110, BestBlock: wire.Hash{0xbb}, TxOuts: int64(len(f.coins))}
	progress(0.5)
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
	for _, c := range f.coins {
		if match(c.PkScript) {
			out.Hits = append(out.Hits, c)
		}
	}
	return out, nil
}

func TestScanTxOutSet(t *testing.T) {
	pkh := func(pub string) []byte {
		h := hash160(mustHex(pub))
		return txscript.PayToPubKeyHashScript(h[:])
	}
	// m/1/1/0 of the test key, whose P2PKH combo() output infers as
	// pkh([0c5f9a1e/1/1/0]03e1...).
	derived := "03e1c5b6e650966971d7e71ef2674f80222752740fc1dfd63bbbd220d2da9bd0fb"
	f := &fakeUTXOs{coins: []ScannedUTXO{
		{OutPoint: wire.OutPoint{Hash: wire.Hash{2}, Index: 1}, Value: 409600000, PkScript: pkh(derived), Height: 101, BlockHash: wire.Hash{0x11}},
		{OutPoint: wire.OutPoint{Hash: wire.Hash{1}, Index: 7}, Value: 100000, PkScript: pkh(testPubC), Height: 110, BlockHash: wire.Hash{0x12}, Coinbase: true},
		{OutPoint: wire.OutPoint{Hash: wire.Hash{1}, Index: 3}, Value: 5, PkScript: []byte{txscript.OP_TRUE}, Height: 50},
	}}
	_, url := startServer(t, func(c *Config) { c.Backend.Chain = &ChainBackend{ScanUTXOs: f.scan} })

	r := mustResult(t, url, "scantxoutset", []any{"start", []any{"combo(" + testTPrv + "/1/1/0)", map[string]any{"desc": "pkh(" + testPubC + ")"}, "raw(51)"}}).(map[string]any)
	checkShape(t, "scantxoutset", r, shape{"success": "boolean", "txouts": "number", "height": "number", "bestblock": "string", "unspents": "array", "total_amount": "number"})
	us := r["unspents"].([]any)
	if len(us) != 3 || r["success"] != true || r["txouts"] != json.Number("3") || r["height"] != json.Number("110") || r["total_amount"] != json.Number("4.09700005") {
		t.Fatalf("%v", r)
	}
	// Sorted by outpoint: txid {1..} before {2..}, index 3 before 7.
	u0, u1, u2 := us[0].(map[string]any), us[1].(map[string]any), us[2].(map[string]any)
	if u0["vout"] != json.Number("3") || u0["desc"] != "raw(51)#8lvh9jxk" || u1["vout"] != json.Number("7") || u1["coinbase"] != true ||
		u1["confirmations"] != json.Number("1") || u2["desc"] != "pkh([0c5f9a1e/1/1/0]"+derived+")#cxmct4w8" ||
		u2["amount"] != json.Number("4.09600000") || u2["confirmations"] != json.Number("10") || u2["blockhash"] != (wire.Hash{0x11}).String() {
		t.Errorf("unspents: %v", us)
	}
	checkShape(t, "unspent", u2, shape{"txid": "string", "vout": "number", "scriptPubKey": "string", "desc": "string", "amount": "number",
		"coinbase": "boolean", "height": "number", "blockhash": "string", "confirmations": "number"})
	if desc := u1["desc"].(string); !strings.HasPrefix(desc, "pkh([") || !strings.Contains(desc, "]"+testPubC+")#") {
		t.Errorf("hex key desc %s", desc)
	}
	// An empty scan still reports the set.
	r = mustResult(t, url, "scantxoutset", []any{"start", []any{}}).(map[string]any)
	if len(r["unspents"].([]any)) != 0 || r["total_amount"] != json.Number("0.00000000") {
		t.Errorf("%v", r)
	}
	if v := mustResult(t, url, "scantxoutset", []any{"status"}); v != nil {
		t.Errorf("status: %v", v)
	}
	if v := mustResult(t, url, "scantxoutset", []any{"abort"}); v != false {
		t.Errorf("abort: %v", v)
	}
	for _, c := range []struct {
		params []any
		code   ErrorCode
		msg    string
	}{
		{[]any{"start", []any{map[string]any{"desc": "desc", "range": -1}}}, ErrInvalidParam, "End of range is too high"},
		{[]any{"start", []any{map[string]any{"desc": "desc", "range": []any{-1, 10}}}}, ErrInvalidParam, "Range should be greater or equal than 0"},
		{[]any{"start", []any{map[string]any{"desc": "desc", "range": []any{(2 << 32) - 1000000, 2 << 32}}}}, ErrInvalidParam, "End of range is too high"},
		{[]any{"start", []any{map[string]any{"desc": "desc", "range": []any{2, 1}}}}, ErrInvalidParam, "Range specified as [begin,end] must not have begin after end"},
		{[]any{"start", []any{map[string]any{"desc": "desc", "range": []any{0, 1000001}}}}, ErrInvalidParam, "Range is too large"},
		{[]any{"start", []any{map[string]any{"range": 1}}}, ErrInvalidParam, "Descriptor needs to be provided in scan object"},
		{[]any{"start", []any{1}}, ErrInvalidParam, "Scan object needs to be either a string or an object"},
		{[]any{"start", []any{"desc"}}, ErrInvalidAddress, "'desc' is not a valid descriptor function"},
		{[]any{"start", []any{"wpkh(" + testTPub + "/0h/*)"}}, ErrInvalidAddress, "Cannot derive script without private keys: 'wpkh(" + testTPub + "/0h/*)'"},
		{[]any{"start"}, ErrMisc, "scanobjects argument is required for the start action"},
		{[]any{"invalid_command"}, ErrInvalidParam, "Invalid action 'invalid_command'"},
		{[]any{}, ErrMisc, `scantxoutset "action" ( [scanobjects,...] )`},
	} {
		e := mustError(t, url, "scantxoutset", c.params, c.code)
		if !strings.HasPrefix(e.Message, c.msg) {
			t.Errorf("%v: %q, want %q", c.params, e.Message, c.msg)
		}
	}

	// One scan at a time; status and abort see it.
	f.gate = make(chan struct{})
	done := make(chan reply, 1)
	go func() { done <- rpcCall(t, url, "scantxoutset", []any{"start", []any{"raw(51)"}}) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if v, ok := mustResult(t, url, "scantxoutset", []any{"status"}).(map[string]any); ok {
			if v["progress"] != json.Number("50") {
				t.Errorf("status %v", v)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("scan never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e := mustError(t, url, "scantxoutset", []any{"start", []any{}}, ErrInvalidParam)
	if e.Message != `Scan already in progress, use action "abort" or "status"` {
		t.Errorf("%q", e.Message)
	}
	if v := mustResult(t, url, "scantxoutset", []any{"abort"}); v != true {
		t.Errorf("abort running: %v", v)
	}
	rep := <-done
	var res map[string]any
	if rep.Error != nil || json.Unmarshal(rep.Result, &res) != nil || res["success"] != false {
		t.Errorf("aborted scan: %+v %s", rep.Error, rep.Result)
	}
}
