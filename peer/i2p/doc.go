// Package i2p reaches the I2P network through an I2P router's SAM 3.1
// bridge (the text protocol the router offers on its SAM port, 7656 by
// default), as bitcoind does with -i2psam.
//
// A Session keeps one control connection to the bridge open for the life
// of its SAM session; each outbound stream (Connect) and each inbound one
// (Listener.Accept) uses a fresh connection to the bridge that, after the
// bridge says RESULT=OK, carries the peer's bytes. A persistent session
// keeps its private key in a file so the node's .b32.i2p address stays
// the same across restarts and can take inbound peers; a transient one
// gets a throwaway address and is used for outbound streams only.
//
// Everything the bridge sends is untrusted: each line is read with a
// hard limit (MaxLineLen) and destinations are bounded (MaxDestLen) before
// they are decoded, and every exchange with the bridge runs under a
// deadline, so a broken or hostile bridge yields an error, never a hang
// or unbounded memory.
package i2p

import (
	"sync/atomic"

	"github.com/btcsuite/btclog"
)

// logPtr is the package's logger. A session's goroutines outlive the
// call that started them, so it is swapped atomically.
var logPtr atomic.Pointer[btclog.Logger]

// UseLogger sets the logger used by the package.
func UseLogger(l btclog.Logger) { logPtr.Store(&l) }

// logger returns the logger UseLogger set, or a disabled one.
func logger() btclog.Logger {
	if l := logPtr.Load(); l != nil {
		return *l
	}
	return btclog.Disabled
}
