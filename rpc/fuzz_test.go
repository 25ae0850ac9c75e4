package rpc

import (
	"encoding/json"
	"testing"

	"github.com/btcnode/btcd/chaincfg"
)

// FuzzParseRequest feeds arbitrary HTTP bodies through the whole request
// path (parse, batch split, parameter binding, handlers without backends).
// The server must answer every body with a well-formed reply and never
// panic out of the handler.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"method":"uptime","id":1}`,
		`{"jsonrpc":"2.0","method":"help","params":["getblock"],"id":"a"}`,
		`[{"jsonrpc":"2.0","method":"uptime"},{"method":"nosuch","id":null},7]`,
		`{"method":"decoderawtransaction","params":["` + genesisCoinbaseHex + `"],"id":1}`,
		`{"method":"decodescript","params":{"hexstring":"76a914"},"id":1}`,
		`{"method":"createrawtransaction","params":[[],{"data":"00"}],"id":1}`,
		`{"method":"getdescriptorinfo","params":["sh(wpkh(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd))"],"id":1}`,
		`{"method":"validateaddress","params":["bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],"id":1}`,
		`{"method":"verifymessage","params":["1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2","AAAA","m"],"id":1}`,
		`{"method":"combinerawtransaction","params":[["00"]],"id":1}`,
		`[]`, `{`, `"x"`, `{"jsonrpc":5}`, `{"method":"getmemoryinfo","params":[null],"id":1}`,
	} {
		f.Add([]byte(s))
	}
	s, err := New(Config{DataDir: f.TempDir(), MaxBatch: 50})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<16 {
			return
		}
		status, out := s.handleBody(body)
		if status == 204 {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON reply %q for %q", out, body)
		}
		var one map[string]json.RawMessage
		if json.Unmarshal(out, &one) == nil {
			_, hasRes := one["result"]
			_, hasErr := one["error"]
			if string(one["jsonrpc"]) == `"2.0"` && hasRes == hasErr {
				t.Fatalf("2.0 reply must carry exactly one of result/error: %s", out)
			}
			if e, ok := one["error"]; ok && string(e) != "null" {
				var re Error
				if json.Unmarshal(e, &re) != nil || re.Code == ErrInternal && re.Message == "Internal error" {
					t.Fatalf("handler panicked or bad error for %q: %s", body, out)
				}
			}
		}
	})
}

// FuzzScript checks the script adapter on arbitrary scripts.
func FuzzScript(f *testing.F) {
	for _, s := range []string{"76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac", "6a0568656c6c6f", "4c", "4e0000", "51024e73",
		"512103a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd51ae", "00"} {
		f.Add(mustHex(s))
	}
	net := NetParamsOf(&chaincfg.MainNetParams)
	f.Fuzz(func(t *testing.T, script []byte) {
		scriptToAsm(script, true)
		class, _ := classify(script)
		d := inferDescriptor(script, &net, script)
		if class == typeNonstandard && d[:4] != "raw(" {
			t.Fatalf("nonstandard script inferred as %s", d)
		}
	})
}

// FuzzAddress checks address decoding; a decoded address re-encodes to a
// string that decodes to the same script.
func FuzzAddress(f *testing.F) {
	for _, s := range []string{"1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "BC1SW50QGDZ25J", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", "bc1", ""} {
		f.Add(s)
	}
	net := NetParamsOf(&chaincfg.MainNetParams)
	f.Fuzz(func(t *testing.T, s string) {
		a, msg := decodeAddress(s, &net)
		if msg != "" {
			return
		}
		enc := a.encode(&net)
		b, msg := decodeAddress(enc, &net)
		if msg != "" || string(b.script()) != string(a.script()) {
			t.Fatalf("%q -> %q does not round-trip (%s)", s, enc, msg)
		}
	})
}

// FuzzDescriptor checks descriptor parsing: a parsed descriptor's canonical
// form parses to the same script.
func FuzzDescriptor(f *testing.F) {
	key := "03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd"
	for _, s := range []string{"raw(deadbeef)#89f8spxm", "wpkh(" + key + ")", "sh(wsh(multi(1," + key + ")))", "tr(" + key[2:] + ")", "addr(1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2)", "pkh([deadbeef/1'/2h]" + key + ")"} {
		f.Add(s)
	}
	net := NetParamsOf(&chaincfg.MainNetParams)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		d, err := parseDescriptor(s, &net)
		if err != nil {
			return
		}
		d2, err := parseDescriptor(addChecksum(d.canonical), &net)
		if err != nil || string(d2.script) != string(d.script) {
			t.Fatalf("%q -> %q: %v", s, d.canonical, err)
		}
	})
}
