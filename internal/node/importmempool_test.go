package node

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/wire"
)

// coreMempoolBytes writes a Core mempool.dat (version 1, or 2 obfuscated
// with key).
func coreMempoolBytes(t *testing.T, version uint64, key [8]byte, f *mempool.MempoolFile) []byte {
	t.Helper()
	f.Version, f.Key = version, key
	b, err := mempool.EncodeMempoolFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestImportMempool imports a Core mempool.dat and this node's own
// savemempool file into a running node.
func TestImportMempool(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 101)
	dir := t.TempDir()

	op, v := n.coinbaseOut(t, 1)
	tx := opTrueSpend(op, v, 1, 10_000)
	txid := tx.TxHash()
	other := wire.Hash{7}
	core := &mempool.MempoolFile{
		Txs:         []mempool.FileTx{{Tx: tx, Time: 1, FeeDelta: 500}},
		Deltas:      []mempool.FeeDelta{{TxID: other, Delta: 1234}},
		Unbroadcast: []wire.Hash{txid},
	}
	path := filepath.Join(dir, "core.dat")
	if err := os.WriteFile(path, coreMempoolBytes(t, 2, [8]byte{0x5a, 1, 2, 3, 4, 5, 6, 7}, core), 0o600); err != nil {
		t.Fatal(err)
	}
	// Without options: current time, no deltas, no unbroadcast set.
	if res, rerr := n.rpcCall(t, "importmempool", path); rerr != nil || string(res) != "{}" {
		t.Fatalf("importmempool: %s %+v", res, rerr)
	}
	if !n.s.pool.Has(txid) || n.s.pool.IsUnbroadcast(txid) || len(n.s.pool.PrioritisedTransactions()) != 0 {
		t.Fatalf("plain import: in pool %v, unbroadcast %v, deltas %v", n.s.pool.Has(txid), n.s.pool.IsUnbroadcast(txid), n.s.pool.PrioritisedTransactions())
	}

	// With every option: the file's time (too old here: expired), the
	// deltas and the unbroadcast set.
	n.s.pool.RemoveTransaction(txid)
	opts := map[string]any{"use_current_time": false, "apply_fee_delta_priority": true, "apply_unbroadcast_set": true}
	if _, rerr := n.rpcCall(t, "importmempool", path, opts); rerr != nil {
		t.Fatalf("importmempool with options: %+v", rerr)
	}
	if n.s.pool.Has(txid) {
		t.Fatal("an entry time of 1970 did not expire")
	}
	deltas := map[wire.Hash]int64{}
	for _, p := range n.s.pool.PrioritisedTransactions() {
		deltas[p.TxID] = p.Delta
	}
	if deltas[txid] != 500 || deltas[other] != 1234 {
		t.Fatalf("deltas %v", deltas)
	}
	core.Txs[0].Time = n.s.chain.BestSnapshot().MedianTime
	if err := os.WriteFile(path, coreMempoolBytes(t, 1, [8]byte{}, core), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, rerr := n.rpcCall(t, "importmempool", path, map[string]any{"use_current_time": false, "apply_unbroadcast_set": true}); rerr != nil {
		t.Fatalf("importmempool v1: %+v", rerr)
	}
	if !n.s.pool.Has(txid) || !n.s.pool.IsUnbroadcast(txid) {
		t.Fatalf("v1 import: in pool %v, unbroadcast %v", n.s.pool.Has(txid), n.s.pool.IsUnbroadcast(txid))
	}

	// What savemempool writes imports again.
	res, rerr := n.rpcCall(t, "savemempool")
	if rerr != nil {
		t.Fatalf("savemempool: %+v", rerr)
	}
	var saved struct{ Filename string }
	json.Unmarshal(res, &saved)
	n.s.pool.RemoveTransaction(txid)
	if _, rerr := n.rpcCall(t, "importmempool", saved.Filename); rerr != nil || !n.s.pool.Has(txid) {
		t.Fatalf("own format: %+v, in pool %v", rerr, n.s.pool.Has(txid))
	}

	_, rerr = n.rpcCall(t, "importmempool", filepath.Join(dir, "missing.dat"))
	if rerr == nil || rerr.Code != -1 || rerr.Message != "Unable to import mempool file, see debug log for details." {
		t.Fatalf("missing file: %+v", rerr)
	}
	_, rerr = n.rpcCall(t, "importmempool", path, map[string]any{"use_current_time": 1})
	if rerr == nil || rerr.Code != -3 || !strings.Contains(rerr.Message, "expected type bool") {
		t.Fatalf("bad option: %+v", rerr)
	}
}
