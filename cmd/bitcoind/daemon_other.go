//go:build !unix

package main

import (
	"errors"
	"os"
)

// startBackground is not available here: -daemon needs a Unix session.
func startBackground(bool) (*os.File, error) {
	return nil, errors.New("-daemon is not supported on this platform")
}
