package rpc

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestJSONRPCVersions(t *testing.T) {
	_, url := startServer(t, nil)

	// 1.0: result, error and id all present.
	st, b := post(t, url, testUser, testPass, `{"method":"uptime","params":[],"id":"x"}`)
	r := decodeReply(t, b)
	if st != 200 || r.Error != nil {
		t.Fatalf("1.0 uptime: %d %s", st, b)
	}
	for _, k := range []string{"result", "error", "id"} {
		if _, ok := r.raw[k]; !ok {
			t.Errorf("1.0 reply lacks %q: %s", k, b)
		}
	}
	if _, ok := r.raw["jsonrpc"]; ok {
		t.Errorf("1.0 reply has jsonrpc member: %s", b)
	}
	if string(r.raw["id"]) != `"x"` {
		t.Errorf("id = %s", r.raw["id"])
	}

	// 2.0 success: no error member.
	st, b = post(t, url, testUser, testPass, `{"jsonrpc":"2.0","method":"uptime","id":7}`)
	r = decodeReply(t, b)
	if _, ok := r.raw["error"]; ok || st != 200 || string(r.raw["jsonrpc"]) != `"2.0"` {
		t.Fatalf("2.0 success reply: %d %s", st, b)
	}

	// Method not found: 1.0 gets HTTP 404, 2.0 gets 200 without result.
	st, b = post(t, url, testUser, testPass, `{"method":"nosuch","id":1}`)
	r = decodeReply(t, b)
	if st != 404 || r.Error == nil || r.Error.Code != ErrMethodNotFound || r.Error.Message != "Method not found" {
		t.Fatalf("1.0 unknown: %d %s", st, b)
	}
	if string(r.raw["result"]) != "null" {
		t.Errorf("1.0 error reply result = %s", r.raw["result"])
	}
	st, b = post(t, url, testUser, testPass, `{"jsonrpc":"2.0","method":"nosuch","id":1}`)
	r = decodeReply(t, b)
	if _, ok := r.raw["result"]; st != 200 || ok || r.Error.Code != ErrMethodNotFound {
		t.Fatalf("2.0 unknown: %d %s", st, b)
	}

	// Invalid params in 1.0: HTTP 500 with the error.
	st, b = post(t, url, testUser, testPass, `{"method":"getblockhash","params":[],"id":1}`)
	if r = decodeReply(t, b); st != 500 || r.Error == nil || r.Error.Code != ErrMethodNotFound {
		// getblockhash has no backend here: method not found is 404.
		if st != 404 {
			t.Fatalf("1.0 unavailable method: %d %s", st, b)
		}
	}
	st, b = post(t, url, testUser, testPass, `{"method":"decodescript","params":[1],"id":1}`)
	if r = decodeReply(t, b); st != 500 || r.Error.Code != ErrType {
		t.Fatalf("1.0 type error: %d %s", st, b)
	}

	// Notification: 204, no body.
	st, b = post(t, url, testUser, testPass, `{"jsonrpc":"2.0","method":"uptime"}`)
	if st != 204 || len(b) != 0 {
		t.Fatalf("notification: %d %q", st, b)
	}

	// A 1.0 call without an id is answered without an "id" member, as
	// bitcoind; so is an invalid request object without one.
	for _, body := range []string{`{"method":"uptime"}`, `{"jsonrpc":2,"method":"uptime"}`} {
		_, b = post(t, url, testUser, testPass, body)
		if r = decodeReply(t, b); r.raw["id"] != nil {
			t.Errorf("%s: reply has an id: %s", body, b)
		}
	}

	// Invalid request objects.
	cases := []struct{ body, msg string }{
		{`{"jsonrpc":"3.0","method":"uptime","id":1}`, "JSON-RPC version not supported"},
		{`{"jsonrpc":2,"method":"uptime","id":1}`, "jsonrpc field must be a string"},
		{`{"id":1}`, "Missing method"},
		{`{"method":5,"id":1}`, "Method must be a string"},
		{`{"method":"uptime","params":5,"id":1}`, "Params must be an array or object"},
	}
	for _, c := range cases {
		st, b = post(t, url, testUser, testPass, c.body)
		r = decodeReply(t, b)
		if st != 400 || r.Error == nil || r.Error.Code != ErrInvalidRequest || r.Error.Message != c.msg {
			t.Errorf("%s: %d %s", c.body, st, b)
		}
	}
}

