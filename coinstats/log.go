package coinstats

import "github.com/btcsuite/btclog"

// log is the package logger; it is silent until UseLogger is called.
var log = btclog.Disabled

// UseLogger sets the package logger (the daemon's INDX tag).
func UseLogger(l btclog.Logger) { log = l }
