package rpc

import (
	"encoding/json"
	"testing"
)

// FuzzWebsocketMessage feeds arbitrary websocket messages through the
// websocket request path: the login check of a new client and the
// dispatch of an authenticated one (websocket-only methods included). It
// must never panic and must answer with well-formed JSON.
func FuzzWebsocketMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"1.0","id":1,"method":"authenticate","params":["alice","secret"]}`,
		`{"jsonrpc":"1.0","id":1,"method":"notifyblocks","params":[]}`,
		`{"jsonrpc":"1.0","id":2,"method":"loadtxfilter","params":[true,["bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"],[{"hash":"00","index":1}]]}`,
		`{"jsonrpc":"1.0","id":3,"method":"notifyspent","params":[[{"hash":"0000000000000000000000000000000000000000000000000000000000000001","index":0}]]}`,
		`{"jsonrpc":"1.0","id":4,"method":"notifynewtransactions","params":[true]}`,
		`{"jsonrpc":"1.0","id":5,"method":"rescanblocks","params":[["00"]]}`,
		`{"jsonrpc":"1.0","id":6,"method":"help","params":["rescan"]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"session"},{"jsonrpc":"2.0","method":"uptime"}]`,
		`{"method":"notifyreceived","params":[[1,2]],"id":null}`,
		`{"method":"stopnotifyspent","params":{"outpoints":[]},"id":9}`,
		`[]`, `{`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	srv, err := New(Config{DataDir: f.TempDir(), User: testUser, Pass: testPass, MaxBatch: 50, AuthFailDelay: 1})
	if err != nil {
		f.Fatal(err)
	}
	newClient := func(authed bool) *wsClient {
		return &wsClient{s: srv, authed: authed, sem: make(chan struct{}, 1), quit: make(chan struct{}),
			wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if len(msg) > 1<<16 {
			return
		}
		newClient(false).login(msg)
		c := newClient(true)
		out := c.handleMessage(msg)
		if out != nil && !json.Valid(out) {
			t.Fatalf("invalid JSON reply %q for %q", out, msg)
		}
	})
}
