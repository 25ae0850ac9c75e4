package rpc

import (
	"testing"

	"github.com/btcnode/btcd/chaincfg"
)

// TestDecodeScriptMiniscript checks decodescript's segwit "desc" for
// witness scripts that are sane miniscript (rpc_decodescript.py's
// decodescript_miniscript): wsh(<miniscript>), else addr().
func TestDecodeScriptMiniscript(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.Net = NetParamsOf(&chaincfg.RegressionNetParams) })
	for _, c := range []struct{ script, desc string }{
		{"82012088a914ffffffffffffffffffffffffffffffffffffffff88210250929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0ad51b2",
			"wsh(and_v(and_v(v:hash160(ffffffffffffffffffffffffffffffffffffffff),v:pk(0250929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0)),older(1)))#gm8xz4fl"},
		{"82012088a914ffffffffffffffffffffffffffffffffffffffff882102ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffacb2",
			"addr(bcrt1q73qyfypp47hvgnkjqnav0j3k2lq3v76wg22dk8tmwuz5sfgv66xsvxg6uu)#9p3q328s"},
	} {
		r := mustResult(t, url, "decodescript", []any{c.script}).(map[string]any)
		sw, _ := r["segwit"].(map[string]any)
		if sw == nil || sw["desc"] != c.desc {
			t.Errorf("%s: segwit %v", c.script, r["segwit"])
		}
	}
}
