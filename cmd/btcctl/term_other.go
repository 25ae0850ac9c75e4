//go:build !linux

package main

import "os"

// noEcho would hide a typed password; outside Linux btcctl leaves the
// terminal as it is.
func noEcho(*os.File) (restore func()) { return func() {} }
