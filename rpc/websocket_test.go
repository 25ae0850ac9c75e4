package rpc

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func TestWebsocketHeaderAuth(t *testing.T) {
	_, url := startServer(t, nil)
	c := wsDial(t, url, true)
	if string(c.ok("uptime")) == "" {
		t.Fatal("no uptime")
	}
	// Authenticating again drops the client, as btcd.
	c.id++
	c.c.WriteJSON(map[string]any{"id": c.id, "method": "authenticate", "params": []string{testUser, testPass}})
	c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, b, err := c.c.ReadMessage(); err == nil {
		// The reply may come first; the connection must close next.
		if _, _, err := c.c.ReadMessage(); err == nil {
			t.Fatalf("still connected after a second authenticate (%s)", b)
		}
	}

	// A wrong header is refused before the upgrade.
	h := http.Header{}
	h.Set("Authorization", basicAuth(testUser, "wrong"))
	_, resp, err := (&websocket.Dialer{HandshakeTimeout: 5 * time.Second}).Dial(wsURL(url), h)
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad credentials: err %v resp %v", err, resp)
	}
}

func TestWebsocketAuthenticateMessage(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.AuthFailDelay = time.Millisecond })
	c := wsDial(t, url, false)
	r := c.call("authenticate", testUser, testPass)
	if r.Error != nil || string(r.Result) != "null" {
		t.Fatalf("authenticate: %+v", r)
	}
	var sess map[string]uint64
	json.Unmarshal(c.ok("session"), &sess)
	if _, ok := sess["sessionid"]; !ok {
		t.Fatalf("session: %v", sess)
	}

	for _, first := range []string{
		`{"jsonrpc":"1.0","id":1,"method":"uptime","params":[]}`,
		`{"jsonrpc":"1.0","id":1,"method":"authenticate","params":["alice","bad"]}`,
		`not json`,
	} {
		c := wsDial(t, url, false)
		c.c.WriteMessage(websocket.TextMessage, []byte(first))
		c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, b, err := c.c.ReadMessage(); err == nil {
			t.Errorf("%s as first message answered %s instead of disconnecting", first, b)
		}
	}
}

func TestWebsocketDispatch(t *testing.T) {
	_, url := startServer(t, nil)
	c := wsDial(t, url, true)
	// Ordinary methods, errors and batches go through the HTTP
	// dispatcher.
	if r := c.call("nosuch"); r.Error == nil || r.Error.Code != ErrMethodNotFound {
		t.Fatalf("nosuch: %+v", r)
	}
	var help string
	json.Unmarshal(c.ok("help", "notifyblocks"), &help)
	if !strings.HasPrefix(help, "notifyblocks\n") {
		t.Fatalf("help notifyblocks: %q", help)
	}
	c.c.WriteMessage(websocket.TextMessage, []byte(`[{"jsonrpc":"2.0","id":7,"method":"uptime"},{"jsonrpc":"2.0","id":8,"method":"session"},{"jsonrpc":"2.0","method":"uptime"}]`))
	_, b, err := c.c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var batch []map[string]json.RawMessage
	if json.Unmarshal(b, &batch) != nil || len(batch) != 2 || string(batch[1]["id"]) != "8" || batch[1]["result"] == nil {
		t.Fatalf("batch reply %s", b)
	}
	// Websocket-only methods do not exist over HTTP, as in btcd.
	if e := mustError(t, url, "notifyblocks", []any{}, ErrMethodNotFound); e.Message != "Method not found" {
		t.Fatal(e.Message)
	}
	// GET on /ws without an upgrade is refused.
	req, _ := http.NewRequest(http.MethodGet, url+"ws", nil)
	req.SetBasicAuth(testUser, testPass)
	if st, _, _ := doHTTP(t, req); st != http.StatusBadRequest {
		t.Fatalf("plain GET /ws: HTTP %d", st)
	}
}

func TestWebsocketLimits(t *testing.T) {
	s, url := startServer(t, func(c *Config) { c.MaxWebsockets = 2; c.MaxRequestBytes = 1 << 16 })
	a := wsDial(t, url, true)
	wsDial(t, url, true)
	h := http.Header{}
	h.Set("Authorization", basicAuth(testUser, testPass))
	_, resp, err := (&websocket.Dialer{HandshakeTimeout: 5 * time.Second}).Dial(wsURL(url), h)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third client: err %v resp %v", err, resp)
	}
	if n := s.WebsocketClients(); n != 2 {
		t.Fatalf("%d clients", n)
	}
	// A message over the request limit ends the connection.
	a.c.WriteMessage(websocket.TextMessage, []byte(`{"method":"echo","params":["`+strings.Repeat("x", 1<<16)+`"],"id":1}`))
	a.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := a.c.ReadMessage(); err == nil {
		t.Fatal("oversized message answered")
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.WebsocketClients() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.WebsocketClients(); n != 1 {
		t.Fatalf("%d clients after a disconnect", n)
	}
}

func TestWebsocketSlowClientDropped(t *testing.T) {
	s, url := startServer(t, nil)
	wsDial(t, url, true) // never reads
	h := s.hub()
	var c *wsClient
	for deadline := time.Now().Add(5 * time.Second); c == nil && time.Now().Before(deadline); {
		h.mu.Lock()
		for x := range h.clients {
			c = x
		}
		h.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	if c == nil {
		t.Fatal("client not registered")
	}
	msg := make([]byte, 1<<20)
	for i := 0; i < 2*wsQueueBytes>>20 && c.send(msg); i++ {
	}
	select {
	case <-c.quit:
	case <-time.After(10 * time.Second):
		t.Fatal("client that does not read was not dropped")
	}
}

func TestWebsocketStopClosesClients(t *testing.T) {
	s, url := startServer(t, nil)
	c := wsDial(t, url, true)
	c.ok("uptime")
	s.Stop()
	c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.c.ReadMessage(); err == nil {
		t.Fatal("client still connected after Stop")
	}
}

func TestWebsocketAuthTimeout(t *testing.T) {
	old := wsAuthTimeout.Swap(int64(200 * time.Millisecond))
	defer wsAuthTimeout.Store(old)
	_, url := startServer(t, nil)
	c := wsDial(t, url, false)
	start := time.Now()
	c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.c.ReadMessage(); err == nil || time.Since(start) > 4*time.Second {
		t.Fatalf("silent unauthenticated client not dropped: %v after %v", err, time.Since(start))
	}
}
