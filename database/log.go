package database

import "github.com/btcsuite/btclog"

// log is the package logger; the daemon sets it with UseLogger. Disabled
// by default, so tools and tests that open a store stay quiet.
var log = btclog.Disabled

// UseLogger sets the logger used by the package.
func UseLogger(l btclog.Logger) { log = l }