func TestParseErrors(t *testing.T) {
	_, url := startServer(t, nil)
	for _, c := range []struct{ body, msg string }{
		{`{"method":`, "Parse error"},
		{`not json`, "Parse error"},
		{`"just a string"`, "Top-level object parse error"},
		{`42`, "Top-level object parse error"},
	} {
		st, b := post(t, url, testUser, testPass, c.body)
		r := decodeReply(t, b)
		if st != 500 || r.Error == nil || r.Error.Code != ErrParse || r.Error.Message != c.msg || string(r.raw["id"]) != "null" {
			t.Errorf("%q: %d %s", c.body, st, b)
		}
	}
}

func TestBatch(t *testing.T) {
	_, url := startServer(t, nil)
	st, b := post(t, url, testUser, testPass, `[
		{"jsonrpc":"2.0","method":"uptime","id":1},
		{"jsonrpc":"2.0","method":"nosuch","id":2},
		{"method":"help","params":["uptime"],"id":3},
		{"jsonrpc":"2.0","method":"uptime"},
		5
	]`)
	if st != 200 {
		t.Fatalf("batch: %d %s", st, b)
	}
	var replies []map[string]json.RawMessage
	if err := json.Unmarshal(b, &replies); err != nil {
		t.Fatal(err)
	}
	if len(replies) != 4 {
		t.Fatalf("got %d replies, want 4 (notification omitted): %s", len(replies), b)
	}
	if _, ok := replies[0]["error"]; ok || string(replies[0]["id"]) != "1" {
		t.Errorf("reply 0: %v", replies[0])
	}
	if _, ok := replies[1]["result"]; ok || !strings.Contains(string(replies[1]["error"]), "-32601") {
		t.Errorf("reply 1: %v", replies[1])
	}
	if _, ok := replies[2]["error"]; !ok || string(replies[2]["error"]) != "null" {
		t.Errorf("reply 2 (1.0 style): %v", replies[2])
	}
	if !strings.Contains(string(replies[3]["error"]), "Invalid Request object") {
		t.Errorf("reply 3: %v", replies[3])
	}

	// All notifications: 204. Empty batch: [].
	st, b = post(t, url, testUser, testPass, `[{"jsonrpc":"2.0","method":"uptime"}]`)
	if st != 204 {
		t.Errorf("all-notification batch: %d %s", st, b)
	}
	st, b = post(t, url, testUser, testPass, `[]`)
	if st != 200 || strings.TrimSpace(string(b)) != "[]" {
		t.Errorf("empty batch: %d %s", st, b)
	}
}

func TestBatchLimit(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.MaxBatch = 3 })
	body := "[" + strings.Repeat(`{"method":"uptime","id":1},`, 3) + `{"method":"uptime","id":1}]`
	st, b := post(t, url, testUser, testPass, body)
	r := decodeReply(t, b)
	if st != 400 || r.Error == nil || r.Error.Code != ErrInvalidRequest {
		t.Fatalf("oversized batch: %d %s", st, b)
	}
}

