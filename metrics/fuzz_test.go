package metrics

import (
	"errors"
	"net"
	"strconv"
	"testing"
)

// FuzzNormalizeAddr checks that any accepted --metrics value becomes a
// host:port with a non-empty host and a numeric 16-bit port, and that
// normalizing is idempotent.
func FuzzNormalizeAddr(f *testing.F) {
	for _, s := range []string{"9332", ":9332", "0.0.0.0:9332", "[::1]:0", "localhost:65535", "", "host", "[::1", "1:2:3", "65536", "a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeAddr(s)
		if err != nil {
			if !errors.Is(err, ErrBadAddress) {
				t.Fatalf("%q: error %v is not ErrBadAddress", s, err)
			}
			return
		}
		host, port, err := net.SplitHostPort(got)
		if err != nil || host == "" {
			t.Fatalf("%q -> %q: host %q, %v", s, got, host, err)
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			t.Fatalf("%q -> %q: port %q", s, got, port)
		}
		if again, err := NormalizeAddr(got); err != nil || again != got {
			t.Fatalf("%q -> %q -> %q, %v", s, got, again, err)
		}
	})
}

// FuzzLabels checks that arbitrary label values never escape the bounded
// sets and never panic.
func FuzzLabels(f *testing.F) {
	f.Add("tx", "not standard", "getblock")
	f.Add("\x00\xff", "", "")
	m := New(Options{NoRuntimeCollectors: true, RPCMethods: []string{"getblock"}})
	f.Fuzz(func(t *testing.T, cmd, reason, method string) {
		m.PeerMessage(cmd, len(cmd)%2 == 0, len(cmd))
		m.TxRejected(reason)
		m.RPCCall(method, 0, false)
		fams := gather(t, m)
		if n := len(fams["btcd_mempool_txs_rejected_total"].GetMetric()); n > len(RejectReasons)+1 {
			t.Fatalf("%d reject series", n)
		}
		if n := len(fams["btcd_rpc_calls_total"].GetMetric()); n > 2 {
			t.Fatalf("%d rpc series", n)
		}
		if n := len(fams["btcd_peers_messages_total"].GetMetric()); n > 2*(len(PeerCommands)+1) {
			t.Fatalf("%d message series", n)
		}
	})
}
