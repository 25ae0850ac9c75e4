package node

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// coreMempoolBytes writes a Core mempool.dat (version 1, or 2 obfuscated
// with key).
func coreMempoolBytes(version uint64, key [8]byte, f *coreMempool) []byte {
	b := binary.LittleEndian.AppendUint64(nil, version)
	if version == 2 {
		b = append(b, 8)
		b = append(b, key[:]...)
	}
	start := len(b)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(f.txs)))
	for _, e := range f.txs {
		b = e.tx.AppendTo(b, true)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.time))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.feeDelta))
	}
	b = wire.AppendVarInt(b, uint64(len(f.deltas)))
	for _, d := range f.deltas {
		b = append(b, d.txid[:]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(d.delta))
	}
	b = wire.AppendVarInt(b, uint64(len(f.unbroadcast)))
	for _, h := range f.unbroadcast {
		b = append(b, h[:]...)
	}
	if version == 2 {
		for i := start; i < len(b); i++ {
			b[i] ^= key[i%8]
		}
	}
	return b
}

func sampleCoreMempool() *coreMempool {
	tx := opTrueSpend(wire.OutPoint{Hash: wire.Hash{1}, Index: 2}, 100_000, 2, 1000)
	return &coreMempool{
		txs:         []coreMempoolTx{{tx: tx, time: 1_700_000_000, feeDelta: -5}},
		deltas:      []coreFeeDelta{{txid: wire.Hash{7}, delta: 1234}},
		unbroadcast: []wire.Hash{tx.TxHash()},
	}
}

func TestDecodeCoreMempool(t *testing.T) {
	want := sampleCoreMempool()
	for _, version := range []uint64{1, 2} {
		b := coreMempoolBytes(version, [8]byte{1, 2, 3, 4, 5, 6, 7, 0xff}, want)
		got, err := decodeCoreMempool(append(b, 0xaa)) // trailing bytes are ignored
		if err != nil {
			t.Fatalf("v%d: %v", version, err)
		}
		if len(got.txs) != 1 || got.txs[0].tx.TxHash() != want.txs[0].tx.TxHash() || got.txs[0].time != 1_700_000_000 || got.txs[0].feeDelta != -5 ||
			len(got.deltas) != 1 || got.deltas[0] != want.deltas[0] || len(got.unbroadcast) != 1 || got.unbroadcast[0] != want.unbroadcast[0] {
			t.Fatalf("v%d: decoded %+v", version, got)
		}
		for cut := 0; cut < len(b); cut++ {
			if _, err := decodeCoreMempool(b[:cut]); !errors.Is(err, errCoreMempool) {
				t.Fatalf("v%d truncated at %d: %v", version, cut, err)
			}
		}
	}
	// Counts beyond the file are refused before allocating.
	huge := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1), 1<<62)
	if _, err := decodeCoreMempool(huge); !errors.Is(err, errCoreMempool) {
		t.Fatalf("huge count: %v", err)
	}
	if _, err := decodeCoreMempool(binary.LittleEndian.AppendUint64(nil, 3)); !errors.Is(err, errCoreMempool) {
		t.Fatalf("version 3: %v", err)
	}
}

// FuzzDecodeCoreMempool checks that no input makes the Core mempool.dat
// decoder panic or allocate by an unchecked count.
func FuzzDecodeCoreMempool(f *testing.F) {
	s := sampleCoreMempool()
	f.Add(coreMempoolBytes(1, [8]byte{}, s))
	f.Add(coreMempoolBytes(2, [8]byte{9, 8, 7, 6, 5, 4, 3, 2}, s))
	f.Add(coreMempoolBytes(2, [8]byte{}, &coreMempool{}))
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeCoreMempool(b)
		if err == nil && m == nil {
			t.Fatal("nil result without an error")
		}
	})
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
	core := &coreMempool{
		txs:         []coreMempoolTx{{tx: tx, time: 1, feeDelta: 500}},
		deltas:      []coreFeeDelta{{txid: other, delta: 1234}},
		unbroadcast: []wire.Hash{txid},
	}
	path := filepath.Join(dir, "core.dat")
	if err := os.WriteFile(path, coreMempoolBytes(2, [8]byte{0x5a, 1, 2, 3, 4, 5, 6, 7}, core), 0o600); err != nil {
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
	core.txs[0].time = n.s.chain.BestSnapshot().MedianTime
	if err := os.WriteFile(path, coreMempoolBytes(1, [8]byte{}, core), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, rerr := n.rpcCall(t, "importmempool", path, map[string]any{"use_current_time": false, "apply_unbroadcast_set": true}); rerr != nil {
		t.Fatalf("importmempool v1: %+v", rerr)
	}
	if !n.s.pool.Has(txid) || !n.s.pool.IsUnbroadcast(txid) {
		t.Fatalf("v1 import: in pool %v, unbroadcast %v", n.s.pool.Has(txid), n.s.pool.IsUnbroadcast(txid))
	}

	// savemempool's own format round-trips.
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
