package node

import (
	"os"
	"os/signal"
	"syscall"
)

// interruptSignals are the signals that ask the daemon to shut down.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// shutdownRequestChannel lets code inside the daemon (the RPC "stop"
// command) ask for the same clean shutdown a signal triggers.
var shutdownRequestChannel = make(chan struct{}, 1)

// requestShutdown asks for a clean shutdown; extra requests are ignored.
func requestShutdown() {
	select {
	case shutdownRequestChannel <- struct{}{}:
	default:
	}
}

// forceExit is what a second signal does; tests replace it.
var forceExit = func() { os.Exit(1) }

// interruptListener returns a channel that is closed on the first SIGINT or
// SIGTERM (or requestShutdown). A second signal means the operator gave up
// waiting for the clean shutdown, so the process exits at once with code 1.
func interruptListener() <-chan struct{} {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, interruptSignals...)
	return listenForInterrupts(sigs)
}

// listenForInterrupts implements interruptListener on any signal channel.
func listenForInterrupts(sigs <-chan os.Signal) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			btcdLog.Infof("Received signal (%s). Shutting down...", sig)
		case <-shutdownRequestChannel:
			btcdLog.Info("Shutdown requested. Shutting down...")
		}
		close(c)

		sig, ok := <-sigs
		if !ok {
			return
		}
		btcdLog.Warnf("Received signal (%s) again before shutdown finished; exiting now", sig)
		closeLogRotator()
		forceExit()
	}()
	return c
}

// interruptRequested reports, without blocking, whether shutdown has begun;
// long start-up steps poll it so a signal does not wait for them to finish.
func interruptRequested(interrupted <-chan struct{}) bool {
	select {
	case <-interrupted:
		return true
	default:
		return false
	}
}
