//go:build linux

package portmap

import (
	"bufio"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestParseRoutes(t *testing.T) {
	table := "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
		"eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n" +
		"eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
	gw, err := parseRoutes(bufio.NewScanner(strings.NewReader(table)))
	if err != nil || gw != netip.MustParseAddr("192.168.1.1") {
		t.Fatalf("gateway %v %v", gw, err)
	}
	noDefault := table[:strings.Index(table, "eth0\t00000000")]
	if _, err := parseRoutes(bufio.NewScanner(strings.NewReader(noDefault))); !errors.Is(err, ErrNoGateway) {
		t.Fatalf("no default route: %v", err)
	}
}
