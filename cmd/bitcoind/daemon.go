package main

import (
	"fmt"
	"io"
	"os"
)

// daemonEnv marks the process started in the background by -daemon or
// -daemonwait: "1", or "wait" when the parent waits on file descriptor 3
// for the outcome of initialization.
const daemonEnv = "BTCNODE_BITCOIND_DAEMON"

// daemonChild reports whether this process is the background node that
// -daemon started, and whether its parent waits for it (-daemonwait).
func daemonChild() (child, wait bool) {
	switch os.Getenv(daemonEnv) {
	case "1":
		return true, false
	case "wait":
		return true, true
	}
	return false, false
}

// reportStarted tells a -daemonwait parent that initialization finished:
// one byte 1 on descriptor 3, which the parent reads before it exits 0.
func reportStarted() {
	f := os.NewFile(3, "daemonwait")
	if f == nil {
		return
	}
	f.Write([]byte{1})
	f.Close()
}

// daemonize starts this program again in the background, detached from
// the terminal, with the same arguments (bitcoind's -daemon; Go cannot
// fork a running runtime). With wait (-daemonwait) it returns once the
// background node has finished initializing, or failed to: exit code 0
// or 1, as bitcoind. Otherwise it returns 0 at once.
func daemonize(wait bool, stdout, stderr io.Writer) int {
	fmt.Fprintln(stdout, "bitcoind starting")
	r, err := startBackground(wait)
	if err != nil {
		fmt.Fprintf(stderr, "Error: fork_daemon() failed: %v\n", err)
		return 1
	}
	if r == nil {
		return 0
	}
	defer r.Close()
	var b [1]byte
	if n, _ := r.Read(b[:]); n == 1 && b[0] == 1 {
		return 0
	}
	fmt.Fprintln(stderr, "Error during initialization - check debug.log for details")
	return 1
}
