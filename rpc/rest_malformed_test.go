package rpc

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestRESTMalformedURIAnswered: a REST URI that is not valid RFC 3986 (a
// '%' that starts no escape, which net/http refuses on its own with a
// bare "400 Bad Request") is answered by the REST interface with
// bitcoind's text: "URI parsing failed" where the endpoint reads a query
// parameter, its usual error otherwise. Requests are written raw, as no
// Go client sends such a URI.
func TestRESTMalformedURIAnswered(t *testing.T) {
	f := newFakeChain()
	_, url := startServer(t, func(c *Config) { c.Backend = restBackends(f); c.REST = true })
	h := f.hashes[0].String()
	for _, c := range []struct{ path, want string }{
		{"/rest/headers/" + h + "%.json", errQueryParse},
		{"/rest/blockfilterheaders/basic/" + h + "%.json", errQueryParse},
		{"/rest/mempool/contents.json?%.json", errQueryParse},
		{"/rest/headers/" + h + ".json?count=%zz", errQueryParse},
		{"/rest/block/%zz.json", "Invalid hash: %zz"},
		{"/rest/tx/%.json", "Invalid hash: %"},
	} {
		conn := dialRaw(t, url, 10*time.Second)
		// Without a Host header and with one that claims to carry the
		// raw target: the client's copy is not believed.
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nX-Btcd-Rest-Target: /rest/chaininfo.json\r\n\r\n", c.path)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("GET %s: %v", c.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || string(b) != c.want+"\r\n" {
			t.Errorf("GET %s: %d %q, want 400 %q", c.path, resp.StatusCode, b, c.want)
		}
	}
	// A client cannot pass its own raw target for a valid URI.
	conn := dialRaw(t, url, 10*time.Second)
	fmt.Fprintf(conn, "GET /rest/chaininfo.json HTTP/1.1\r\nHost: x\r\nX-Btcd-Rest-Target: /rest/block/zz.json\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("chaininfo with a client's raw-target header: %d", resp.StatusCode)
	}
}

// TestHostConnStrayPercent: hostConn escapes a stray '%' in a REST target
// only, passes the target as sent in restRawTargetHeader, and drops the
// client's own copies of that header.
func TestHostConnStrayPercent(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"GET /rest/block/%zz.json HTTP/1.1\r\nHost: h\r\nX-Btcd-Rest-Target: /x\r\n\r\n",
			"GET /rest/block/%25zz.json HTTP/1.1\r\nX-Btcd-Rest-Target: /rest/block/%zz.json\r\nHost: h\r\n\r\n"},
		{"GET /rest/headers/ab% HTTP/1.1\r\n\r\n",
			"GET /rest/headers/ab%25 HTTP/1.1\r\nHost:\r\nX-Btcd-Rest-Target: /rest/headers/ab%\r\n\r\n"},
		{"GET /rest/chaininfo.json HTTP/1.1\r\nx-btcd-rest-target: /rest/tx/1.json\r\nHost: h\r\n\r\n",
			"GET /rest/chaininfo.json HTTP/1.1\r\nHost: h\r\n\r\n"},
		{"GET /rest/headers/%41.json?count=%zz HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET /rest/headers/%41.json?count=%zz HTTP/1.1\r\nHost: h\r\n\r\n"}, // net/http takes it
		{"GET /other/%zz HTTP/1.1\r\nHost: h\r\n\r\n", "GET /other/%zz HTTP/1.1\r\nHost: h\r\n\r\n"},
	} {
		if got := string(feedAll([]byte(c.in), 5)); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
