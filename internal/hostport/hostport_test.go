package hostport

import "testing"

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in    string
		host  string
		port  uint16
		valid bool
	}{
		{"127.0.0.1", "127.0.0.1", 0, true},
		{"127.0.0.1:8332", "127.0.0.1", 8332, true},
		{"127.0.0.1:+80", "127.0.0.1", 80, true},
		{"localhost:notaport", "localhost:notaport", 0, false},
		{"127.0.0.1:-1", "127.0.0.1:-1", 0, false},
		{"127.0.0.1:0", "127.0.0.1", 0, false},
		{"127.0.0.1:65536", "127.0.0.1:65536", 0, false},
		{"::1", "::1", 0, true},
		{"[::1]", "::1", 0, true},
		{"[::1]:18999", "::1", 18999, true},
		{"[::1]:notaport", "[::1]:notaport", 0, false},
		{":5", "", 5, true},
		{"192.0.0.1:def", "192.0.0.1:def", 0, false},
	} {
		host, port, valid := Split(c.in)
		if host != c.host || port != c.port || valid != c.valid {
			t.Errorf("Split(%q) = %q %d %v, want %q %d %v", c.in, host, port, valid, c.host, c.port, c.valid)
		}
	}
}
