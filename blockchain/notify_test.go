package blockchain

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/chaintest"
)

// TestIsCurrentLatches: the chain counts as current once its tip is young
// enough, and stays current when the clock moves on (Core latches
// IsInitialBlockDownload); a fresh chain with the same old tip is not.
func TestIsCurrentLatches(t *testing.T) {
	var now atomic.Int64
	now.Store(1_700_000_000)
	tc := newTestChain(t, regtest(t), func(c *Config) {
		c.Now = now.Load
		c.MaxTipAge = 3600
	})
	if tc.chain.IsCurrent() {
		t.Fatal("genesis from 2011 counts as current")
	}
	e := tc.b.NextBlock(nil, nil, &chaintest.BlockOpts{Time: uint32(now.Load() - 60)})
	tc.accept(e)
	if !tc.chain.IsCurrent() {
		t.Fatal("a minute-old tip is not current")
	}
	now.Add(10 * 3600)
	if !tc.chain.IsCurrent() {
		t.Fatal("the current state did not latch when the tip aged")
	}
	tc.reopen()
	if tc.chain.IsCurrent() {
		t.Fatal("a reopened chain with a 10-hour-old tip counts as current")
	}
}

// IsCurrent answers while a block connection holds the chain lock: peers'
// readers ask at every message and must not wait for the connection.
func TestIsCurrentWithoutChainLock(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.chain.mu.Lock()
	defer tc.chain.mu.Unlock()
	done := make(chan bool, 1)
	go func() { done <- tc.chain.IsCurrent() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("IsCurrent waited for the chain lock")
	}
}

// TestSyncNotificationsWaits: SyncNotifications returns only after the
// subscribers have seen every event queued before the call.
func TestSyncNotificationsWaits(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	release := make(chan struct{})
	var seen atomic.Int32
	tc.chain.Subscribe(func(n *Notification) {
		if n.Type == NTBlockConnected {
			<-release
			seen.Add(1)
		}
	})
	e := tc.b.NextBlock(nil, nil, nil)
	go tc.chain.ProcessBlock(e.Block)
	// Wait until the block is connected and its event is being delivered.
	deadline := time.Now().Add(10 * time.Second)
	for tc.chain.BestSnapshot().Hash != e.Hash {
		if time.Now().After(deadline) {
			t.Fatal("block not connected")
		}
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	synced := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		tc.chain.SyncNotifications()
		close(synced)
	}()
	select {
	case <-synced:
		t.Fatal("SyncNotifications returned while an event was still being delivered")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	wg.Wait()
	if seen.Load() != 1 {
		t.Fatalf("subscriber saw %d connected events", seen.Load())
	}
}
