package rpc

import (
	"strings"
	"testing"
)

// TestGetBlockFilterWithoutIndex: without the filter index getblockfilter
// exists and answers Core's -1 "Index is not enabled for filtertype
// basic" (it used to be missing, -32601); an unknown type is still -5.
func TestGetBlockFilterWithoutIndex(t *testing.T) {
	_, url := startServer(t, func(c *Config) { c.Backend.Chain = &ChainBackend{} })
	hash := strings.Repeat("00", 32)
	if e := mustError(t, url, "getblockfilter", []any{hash}, ErrMisc); e.Message != "Index is not enabled for filtertype basic" {
		t.Errorf("%q", e.Message)
	}
	if e := mustError(t, url, "getblockfilter", []any{hash, "extended"}, ErrInvalidAddress); e.Message != "Unknown filtertype" {
		t.Errorf("%q", e.Message)
	}
}
