package node

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/metrics"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/wire"
)

// scrape fetches the metrics page.
func scrape(t *testing.T, addr string) string {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

// hasSeries reports whether page holds the exact sample line.
func hasSeries(page, line string) bool {
	for _, l := range strings.Split(page, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

func TestMetricsEndpoint(t *testing.T) {
	port := freePort(t)
	n := newTestNode(t, fmt.Sprintf("--metrics=%d", port))
	if n.s.metricsSrv == nil {
		t.Fatal("metrics server not started")
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if got := n.s.metricsSrv.Addr().String(); got != addr {
		t.Fatalf("metrics on %s, want %s (bare port means loopback)", got, addr)
	}

	n.mine(t, 101)
	n.addTxs(t, 1, 2)
	n.mine(t, 2)
	if _, rerr := n.rpcCall(t, "getblockcount"); rerr != nil {
		t.Fatal(rerr)
	}
	if _, rerr := n.rpcCall(t, "getblockhash", 1_000_000); rerr == nil {
		t.Fatal("getblockhash beyond the tip succeeded")
	}
	// A transaction paying no fee is refused through sendrawtransaction.
	op, v := n.coinbaseOut(t, 2)
	free := opTrueSpend(op, v, 1, 0)
	if _, rerr := n.rpcCall(t, "sendrawtransaction", hex.EncodeToString(free.AppendTo(nil, true))); rerr == nil {
		t.Fatal("zero-fee transaction accepted")
	}
	p := dialRawPeer(t, n)
	waitFor(t, 30*time.Second, "peer to register", func() bool { return len(n.s.peerList()) == 1 })
	// The verack is counted when its write finishes, which may come just
	// after the peer registers.
	var page string
	waitFor(t, 30*time.Second, "verack to be counted", func() bool {
		page = scrape(t, addr)
		return hasSeries(page, `btcd_peers_messages_total{command="verack",direction="out"} 1`)
	})
	for _, want := range []string{
		"btcd_chain_best_block_height 103",
		"btcd_chain_best_header_height 103",
		"btcd_chain_blocks_connected_total 103",
		"btcd_mempool_txs_accepted_total 3",
		"btcd_mempool_transactions 0",
		`btcd_rpc_calls_total{method="getblockcount"} 1`,
		`btcd_rpc_errors_total{method="getblockhash"} 1`,
		`btcd_peers_connected{direction="inbound"} 1`,
		`btcd_peers_messages_total{command="version",direction="in"} 1`,
		`btcd_peers_messages_total{command="verack",direction="out"} 1`,
	} {
		if !hasSeries(page, want) {
			t.Errorf("scrape lacks %q", want)
		}
	}
	for _, prefix := range []string{
		"btcd_chain_block_validation_duration_seconds_count ",
		`btcd_leveldb_io_write_bytes_total{db="chainstate"} `,
		"btcd_utxo_cache_budget_bytes ",
		"btcd_chain_sig_cache_hits_total ",
	} {
		if !strings.Contains(page, "\n"+prefix) {
			t.Errorf("scrape lacks a %q series", prefix)
		}
	}
	rejected := false
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(l, `btcd_mempool_txs_rejected_total{reason="`) && strings.HasSuffix(l, "} 1") {
			rejected = true
		}
	}
	if !rejected {
		t.Error("the refused transaction was not counted by reason")
	}
	if hasSeries(page, "btcd_chain_block_validation_duration_seconds_count 0") {
		t.Error("mined blocks were not timed")
	}
	p.c.Close()
}

func TestMetricsDisabledByDefault(t *testing.T) {
	n := newTestNode(t)
	if n.s.metrics != nil || n.s.metricsSrv != nil {
		t.Fatal("metrics enabled without --metrics")
	}
	if _, err := loadConfig([]string{"--regtest", "--appdata=" + t.TempDir(), "--metrics=host:notaport"}); err == nil {
		t.Fatal("bad --metrics accepted")
	}
}

// counterValue reads one unlabelled counter from m's registry.
func counterValue(t *testing.T, m *metrics.Metrics, name string) float64 {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no counter %s", name)
	return 0
}

// TestChainMetricsReorg: disconnections followed by a tip change count as
// one reorganisation; plain extensions do not.
func TestChainMetricsReorg(t *testing.T) {
	m := metrics.New(metrics.Options{NoRuntimeCollectors: true})
	c := &chainMetrics{m: m}
	blk := &wire.MsgBlock{Transactions: []*wire.MsgTx{{}, {}}}
	for _, ty := range []blockchain.NotificationType{
		blockchain.NTBlockConnected, blockchain.NTTipChanged, // extension
		blockchain.NTBlockDisconnected, blockchain.NTBlockDisconnected, // reorg
		blockchain.NTBlockConnected, blockchain.NTBlockConnected, blockchain.NTTipChanged,
		blockchain.NTBlockConnected, blockchain.NTTipChanged, // extension
	} {
		n := &blockchain.Notification{Type: ty}
		if ty != blockchain.NTTipChanged {
			n.Block = blk
		}
		c.notify(n)
	}
	for name, want := range map[string]float64{
		"btcd_chain_reorgs_total":                 1,
		"btcd_chain_blocks_connected_total":       4,
		"btcd_chain_blocks_disconnected_total":    2,
		"btcd_chain_transactions_connected_total": 8,
	} {
		if got := counterValue(t, m, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

// BenchmarkPeerMetricsHook is the per-message cost the metrics add to a
// peer's read loop.
func BenchmarkPeerMetricsHook(b *testing.B) {
	s := &server{metrics: metrics.New(metrics.Options{NoRuntimeCollectors: true})}
	var l peer.MessageListeners
	s.hookPeerMetrics(&l)
	msg := &wire.MsgPing{Nonce: 1}
	b.ReportAllocs()
	for b.Loop() {
		l.OnRead(nil, 32, msg, nil)
	}
}
