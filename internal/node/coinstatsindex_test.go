package node

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/coinstats"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// indexTxOutSet is gettxoutsetinfo as answered from the coinstats index.
type indexTxOutSet struct {
	Height      int32           `json:"height"`
	BestBlock   string          `json:"bestblock"`
	TxOuts      int64           `json:"txouts"`
	BogoSize    int64           `json:"bogosize"`
	MuHash      *string         `json:"muhash"`
	TotalAmount json.Number     `json:"total_amount"`
	Txs         *int64          `json:"transactions"`
	DiskSize    *int64          `json:"disk_size"`
	Unspendable json.Number     `json:"total_unspendable_amount"`
	BlockInfo   json.RawMessage `json:"block_info"`
}

func (n *testNode) indexInfo(t *testing.T, params ...any) indexTxOutSet {
	t.Helper()
	var out indexTxOutSet
	n.mustInto(t, &out, "gettxoutsetinfo", params...)
	return out
}

// waitCoinStatsHeight waits for getindexinfo to report the index synced
// at height.
func (n *testNode) waitCoinStatsHeight(t *testing.T, height int32) {
	t.Helper()
	waitFor(t, 20*time.Second, "coinstatsindex to sync", func() bool {
		var all map[string]rpc.IndexInfo
		json.Unmarshal(n.must(t, "getindexinfo"), &all)
		e, ok := all["coinstatsindex"]
		return ok && e.Synced && e.BestBlockHeight == height
	})
}

// mineWithCoinbase mines one block of txs whose coinbase claims less
// than it may, leaving unclaimed rewards.
func (n *testNode) mineWithCoinbase(t *testing.T, txs []*wire.MsgTx, unclaimed int64) wire.Hash {
	t.Helper()
	if txs == nil {
		txs = []*wire.MsgTx{}
	}
	blk, err := n.s.buildBlock(opTrueScript, txs)
	if err != nil {
		t.Fatal(err)
	}
	blk.Transactions[0].TxOut[0].Value -= unclaimed
	n.submitBuilt(t, blk)
	return blk.BlockHash()
}

func blockInfo(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("block_info %s: %v", raw, err)
	}
	return m
}

