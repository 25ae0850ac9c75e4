package node

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/btcnode/btcd/blockfilter"
	"github.com/btcnode/btcd/wire"
)

// mineWithTxs mines 101 blocks, then blocks each holding spends of an
// earlier coinbase, and returns the tip height.
func mineWithTxs(t *testing.T, n *testNode, withTxs int) int32 {
	t.Helper()
	n.mine(t, 101)
	for i := range withTxs {
		n.addTxs(t, int32(i+1), 2)
		n.mine(t, 1)
	}
	return n.s.chain.BestSnapshot().Height
}

// waitFilterTip waits until the filter index has caught up with the chain.
func waitFilterTip(t *testing.T, n *testNode) {
	t.Helper()
	waitFor(t, 30*time.Second, "filter index to reach the tip", func() bool {
		h, _ := n.s.filters.Tip()
		return h == n.s.chain.BestSnapshot().Hash
	})
}

// rpcBlockFilter calls getblockfilter for the block at height.
func rpcBlockFilter(t *testing.T, n *testNode, height int32) (wire.Hash, []byte, wire.Hash) {
	t.Helper()
	h, ok := n.s.chain.BlockHashByHeight(height)
	if !ok {
		t.Fatalf("no block at %d", height)
	}
	res, rerr := n.rpcCall(t, "getblockfilter", h.String())
	if rerr != nil {
		t.Fatalf("getblockfilter at %d: %+v", height, rerr)
	}
	var bf struct{ Filter, Header string }
	if err := json.Unmarshal(res, &bf); err != nil {
		t.Fatal(err)
	}
	f, err := hex.DecodeString(bf.Filter)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := wire.NewHashFromStr(bf.Header)
	if err != nil {
		t.Fatal(err)
	}
	return h, f, hdr
}

func TestBlockFilterIndexRPC(t *testing.T) {
	n := newTestNode(t, "--blockfilterindex")
	tip := mineWithTxs(t, n, 20)
	waitFilterTip(t, n)

	// The header chain from genesis is consistent with the filters.
	var prev wire.Hash
	for h := int32(0); h <= tip; h++ {
		hash, f, hdr := rpcBlockFilter(t, n, h)
		if want := blockfilter.FilterHeader(f, &prev); hdr != want {
			t.Fatalf("height %d: header %v, want %v", h, hdr, want)
		}
		prev = hdr
		if h < tip-3 {
			continue
		}
		// The last blocks hold transactions spending opTrueScript
		// outputs: rebuild their filters independently.
		blk, err := n.s.chain.BlockByHash(&hash)
		if err != nil {
			t.Fatal(err)
		}
		var spent [][]byte
		for _, tx := range blk.Transactions[1:] {
			for range tx.TxIn {
				spent = append(spent, opTrueScript)
			}
		}
		if len(spent) == 0 {
			t.Fatalf("block %d has no spends", h)
		}
		if want := blockfilter.BuildBasic(blk, spent).Bytes(); !bytes.Equal(f, want) {
			t.Fatalf("height %d: filter differs from an independent build", h)
		}
		k := blockfilter.KeyFromHash(&hash)
		flt, err := blockfilter.FromBytes(blockfilter.BasicParams, k, f)
		if err != nil || !flt.Match(opTrueScript) {
			t.Fatalf("height %d: filter does not match the spent script (%v)", h, err)
		}
	}

	// An unknown block is an error, as in Core.
	if _, rerr := n.rpcCall(t, "getblockfilter", wire.Hash{1}.String()); rerr == nil {
		t.Fatal("getblockfilter of an unknown block succeeded")
	}
}

func TestBlockFilterDisabled(t *testing.T) {
	n := newTestNode(t)
	if _, rerr := n.rpcCall(t, "getblockfilter", n.s.chain.BestSnapshot().Hash.String()); rerr == nil {
		t.Fatal("getblockfilter without --blockfilterindex succeeded")
	}
	if _, err := loadConfig([]string{"--regtest", "--appdata=" + t.TempDir(), "--peerblockfilters"}); err == nil {
		t.Fatal("--peerblockfilters without --blockfilterindex accepted")
	}
}

