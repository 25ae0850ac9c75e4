package rpc

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/btcnode/btcd/chaincfg"
)

const testUser, testPass = "alice", "secret"

// startServer starts a server on 127.0.0.1:0 with user/password auth.
func startServer(t testing.TB, mod func(c *Config)) (*Server, string) {
	t.Helper()
	cfg := Config{
		Listeners:     []string{"127.0.0.1:0"},
		User:          testUser,
		Pass:          testPass,
		DataDir:       t.TempDir(),
		Net:           NetParamsOf(&chaincfg.RegressionNetParams),
		AuthFailDelay: 250 * time.Millisecond,
	}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Stop() })
	return s, "http://" + s.Addrs()[0].String() + "/"
}

// post sends body with basic auth and returns status and body.
func post(t testing.TB, url, user, pass, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	if user != "" || pass != "" {
		req.SetBasicAuth(user, pass)
	}
	status, _, b := doHTTP(t, req)
	return status, b
}

// doHTTP sends req with a bounded client and returns the status, the
// content type and the whole body.
func doHTTP(t testing.TB, req *http.Request) (int, string, []byte) {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// reply is a decoded JSON-RPC reply with member presence recorded.
type reply struct {
	raw    map[string]json.RawMessage
	Result json.RawMessage
	Error  *Error
}

func decodeReply(t testing.TB, b []byte) reply {
	t.Helper()
	var r reply
	if err := json.Unmarshal(b, &r.raw); err != nil {
		t.Fatalf("bad reply %q: %v", b, err)
	}
	r.Result = r.raw["result"]
	if e, ok := r.raw["error"]; ok && string(e) != "null" {
		r.Error = &Error{}
		if err := json.Unmarshal(e, r.Error); err != nil {
			t.Fatalf("bad error %s", e)
		}
	}
	return r
}

// rpcCall makes a JSON-RPC 2.0 call and returns the reply.
func rpcCall(t testing.TB, url, method string, params any) reply {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	st, b := post(t, url, testUser, testPass, string(body))
	if st != http.StatusOK {
		t.Fatalf("%s: HTTP %d: %s", method, st, b)
	}
	return decodeReply(t, b)
}

// mustResult calls and decodes the result into a generic value.
func mustResult(t testing.TB, url, method string, params any) any {
	t.Helper()
	r := rpcCall(t, url, method, params)
	if r.Error != nil {
		t.Fatalf("%s(%v): error %d %s", method, params, r.Error.Code, r.Error.Message)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(r.Result))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: decode result: %v", method, err)
	}
	return v
}

func mustError(t testing.TB, url, method string, params any, code ErrorCode) *Error {
	t.Helper()
	r := rpcCall(t, url, method, params)
	if r.Error == nil {
		t.Fatalf("%s(%v): want error %d, got result %s", method, params, code, r.Result)
	}
	if r.Error.Code != code {
		t.Fatalf("%s(%v): error code %d (%s), want %d", method, params, r.Error.Code, r.Error.Message, code)
	}
	if _, ok := r.raw["result"]; ok {
		t.Fatalf("2.0 error reply carries result: %v", r.raw)
	}
	return r.Error
}

// shape is the expected JSON type of each field of an object ("string",
// "number", "boolean", "array", "object"); a "?" suffix marks an optional
// field.
type shape map[string]string

func checkShape(t testing.TB, what string, v any, want shape) {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object: %#v", what, v)
	}
	for k, typ := range want {
		opt := false
		if typ[len(typ)-1] == '?' {
			opt, typ = true, typ[:len(typ)-1]
		}
		fv, present := obj[k]
		if !present {
			if !opt {
				t.Errorf("%s: missing field %q", what, k)
			}
			continue
		}
		if got := goJSONType(fv); got != typ {
			t.Errorf("%s: field %q is %s, want %s", what, k, got, typ)
		}
	}
	for k := range obj {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected field %q", what, k)
		}
	}
}

func goJSONType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return "?"
}
