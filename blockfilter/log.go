package blockfilter

import "github.com/btcsuite/btclog"

// log is the package logger; it is silent until UseLogger is called.
var log = btclog.Disabled

// UseLogger sets the package logger (tag INDX in the daemon, as btcd).
func UseLogger(l btclog.Logger) { log = l }
