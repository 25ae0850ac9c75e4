package node

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// dumpResult is the dumptxoutset result.
type dumpResult struct {
	Coins    uint64 `json:"coins_written"`
	BaseHash string `json:"base_hash"`
	Height   int32  `json:"base_height"`
	Path     string `json:"path"`
	Hash     string `json:"txoutset_hash"`
	NChainTx int64  `json:"nchaintx"`
}

func (n *testNode) dump(t *testing.T, params ...any) dumpResult {
	t.Helper()
	var r dumpResult
	n.mustInto(t, &r, "dumptxoutset", params...)
	return r
}

// mineCoreStyle mines count blocks the way Core 30's generatetoaddress
// does on regtest with the clock mocked to one second after genesis:
// coinbase version 2 with scriptSig height || OP_0, sequence 0xfffffffe,
// lock time height-1 and the witness commitment; header version
// 0x20000000, time max(MTP+1, genesis+1), the first nonce that works.
func (n *testNode) mineCoreStyle(t *testing.T, count int, pkScript []byte) {
	t.Helper()
	c := n.s.chain
	genesis, _ := c.BlockHashByHeight(0)
	gh, _, _ := c.HeaderByHash(&genesis)
	for range count {
		tip := c.BestSnapshot()
		h := tip.Height + 1
		sig := append(blockchain.AppendHeightScript(nil, h), 0x00)
		cb := &wire.MsgTx{
			Version: 2,
			TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex}, SignatureScript: sig,
				Sequence: wire.MaxTxInSequenceNum - 1, Witness: [][]byte{make([]byte, 32)}}},
			TxOut:    []wire.TxOut{{Value: blockchain.CalcBlockSubsidy(h, n.s.cfg.params.SubsidyHalvingInterval), PkScript: pkScript}},
			LockTime: uint32(h - 1),
		}
		ts := uint32(max(tip.MedianTime+1, int64(gh.Timestamp)+1))
		blk := &wire.MsgBlock{
			Header:       wire.BlockHeader{Version: 0x20000000, PrevBlock: tip.Hash, Timestamp: ts, Bits: c.CalcNextRequiredBits(int64(ts))},
			Transactions: []*wire.MsgTx{cb},
		}
		root := blk.WitnessMerkleRoot()
		commit := blockchain.WitnessCommitment(&root, cb.TxIn[0].Witness[0])
		cb.TxOut = append(cb.TxOut, wire.TxOut{PkScript: blockchain.AppendWitnessCommitmentScript(nil, &commit)})
		n.submitBuilt(t, blk)
	}
}

// TestDumpTxOutSetMatchesCore dumps the UTXO set of the chain Core's
// rpc_dumptxoutset.py builds and checks the numbers that test pins: the
// base block, the file's SHA256 (Core's snapshot format byte for byte),
// hash_serialized_3 and nchaintx.
func TestDumpTxOutSetMatchesCore(t *testing.T) {
	n := newTestNode(t)
	// The P2PKH script of the framework's first deterministic key
	// (mjTkW3DjgyZck4KbiRusZsqTgaYTxdSz6z).
	pk, _ := hex.DecodeString("76a9142b4569203694fc997e13f2c0a1383b9e16c77a0d88ac")
	n.mineCoreStyle(t, 100, pk)
	r := n.dump(t, "txoutset.dat", "latest")
	want := dumpResult{Coins: 100, BaseHash: "6885775faa46290bedfa071f22d0598c93f1d7e01f24607c4dedd69b9baa4a8f", Height: 100,
		Path: filepath.Join(n.s.cfg.DataDir, "txoutset.dat"), Hash: "d4453995f4f20db7bb3a604afd10d7128e8ee11159cde56d5b2fd7f55be7c74c", NChainTx: 101}
	if r != want {
		t.Fatalf("dumptxoutset %+v\nwant %+v", r, want)
	}
	raw, err := os.ReadFile(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != "d9506d541437f5e2892d6b6ea173f55233de11601650c157a27d8f2b9d08cb6f" {
		t.Fatalf("snapshot sha256 %x differs from Core's", sum)
	}
	if _, err := os.Stat(r.Path + ".incomplete"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}
}

// TestDumpTxOutSetErrors checks Core's refusals: an existing path, a file
// that cannot be created, bad types and targets.
func TestDumpTxOutSetErrors(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 20)
	n.dump(t, "a.dat", "latest")
	bad := filepath.Join(n.dir, "no", "such", "dir")
	for _, c := range []struct {
		params []any
		code   int
		msg    string
	}{
		{[]any{"a.dat", "latest"}, -8, filepath.Join(n.s.cfg.DataDir, "a.dat") + " already exists. If you are sure this is what you want, move it out of the way first"},
		{[]any{bad, "latest"}, -8, "Couldn't open file " + bad + ".incomplete for writing."},
		{[]any{"b.dat", "bogus"}, -8, `Invalid snapshot type "bogus" specified. Please specify "rollback" or "latest"`},
		{[]any{"b.dat"}, -8, `Invalid snapshot type "" specified. Please specify "rollback" or "latest"`},
		{[]any{"b.dat", "latest", map[string]any{"rollback": 5}}, -8, `Invalid snapshot type "latest" specified with rollback option`},
		{[]any{"b.dat", "", map[string]any{"rollback": 21}}, -8, "Target block height 21 after current tip 20"},
		{[]any{"b.dat", "rollback"}, -8, "Target block height 299 after current tip 20"},
		{[]any{"b.dat", "", map[string]any{"rollback": strings.Repeat("ab", 32)}}, -5, "Block not found"},
	} {
		if _, rerr := n.rpcCall(t, "dumptxoutset", c.params...); rerr == nil || rerr.Code != c.code || rerr.Message != c.msg {
			t.Errorf("dumptxoutset %v: %+v, want %d %q", c.params, rerr, c.code, c.msg)
		}
	}
	if _, err := os.Stat(filepath.Join(n.s.cfg.DataDir, "b.dat.incomplete")); !os.IsNotExist(err) {
		t.Errorf("a refused dump left a temporary file: %v", err)
	}
}

