package main

import (
	"strings"
	"testing"
	"time"
)

const netinfoNetworkInfo = `{"version":300000,"subversion":"/Satoshi:30.0.0/","protocolversion":70016,` +
	`"localservicesnames":["NETWORK","WITNESS","NETWORK_LIMITED","P2P_V2"],` +
	`"networks":[{"name":"ipv4","reachable":true},{"name":"ipv6","reachable":true},{"name":"onion","reachable":false},{"name":"i2p","reachable":false},{"name":"cjdns","reachable":false}],` +
	`"localaddresses":[{"address":"203.0.113.7","port":8333,"score":4}]}`

// netinfoPeers are two peers seen at netinfoNow.
const netinfoPeers = `[` +
	`{"id":0,"addr":"198.51.100.1:8333","network":"ipv4","inbound":false,"relaytxes":true,"connection_type":"outbound-full-relay",` +
	`"conntime":1000,"last_block":1400,"lastrecv":1595,"lastsend":1598,"last_transaction":0,"minping":0.0123,"pingtime":0.0201,` +
	`"servicesnames":["NETWORK","WITNESS"],"subver":"/Satoshi:30.0.0/","version":70016,"transport_protocol_type":"v2",` +
	`"addr_relay_enabled":true,"addr_processed":12,"addr_rate_limited":0,"bip152_hb_from":true,"bip152_hb_to":false},` +
	`{"id":13,"addr":"[2001:db8::5]:50000","network":"ipv6","inbound":true,"relaytxes":false,"connection_type":"inbound",` +
	`"conntime":400,"last_block":0,"lastrecv":1590,"lastsend":1590,"last_transaction":0,"minping":0.5,"pingtime":0.6,` +
	`"servicesnames":[],"subver":"/btcd:0.1.0-alpha/","version":70016,"transport_protocol_type":"v1",` +
	`"addr_relay_enabled":false,"addr_processed":0,"addr_rate_limited":3,"bip152_hb_from":false,"bip152_hb_to":true},` +
	`{"id":2,"addr":"10.0.0.2:1","network":"not_publicly_routable","inbound":false,"connection_type":"block-relay-only",` +
	`"conntime":1500,"lastrecv":0,"lastsend":0,"servicesnames":["NETWORK"],"subver":"","version":0}]`

var netinfoNow = time.Unix(1600, 0)

func netinfoRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f := newFakeServer(t, func(c fakeCall) fakeReply {
		switch c.method {
		case "getpeerinfo":
			return fakeReply{result: netinfoPeers}
		case "getnetworkinfo":
			return fakeReply{result: netinfoNetworkInfo}
		}
		return fakeReply{code: rpcMethodNotFound, message: "Method not found"}
	})
	dir := newCoreDataDir(t, f.port, "u:p")
	s, rest := parseSettings(t, append([]string{"-datadir=" + dir, "-netinfo"}, args...)...)
	cfg, err := loadConfig(s, rest, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	c := &cli{cfg: cfg, stdin: nil, stdout: &out, stderr: &errb, now: func() time.Time { return netinfoNow }, retryDelay: retryDelay}
	code := c.commandLineRPC()
	return code, out.String(), errb.String()
}

func TestNetinfoLevel0(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	code, out, errs := netinfoRun(t)
	want := "btcctl client v" + clientVersion + " regtest - server 70016/Satoshi:30.0.0/\n" +
		"\n" +
		"         ipv4    ipv6     npr   total   block\n" +
		"in          0       1       0       1\n" +
		"out         1       0       1       2       1\n" +
		"total       1       1       1       3\n" +
		"\n" +
		"Local services: network, witness, network limited, p2p v2\n" +
		"\n" +
		"Local addresses\n" +
		"203.0.113.7     port   8333    score      4\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("-netinfo:\n%s\nwant\n%s\n%q", out, want, errs)
	}
}

func TestNetinfoLevel4(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	code, out, errs := netinfoRun(t, "4")
	want := "btcctl client v" + clientVersion + " regtest - server 70016/Satoshi:30.0.0/ - services nwl2\n" +
		"\n" +
		"<->   type   net   serv  v  mping   ping send recv  txn  blk  hb addrp addrl  age id address             version\n" +
		" in         ipv6         1    500    600   10   10    *       .      .     3   20 13 [2001:db8::5]:50000 70016/btcd:0.1.0-alpha/\n" +
		"out  block   npr      n  1                                           .          1  2 10.0.0.2:1          \n" +
		"out   full  ipv4     nw  2     12     20    2    5         3   *    12         10  0 198.51.100.1:8333   70016/Satoshi:30.0.0/\n" +
		"                               ms     ms  sec  sec  min  min                  min\n" +
		"\n" +
		"         ipv4    ipv6     npr   total   block\n" +
		"in          0       1       0       1\n" +
		"out         1       0       1       2       1\n" +
		"total       1       1       1       3\n" +
		"\n" +
		"Local addresses\n" +
		"203.0.113.7     port   8333    score      4\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("-netinfo 4:\n%s\nwant\n%s\n%q", out, want, errs)
	}
	// Outbound only, without the address and version columns.
	_, out, _ = netinfoRun(t, "1", "outonly")
	if strings.Contains(out, "\n in ") || !strings.Contains(out, "\nout   full") || strings.Contains(out, "id address") {
		t.Errorf("-netinfo 1 outonly:\n%s", out)
	}
	// Levels above 4 read as 4.
	if _, out, _ = netinfoRun(t, "255"); !strings.Contains(out, "address") || !strings.Contains(out, "version") {
		t.Errorf("-netinfo 255:\n%s", out)
	}
	if code, _, errs := netinfoRun(t, "256"); code != 1 || errs != "error: invalid -netinfo level argument: 256\nFor more information, run: btcctl -netinfo help\n" {
		t.Errorf("-netinfo 256: %d %q", code, errs)
	}
}
