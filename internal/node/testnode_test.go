package node

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// testNode is a full node run in-process on loopback with run-time ports.
type testNode struct {
	t   *testing.T
	s   *server
	dir string
}

// newTestNode starts a regtest node in a temp dir. extra are more daemon
// options (e.g. --connect=...).
func newTestNode(t testing.TB, extra ...string) *testNode {
	t.Helper()
	if lv := os.Getenv("BTCD_TEST_LOG"); lv != "" {
		// Debugging aid: BTCD_TEST_LOG=info,SYNC=debug go test -run ...
		if l, err := parseDebugLevels(lv); err == nil {
			setLogLevels(l)
		}
	}
	dir := t.TempDir()
	args := []string{
		"--regtest", "--appdata=" + dir, "--datadir=" + filepath.Join(dir, "data"),
		"--logdir=" + filepath.Join(dir, "logs"), "--listen=127.0.0.1:0", "--rpclisten=127.0.0.1:0",
		"--rpcuser=u", "--rpcpass=p", "--utxocachemaxsize=64", "--nodnsseed",
	}
	s := startServer(t, append(args, extra...)...)
	n := &testNode{s: s, dir: dir}
	if tt, ok := t.(*testing.T); ok {
		n.t = tt
	}
	t.Cleanup(func() { s.Stop() })
	return n
}

// startServer loads args as the daemon's command line, opens the server
// and starts it; the caller stops it (tests that restart a node on the
// same data directory need that control, so there is no cleanup here).
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	cfg, err := loadConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	return s
}

// opTrueScript is P2WSH(OP_TRUE): a standard output anyone can spend with
// the witness [OP_TRUE].
var opTrueScript = func() []byte {
	h := sha256.Sum256([]byte{0x51})
	return append([]byte{0x00, 0x20}, h[:]...)
}()

// mine generates n blocks paying to opTrueScript with the mempool's
// transactions.
func (n *testNode) mine(t testing.TB, count int) []wire.Hash {
	t.Helper()
	return n.mineTo(t, count, opTrueScript)
}

// otherScript is an anyone-can-spend output script other than
// opTrueScript. Generated coinbases carry no extra nonce (as Core's), so
// blocks mined on the same parent in the same second to the same script
// are identical; tests building competing branches mine one of them here.
var otherScript = []byte{txscript.OP_2, txscript.OP_DROP, txscript.OP_TRUE}

