package rpc

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// str decodes a JSON string parameter.
func str(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("not a string: %s", raw)
	}
	return s
}

func strs(t testing.TB, raw json.RawMessage) []string {
	t.Helper()
	var s []string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("not a string array: %s", raw)
	}
	return s
}

func txHex(tx *wire.MsgTx) string { return hex.EncodeToString(tx.Bytes()) }

// wsServer starts a server over chain with a mempool whose SpentBy
// answers from spent (and Transaction from txs).
func wsServer(t *testing.T, chain *wsChain, spent map[wire.OutPoint]*wire.MsgTx) (*Server, string) {
	return startServer(t, func(c *Config) {
		cb := chain.backend()
		cb.Transaction = func(txid wire.Hash, _ *wire.Hash) (*TxLookup, error) {
			for _, tx := range spent {
				if tx.TxHash() == txid {
					return &TxLookup{Tx: tx}, nil
				}
			}
			return nil, ErrTxNotFound
		}
		c.Backend = Backend{Chain: cb, Mempool: &MempoolBackend{
			SpentBy: func(op wire.OutPoint) (wire.Hash, bool, error) {
				if tx := spent[op]; tx != nil {
					return tx.TxHash(), true, nil
				}
				return wire.Hash{}, false, nil
			},
		}}
	})
}

func TestWebsocketBlockNotifications(t *testing.T) {
	chain := &wsChain{}
	chain.add()
	s, url := wsServer(t, chain, nil)
	addrA, scriptA := testAddr(0xaa)
	c := wsDial(t, url, true)
	c.ok("notifyblocks")
	c.ok("loadtxfilter", true, []string{addrA, "not-an-address"}, []any{})
	plain := wsDial(t, url, true)
	plain.ok("notifyblocks")

	pay := wsSpendTx(wire.OutPoint{Hash: wire.Hash{1}, Index: 0}, []byte{0x51}, 1000, scriptA)
	b1 := chain.add(pay)
	s.NotifyBlockConnected(b1, chain.hashes[1], 1)
	p := c.next("blockconnected")
	if len(p) != 3 || str(t, p[0]) != chain.hashes[1].String() || string(p[1]) != "1" || string(p[2]) != "1600000600" {
		t.Fatalf("blockconnected %s", p)
	}
	p = c.next("filteredblockconnected")
	header := hex.EncodeToString(b1.Header.AppendTo(nil))
	if len(p) != 3 || string(p[0]) != "1" || str(t, p[1]) != header {
		t.Fatalf("filteredblockconnected %s", p)
	}
	if got := strs(t, p[2]); len(got) != 1 || got[0] != txHex(pay) {
		t.Fatalf("filtered txs %v", got)
	}
	plain.next("blockconnected")
	if got := strs(t, plain.next("filteredblockconnected")[2]); len(got) != 0 {
		t.Fatalf("client without a filter got %v", got)
	}

	// The paying output joined the filter: its spend matches.
	spend := wsSpendTx(wire.OutPoint{Hash: pay.TxHash(), Index: 0}, []byte{0x51}, 900, []byte{0x51})
	b2 := chain.add(spend)
	s.NotifyBlockConnected(b2, chain.hashes[2], 2)
	c.next("blockconnected")
	if got := strs(t, c.next("filteredblockconnected")[2]); len(got) != 1 || got[0] != txHex(spend) {
		t.Fatalf("spend not matched: %v", got)
	}

	s.NotifyBlockDisconnected(b2, chain.hashes[2], 2)
	p = c.next("blockdisconnected")
	if len(p) != 3 || str(t, p[0]) != chain.hashes[2].String() || string(p[1]) != "2" {
		t.Fatalf("blockdisconnected %s", p)
	}
	p = c.next("filteredblockdisconnected")
	if len(p) != 2 || string(p[0]) != "2" || str(t, p[1]) != hex.EncodeToString(b2.Header.AppendTo(nil)) {
		t.Fatalf("filteredblockdisconnected %s", p)
	}

	c.ok("stopnotifyblocks")
	s.NotifyBlockConnected(b2, chain.hashes[2], 2)
	plain.next("blockconnected")
	c.ok("session") // the hub handled the block before this call
	c.quiet()
}

