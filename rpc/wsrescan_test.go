package rpc

import (
	"encoding/json"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// rescanChain is blocks 0..3: block 1 pays address A, block 2 spends that
// output, block 3 holds only its coinbase.
func rescanChain(scriptA []byte) (*wsChain, *wire.MsgTx, *wire.MsgTx) {
	chain := &wsChain{}
	chain.add()
	pay := wsSpendTx(wire.OutPoint{Hash: wire.Hash{7}}, []byte{0x51}, 1000, scriptA)
	chain.add(pay)
	spend := wsSpendTx(wire.OutPoint{Hash: pay.TxHash()}, []byte{0x51}, 900, []byte{0x51})
	chain.add(spend)
	chain.add()
	return chain, pay, spend
}

func TestWebsocketRescanBlocks(t *testing.T) {
	addrA, scriptA := testAddr(0xaa)
	chain, pay, spend := rescanChain(scriptA)
	_, url := wsServer(t, chain, nil)
	c := wsDial(t, url, true)
	h := func(i int) string { return chain.hashes[i].String() }
	if r := c.call("rescanblocks", []string{h(1)}); r.Error == nil || r.Error.Code != ErrMisc || r.Error.Message != "Transaction filter must be loaded before rescanning" {
		t.Fatalf("without filter: %+v", r.Error)
	}
	c.ok("loadtxfilter", true, []string{addrA}, []any{})
	var got []rescannedBlock
	if err := json.Unmarshal(c.ok("rescanblocks", []string{h(1), h(2), h(3)}), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Hash != h(1) || got[1].Hash != h(2) ||
		len(got[0].Transactions) != 1 || got[0].Transactions[0] != txHex(pay) ||
		len(got[1].Transactions) != 1 || got[1].Transactions[0] != txHex(spend) {
		t.Fatalf("rescanblocks: %+v", got)
	}
	if r := c.call("rescanblocks", []string{h(1), h(3)}); r.Error == nil || r.Error.Code != ErrInvalidParam {
		t.Fatalf("non-adjacent: %+v", r.Error)
	}
	if r := c.call("rescanblocks", []string{wire.Hash{5}.String()}); r.Error == nil || r.Error.Code != ErrInvalidAddress {
		t.Fatalf("unknown block: %+v", r.Error)
	}
	if string(c.ok("rescanblocks", []string{})) != "[]" {
		t.Fatal("empty rescanblocks")
	}
}

func TestWebsocketRescan(t *testing.T) {
	addrA, scriptA := testAddr(0xaa)
	chain, pay, spend := rescanChain(scriptA)
	s, url := wsServer(t, chain, nil)
	c := wsDial(t, url, true)
	h := func(i int) string { return chain.hashes[i].String() }

	// With an end block: the end block itself is not scanned (btcd).
	if r := c.ok("rescan", h(0), []string{addrA}, []any{}, h(3)); string(r) != "null" {
		t.Fatalf("rescan result %s", r)
	}
	p := c.next("recvtx")
	var det blockDetails
	if len(p) != 2 || str(t, p[0]) != txHex(pay) || json.Unmarshal(p[1], &det) != nil || det.Height != 1 || det.Index != 1 || det.Hash != h(1) || det.Time != 1600000600 {
		t.Fatalf("recvtx %s", p)
	}
	if p = c.next("redeemingtx"); str(t, p[0]) != txHex(spend) {
		t.Fatalf("redeemingtx %s", p)
	}
	p = c.next("rescanfinished")
	if len(p) != 3 || str(t, p[0]) != h(2) || string(p[1]) != "2" || string(p[2]) != "1600001200" {
		t.Fatalf("rescanfinished %s", p)
	}

	// Open-ended: to the tip, then the address stays watched.
	_, scriptB := testAddr(0xbb)
	addrB, _ := testAddr(0xbb)
	c.ok("rescan", h(2), []string{addrB}, []any{})
	if p = c.next("rescanfinished"); str(t, p[0]) != h(3) {
		t.Fatalf("open rescanfinished %s", p)
	}
	payB := wsSpendTx(wire.OutPoint{Hash: wire.Hash{8}}, []byte{0x51}, 1, scriptB)
	b4 := chain.add(payB)
	s.NotifyBlockConnected(b4, chain.hashes[4], 4)
	if p = c.next("recvtx"); len(p) != 2 || str(t, p[0]) != txHex(payB) {
		t.Fatalf("recvtx after rescan %s", p)
	}

	// Outpoints alone, and nothing at all (the tip is reported).
	c.ok("rescan", h(0), []string{}, []map[string]any{{"hash": pay.TxHash().String(), "index": 0}})
	if p = c.next("redeemingtx"); str(t, p[0]) != txHex(spend) {
		t.Fatalf("outpoint redeemingtx %s", p)
	}
	c.next("rescanfinished")
	c.ok("rescan", h(0), []string{}, []any{})
	if p = c.next("rescanfinished"); str(t, p[0]) != h(4) || string(p[1]) != "4" {
		t.Fatalf("empty rescan %s", p)
	}

	if r := c.call("rescan", wire.Hash{3}.String(), []string{addrA}, []any{}); r.Error == nil || r.Error.Code != ErrInvalidAddress {
		t.Fatalf("unknown begin block: %+v", r.Error)
	}
	if r := c.call("rescan", h(0), []string{"bogus"}, []any{}); r.Error == nil || r.Error.Code != ErrInvalidAddress {
		t.Fatalf("bad address: %+v", r.Error)
	}
}
