package main

import (
	"io"
	"net"
	"testing"
	"time"
)

func TestServerHoldsConnectionsUpToMaxPeers(t *testing.T) {
	cfg := &config{}
	cfg.MaxPeers = 1
	cfg.Listeners = []string{"127.0.0.1:0"}
	s, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	addr := s.listeners[0].Addr().String()

	first, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// Wait (bounded) until the first connection is registered.
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("first connection not held")
		}
		time.Sleep(5 * time.Millisecond)
	}

	second, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	second.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := second.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection beyond --maxpeers was not closed")
	}

	// The held connection stays open until Stop.
	first.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := first.Read(make([]byte, 1)); err == nil || err == io.EOF {
		t.Fatalf("held connection closed early: %v", err)
	}

	s.Stop()
	s.Stop() // idempotent
	done := make(chan struct{})
	go func() { s.WaitForShutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("WaitForShutdown hung")
	}
	first.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := first.Read(make([]byte, 1)); err == nil {
		t.Fatal("held connection still open after Stop")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Fatal("listener still open after Stop")
	}
}

func TestServerBindFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := &config{}
	cfg.Listeners = []string{"127.0.0.1:0", l.Addr().String()}
	if _, err := newServer(cfg); err == nil {
		t.Fatal("binding a used port succeeded")
	}
}
