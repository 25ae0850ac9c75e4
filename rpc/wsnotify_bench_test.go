package rpc

import (
	"testing"

	"github.com/btcnode/btcd/wire"
)

// benchHub is a server whose hub holds n clients without connections,
// each subscribed to blocks and transactions with a 100-address filter.
func benchHub(b *testing.B, n int) (*Server, []*wsClient) {
	s, err := New(Config{DataDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	h := s.hub()
	var cs []*wsClient
	for i := 0; i < n; i++ {
		c := &wsClient{s: s, quit: make(chan struct{}), wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
		c.sub.blocks, c.sub.txs = true, true
		c.sub.filter = newWatchSet()
		for j := 0; j < 100; j++ {
			prog := make([]byte, 20)
			prog[0], prog[1] = byte(i), byte(j)
			c.sub.filter.addAddress(address{kind: addrWitness, program: prog})
		}
		h.clients[c] = struct{}{}
		cs = append(cs, c)
	}
	return s, cs
}

func drain(cs []*wsClient) {
	for _, c := range cs {
		c.queue, c.qbytes = nil, 0
	}
}

// BenchmarkWSBlockConnected fans a 2,000-transaction block out to ten
// clients (blockconnected, and filteredblockconnected matched against
// each client's filter).
func BenchmarkWSBlockConnected(b *testing.B) {
	s, cs := benchHub(b, 10)
	chain := &wsChain{}
	var txs []*wire.MsgTx
	for i := 0; i < 2000; i++ {
		txs = append(txs, wsSpendTx(wire.OutPoint{Hash: wire.Hash{byte(i), byte(i >> 8)}}, []byte{0x51}, 1000, []byte{0x00, 0x14, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}))
	}
	// A decoded block carries its txids, as the node's blocks do.
	blk := new(wire.MsgBlock)
	if _, err := blk.Decode(chain.add(txs...).Bytes()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.ws.blockConnected(s, blk, chain.hashes[0], 1)
		drain(cs)
	}
}

// BenchmarkWSTxAccepted fans one mempool transaction out to ten clients
// (txaccepted and the filter match).
func BenchmarkWSTxAccepted(b *testing.B) {
	s, cs := benchHub(b, 10)
	tx := wsSpendTx(wire.OutPoint{Hash: wire.Hash{1}}, []byte{0x51}, 1000, []byte{0x51})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.ws.txAccepted(s, tx)
		drain(cs)
	}
}
