package txscript

import "github.com/btcsuite/btclog"

// log is the package logger (tag SCRP in the daemon). Script failures are
// reported through returned errors, so the engine itself stays silent;
// the logger exists so the daemon can wire every subsystem uniformly.
//
//lint:ignore U1000 set through UseLogger like every subsystem's logger
var log = btclog.Disabled

// UseLogger sets the package logger.
func UseLogger(l btclog.Logger) { log = l }