// mineTo generates count blocks paying to script.
func (n *testNode) mineTo(t testing.TB, count int, script []byte) []wire.Hash {
	t.Helper()
	hs, err := n.s.generate(count, script, 0, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != count {
		t.Fatalf("mined %d of %d blocks", len(hs), count)
	}
	return hs
}

// submitBuilt finishes a block a test has edited after building it (its
// merkle root recomputed, its header solved) and submits it as mined.
func (n *testNode) submitBuilt(t testing.TB, blk *wire.MsgBlock) {
	t.Helper()
	blk.ClearHashCache()
	blk.Header.MerkleRoot, _ = blk.MerkleRoot()
	if !solveBlock(&blk.Header, defaultMaxTries) {
		t.Fatal("no nonce")
	}
	if err := n.s.submitMined(blk); err != nil {
		t.Fatal(err)
	}
}

// coinbaseOut returns the first output of the main chain's coinbase at
// height and its value.
func (n *testNode) coinbaseOut(t testing.TB, height int32) (wire.OutPoint, int64) {
	t.Helper()
	h, ok := n.s.chain.BlockHashByHeight(height)
	if !ok {
		t.Fatalf("no block at %d", height)
	}
	blk, err := n.s.chain.BlockByHash(&h)
	if err != nil {
		t.Fatal(err)
	}
	cb := blk.Transactions[0]
	return wire.OutPoint{Hash: cb.TxHash(), Index: 0}, cb.TxOut[0].Value
}

// opTrueSpend spends op (worth value) into k equal opTrueScript outputs.
func opTrueSpend(op wire.OutPoint, value int64, k int, fee int64) *wire.MsgTx {
	tx := &wire.MsgTx{Version: 2}
	tx.TxIn = []wire.TxIn{{PreviousOutPoint: op, Witness: [][]byte{{0x51}}, Sequence: wire.MaxTxInSequenceNum}}
	each := (value - fee) / int64(k)
	for i := 0; i < k; i++ {
		tx.TxOut = append(tx.TxOut, wire.TxOut{Value: each, PkScript: opTrueScript})
	}
	return tx
}

// addTxs fills the mempool with chains of spends of the coinbase at
// height: one fan-out into k outputs, then one spend of each output.
func (n *testNode) addTxs(t testing.TB, height int32, k int) int {
	t.Helper()
	op, v := n.coinbaseOut(t, height)
	fan := opTrueSpend(op, v, k, 10_000)
	if _, err := n.s.pool.AcceptTransaction(fan, mempoolOpts()); err != nil {
		t.Fatalf("fan-out: %v", err)
	}
	txid := fan.TxHash()
	for i := 0; i < k; i++ {
		tx := opTrueSpend(wire.OutPoint{Hash: txid, Index: uint32(i)}, fan.TxOut[i].Value, 1, 1_000)
		if _, err := n.s.pool.AcceptTransaction(tx, mempoolOpts()); err != nil {
			t.Fatalf("spend %d: %v", i, err)
		}
	}
	return k + 1
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sameTip waits until b's tip equals a's.
func sameTip(t testing.TB, timeout time.Duration, a, b *testNode) {
	t.Helper()
	waitFor(t, timeout, "tips to match", func() bool {
		return a.s.chain.BestSnapshot().Hash == b.s.chain.BestSnapshot().Hash
	})
}

// rpcError is the error member of a JSON-RPC reply.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpcCall performs one JSON-RPC call over HTTP with positional params.
func (n *testNode) rpcCall(t testing.TB, method string, params ...any) (json.RawMessage, *rpcError) {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	return n.rpcPost(t, method, params)
}

// rpcPost sends one JSON-RPC 1.0 request whose params are a list or, for
// named arguments, an object.
func (n *testNode) rpcPost(t testing.TB, method string, params any) (json.RawMessage, *rpcError) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "1.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", "http://"+n.s.rpcAddr(), bytes.NewReader(body))
	req.SetBasicAuth("u", "p")
	_, _, raw := doHTTP(t, req)
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: bad response %q: %v", method, raw, err)
	}
	return out.Result, out.Error
}

func TestServerBindFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir := t.TempDir()
	cfg, err := loadConfig([]string{"--regtest", "--appdata=" + dir, "--datadir=" + dir,
		"--listen=" + l.Addr().String(), "--norpc"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newServer(cfg); err == nil {
		t.Fatal("binding a used port succeeded")
	}
	// The databases were closed again: a second server can open them.
	startServer(t, "--regtest", "--appdata="+dir, "--datadir="+dir, "--nolisten", "--norpc").Stop()
}

func TestServerRestartKeepsChain(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten", "--norpc", "--persistmempool"}
	s := startServer(t, args...)
	n := &testNode{s: s}
	n.mine(t, 105)
	n.addTxs(t, 1, 3)
	tip := s.chain.BestSnapshot().Hash
	s.Stop()

	s = startServer(t, args...)
	defer s.Stop()
	waitFor(t, 10*time.Second, "mempool loaded", s.mempoolLoaded.Load)
	if got := s.chain.BestSnapshot().Hash; got != tip {
		t.Fatalf("tip after restart %v, want %v", got, tip)
	}
	if c := s.pool.Count(); c != 4 {
		t.Fatalf("mempool after restart has %d txs, want 4", c)
	}
}

func mempoolOpts() mempool.AcceptOptions { return mempool.AcceptOptions{} }
