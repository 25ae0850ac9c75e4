package rpc

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/chaincfg"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
)

func TestHelp(t *testing.T) {
	_, url := startServer(t, nil)
	list := mustResult(t, url, "help", []any{}).(string)
	want := []string{"== Blockchain ==", "== Control ==", "== Generating ==", "== Mining ==", "== Network ==", "== Rawtransactions ==", "== Util =="}
	last := -1
	for _, w := range want {
		i := strings.Index(list, w)
		if i < 0 || i < last {
			t.Fatalf("help listing lacks or misorders %q:\n%s", w, list)
		}
		last = i
	}
	for _, line := range []string{`getblock "blockhash" ( verbosity )`, "getblockcount", `decoderawtransaction "hexstring" ( iswitness )`, "stop"} {
		if !strings.Contains(list, "\n"+line+"\n") {
			t.Errorf("help listing lacks %q", line)
		}
	}
	if !strings.Contains(list, "\n\n== Control ==\n") {
		t.Errorf("categories not separated by a blank line")
	}
	h := mustResult(t, url, "help", []any{"getblockheader"}).(string)
	if !strings.HasPrefix(h, `getblockheader "blockhash" ( verbose )`) || !strings.Contains(h, "Arguments:\n1. blockhash") || !strings.Contains(h, `"nextblockhash"`) {
		t.Errorf("help getblockheader:\n%s", h)
	}
	if got := mustResult(t, url, "help", []any{"nosuch"}); got != "help: unknown command: nosuch" {
		t.Errorf("help nosuch = %v", got)
	}
	// Every registered method has a description.
	s, _ := New(Config{})
	for name, m := range s.methods {
		if m.Description == "" || m.Category == "" || m.Handler == nil {
			t.Errorf("%s lacks help or handler", name)
		}
	}
}

func TestParams(t *testing.T) {
	_, url := startServer(t, nil)
	// Named arguments.
	v := mustResult(t, url, "decodescript", map[string]any{"hexstring": "51"}).(map[string]any)
	if v["asm"] != "1" {
		t.Errorf("named: %v", v)
	}
	// Positional arguments in "args", the rest named (Core's python
	// client sends mixed calls so).
	v = mustResult(t, url, "decodescript", map[string]any{"args": []any{"51"}}).(map[string]any)
	if v["asm"] != "1" {
		t.Errorf("args: %v", v)
	}
	mustError(t, url, "decodescript", map[string]any{"args": []any{"51"}, "hexstring": "51"}, ErrInvalidParam)
	e := mustError(t, url, "decodescript", map[string]any{"hexstring": "51", "foo": 1}, ErrInvalidParam)
	if e.Message != "Unknown named parameter foo" {
		t.Errorf("%q", e.Message)
	}
	// A key given twice (bitcoin-cli -named with args=... and positional
	// arguments) is refused, not resolved by the last one.
	e = mustError(t, url, "decodescript", json.RawMessage(`{"args":["51"],"args":["52"]}`), ErrInvalidParam)
	if e.Message != "Parameter args specified multiple times" {
		t.Errorf("%q", e.Message)
	}
	// Wrong count: -1 with the help text.
	e = mustError(t, url, "decodescript", []any{}, ErrMisc)
	if !strings.HasPrefix(e.Message, `decodescript "hexstring"`) {
		t.Errorf("%q", e.Message)
	}
	mustError(t, url, "uptime", []any{1}, ErrMisc)
	mustError(t, url, "decodescript", map[string]any{}, ErrMisc)
	// Wrong type: -3 with bitcoind's message.
	e = mustError(t, url, "decodescript", []any{1}, ErrType)
	want := "Wrong type passed:\n{\n    \"Position 1 (hexstring)\": \"JSON value of type number is not of expected type string\"\n}"
	if e.Message != want {
		t.Errorf("%q", e.Message)
	}
	// Null for an optional argument means the default.
	mustResult(t, url, "help", []any{nil})
	e = mustError(t, url, "decodescript", []any{nil}, ErrType)
	_ = e
}

