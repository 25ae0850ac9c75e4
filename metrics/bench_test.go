package metrics

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// The hot-path benchmarks measure one recorded event each; children are
// created before the timer starts, as they would be after the first
// message of each command in a running node.

func BenchmarkPeerMessage(b *testing.B) {
	m := New(Options{NoRuntimeCollectors: true})
	m.PeerMessage("inv", true, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.PeerMessage("inv", true, 61)
	}
}

func BenchmarkPeerMessageParallel(b *testing.B) {
	m := New(Options{NoRuntimeCollectors: true})
	m.PeerMessage("tx", false, 1)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.PeerMessage("tx", false, 250)
		}
	})
}

func BenchmarkBlockConnected(b *testing.B) {
	m := New(Options{NoRuntimeCollectors: true})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.BlockConnected(2500, 80*time.Millisecond)
	}
}

func BenchmarkRPCCall(b *testing.B) {
	m := New(Options{NoRuntimeCollectors: true})
	m.RPCCall("getblockcount", time.Microsecond, false)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.RPCCall("getblockcount", 40*time.Microsecond, false)
	}
}

func BenchmarkTxRejected(b *testing.B) {
	m := New(Options{NoRuntimeCollectors: true})
	m.TxRejected("missing inputs")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.TxRejected("missing inputs")
	}
}

func BenchmarkNilMetrics(b *testing.B) {
	var m *Metrics
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.PeerMessage("inv", true, 61)
		m.BlockConnected(1, time.Millisecond)
	}
}

// BenchmarkScrape is the cost of one full /metrics request with the
// runtime collectors on (what a 15 s Prometheus scrape interval adds).
func BenchmarkScrape(b *testing.B) {
	m := New(Options{Sources: Sources{
		Chain:   func() ChainStats { return ChainStats{HeaderHeight: 1, BlockHeight: 1} },
		Peers:   func() (int, int) { return 8, 10 },
		Mempool: func() MempoolStats { return MempoolStats{Count: 5000} },
	}})
	for _, c := range PeerCommands {
		m.PeerMessage(c, true, 1)
		m.PeerMessage(c, false, 1)
	}
	s, err := Serve("127.0.0.1:0", m)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	url := "http://" + s.Addr().String() + Path
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
