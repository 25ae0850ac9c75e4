// Package logrotate owns the daemon's on-disk log file: a small io.Writer
// that appends to one file and, once it grows past a size limit, shifts it
// to name.1, name.2, ... keeping a fixed number of old files.
//
// It exists so the node needs no logging dependency beyond btclog; it does
// no compression and no time-based rotation on purpose.
package logrotate