// TestCoinStatsIndexGetTxOutSetInfo checks gettxoutsetinfo from the index:
// the same set statistics and MuHash as a scan, any height or hash, the
// per-block amounts and unspendable causes, and Core's errors.
func TestCoinStatsIndexGetTxOutSetInfo(t *testing.T) {
	n := newTestNode(t, "--coinstatsindex")
	n.mine(t, 101)
	// Block 102: a spend burning 1000 sat to OP_RETURN, fee 10000.
	op, v := n.coinbaseOut(t, 1)
	tx := opTrueSpend(op, v, 1, 10_000)
	tx.TxOut[0].Value -= 1000
	tx.TxOut = append(tx.TxOut, wire.TxOut{Value: 1000, PkScript: []byte{0x6a, 0x01, 0x07}})
	if _, err := n.s.generate(1, opTrueScript, 0, []*wire.MsgTx{tx}, false); err != nil {
		t.Fatal(err)
	}
	// Block 103 leaves 12345 sat unclaimed.
	n.mineWithCoinbase(t, nil, 12345)
	n.waitCoinStatsHeight(t, 103)

	tip := n.indexInfo(t, "muhash")
	_, wantMu, wantBogo := buildUtxoModel(t, n).digests()
	if tip.Height != 103 || tip.MuHash == nil || *tip.MuHash != wantMu || tip.BogoSize != wantBogo {
		t.Fatalf("tip from the index: %+v, want muhash %s bogosize %d", tip, wantMu, wantBogo)
	}
	if tip.Txs != nil || tip.DiskSize != nil || tip.BlockInfo == nil {
		t.Fatalf("index answer carries scan fields or lacks block_info: %+v", tip)
	}
	scan := n.indexInfo(t, "muhash", nil, false)
	if scan.Txs == nil || scan.BlockInfo != nil || *scan.MuHash != *tip.MuHash || scan.TxOuts != tip.TxOuts ||
		scan.TotalAmount != tip.TotalAmount || scan.BestBlock != tip.BestBlock {
		t.Fatalf("use_index=false scan %+v differs from the index %+v", scan, tip)
	}
	if none := n.indexInfo(t, "none"); none.MuHash != nil || none.TxOuts != tip.TxOuts {
		t.Fatalf("none: %+v", none)
	}

	for _, c := range []struct {
		height int32
		want   map[string]string
		total  string
	}{
		{0, map[string]string{"prevout_spent": "0.00000000", "coinbase": "0.00000000", "new_outputs_ex_coinbase": "0.00000000",
			"unspendable": "50.00000000", "genesis_block": "50.00000000", "scripts": "0.00000000", "unclaimed_rewards": "0.00000000"}, "50.00000000"},
		{102, map[string]string{"prevout_spent": "50.00000000", "coinbase": "50.00010000", "new_outputs_ex_coinbase": "49.99989000",
			"unspendable": "0.00001000", "genesis_block": "0.00000000", "scripts": "0.00001000", "unclaimed_rewards": "0.00000000"}, "50.00001000"},
		{103, map[string]string{"prevout_spent": "0.00000000", "coinbase": "49.99987655", "new_outputs_ex_coinbase": "0.00000000",
			"unspendable": "0.00012345", "bip30": "0.00000000", "unclaimed_rewards": "0.00012345"}, "50.00013345"},
	} {
		got := n.indexInfo(t, "none", c.height)
		bi := blockInfo(t, got.BlockInfo)
		un, _ := bi["unspendables"].(map[string]any)
		for k, want := range c.want {
			v := bi[k]
			if v == nil {
				v = un[k]
			}
			if s, _ := v.(json.Number); string(s) != want {
				t.Errorf("height %d: %s = %v, want %s", c.height, k, v, want)
			}
		}
		if string(got.Unspendable) != c.total {
			t.Errorf("height %d: total_unspendable_amount %s, want %s", c.height, got.Unspendable, c.total)
		}
	}
	h102, _ := n.s.chain.BlockHashByHeight(102)
	byHash := n.indexInfo(t, "muhash", h102.String())
	byHeight := n.indexInfo(t, "muhash", 102)
	if byHash.Height != 102 || *byHash.MuHash != *byHeight.MuHash || byHash.TxOuts != byHeight.TxOuts {
		t.Fatalf("by hash %+v, by height %+v", byHash, byHeight)
	}

	for _, c := range []struct {
		params []any
		code   int
		msg    string
	}{
		{[]any{"hash_serialized_3", 102}, -8, "hash_serialized_3 hash type cannot be queried for a specific block"},
		{[]any{"muhash", 102, false}, -8, "Cannot set use_index to false when querying for a specific block"},
		{[]any{"none", strings.Repeat("ff", 32)}, -5, "Block not found"},
		{[]any{"none", 104}, -8, "Target block height 104 after current tip 103"},
		{[]any{"none", -1}, -8, "Target block height -1 is negative"},
	} {
		if _, rerr := n.rpcCall(t, "gettxoutsetinfo", c.params...); rerr == nil || rerr.Code != c.code || rerr.Message != c.msg {
			t.Errorf("gettxoutsetinfo %v: %+v, want %d %q", c.params, rerr, c.code, c.msg)
		}
	}
	// hash_serialized_3 without a block is a scan, index or not.
	if hs := n.txOutSetInfo(t, "hash_serialized_3"); hs.Ser == nil || hs.Txs == 0 {
		t.Fatalf("hash_serialized_3 with the index: %+v", hs)
	}
}

