package node

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/btcnode/btcd/mempool"
	"github.com/btcnode/btcd/wire"
)

// TestMempoolPersistCoreFormatRestart: with --persistmempool the node
// writes mempool.dat at shutdown in Core's version 2 format (version 1
// with --persistmempoolv1), and a restart restores each transaction's
// entry time, its prioritisetransaction delta, the deltas of transactions
// not in the pool and the unbroadcast set.
func TestMempoolPersistCoreFormatRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten", "--norpc", "--persistmempool"}
	start := func(extra ...string) *server {
		s := startServer(t, append(args, extra...)...)
		waitFor(t, 10*time.Second, "mempool loaded", s.mempoolLoaded.Load)
		return s
	}
	s := start()
	n := &testNode{s: s}
	n.mine(t, 101)
	op, v := n.coinbaseOut(t, 1)
	tx := opTrueSpend(op, v, 1, 10_000)
	txid := tx.TxHash()
	if _, err := s.pool.AcceptTransaction(tx, mempool.AcceptOptions{Unbroadcast: true}); err != nil {
		t.Fatal(err)
	}
	absent := wire.Hash{0x42}
	if err := s.pool.PrioritiseTransaction(txid, 5000); err != nil {
		t.Fatal(err)
	}
	if err := s.pool.PrioritiseTransaction(absent, -777); err != nil {
		t.Fatal(err)
	}
	e, _ := s.pool.Get(txid)
	entered := e.Time.Unix()
	path := filepath.Join(s.cfg.DataDir, mempoolFile)
	s.Stop()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mempool.DecodeMempoolFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint64(data) != mempool.MempoolFileV2 || len(f.Txs) != 1 || f.Txs[0].Tx.TxHash() != txid ||
		f.Txs[0].Time != entered || f.Txs[0].FeeDelta != 5000 ||
		len(f.Deltas) != 1 || f.Deltas[0] != (mempool.FeeDelta{TxID: absent, Delta: -777}) ||
		len(f.Unbroadcast) != 1 || f.Unbroadcast[0] != txid {
		t.Fatalf("mempool.dat: %+v", f)
	}

	check := func(s *server, when string) {
		t.Helper()
		e, ok := s.pool.Get(txid)
		if !ok {
			t.Fatalf("%s: transaction not reloaded", when)
		}
		if e.Time.Unix() != entered || e.ModFee != e.Fee+5000 || !s.pool.IsUnbroadcast(txid) {
			t.Fatalf("%s: time %v (want %d), fee %d modified %d, unbroadcast %v",
				when, e.Time.Unix(), entered, e.Fee, e.ModFee, s.pool.IsUnbroadcast(txid))
		}
		deltas := map[wire.Hash]int64{}
		for _, p := range s.pool.PrioritisedTransactions() {
			deltas[p.TxID] = p.Delta
		}
		if len(deltas) != 2 || deltas[txid] != 5000 || deltas[absent] != -777 {
			t.Fatalf("%s: deltas %v", when, deltas)
		}
	}
	s = start("--persistmempoolv1")
	check(s, "after the version 2 file")
	s.Stop()
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint64(data) != mempool.MempoolFileV1 || binary.LittleEndian.Uint64(data[8:]) != 1 {
		t.Fatalf("--persistmempoolv1 wrote header %x", data[:16])
	}
	s = start()
	defer s.Stop()
	check(s, "after the version 1 file")
}