func TestControlMethods(t *testing.T) {
	var mu sync.Mutex
	cats := map[string]bool{"net": false, "validation": true}
	stopped := make(chan struct{}, 1)
	_, url := startServer(t, func(c *Config) {
		c.Shutdown = func() { stopped <- struct{}{} }
		c.LogPath = "/tmp/btcd.log"
		c.StartTime = time.Now().Add(-90 * time.Second)
		c.Logging = &LoggingControl{
			Categories: func() map[string]bool {
				mu.Lock()
				defer mu.Unlock()
				out := map[string]bool{}
				for k, v := range cats {
					out[k] = v
				}
				return out
			},
			SetCategory: func(c string, on bool) error {
				mu.Lock()
				defer mu.Unlock()
				cats[c] = on
				return nil
			},
		}
	})
	up := mustResult(t, url, "uptime", nil).(json.Number)
	if n, _ := up.Int64(); n < 90 || n > 200 {
		t.Errorf("uptime %v", up)
	}
	info := mustResult(t, url, "getrpcinfo", nil)
	checkShape(t, "getrpcinfo", info, shape{"active_commands": "array", "logpath": "string"})
	cmds := info.(map[string]any)["active_commands"].([]any)
	if len(cmds) != 1 {
		t.Fatalf("active commands %v", cmds)
	}
	checkShape(t, "active command", cmds[0], shape{"method": "string", "duration": "number"})
	mem := mustResult(t, url, "getmemoryinfo", nil).(map[string]any)
	checkShape(t, "getmemoryinfo", mem, shape{"locked": "object"})
	checkShape(t, "locked", mem["locked"], shape{"used": "number", "free": "number", "total": "number", "locked": "number", "chunks_used": "number", "chunks_free": "number"})
	mustError(t, url, "getmemoryinfo", []any{"mallocinfo"}, ErrInvalidParam)
	mustError(t, url, "getmemoryinfo", []any{"x"}, ErrInvalidParam)

	// help logging names the categories in order, as Core's does.
	if h := mustResult(t, url, "help", []any{"logging"}).(string); !strings.Contains(h, "valid logging categories are: net, validation\n") {
		t.Errorf("help logging lacks the categories: %q", h)
	}
	if e := mustResult(t, url, "echoipc", []any{"hello"}); e != "hello" {
		t.Errorf("echoipc: %v", e)
	}
	lg := mustResult(t, url, "logging", nil).(map[string]any)
	if lg["net"] != false || lg["validation"] != true {
		t.Errorf("logging %v", lg)
	}
	lg = mustResult(t, url, "logging", []any{[]any{"net"}, []any{"validation"}}).(map[string]any)
	if lg["net"] != true || lg["validation"] != false {
		t.Errorf("logging after change %v", lg)
	}
	// Include comes first, so a category in both lists ends up off.
	lg = mustResult(t, url, "logging", []any{[]any{"all"}, []any{"net"}}).(map[string]any)
	if lg["net"] != false || lg["validation"] != true {
		t.Errorf("logging all but net %v", lg)
	}
	// Names are bitcoind's, case-sensitive.
	mustError(t, url, "logging", []any{[]any{"NET"}}, ErrInvalidParam)
	mustError(t, url, "logging", []any{[]any{"nosuch"}}, ErrInvalidParam)

	if got := mustResult(t, url, "stop", nil); got != "btcd stopping" {
		t.Errorf("stop = %v", got)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown callback not called")
	}
}

