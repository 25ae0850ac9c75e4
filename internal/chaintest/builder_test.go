package chaintest

import (
	"testing"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/wire"
)

func TestBuilderBlocks(t *testing.T) {
	p, err := chaincfg.ParamsForNetwork("regtest")
	if err != nil {
		t.Fatal(err)
	}
	b := New(p)
	es := b.MineCoinbases(3)
	for i, e := range es {
		if e.Height != int32(i+1) || e.Block.Header.PrevBlock != e.Parent.Hash {
			t.Fatalf("block %d linked wrongly", i)
		}
		root, mutated := e.Block.MerkleRoot()
		if mutated || root != e.Block.Header.MerkleRoot {
			t.Fatalf("block %d merkle root", i)
		}
		if e.Block.BlockHash() != e.Hash {
			t.Fatalf("block %d hash", i)
		}
	}
	if got := HeightScript(300); string(got) != string([]byte{2, 0x2c, 0x01}) {
		t.Errorf("HeightScript(300) = %x", got)
	}
	// Every kind of output is recognised and signable.
	b.MineCoinbases(100)
	cb := b.MatureCoinbases(b.Tip)[0]
	var outs []wire.TxOut
	for _, k := range []Kind{P2WPKH, OpTrue, P2PKH, P2TR} {
		outs = append(outs, wire.TxOut{Value: 1000, PkScript: b.Script(k)})
	}
	tx := b.Spend([]*Output{cb}, outs, 0)
	b.NextBlock(nil, []*wire.MsgTx{tx}, nil)
	for i, k := range []Kind{P2WPKH, OpTrue, P2PKH, P2TR} {
		if o := b.Output(wire.OutPoint{Hash: tx.TxHash(), Index: uint32(i)}); o == nil || o.Kind != k {
			t.Errorf("output %d kind", i)
		}
	}
}
