package zmq

import "github.com/btcsuite/btclog"

// log is the package logger; disabled until the daemon calls UseLogger.
var log = btclog.Disabled

// UseLogger sets the package logger (the daemon uses subsystem "ZMQP").
func UseLogger(l btclog.Logger) { log = l }