func TestValidateAddress(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.Net = NetParamsOf(&chaincfg.MainNetParams) })
	full := shape{"isvalid": "boolean", "address": "string", "scriptPubKey": "string", "isscript": "boolean?",
		"iswitness": "boolean", "witness_version": "number?", "witness_program": "string?"}
	for _, c := range []struct {
		addr              string
		isscript, witness any
	}{
		{"1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", false, false},
		{"3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", true, false},
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", false, true},
		{"bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr", true, true},
		{"bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", nil, true},
	} {
		v := mustResult(t, url, "validateaddress", []any{c.addr})
		checkShape(t, c.addr, v, full)
		r := v.(map[string]any)
		if r["isvalid"] != true || r["address"] != c.addr || r["isscript"] != c.isscript || r["iswitness"] != c.witness {
			t.Errorf("%s: %v", c.addr, r)
		}
	}
	r := mustResult(t, url, "validateaddress", []any{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5"})
	checkShape(t, "invalid", r, shape{"isvalid": "boolean", "error_locations": "array", "error": "string"})
	if m := r.(map[string]any); m["isvalid"] != false || m["error"] != "Invalid Bech32 checksum" ||
		len(m["error_locations"].([]any)) != 1 || m["error_locations"].([]any)[0] != json.Number("41") {
		t.Errorf("invalid address: %v", m)
	}
}

func TestGetDescriptorInfo(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.Net = NetParamsOf(&chaincfg.MainNetParams) })
	key := "03A34B99F22C790C4E36B2B3C2C35A36DB06226E41C692FC82B8B56AC1C540C5BD"
	v := mustResult(t, url, "getdescriptorinfo", []any{"wpkh(" + key + ")"})
	checkShape(t, "getdescriptorinfo", v, shape{"descriptor": "string", "checksum": "string", "isrange": "boolean", "issolvable": "boolean", "hasprivatekeys": "boolean"})
	r := v.(map[string]any)
	canon := "wpkh(" + strings.ToLower(key) + ")"
	if r["descriptor"] != addChecksum(canon) || r["checksum"] != descriptorChecksum("wpkh("+key+")") || r["issolvable"] != true {
		t.Errorf("%v", r)
	}
	r = mustResult(t, url, "getdescriptorinfo", []any{"addr(BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4)"}).(map[string]any)
	if r["descriptor"] != addChecksum("addr(bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4)") || r["issolvable"] != false {
		t.Errorf("%v", r)
	}
	r = mustResult(t, url, "getdescriptorinfo", []any{"raw(deadbeef)#89f8spxm"}).(map[string]any)
	if r["descriptor"] != "raw(deadbeef)#89f8spxm" || r["checksum"] != "89f8spxm" {
		t.Errorf("%v", r)
	}
	e := mustError(t, url, "getdescriptorinfo", []any{"raw(deadbeef)#00000000"}, ErrInvalidAddress)
	if !strings.Contains(e.Message, "does not match computed checksum '89f8spxm'") {
		t.Errorf("%q", e.Message)
	}
}

func TestVerifyMessage(t *testing.T) {
	_, url := startServer(t, nil)
	priv, _ := btcec.NewPrivateKey()
	msg := "hello, world"
	h := signedMessageHash(msg)
	sig := ecdsa.SignCompact(priv, h[:], true)
	kh := hash160(priv.PubKey().SerializeCompressed())
	net := NetParamsOf(&chaincfg.RegressionNetParams)
	addr := address{kind: addrP2PKH, program: kh[:]}.encode(&net)
	b64 := base64.StdEncoding.EncodeToString(sig)
	if got := mustResult(t, url, "verifymessage", []any{addr, b64, msg}); got != true {
		t.Errorf("valid signature: %v", got)
	}
	if got := mustResult(t, url, "verifymessage", []any{addr, b64, msg + "!"}); got != false {
		t.Errorf("other message: %v", got)
	}
	// Uncompressed key signature.
	sig = ecdsa.SignCompact(priv, h[:], false)
	kh = hash160(priv.PubKey().SerializeUncompressed())
	uaddr := address{kind: addrP2PKH, program: kh[:]}.encode(&net)
	if got := mustResult(t, url, "verifymessage", []any{uaddr, base64.StdEncoding.EncodeToString(sig), msg}); got != true {
		t.Errorf("uncompressed: %v", got)
	}
	if got := mustResult(t, url, "verifymessage", []any{addr, base64.StdEncoding.EncodeToString(make([]byte, 65)), msg}); got != false {
		t.Errorf("garbage signature: %v", got)
	}
	e := mustError(t, url, "verifymessage", []any{addr, "!!!", msg}, ErrType)
	if e.Message != "Malformed base64 encoding" {
		t.Errorf("%q", e.Message)
	}
	e = mustError(t, url, "verifymessage", []any{"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", b64, msg}, ErrType)
	if e.Message != "Address does not refer to key" {
		t.Errorf("%q", e.Message)
	}
	e = mustError(t, url, "verifymessage", []any{"nope", b64, msg}, ErrInvalidAddress)
	if e.Message != "Invalid address" {
		t.Errorf("%q", e.Message)
	}
}