// namedCall sends a JSON-RPC request with named parameters.
func (n *testNode) namedCall(t *testing.T, method string, params map[string]any) (json.RawMessage, string) {
	t.Helper()
	res, rerr := n.rpcPost(t, method, params)
	if rerr != nil {
		return nil, rerr.Message
	}
	return res, ""
}

// TestDumpTxOutSetRollback checks a dump at an earlier height: the
// snapshot is the UTXO set that height had, the chain returns to its tip
// and the network to its state, and a rollback whose undo file is gone is
// refused without touching the chain.
func TestDumpTxOutSetRollback(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 110)
	at110 := n.txOutSetInfo(t, "hash_serialized_3")
	n.mine(t, 15)
	tip := n.s.chain.BestSnapshot()

	r := n.dump(t, "r1.dat", "rollback", map[string]any{"rollback": 110})
	if r.Height != 110 || r.Hash != *at110.Ser || r.BaseHash != at110.BestBlock || r.NChainTx != 111 {
		t.Fatalf("rollback dump %+v, want the set at 110 (%s)", r, *at110.Ser)
	}
	if got := n.s.chain.BestSnapshot().Hash; got != tip.Hash {
		t.Fatalf("tip after the dump %v, want %v", got, tip.Hash)
	}
	if !n.s.net.active.Load() {
		t.Fatal("network left suspended")
	}
	// "rollback" passed as a named argument, the type left out; by hash.
	raw, msg := n.namedCall(t, "dumptxoutset", map[string]any{"path": "r2.dat", "rollback": at110.BestBlock})
	var r2 dumpResult
	if msg != "" || json.Unmarshal(raw, &r2) != nil || r2.Hash != r.Hash {
		t.Fatalf("named rollback: %s %s", raw, msg)
	}
	a, _ := os.ReadFile(r.Path)
	b, _ := os.ReadFile(r2.Path)
	if !bytes.Equal(a, b) || len(a) < database.SnapshotHeaderLen {
		t.Fatal("two dumps of the same height differ")
	}

	// With the network off, it stays off.
	n.must(t, "setnetworkactive", false)
	n.dump(t, "r3.dat", "", map[string]any{"rollback": 120})
	if n.s.net.active.Load() {
		t.Fatal("dump turned the network on")
	}
	n.must(t, "setnetworkactive", true)

	rev := filepath.Join(n.s.cfg.DataDir, "blocks", "rev00000.dat")
	if err := os.Rename(rev, rev+".moved"); err != nil {
		t.Fatal(err)
	}
	if _, rerr := n.rpcCall(t, "dumptxoutset", "r4.dat", "", map[string]any{"rollback": 99}); rerr == nil ||
		rerr.Code != -1 || rerr.Message != "Could not roll back to requested height." {
		t.Fatalf("rollback without undo data: %+v", rerr)
	}
	os.Rename(rev+".moved", rev)
	if got := n.s.chain.BestSnapshot().Hash; got != tip.Hash || !n.s.net.active.Load() {
		t.Fatal("a refused rollback changed the tip or the network")
	}
}
