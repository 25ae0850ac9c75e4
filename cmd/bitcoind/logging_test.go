package main

import (
	"testing"

	"github.com/btcnode/btcd/internal/node"
)

// The front end records the enabled categories for the logging RPC;
// feature_logging.py checks that options before -nodebug (or -debug=0,
// -debug=none) are dropped, the invalid one included.
func TestDebugLevelRecordsCategories(t *testing.T) {
	for _, off := range []string{"-nodebug", "-debug=0", "-debug=none"} {
		a := newArgs()
		if err := a.parseCommandLine([]string{"-debug=http", "-debug=abc", off, "-debug=rpc", "-debug=net", "-debugexclude=net"}); err != nil {
			t.Fatal(err)
		}
		if _, err := debugLevel(a); err != nil {
			t.Fatalf("%s: %v", off, err)
		}
		got := node.EnabledDebugCategories()
		if got["http"] || !got["rpc"] || got["net"] {
			t.Errorf("%s: categories %v", off, got)
		}
	}
}
