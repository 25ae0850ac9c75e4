package peer

import (
	"net"
	"runtime"
	"testing"
	"time"
)

// TestIdlePeerMemory measures the heap an idle connected peer costs.
func TestIdlePeerMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates many peers")
	}
	const pairs = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var peers []*Peer
	for range pairs {
		c1, c2 := net.Pipe()
		out := NewOutbound(baseConfig(), withAddr(c1, "198.51.100.2:1"), "198.51.100.2:1")
		in := NewInbound(baseConfig(), withAddr(c2, "198.51.100.1:1"))
		out.Start()
		in.Start()
		peers = append(peers, out, in)
	}
	for _, p := range peers {
		if !p.WaitForHandshake() {
			t.Fatal(p.Err())
		}
	}
	time.Sleep(50 * time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perPeer := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(len(peers))
	t.Logf("about %d bytes of heap per idle peer", perPeer)
	if perPeer > 256<<10 {
		t.Errorf("idle peer costs %d bytes", perPeer)
	}
	for _, p := range peers {
		p.Disconnect()
	}
	for _, p := range peers {
		<-p.Done()
	}
}
