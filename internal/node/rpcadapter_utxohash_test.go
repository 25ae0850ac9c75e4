package node

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/btcnode/btcd/internal/muhash"
	"github.com/btcnode/btcd/wire"
)

// utxoModel is the UTXO set rebuilt from the main chain's blocks, the
// independent reference for gettxoutsetinfo's digests.
type utxoModel map[wire.OutPoint]struct {
	out      wire.TxOut
	height   int32
	coinbase bool
}

func buildUtxoModel(t *testing.T, n *testNode) utxoModel {
	t.Helper()
	m := utxoModel{}
	tip := n.s.chain.BestSnapshot().Height
	for h := int32(1); h <= tip; h++ { // genesis outputs are never spendable
		hash, ok := n.s.chain.BlockHashByHeight(h)
		if !ok {
			t.Fatalf("no block at %d", h)
		}
		blk, err := n.s.chain.BlockByHash(&hash)
		if err != nil {
			t.Fatal(err)
		}
		for i, tx := range blk.Transactions {
			if i > 0 {
				for _, in := range tx.TxIn {
					delete(m, in.PreviousOutPoint)
				}
			}
			txid := tx.TxHash()
			for j, out := range tx.TxOut {
				if len(out.PkScript) > 0 && out.PkScript[0] == 0x6a || len(out.PkScript) > 10_000 {
					continue // unspendable: not in the UTXO set
				}
				m[wire.OutPoint{Hash: txid, Index: uint32(j)}] = struct {
					out      wire.TxOut
					height   int32
					coinbase bool
				}{out, h, i == 0}
			}
		}
	}
	return m
}

// digests computes hash_serialized_3, muhash and bogosize of the model
// the way Core does, serializing each coin by hand.
func (m utxoModel) digests() (ser, mu string, bogo int64) {
	ops := make([]wire.OutPoint, 0, len(m))
	for op := range m {
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b wire.OutPoint) int {
		if c := bytes.Compare(a.Hash[:], b.Hash[:]); c != 0 {
			return c
		}
		return int(int64(a.Index) - int64(b.Index))
	})
	h := sha256.New()
	mh := muhash.New()
	for _, op := range ops {
		c := m[op]
		b := append([]byte(nil), op.Hash[:]...)
		b = binary.LittleEndian.AppendUint32(b, op.Index)
		code := uint32(c.height) * 2
		if c.coinbase {
			code++
		}
		b = binary.LittleEndian.AppendUint32(b, code)
		b = binary.LittleEndian.AppendUint64(b, uint64(c.out.Value))
		b = wire.AppendVarInt(b, uint64(len(c.out.PkScript)))
		b = append(b, c.out.PkScript...)
		h.Write(b)
		mh.Insert(b)
		bogo += 50 + int64(len(c.out.PkScript))
	}
	return wire.Hash(sha256.Sum256(h.Sum(nil))).String(), wire.Hash(mh.Finalize()).String(), bogo
}

type txOutSetInfo struct {
	Height    int32   `json:"height"`
	BestBlock string  `json:"bestblock"`
	TxOuts    int     `json:"txouts"`
	BogoSize  int64   `json:"bogosize"`
	Ser       *string `json:"hash_serialized_3"`
	MuHash    *string `json:"muhash"`
	Txs       int     `json:"transactions"`
}

func (n *testNode) txOutSetInfo(t *testing.T, params ...any) txOutSetInfo {
	t.Helper()
	var out txOutSetInfo
	raw := n.must(t, "gettxoutsetinfo", params...)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("gettxoutsetinfo %s: %v", raw, err)
	}
	return out
}

