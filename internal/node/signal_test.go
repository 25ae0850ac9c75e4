package node

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestInterruptThenForcedExit(t *testing.T) {
	exited := make(chan struct{})
	old := forceExit
	forceExit = func() { close(exited) }
	defer func() { forceExit = old }()

	sigs := make(chan os.Signal, 2)
	done := listenForInterrupts(sigs)
	if interruptRequested(done) {
		t.Fatal("interrupted before any signal")
	}
	sigs <- os.Interrupt
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("first signal did not start shutdown")
	}
	if !interruptRequested(done) {
		t.Fatal("interruptRequested false after signal")
	}
	select {
	case <-exited:
		t.Fatal("forced exit after only one signal")
	case <-time.After(20 * time.Millisecond):
	}
	sigs <- syscall.SIGTERM
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("second signal did not force exit")
	}
}

func TestShutdownRequest(t *testing.T) {
	sigs := make(chan os.Signal)
	done := listenForInterrupts(sigs)
	requestShutdown()
	requestShutdown() // a second request must not block
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("requestShutdown did not start shutdown")
	}
	close(sigs) // lets the listener goroutine end
	select {
	case <-shutdownRequestChannel: // leave no request behind for other tests
	default:
	}
}
