package mempool

import "github.com/btcsuite/btclog"

// log is the package logger; disabled until the daemon calls UseLogger.
var log = btclog.Disabled

// UseLogger sets the package logger (the daemon's MEMP subsystem). Lines
// Core's functional tests wait for ("rolling minimum fee bumped", the
// PrioritiseTransaction notes) keep Core's wording.
func UseLogger(l btclog.Logger) { log = l }
