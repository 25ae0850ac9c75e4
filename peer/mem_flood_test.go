package peer

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// TestFloodingPeerMemory floods peers with inv announcements of fresh
// hashes, full addr messages and transactions, and checks that the heap
// each peer keeps stays under a fixed cap: the known-inventory set is
// bounded, addresses beyond the rate limit are dropped, and nothing is
// kept per received transaction.
func TestFloodingPeerMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("floods several peers")
	}
	const (
		peers       = 6
		invMsgs     = 12 // x 1000 hashes: about 3x the known-inventory cap
		addrMsgs    = 10 // x 1000 addresses
		txMsgs      = 200
		capPerPeer  = 1 << 20
		floodWindow = 20 * time.Second
	)
	cfg := baseConfig()
	var processed, limited uint64
	cfg.Listeners.OnAddrs = func(*Peer, []wire.NetAddressV2, bool) {}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	rng := rand.New(rand.NewPCG(1, 2))
	type pair struct {
		p *Peer
		r *remote
	}
	var ps []pair
	for i := range peers {
		p, r := newInboundWithRemote(t, cfg, fmt.Sprintf("198.51.100.%d:1", i+10))
		r.handshake()
		r.drain()
		if !p.WaitForHandshake() {
			t.Fatal(p.Err())
		}
		ps = append(ps, pair{p, r})
	}
	deadline := time.Now().Add(floodWindow)
	inv := &wire.MsgInv{InvList: make([]wire.InvVect, 1000)}
	addr := &wire.MsgAddr{AddrList: make([]wire.NetAddress, 1000)}
	for _, pr := range ps {
		for range invMsgs {
			for j := range inv.InvList {
				inv.InvList[j].Type = wire.InvTypeWTx
				binary.LittleEndian.PutUint64(inv.InvList[j].Hash[:8], rng.Uint64())
			}
			pr.r.send(inv)
		}
		for range addrMsgs {
			for j := range addr.AddrList {
				ip := netip.AddrFrom4([4]byte{byte(rng.IntN(200) + 1), byte(rng.Uint32()), byte(rng.Uint32()), 1})
				addr.AddrList[j] = wire.NewNetAddress(netip.AddrPortFrom(ip, 8333), wire.SFNodeNetwork, uint32(time.Now().Unix()))
			}
			pr.r.send(addr)
		}
		for k := range txMsgs {
			tx := &wire.MsgTx{Version: 2}
			tx.TxIn = []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: uint32(k)}, SignatureScript: []byte{0x51}, Sequence: 0xffffffff}}
			tx.TxOut = []wire.TxOut{{Value: int64(k), PkScript: []byte{0x51}}}
			pr.r.send(tx)
		}
		if time.Now().After(deadline) {
			t.Fatalf("flooding took longer than %v", floodWindow)
		}
	}
	// net.Pipe writes return once the reader took the bytes; wait for
	// the last messages to be handled too.
	for _, pr := range ps {
		waitCond(t, "flood handled", 10*time.Second, func() bool {
			return pr.p.Stats().BytesRecvPerMsg[wire.CmdTx] > 0 && pr.p.Stats().AddrProcessed+pr.p.Stats().AddrRateLimited >= addrMsgs*1000
		})
		if !pr.p.Connected() {
			t.Fatalf("%v disconnected: %v", pr.p, pr.p.Err())
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perPeer := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / peers
	for _, pr := range ps {
		st := pr.p.Stats()
		processed += st.AddrProcessed
		limited += st.AddrRateLimited
		pr.p.invMu.Lock()
		known := len(pr.p.knownInv.keys.set)
		pr.p.invMu.Unlock()
		if known > maxKnownInv {
			t.Errorf("%v remembers %d hashes, cap %d", pr.p, known, maxKnownInv)
		}
	}
	t.Logf("about %d bytes of heap per flooding peer; addresses processed %d, rate-limited %d", perPeer, processed, limited)
	if processed > peers*(addrTokenBucketMax+10) {
		t.Errorf("processed %d addresses from %d peers; the rate limit allows about %d each", processed, peers, addrTokenBucketMax)
	}
	if perPeer > capPerPeer {
		t.Errorf("flooding peer costs %d bytes of heap, cap %d", perPeer, capPerPeer)
	}
	runtime.KeepAlive(ps)
}