// TestCoinStatsIndexFollowsReorg checks that the index follows
// invalidateblock, and that a block reorganised out keeps its statistics
// by hash while its height answers for the new branch.
func TestCoinStatsIndexFollowsReorg(t *testing.T) {
	n := newTestNode(t, "--coinstatsindex")
	n.mine(t, 110)
	n.waitCoinStatsHeight(t, 110)
	at108 := n.indexInfo(t, "muhash", 108)
	old := n.indexInfo(t, "muhash")
	h109, _ := n.s.chain.BlockHashByHeight(109)
	n.must(t, "invalidateblock", h109.String())
	if got := n.indexInfo(t, "muhash"); got.Height != 108 || *got.MuHash != *at108.MuHash {
		t.Fatalf("after invalidateblock: %+v, want %+v", got, at108)
	}
	n.mineTo(t, 3, otherScript)
	n.waitCoinStatsHeight(t, 111)
	newTip := n.indexInfo(t, "muhash")
	_, wantMu, _ := buildUtxoModel(t, n).digests()
	if *newTip.MuHash != wantMu {
		t.Fatal("index MuHash differs from the model after the reorganisation")
	}
	stale := n.indexInfo(t, "muhash", old.BestBlock)
	if stale.Height != 110 || *stale.MuHash != *old.MuHash {
		t.Fatalf("reorganised-out block: %+v, want %+v", stale, old)
	}
	if now := n.indexInfo(t, "muhash", 110); now.BestBlock == old.BestBlock || *now.MuHash == *old.MuHash {
		t.Fatalf("height 110 still answers for the old branch: %+v", now)
	}
	n.must(t, "reconsiderblock", h109.String())
	// The old branch is shorter (110 < 111): the tip stays.
	if got := n.indexInfo(t, "muhash"); got.Height != 111 {
		t.Fatalf("after reconsiderblock: height %d", got.Height)
	}
}

// TestCoinStatsGetIndexInfo checks getindexinfo's coinstatsindex entry,
// by name and among all, and that a node without the index has none.
func TestCoinStatsGetIndexInfo(t *testing.T) {
	n := newTestNode(t, "--coinstatsindex", "--txindex")
	n.mine(t, 12)
	n.waitCoinStatsHeight(t, 12)
	var one map[string]rpc.IndexInfo
	json.Unmarshal(n.must(t, "getindexinfo", "coinstatsindex"), &one)
	if len(one) != 1 || one["coinstatsindex"] != (rpc.IndexInfo{Synced: true, BestBlockHeight: 12}) {
		t.Fatalf("getindexinfo coinstatsindex: %+v", one)
	}
	var tx map[string]rpc.IndexInfo
	json.Unmarshal(n.must(t, "getindexinfo", "txindex"), &tx)
	if _, ok := tx["coinstatsindex"]; ok || len(tx) != 1 {
		t.Fatalf("getindexinfo txindex: %+v", tx)
	}
	plain := newTestNode(t)
	plain.mine(t, 2)
	var none map[string]rpc.IndexInfo
	json.Unmarshal(plain.must(t, "getindexinfo"), &none)
	if _, ok := none["coinstatsindex"]; ok {
		t.Fatalf("node without the index reports it: %+v", none)
	}
	if _, rerr := plain.rpcCall(t, "gettxoutsetinfo", "muhash", 0); rerr == nil || rerr.Code != -8 ||
		rerr.Message != "Querying specific block heights requires coinstatsindex" {
		t.Fatalf("older height without the index: %+v", rerr)
	}
}

