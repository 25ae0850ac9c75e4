package bloom

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// FuzzFilter loads an arbitrary filterload payload, adds an element and
// matches an arbitrary transaction and a one-block proof: nothing may
// panic, an inserted element must match, and the proof must verify.
func FuzzFilter(f *testing.F) {
	seed := New(10, 0.000001, 0, wire.BloomUpdateAll).MsgFilterLoad()
	p, _ := seed.BtcEncode(nil, 0, wire.BaseEncoding)
	tx := (&wire.MsgTx{Version: 1, TxIn: []wire.TxIn{{SignatureScript: []byte{2, 1, 2}}},
		TxOut: []wire.TxOut{{Value: 5, PkScript: []byte{0xa9, 1, 0xff, 0x87}}}}).Bytes()
	f.Add(p, []byte{0xff}, tx)
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 2}, []byte("letstrytocrashthisnode"), tx)
	f.Add([]byte{1, 0xff, 50, 0, 0, 0, 7, 0, 0, 0, 1}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, load, elem, rawTx []byte) {
		var m wire.MsgFilterLoad
		if err := m.BtcDecode(load, 0, wire.BaseEncoding); err != nil || !m.WithinSizeConstraints() {
			return
		}
		flt := Load(&m)
		flt.Add(elem)
		if !flt.Matches(elem) {
			t.Fatal("inserted element does not match")
		}
		var tx wire.MsgTx
		if _, err := tx.Decode(rawTx); err != nil {
			return
		}
		blk := &wire.MsgBlock{Transactions: []*wire.MsgTx{&tx, &tx}}
		ids := []wire.Hash{tx.TxHash(), tx.TxHash()}
		blk.Header.MerkleRoot, _ = wire.CalcMerkleRoot(ids)
		mb, _ := NewMerkleBlock(blk, flt)
		root, _, _, err := extract(mb)
		if err != nil || root != blk.Header.MerkleRoot {
			t.Fatalf("proof does not verify: %v", err)
		}
	})
}
