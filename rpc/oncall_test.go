package rpc

import (
	"sync"
	"testing"
	"time"
)

// TestOnCall reports each finished call with its method and error, for
// the metrics endpoint.
func TestOnCall(t *testing.T) {
	type call struct {
		method string
		failed bool
	}
	var mu sync.Mutex
	var calls []call
	_, url := startServer(t, func(c *Config) {
		c.OnCall = func(m string, d time.Duration, err error) {
			mu.Lock()
			calls = append(calls, call{m, err != nil})
			mu.Unlock()
		}
	})
	post(t, url, testUser, testPass, `{"jsonrpc":"2.0","id":1,"method":"uptime"}`)
	post(t, url, testUser, testPass, `{"jsonrpc":"2.0","id":2,"method":"decodescript","params":["zz"]}`)
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 || calls[0] != (call{"uptime", false}) || calls[1] != (call{"decodescript", true}) {
		t.Fatalf("calls %+v", calls)
	}
	if names := MethodNames(); len(names) < 50 || names[0] > names[1] {
		t.Fatalf("method names %v", names)
	}
}
