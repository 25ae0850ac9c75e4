package rpc

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawRequest is an HTTP/1.1 POST with no Host header, as Core's test
// framework writes by hand.
func rawRequest(body string, chunked bool) string {
	auth := base64.StdEncoding.EncodeToString([]byte(testUser + ":" + testPass))
	req := "POST / HTTP/1.1\r\nAuthorization: Basic " + auth + "\r\n"
	if !chunked {
		return req + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	// Two chunks, a chunk extension and a trailer.
	half := len(body) / 2
	return req + fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x;ext=1\r\n%s\r\n%x\r\n%s\r\n0\r\nX-Trailer: 1\r\n\r\n",
		half, body[:half], len(body)-half, body[half:])
}

// dialRaw opens a plain TCP connection to the server at url, closed with
// the test and bounded by timeout.
func dialRaw(t *testing.T, url string, timeout time.Duration) net.Conn {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(timeout))
	return conn
}

// Pipelined HTTP/1.1 requests without a Host header are answered, in
// order, as bitcoind answers them; Go's net/http alone refuses them.
func TestRequestsWithoutHostHeader(t *testing.T) {
	_, url := startServer(t, nil)
	conn := dialRaw(t, url, 20*time.Second)
	body := `{"method":"uptime","id":%d}`
	var all string
	for i := range 3 {
		all += rawRequest(fmt.Sprintf(body, i), i == 1)
	}
	// One write, so that the requests arrive pipelined and the framing
	// must be followed across them.
	if _, err := io.WriteString(conn, all); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	for i := range 3 {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(fmt.Sprintf(`"id":%d`, i))) {
			t.Fatalf("response %d: %d %s", i, resp.StatusCode, b)
		}
	}
}

// feedAll runs data through a hostConn's framing in pieces of n bytes.
func feedAll(data []byte, n int) []byte {
	c := &hostConn{}
	var out []byte
	for len(data) > 0 {
		k := min(n, len(data))
		c.feed(data[:k])
		data = data[k:]
		out = append(out, c.out...)
		c.out = nil
	}
	return append(out, c.pend...)
}

func TestHostConnFraming(t *testing.T) {
	in := "GET /a HTTP/1.1\r\n\r\n" + "POST /b HTTP/1.1\r\nContent-Length: 5\r\n\r\nGET /" +
		"GET /c HTTP/1.1\r\nHost: h\r\n\r\n" + "GET /d HTTP/1.0\r\n\r\n" +
		"POST /e HTTP/1.1\nTransfer-Encoding: chunked\n\n3\r\nabc\r\n0\r\n\r\n" + "GET /f HTTP/1.1\r\n\r\n"
	want := "GET /a HTTP/1.1\r\nHost:\r\n\r\n" + "POST /b HTTP/1.1\r\nHost:\r\nContent-Length: 5\r\n\r\nGET /" +
		"GET /c HTTP/1.1\r\nHost: h\r\n\r\n" + "GET /d HTTP/1.0\r\n\r\n" +
		"POST /e HTTP/1.1\nHost:\r\nTransfer-Encoding: chunked\n\n3\r\nabc\r\n0\r\n\r\n" + "GET /f HTTP/1.1\r\nHost:\r\n\r\n"
	for _, n := range []int{1, 2, 3, 7, len(in)} {
		if got := string(feedAll([]byte(in), n)); got != want {
			t.Errorf("pieces of %d:\n%q\nwant\n%q", n, got, want)
		}
	}
	// Beyond the head bound the stream passes untouched.
	long := "GET /" + strings.Repeat("x", maxHostConnHead) + " HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n"
	if got := string(feedAll([]byte(long), 4096)); got != long {
		t.Error("oversized head was altered")
	}
	// Garbage framing stops the rewriting.
	bad := "POST / HTTP/1.1\r\nContent-Length: x\r\n\r\nGET / HTTP/1.1\r\n\r\n"
	if got := string(feedAll([]byte(bad), 5)); got != bad {
		t.Errorf("bad framing altered: %q", got)
	}
}

func FuzzHostConn(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\n\r\n",
		"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n",
		"\r\n\r\nGET / HTTP/1.0\n\n",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		out := feedAll(data, int(n)+1)
		lower := bytes.ToLower(data)
		if bytes.Contains(lower, []byte("/rest/")) || bytes.Contains(lower, []byte(strings.ToLower(restRawTargetHeader))) {
			// REST targets may be escaped and carried in a header of
			// their own (restRawTargetHeader), once per head.
			if len(out) > 4*len(data)+(7+len(restRawTargetHeader)+4)*(len(data)/18+1) {
				t.Fatalf("output grew too much: %d from %d", len(out), len(data))
			}
			return
		}
		// Otherwise only Host headers are ever added.
		stripped := bytes.ReplaceAll(out, []byte("Host:\r\n"), nil)
		if !bytes.Equal(bytes.ReplaceAll(data, []byte("Host:\r\n"), nil), stripped) {
			t.Fatalf("stream changed beyond Host headers:\n%q\n%q", data, out)
		}
		if len(out) > len(data)+7*(len(data)/18+1) {
			t.Fatalf("output grew too much: %d from %d", len(out), len(data))
		}
	})
}

// An unfinished request head is dropped after -rpcservertimeout, as
// bitcoind does, not after a fixed longer bound.
func TestIncompleteRequestTimesOut(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.IdleTimeout = time.Second })
	conn := dialRaw(t, url, 10*time.Second)
	io.WriteString(conn, "GET /test1 HTTP/1.1\r\nHost: somehost\r\n")
	start := time.Now()
	n, err := conn.Read(make([]byte, 64))
	if n != 0 || err == nil {
		t.Fatalf("read %d, %v: want the connection closed", n, err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("closed after %v, want about 1s", d)
	}
}