// TestBlockFilterIndexWithPruning: the filter index works on a pruned node:
// its prune lock keeps pruning 11 blocks below the height it reached, and
// the filters of pruned blocks are still served.
func TestBlockFilterIndexWithPruning(t *testing.T) {
	n := newTestNode(t, "--blockfilterindex", "--prune=1", "--fastprune")
	n.mine(t, 700)
	waitFilterTip(t, n)
	var pruned int32
	if err := json.Unmarshal(n.must(t, "pruneblockchain", 690), &pruned); err != nil {
		t.Fatal(err)
	}
	tip := n.s.chain.BestSnapshot().Height
	if pruned <= 0 || pruned > tip-11 {
		t.Fatalf("pruned to %d with the index at %d", pruned, tip)
	}
	hash, _ := n.s.chain.BlockHashByHeight(2)
	if st, _ := n.s.chain.LookupBlock(&hash); st.HaveData {
		t.Fatal("block 2 not pruned")
	}
	if _, rerr := n.rpcCall(t, "getblockfilter", hash.String()); rerr != nil {
		t.Fatalf("getblockfilter of a pruned block: %v", rerr)
	}
}

// rawPeer is a minimal P2P client for request/response tests.
type rawPeer struct {
	c        net.Conn
	net      wire.BitcoinNet
	services wire.ServiceFlag
}

func dialRawPeer(t *testing.T, n *testNode) *rawPeer {
	t.Helper()
	c := dialP2P(t, n)
	p := &rawPeer{c: c, net: n.s.cfg.params.Net}
	ap := netip.MustParseAddrPort(c.RemoteAddr().String())
	p.send(t, &wire.MsgVersion{
		ProtocolVersion: int32(wire.ProtocolVersion),
		Services:        wire.SFNodeWitness,
		Timestamp:       time.Now().Unix(),
		AddrYou:         wire.NetAddress{Addr: ap.Addr(), Port: ap.Port()},
		Nonce:           0x5eed,
		UserAgent:       "/filtertest:0.1/",
	})
	for {
		msg := p.read(t)
		switch m := msg.(type) {
		case *wire.MsgVersion:
			p.services = m.Services
		case *wire.MsgVerAck:
			p.send(t, &wire.MsgVerAck{})
			return p
		}
	}
}

func (p *rawPeer) send(t *testing.T, m wire.Message) {
	t.Helper()
	if _, err := wire.WriteMessage(p.c, m, wire.ProtocolVersion, p.net, wire.WitnessEncoding); err != nil {
		t.Fatalf("send %s: %v", m.Command(), err)
	}
}

// read returns the next message the node sends, skipping unknown ones.
func (p *rawPeer) read(t *testing.T) wire.Message {
	t.Helper()
	for {
		p.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, msg, err := wire.ReadMessage(p.c, wire.ProtocolVersion, p.net, wire.WitnessEncoding)
		if err != nil {
			if _, ok := err.(*wire.UnknownCommandError); ok {
				continue
			}
			t.Fatalf("read: %v", err)
		}
		if ping, ok := msg.(*wire.MsgPing); ok {
			p.send(t, &wire.MsgPong{Nonce: ping.Nonce})
			continue
		}
		return msg
	}
}

// expect reads until a message of the wanted command arrives.
func expect[T wire.Message](t *testing.T, p *rawPeer) T {
	t.Helper()
	for range 100 {
		if m, ok := p.read(t).(T); ok {
			return m
		}
	}
	var zero T
	t.Fatalf("no %T received", zero)
	return zero
}

