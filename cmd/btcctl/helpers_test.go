package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func init() {
	// -rpcwait's pause between attempts, short so that tests stay fast.
	retryDelay = 20 * time.Millisecond
}

// runCLI runs the client in-process and returns its exit status, stdout
// and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// fakeCall is one JSON-RPC call the fake server received.
type fakeCall struct {
	path, method string
	params       *jval
}

// fakeReply is the fake server's answer to a call: result is raw JSON
// (empty for null); a non-zero code makes it an error reply.
type fakeReply struct {
	result  string
	code    int
	message string
}

// fakeServer is a JSON-RPC server on 127.0.0.1 at a port chosen at run
// time, answering with a test's function.
type fakeServer struct {
	srv    *httptest.Server
	port   string
	auth   string // "user:pass" it accepts; "" accepts anything
	mu     sync.Mutex
	calls  []fakeCall
	bodies []string
	answer func(c fakeCall) fakeReply
	status int // when non-zero, every request gets this HTTP status
}

func newFakeServer(t *testing.T, answer func(c fakeCall) fakeReply) *fakeServer {
	t.Helper()
	f := &fakeServer{answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	_, f.port, _ = net.SplitHostPort(f.srv.Listener.Addr().String())
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	status := f.status
	f.mu.Unlock()
	if status != 0 {
		w.WriteHeader(status)
		io.WriteString(w, "Work queue depth exceeded")
		return
	}
	if f.auth != "" {
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte(f.auth))
		if r.Header.Get("Authorization") != want {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
	}
	req, err := parseJSON(body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	one := func(q *jval) string {
		c := fakeCall{path: r.URL.EscapedPath(), method: q.get("method").valStr(), params: q.get("params")}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		rep := f.answer(c)
		id := q.get("id").write(0)
		if rep.code != 0 {
			msg := jString(rep.message).write(0)
			return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":%d,"message":%s},"id":%s}`, rep.code, msg, id)
		}
		res := rep.result
		if res == "" {
			res = "null"
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","result":%s,"id":%s}`, res, id)
	}
	w.Header().Set("Content-Type", "application/json")
	if req.isArr() {
		var parts []string
		for _, q := range req.vals {
			parts = append(parts, one(q))
		}
		io.WriteString(w, "["+strings.Join(parts, ",")+"]\n")
		return
	}
	io.WriteString(w, one(req)+"\n")
}

// lastBody returns the last request body received.
func (f *fakeServer) lastBody() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		return ""
	}
	return f.bodies[len(f.bodies)-1]
}

// callsSeen returns the calls received so far.
func (f *fakeServer) callsSeen() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall{}, f.calls...)
}

// coreDataDir makes a bitcoin-cli style data directory: bitcoin.conf with
// regtest=1 and the port in [regtest], and a cookie in regtest/.
func newCoreDataDir(t *testing.T, port, cookie string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bitcoin.conf"), "regtest=1\n[regtest]\nrpcport="+port+"\nserver=1\n")
	if cookie != "" {
		writeFile(t, filepath.Join(dir, "regtest", ".cookie"), cookie)
	}
	return dir
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// freePort returns a loopback port nothing listens on (it was free a
// moment ago).
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}