func TestWebsocketTxNotifications(t *testing.T) {
	chain := &wsChain{}
	chain.add()
	addrA, scriptA := testAddr(0xaa)
	addrB, scriptB := testAddr(0xbb)
	watchedOp := wire.OutPoint{Hash: wire.Hash{9}, Index: 3}
	mempoolSpend := wsSpendTx(watchedOp, []byte{0x51}, 5, []byte{0x51})
	s, url := wsServer(t, chain, map[wire.OutPoint]*wire.MsgTx{watchedOp: mempoolSpend})

	c := wsDial(t, url, true)
	c.ok("notifynewtransactions")
	v := wsDial(t, url, true)
	v.ok("notifynewtransactions", true)
	f := wsDial(t, url, true)
	f.ok("loadtxfilter", false, []string{addrA}, []any{})
	d := wsDial(t, url, true)
	d.ok("notifyreceived", []string{addrB})
	if r := d.call("notifyreceived", []string{"bogus"}); r.Error == nil || r.Error.Code != ErrInvalidAddress || r.Error.Message != "Invalid address or key: bogus" {
		t.Fatalf("notifyreceived bogus: %+v", r.Error)
	}

	tx := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{2}}, SignatureScript: []byte{0x51}}},
		TxOut: []wire.TxOut{{Value: 150_000_000, PkScript: scriptA}, {Value: 25_000_000, PkScript: scriptB}},
	}
	s.NotifyTxAccepted(tx)
	p := c.next("txaccepted")
	if len(p) != 2 || str(t, p[0]) != tx.TxHash().String() || string(p[1]) != "1.75000000" {
		t.Fatalf("txaccepted %s", p)
	}
	p = v.next("txacceptedverbose")
	var vt map[string]any
	if len(p) != 1 || json.Unmarshal(p[0], &vt) != nil || vt["txid"] != tx.TxHash().String() || vt["hex"] != txHex(tx) {
		t.Fatalf("txacceptedverbose %s", p)
	}
	if _, ok := vt["vout"].([]any); !ok {
		t.Fatalf("txacceptedverbose lacks vout: %v", vt)
	}
	if p = f.next("relevanttxaccepted"); len(p) != 1 || str(t, p[0]) != txHex(tx) {
		t.Fatalf("relevanttxaccepted %s", p)
	}
	if p = d.next("recvtx"); len(p) != 1 || str(t, p[0]) != txHex(tx) {
		t.Fatalf("recvtx %s", p)
	}
	// The received output is watched for its spend.
	spend := wsSpendTx(wire.OutPoint{Hash: tx.TxHash(), Index: 1}, []byte{0x51}, 1, []byte{0x51})
	s.NotifyTxAccepted(spend)
	c.next("txaccepted")
	v.next("txacceptedverbose")
	if p = d.next("redeemingtx"); len(p) != 1 || str(t, p[0]) != txHex(spend) {
		t.Fatalf("redeemingtx %s", p)
	}
	// Mined, it carries the block's details.
	b := chain.add(spend)
	s.NotifyBlockConnected(b, chain.hashes[1], 1)
	p = d.next("redeemingtx")
	var det blockDetails
	if len(p) != 2 || json.Unmarshal(p[1], &det) != nil || det.Height != 1 || det.Index != 1 || det.Hash != chain.hashes[1].String() {
		t.Fatalf("mined redeemingtx %s", p)
	}

	// notifyspent reports a spend already in the mempool at once.
	d.ok("notifyspent", []map[string]any{{"hash": watchedOp.Hash.String(), "index": 3}})
	if p = d.next("redeemingtx"); str(t, p[0]) != txHex(mempoolSpend) {
		t.Fatalf("mempool redeemingtx %s", p)
	}
	if r := d.call("notifyspent", []map[string]any{{"hash": "zz", "index": 0}}); r.Error == nil || r.Error.Code != ErrDeserialization {
		t.Fatalf("bad outpoint: %+v", r.Error)
	}
	d.ok("stopnotifyspent", []map[string]any{{"hash": watchedOp.Hash.String(), "index": 3}})
	d.ok("stopnotifyreceived", []string{addrB})

	c.ok("stopnotifynewtransactions")
	s.NotifyTxAccepted(tx)
	v.next("txacceptedverbose")
	c.ok("session")
	c.quiet()
}

func TestWatchSetMatches(t *testing.T) {
	w := newWatchSet()
	key := make([]byte, 33)
	key[0] = 2
	kh := hash160(key)
	w.addAddress(address{kind: addrP2PKH, program: kh[:]})
	p2pk := append(append([]byte{33}, key...), 0xac)
	if !w.paysTo(p2pk) {
		t.Fatal("pay-to-pubkey output not matched by its P2PKH address")
	}
	sig := make([]byte, 71)
	in := &wire.TxIn{SignatureScript: append(append([]byte{71}, sig...), append([]byte{33}, key...)...)}
	if !w.spendsAddress(in) {
		t.Fatal("P2PKH spend not recognised")
	}
	w2 := newWatchSet()
	w2.addAddress(address{kind: addrWitness, program: kh[:]})
	if !w2.spendsAddress(&wire.TxIn{Witness: [][]byte{sig, key}}) {
		t.Fatal("P2WPKH spend not recognised")
	}
	if w2.spendsAddress(&wire.TxIn{SignatureScript: []byte{0x6a}}) {
		t.Fatal("non-push script matched")
	}
}