func TestAuth(t *testing.T) {
	_, url := startServer(t, func(c *Config) {
		// rpcauth for user "bob", password "pw" with salt "salt".
		c.AuthEntries = []string{"bob:salt$" + hmacHex("salt", "pw")}
	})
	body := `{"method":"uptime","id":1}`
	if st, _ := post(t, url, testUser, testPass, body); st != 200 {
		t.Fatalf("good password: %d", st)
	}
	if st, _ := post(t, url, "bob", "pw", body); st != 200 {
		t.Fatalf("rpcauth: %d", st)
	}
	start := time.Now()
	if st, _ := post(t, url, testUser, "wrong", body); st != 401 {
		t.Fatalf("bad password: %d", st)
	}
	if d := time.Since(start); d < 240*time.Millisecond {
		t.Errorf("failed auth answered after %v, want >= 250ms", d)
	}
	if st, _ := post(t, url, "bob", "nope", body); st != 401 {
		t.Fatalf("bad rpcauth password: %d", st)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Basic realm="jsonrpc"` {
		t.Fatalf("no auth: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}

func TestBadAuthEntry(t *testing.T) {
	for _, e := range []string{"nocolon", "u:nodollar", "u:a:s$ab", "u:s$a$b"} {
		_, err := New(Config{AuthEntries: []string{e}})
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%q: err = %v", e, err)
		}
	}
	// As bitcoind, a well-shaped entry whose hash is no HMAC is accepted
	// and simply never matches.
	for _, e := range []string{"u:s$zz", "u:s$abcd", "u:s$" + strings.Repeat("AB", 32)} {
		a, err := parseAuthEntry(e)
		if err != nil || a.hmac != nil {
			t.Errorf("%q: %+v %v", e, a, err)
		}
	}
}

func TestCookieAuth(t *testing.T) {
	dir := t.TempDir()
	s, url := startServer(t, func(c *Config) { c.User, c.Pass, c.DataDir = "", "", dir })
	path := filepath.Join(dir, ".cookie")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("cookie mode %v", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	user, pass, ok := strings.Cut(string(b), ":")
	if !ok || user != "__cookie__" || len(pass) != 64 || !isHex(pass) {
		t.Fatalf("cookie %q", b)
	}
	if st, _ := post(t, url, user, pass, `{"method":"uptime","id":1}`); st != 200 {
		t.Fatalf("cookie login: %d", st)
	}
	if st, _ := post(t, url, user, strings.Repeat("0", 64), `{"method":"uptime","id":1}`); st != 401 {
		t.Fatalf("wrong cookie: %d", st)
	}
	s.Stop()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("cookie not removed at Stop: %v", err)
	}
}

func TestRefuseNonLoopbackWithoutAuth(t *testing.T) {
	for _, l := range []string{"0.0.0.0:0", "[::]:0", ":0", "192.0.2.1:8332"} {
		_, err := New(Config{Listeners: []string{l}, DataDir: t.TempDir()})
		if !errors.Is(err, ErrUnsafeListen) {
			t.Errorf("%s: err = %v, want ErrUnsafeListen", l, err)
		}
	}
	if _, err := New(Config{Listeners: []string{"0.0.0.0:0"}, User: "u", Pass: "p"}); err != nil {
		t.Errorf("with password: %v", err)
	}
	if _, err := New(Config{Listeners: []string{"localhost:0", "127.0.0.1:0", "[::1]:0"}}); err != nil {
		t.Errorf("loopback without auth: %v", err)
	}
}

func TestOversizedBody(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.MaxRequestBytes = 1024 })
	big := `{"method":"help","params":["` + strings.Repeat("a", 2000) + `"],"id":1}`
	st, _ := post(t, url, testUser, testPass, big)
	if st != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %d", st)
	}
	if st, _ := post(t, url, testUser, testPass, `{"method":"uptime","id":1}`); st != 200 {
		t.Fatalf("after oversized: %d", st)
	}
}

func TestMaxClientsAndPanic(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 4)
	s, url := startServer(t, func(c *Config) { c.MaxClients = 3 })
	s.Register(&Method{Name: "block", Category: "test", Handler: func(*Server, *Params) (any, error) {
		entered <- struct{}{}
		<-release
		return true, nil
	}}, &Method{Name: "boom", Category: "test", Handler: func(*Server, *Params) (any, error) {
		var m map[string]int
		//lint:ignore SA5000 the handler must panic
		m["x"] = 1
		return nil, nil
	}})
	var wg sync.WaitGroup
	startBlockers := func(n int) {
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				post(t, url, testUser, testPass, `{"method":"block","id":1}`)
			}()
		}
		for i := 0; i < n; i++ {
			select {
			case <-entered:
			case <-time.After(10 * time.Second):
				t.Fatal("blocking calls did not start")
			}
		}
	}
	startBlockers(2)
	rinfo := mustResult(t, url, "getrpcinfo", []any{}).(map[string]any)
	if cmds := rinfo["active_commands"].([]any); len(cmds) < 2 {
		t.Errorf("getrpcinfo active_commands = %v", cmds)
	}
	startBlockers(1)
	st, b := post(t, url, testUser, testPass, `{"method":"uptime","id":1}`)
	if st != http.StatusServiceUnavailable {
		t.Errorf("third concurrent request: %d %s", st, b)
	}
	close(release)
	wg.Wait()
	st, b = post(t, url, testUser, testPass, `{"jsonrpc":"2.0","method":"boom","id":1}`)
	r := decodeReply(t, b)
	if st != 200 || r.Error == nil || r.Error.Code != ErrInternal {
		t.Fatalf("panic: %d %s", st, b)
	}
	if st, _ := post(t, url, testUser, testPass, `{"method":"uptime","id":1}`); st != 200 {
		t.Fatalf("server unusable after panic: %d", st)
	}
}

func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	s, url := startServer(t, func(c *Config) { c.RequestTimeout = 200 * time.Millisecond })
	s.Register(&Method{Name: "slow", Category: "test", Handler: func(*Server, *Params) (any, error) {
		<-release
		return true, nil
	}})
	defer close(release)
	st, b := post(t, url, testUser, testPass, `{"method":"slow","id":1}`)
	r := decodeReply(t, b)
	if st != 500 || r.Error == nil || r.Error.Code != ErrInternal {
		t.Fatalf("timeout: %d %s", st, b)
	}
}

func TestTLS(t *testing.T) {
	dir := t.TempDir()
	s, _ := startServer(t, func(c *Config) { c.TLS, c.DataDir = true, dir })
	for _, f := range []string{"rpc.cert", "rpc.key"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("%s not generated: %v", f, err)
		}
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	req, _ := http.NewRequest(http.MethodPost, "https://"+s.Addrs()[0].String()+"/", strings.NewReader(`{"method":"uptime","id":1}`))
	req.SetBasicAuth(testUser, testPass)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Fatalf("TLS call: %d %s", resp.StatusCode, b)
	}
}

func hmacHex(salt, pass string) string {
	m := hmac.New(sha256.New, []byte(salt))
	m.Write([]byte(pass))
	return hex.EncodeToString(m.Sum(nil))
}

// TestPathsAndClientFilter: JSON-RPC lives at "/" and "/wallet/...",
// other paths are 404 as in bitcoind; with RestrictClients a client
// outside loopback and AllowIPs gets 403.
func TestPathsAndClientFilter(t *testing.T) {
	s, url := startServer(t, nil)
	if st, _ := post(t, url+"test2", testUser, testPass, `{"method":"uptime","id":1}`); st != 404 {
		t.Errorf("POST /test2: %d, want 404", st)
	}
	if st, _ := post(t, url+"wallet/w1", testUser, testPass, `{"method":"uptime","id":1}`); st != 200 {
		t.Errorf("POST /wallet/w1: %d, want 200", st)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if st, _, _ := doHTTP(t, req); st != 405 {
		t.Errorf("GET /: %d, want 405", st)
	}
	s.cfg.RestrictClients = true
	if !s.clientAllowed("127.0.0.1:5000") || !s.clientAllowed("[::1]:5000") {
		t.Error("loopback refused")
	}
	if s.clientAllowed("192.0.2.7:5000") {
		t.Error("outside client served without -rpcallowip")
	}
	s.cfg.AllowIPs = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	if !s.clientAllowed("192.0.2.7:5000") || s.clientAllowed("198.51.100.1:5000") {
		t.Error("AllowIPs not applied")
	}
}

// TestOversizedRequestLine: a request whose line and headers exceed
// bitcoind's 8 KiB gets 400, a long but acceptable one reaches routing.
func TestOversizedRequestLine(t *testing.T) {
	_, url := startServer(t, nil)
	for _, c := range []struct {
		n    int
		want int
	}{{1000, 404}, {10000, 400}} {
		req, _ := http.NewRequest(http.MethodGet, url+strings.Repeat("x", c.n), nil)
		if st, _, _ := doHTTP(t, req); st != c.want {
			t.Errorf("path of %d bytes: %d, want %d", c.n, st, c.want)
		}
	}
}