// TestGetTxOutSetInfoHashes checks gettxoutsetinfo's hash types against a
// UTXO set rebuilt from the blocks, and that the digests follow the chain
// through a new block, invalidateblock and reconsiderblock.
func TestGetTxOutSetInfoHashes(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 101)
	// A non-coinbase transaction with several outputs, so the set holds
	// more than one output per txid and both coinbase flags.
	op, v := n.coinbaseOut(t, 1)
	if _, err := n.s.pool.AcceptTransaction(opTrueSpend(op, v, 3, 10_000), mempoolOpts()); err != nil {
		t.Fatal(err)
	}
	n.mine(t, 1)

	check := func(what string) (ser, mu string) {
		t.Helper()
		wantSer, wantMu, wantBogo := buildUtxoModel(t, n).digests()
		def := n.txOutSetInfo(t)
		if def.Ser == nil || *def.Ser != wantSer || def.MuHash != nil {
			t.Fatalf("%s: default hash_type: %+v, want hash_serialized_3 %s", what, def, wantSer)
		}
		if def.BogoSize != wantBogo {
			t.Errorf("%s: bogosize %d, want %d", what, def.BogoSize, wantBogo)
		}
		if hs := n.txOutSetInfo(t, "hash_serialized_3"); hs.Ser == nil || *hs.Ser != wantSer || hs.MuHash != nil {
			t.Errorf("%s: hash_serialized_3: %+v", what, hs)
		}
		mh := n.txOutSetInfo(t, "muhash")
		if mh.MuHash == nil || *mh.MuHash != wantMu || mh.Ser != nil {
			t.Fatalf("%s: muhash: %+v, want %s", what, mh, wantMu)
		}
		none := n.txOutSetInfo(t, "none")
		if none.Ser != nil || none.MuHash != nil || none.TxOuts != def.TxOuts || none.Height != def.Height {
			t.Errorf("%s: none: %+v", what, none)
		}
		return wantSer, wantMu
	}

	ser0, mu0 := check("tip 102")
	if _, rerr := n.rpcCall(t, "gettxoutsetinfo", "sha256"); rerr == nil || rerr.Code != -8 ||
		rerr.Message != "sha256 is not a valid hash_type" {
		t.Errorf("bad hash_type: %+v", rerr)
	}
	// hash_or_height and use_index: the best block (by height or hash)
	// is answered, any other needs coinstatsindex, as in bitcoind
	// without it.
	def := n.txOutSetInfo(t)
	if byH := n.txOutSetInfo(t, "muhash", def.Height, false); byH.MuHash == nil || *byH.MuHash != mu0 {
		t.Errorf("tip by height: %+v", byH)
	}
	if byHash := n.txOutSetInfo(t, "none", def.BestBlock); byHash.Height != def.Height {
		t.Errorf("tip by hash: %+v", byHash)
	}
	if _, rerr := n.rpcCall(t, "gettxoutsetinfo", "none", def.Height-1); rerr == nil || rerr.Code != -8 ||
		rerr.Message != "Querying specific block heights requires coinstatsindex" {
		t.Errorf("older height: %+v", rerr)
	}
	if _, rerr := n.rpcCall(t, "gettxoutsetinfo", "none", def.Height+5); rerr == nil || rerr.Code != -8 {
		t.Errorf("height past the tip: %+v", rerr)
	}
	if _, rerr := n.rpcCall(t, "gettxoutsetinfo", "none", nil, "yes"); rerr == nil {
		t.Error("use_index of the wrong type accepted")
	}
	help := unquote(t, n.must(t, "help", "gettxoutsetinfo"))
	if !strings.Contains(help, `default="hash_serialized_3"`) {
		t.Errorf("help does not name the default:\n%s", help)
	}

	hs := n.mine(t, 1)
	ser1, mu1 := check("tip 103")
	if ser1 == ser0 || mu1 == mu0 {
		t.Fatal("digests did not change with a new block")
	}
	n.must(t, "invalidateblock", hs[0].String())
	if ser, mu := check("after invalidateblock"); ser != ser0 || mu != mu0 {
		t.Fatalf("after invalidateblock %s %s, want %s %s", ser, mu, ser0, mu0)
	}
	n.must(t, "reconsiderblock", hs[0].String())
	if ser, mu := check("after reconsiderblock"); ser != ser1 || mu != mu1 {
		t.Fatalf("after reconsiderblock %s %s, want %s %s", ser, mu, ser1, mu1)
	}
}
