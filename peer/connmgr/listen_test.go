package connmgr

import (
	"net"
	"strings"
	"testing"
)

// TestListenExplicitAddresses: an explicit IPv4 address is bound as an
// IPv4 socket, reported as given ("0.0.0.0:port", not Go's dual-stack
// "[::]:port"), and an explicit IPv6 address as an IPv6-only socket.
func TestListenExplicitAddresses(t *testing.T) {
	ls, err := Listen([]string{"0.0.0.0:0", "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		defer l.Close()
		if a := l.Addr().String(); strings.HasPrefix(a, "[") {
			t.Errorf("IPv4 bind reported as %s", a)
		}
	}
	if !strings.HasPrefix(ls[0].Addr().String(), "0.0.0.0:") {
		t.Errorf("wildcard IPv4 bind reported as %s", ls[0].Addr())
	}
	l6, err := Listen([]string{"[::1]:0"})
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	defer l6[0].Close()
	if a := l6[0].Addr().(*net.TCPAddr); a.IP.To4() != nil || !a.IP.IsLoopback() {
		t.Errorf("IPv6 bind reported as %s", a)
	}
}
