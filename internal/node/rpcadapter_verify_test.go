package node

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// verifyNode starts a regtest node whose coinbases pay to a signing wallet
// and mines spendBlocks more blocks, each with a transaction splitting a
// coinbase into k P2WPKH outputs and one spending the k outputs of the
// previous block's split, all signed for real. It returns the node and
// the wallet.
func verifyNode(t *testing.T, spendBlocks, k int) (*testNode, *mpWallet) {
	t.Helper()
	n, w := mempoolNode(t, 101)
	var prev []mpCoin
	for i := range spendBlocks {
		split, outs := w.split(n.coinbaseCoin(t, int32(i+1)), k, 10_000)
		txs := []*wire.MsgTx{split}
		if prev != nil {
			var total int64
			for _, c := range prev {
				total += c.value
			}
			txs = append(txs, w.build(prev, []wire.TxOut{{Value: total - 10_000, PkScript: w.pkScript}}))
		}
		if _, err := n.s.generate(1, w.pkScript, 0, txs, false); err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		prev = outs
	}
	return n, w
}

func verifyRPC(t *testing.T, n *testNode, params ...any) bool {
	t.Helper()
	raw := n.must(t, "verifychain", params...)
	var ok bool
	if err := json.Unmarshal(raw, &ok); err != nil {
		t.Fatalf("verifychain %v: %s", params, raw)
	}
	return ok
}

func TestVerifyChainLevel4(t *testing.T) {
	const spendBlocks, k = 100, 8
	n, _ := verifyNode(t, spendBlocks, k)
	tip := n.s.chain.BestSnapshot().Height
	for _, lvl := range []int{0, 1, 2, 3, 4} {
		start := time.Now()
		if !verifyRPC(t, n, lvl, 100) {
			bad, _ := n.s.chain.VerifyChain(int32(lvl), 100, n.s.cfg.scriptThreads)
			t.Fatalf("verifychain %d 100 = false: %s", lvl, bad)
		}
		t.Logf("verifychain %d 100: %v (%d inputs verified at level 4)", lvl, time.Since(start),
			(spendBlocks-1)*(k+1)+1)
	}
	if !verifyRPC(t, n) {
		t.Fatal("verifychain with the defaults = false")
	}
	if !verifyRPC(t, n, 4, 0) {
		t.Fatal("verifychain 4 0 = false")
	}
	if _, checked := n.s.chain.VerifyChain(4, 0, n.s.cfg.scriptThreads); checked != int(tip) {
		t.Fatalf("verifychain 4 0 checked %d blocks, want %d", checked, tip)
	}
}

// corruptUndoScript rewrites, in the node's undo files, the undo record of
// the block with hash so that its first spent coin's script has one byte
// flipped, with the record's checksum recomputed: a corruption the
// checksum, level 2 (input counts) and level 3 (the UTXO set against the
// block's outputs) do not see.
func corruptUndoScript(t *testing.T, n *testNode, hash wire.Hash) {
	t.Helper()
	blk, err := n.s.chain.BlockByHash(&hash)
	if err != nil {
		t.Fatal(err)
	}
	var u database.BlockUndo
	if err := n.s.chain.SpentOutputs(&hash, &u); err != nil {
		t.Fatal(err)
	}
	rec := database.AppendBlockUndo(nil, u.TxInputs, u.Spent)
	pk := u.Spent[0].PkScript
	at := bytes.Index(rec, pk)
	if at < 0 {
		t.Fatalf("script %x not stored verbatim in the undo record", pk)
	}
	bad := bytes.Clone(rec)
	bad[at+len(pk)-1] ^= 0x01
	first := sha256.Sum256(append(blk.Header.PrevBlock[:], bad...))
	sum := sha256.Sum256(first[:])

	found := 0
	err = filepath.WalkDir(n.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "rev") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		off := bytes.Index(data, rec)
		if off < 0 {
			return nil
		}
		if bytes.Count(data, rec) != 1 {
			t.Fatalf("undo record found more than once in %s", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		found++
		if _, err := f.WriteAt(append(bad, sum[:]...), int64(off)); err != nil {
			return err
		}
		return f.Sync()
	})
	if err != nil {
		t.Fatal(err)
	}
	if found != 1 {
		t.Fatalf("undo record found in %d files", found)
	}
}

// TestVerifyChainLevel4CatchesBadUndo corrupts a spent script in an undo
// record: levels 0 to 3 pass, level 4 fails on the script check.
func TestVerifyChainLevel4CatchesBadUndo(t *testing.T) {
	n, _ := verifyNode(t, 3, 2)
	tip := n.s.chain.BestSnapshot()
	target, _ := n.s.chain.BlockHashByHeight(tip.Height - 1)
	corruptUndoScript(t, n, target)
	for lvl := int32(0); lvl <= 3; lvl++ {
		if bad, _ := n.s.chain.VerifyChain(lvl, 6, n.s.cfg.scriptThreads); bad != "" {
			t.Fatalf("level %d sees the corruption: %s", lvl, bad)
		}
	}
	bad, _ := n.s.chain.VerifyChain(4, 6, n.s.cfg.scriptThreads)
	if !strings.Contains(bad, "mandatory-script-verify-flag-failed") || !strings.Contains(bad, target.String()) {
		t.Fatalf("level 4 reason %q does not name the script failure of block %v", bad, target)
	}
	t.Logf("logged: verifychain: %s", bad)
	if verifyRPC(t, n, 4, 6) {
		t.Fatal("verifychain 4 6 = true over a corrupted undo record")
	}
	if !verifyRPC(t, n, 3, 6) {
		t.Fatal("verifychain 3 6 = false")
	}
	// The corrupted block is outside a window of one block.
	if !verifyRPC(t, n, 4, 1) {
		t.Fatal("verifychain 4 1 = false")
	}
}