// TestCoinStatsIndexRestartAndReindex checks that the index resumes after
// a restart and is rebuilt by --reindex, with the same statistics.
func TestCoinStatsIndexRestartAndReindex(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten", "--norpc", "--coinstatsindex"}
	start := func(extra ...string) *server {
		t.Helper()
		return startServer(t, append(append([]string(nil), args...), extra...)...)
	}
	stats := func(s *server, height int32) *rpc.TxOutSetInfo {
		t.Helper()
		waitFor(t, 20*time.Second, "index and chain", func() bool {
			if s.chain.BestSnapshot().Height != height || s.coinStats == nil {
				return false
			}
			_, h := s.coinStats.idx.Tip()
			return h == height && s.coinStats.synced.Load()
		})
		info, err := s.txOutSetInfo(rpc.TxOutSetQuery{HashType: "muhash", UseIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	s := start()
	(&testNode{s: s}).mine(t, 120)
	before := stats(s, 120)
	s.Stop()

	s = start()
	if got := stats(s, 120); got.MuHash != before.MuHash || got.TotalUnspendableAmount != before.TotalUnspendableAmount {
		t.Fatalf("after restart %+v, want %+v", got, before)
	}
	(&testNode{s: s}).mine(t, 1)
	grown := stats(s, 121)
	s.Stop()

	s = start("--reindex")
	defer s.Stop()
	if got := stats(s, 121); got.MuHash != grown.MuHash || got.TxOuts != grown.TxOuts {
		t.Fatalf("after --reindex %+v, want %+v", got, grown)
	}
}

// TestCoinStatsIndexPrunedDataRefused checks Core's start-up check: a
// pruned node whose index would need blocks that are gone does not start.
func TestCoinStatsIndexPrunedDataRefused(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten", "--norpc", "--fastprune", "--prune=1"}
	s := startServer(t, args...)
	(&testNode{s: s}).mine(t, 700)
	if _, err := s.pruneBlockchain(400); err != nil {
		t.Fatal(err)
	}
	pruned := s.chain.PruneHeight()
	s.Stop()
	if pruned <= 1 {
		t.Fatalf("nothing pruned (prune height %d)", pruned)
	}
	cfg, _ := loadConfig(append(args, "--coinstatsindex"))
	if _, err := newServer(cfg); err == nil || !strings.Contains(err.Error(),
		"coinstatsindex best block of the index goes beyond pruned data. Please disable the index or reindex") {
		t.Fatalf("start with the index over pruned blocks: %v", err)
	}
}

// TestCoinStatsIndexForgottenBlock checks that an index holding a block
// the chain does not know (its end of the block index lost in a crash)
// is rebuilt instead of stalling.
func TestCoinStatsIndexForgottenBlock(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten", "--norpc", "--coinstatsindex"}
	s := startServer(t, args...)
	cfg := s.cfg
	(&testNode{s: s}).mine(t, 8)
	waitFor(t, 10*time.Second, "index at 8", func() bool { _, h := s.coinStats.idx.Tip(); return h == 8 })
	tip := s.chain.BestSnapshot().Hash
	want, err := s.txOutSetInfo(rpc.TxOutSetQuery{HashType: "muhash", UseIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()

	idx, err := coinstats.OpenIndex(cfg.DataDir, coinstats.Options{HalvingInterval: cfg.params.SubsidyHalvingInterval})
	if err != nil {
		t.Fatal(err)
	}
	ghost := &wire.MsgBlock{Header: wire.BlockHeader{Version: 4, PrevBlock: tip, Nonce: 7},
		Transactions: []*wire.MsgTx{{Version: 2,
			TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex}, SignatureScript: []byte{1, 9}}},
			TxOut: []wire.TxOut{{Value: 50e8, PkScript: opTrueScript}}}}}
	if err := idx.BlockConnected(ghost, 9, nil); err != nil {
		t.Fatal(err)
	}
	idx.Close()

	s = startServer(t, args...)
	defer s.Stop()
	waitFor(t, 10*time.Second, "index rebuilt", func() bool {
		h, _ := s.coinStats.idx.Tip()
		return h == tip && s.coinStats.synced.Load()
	})
	got, err := s.txOutSetInfo(rpc.TxOutSetQuery{HashType: "muhash", UseIndex: true})
	if err != nil || got.MuHash != want.MuHash || got.Height != 8 {
		t.Fatalf("after rebuild %+v (%v), want %+v", got, err, want)
	}
}