// TestRegisteredMethods checks that every method bitcoind clients expect is
// registered, with its category.
func TestRegisteredMethods(t *testing.T) {
	want := map[string][]string{
		"blockchain": {"getbestblockhash", "getblock", "getblockchaininfo", "getblockcount", "getblockfilter", "getblockhash",
			"getblockheader", "getblockstats", "getchaintips", "getchaintxstats", "getdifficulty", "getmempoolancestors",
			"getmempooldescendants", "getmempoolentry", "getmempoolinfo", "getrawmempool", "gettxout", "gettxoutproof",
			"gettxoutsetinfo", "preciousblock", "pruneblockchain", "verifychain", "verifytxoutproof", "invalidateblock", "reconsiderblock",
			"getdeploymentinfo", "waitfornewblock", "waitforblock", "waitforblockheight", "gettxspendingprevout", "savemempool", "scantxoutset",
			"scanblocks", "getdescriptoractivity", "getblockfrompeer", "dumptxoutset", "importmempool"},
		"hidden": {"echo", "echojson", "syncwithvalidationinterfacequeue", "setmocktime", "mockscheduler", "addconnection", "getorphantxs",
			"estimaterawfee", "generate", "addpeeraddress", "echoipc", "getrawaddrman", "sendmsgtopeer",
			// btcd's extensions (btcdextra.go).
			"getinfo", "getheaders", "getcfilter", "getcfilterheader", "searchrawtransactions", "getbestblock", "getcurrentnet", "version"},
		"control":    {"help", "uptime", "stop", "getrpcinfo", "getmemoryinfo", "logging"},
		"mining":     {"getblocktemplate", "getmininginfo", "getnetworkhashps", "submitblock", "submitheader", "prioritisetransaction", "getprioritisedtransactions"},
		"generating": {"generatetoaddress", "generateblock", "generatetodescriptor"},
		"network":    {"addnode", "clearbanned", "disconnectnode", "getaddednodeinfo", "getconnectioncount", "getnettotals", "getnetworkinfo", "getnodeaddresses", "getpeerinfo", "listbanned", "ping", "setban", "setnetworkactive", "getaddrmaninfo"},
		"rawtransactions": {"getrawtransaction", "sendrawtransaction", "testmempoolaccept", "decoderawtransaction", "createrawtransaction", "combinerawtransaction", "decodescript", "submitpackage",
			"signrawtransactionwithkey", "createpsbt", "converttopsbt", "decodepsbt", "combinepsbt", "finalizepsbt", "utxoupdatepsbt", "joinpsbts", "analyzepsbt", "descriptorprocesspsbt"},
		"util": {"estimatesmartfee", "validateaddress", "getdescriptorinfo", "verifymessage", "getindexinfo", "deriveaddresses", "createmultisig",
			"signmessagewithprivkey"},
		"zmq": {"getzmqnotifications"},
	}
	n := 0
	for cat, names := range want {
		for _, name := range names {
			n++
			m := LookupMethod(name)
			if m == nil {
				t.Errorf("%s not registered", name)
				continue
			}
			if m.Category != cat {
				t.Errorf("%s in category %s, want %s", name, m.Category, cat)
			}
		}
	}
	if len(builtinMethods()) != n {
		t.Errorf("%d methods registered, %d expected", len(builtinMethods()), n)
	}
}