func TestBlockFilterPeerServing(t *testing.T) {
	n := newTestNode(t, "--blockfilterindex", "--peerblockfilters")
	tip := mineWithTxs(t, n, 5)
	waitFilterTip(t, n)

	p := dialRawPeer(t, n)
	if p.services&wire.SFNodeCompactFilters == 0 {
		t.Fatalf("services %v lack NODE_COMPACT_FILTERS", p.services)
	}
	tipHash := n.s.chain.BestSnapshot().Hash

	// getcfheaders over the whole chain.
	p.send(t, &wire.MsgGetCFHeaders{FilterType: wire.GCSFilterRegular, StartHeight: 1, StopHash: tipHash})
	hdrs := expect[*wire.MsgCFHeaders](t, p)
	if len(hdrs.FilterHashes) != int(tip) || hdrs.StopHash != tipHash {
		t.Fatalf("cfheaders: %d hashes, stop %v", len(hdrs.FilterHashes), hdrs.StopHash)
	}
	_, _, genesisHdr := rpcBlockFilter(t, n, 0)
	if hdrs.PrevFilterHeader != genesisHdr {
		t.Fatalf("cfheaders prev %v, want %v", hdrs.PrevFilterHeader, genesisHdr)
	}
	prev := genesisHdr
	for i, fh := range hdrs.FilterHashes {
		_, f, hdr := rpcBlockFilter(t, n, int32(i+1))
		if fh != wire.DoubleHashH(f) {
			t.Fatalf("cfheaders hash %d differs from the RPC filter", i+1)
		}
		if blockfilter.HeaderFromHash(fh, &prev) != hdr {
			t.Fatalf("cfheaders chain breaks at %d", i+1)
		}
		prev = hdr
	}

	// getcfilters for the last 6 blocks, in height order.
	start := tip - 5
	p.send(t, &wire.MsgGetCFilters{FilterType: wire.GCSFilterRegular, StartHeight: uint32(start), StopHash: tipHash})
	for h := start; h <= tip; h++ {
		cf := expect[*wire.MsgCFilter](t, p)
		hash, f, _ := rpcBlockFilter(t, n, h)
		if cf.BlockHash != hash || !bytes.Equal(cf.Data, f) {
			t.Fatalf("cfilter at %d: block %v, %d bytes", h, cf.BlockHash, len(cf.Data))
		}
	}

	// getcfcheckpt: no 1000-block interval yet, so an empty list.
	p.send(t, &wire.MsgGetCFCheckpt{FilterType: wire.GCSFilterRegular, StopHash: tipHash})
	cp := expect[*wire.MsgCFCheckpt](t, p)
	if cp.StopHash != tipHash || len(cp.FilterHeaders) != 0 {
		t.Fatalf("cfcheckpt: stop %v, %d headers", cp.StopHash, len(cp.FilterHeaders))
	}

	// A start above the stop block is a protocol violation, and so (as
	// Core's PrepareBlockFilterRequest) is a stop block the node does not
	// know: both disconnect.
	bad := []wire.Message{
		&wire.MsgGetCFilters{FilterType: wire.GCSFilterRegular, StartHeight: uint32(tip + 1), StopHash: tipHash},
		&wire.MsgGetCFHeaders{FilterType: wire.GCSFilterRegular, StartHeight: 1, StopHash: wire.Hash{7}},
	}
	for i, msg := range bad {
		if i > 0 {
			p = dialRawPeer(t, n)
		}
		expectFilterDisconnect(t, p, msg)
	}
}

// expectFilterDisconnect sends msg and waits for the node to hang up.
func expectFilterDisconnect(t *testing.T, p *rawPeer, msg wire.Message) {
	t.Helper()
	p.send(t, msg)
	p.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := wire.ReadMessage(p.c, wire.ProtocolVersion, p.net, wire.WitnessEncoding); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("peer with an invalid getcfilters range was not disconnected")
			}
			if _, ok := err.(*wire.UnknownCommandError); ok {
				continue
			}
			break
		}
	}
}

// checkFilterChain verifies the index's filter header chain over the
// whole main chain, reading the index directly.
func checkFilterChain(t *testing.T, s *server) {
	t.Helper()
	tip := s.chain.BestSnapshot()
	waitFor(t, 30*time.Second, "filter index to reach the tip", func() bool {
		h, _ := s.filters.Tip()
		return h == tip.Hash
	})
	var prev wire.Hash
	for h := int32(0); h <= tip.Height; h++ {
		hash, _ := s.chain.BlockHashByHeight(h)
		f, hdr, err := s.filters.BlockFilter(hash)
		if err != nil {
			t.Fatalf("height %d: %v", h, err)
		}
		if want := blockfilter.FilterHeader(f, &prev); hdr != want {
			t.Fatalf("height %d: header %v, want %v", h, hdr, want)
		}
		prev = hdr
	}
}

// TestBlockFilterIndexReorgAndRestart: the index follows a
// reorganisation, and after running without the index for a while a
// restart with it catches up.
func TestBlockFilterIndexReorgAndRestart(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten", "--norpc"}
	start := func(extra ...string) *server {
		return startServer(t, append(append([]string{}, base...), extra...)...)
	}
	s := start("--blockfilterindex")
	n := &testNode{s: s}
	n.mine(t, 110)
	checkFilterChain(t, s)

	old, _ := s.chain.BlockHashByHeight(108)
	if err := s.chain.InvalidateBlock(&old); err != nil {
		t.Fatal(err)
	}
	n.addTxs(t, 1, 2) // the replacement blocks differ from the old ones
	n.mine(t, 5)
	checkFilterChain(t, s)
	if _, _, err := s.filters.BlockFilter(old); err != nil {
		t.Fatalf("filter of the stale block dropped: %v", err)
	}
	s.Stop()

	s = start()
	n = &testNode{s: s}
	n.mine(t, 3)
	s.Stop()

	s = start("--blockfilterindex")
	defer s.Stop()
	checkFilterChain(t, s)
}
