package main

import "testing"

// feature_fee_estimation.py starts a node with -acceptstalefeeestimates.
func TestAcceptStaleFeeEstimatesOption(t *testing.T) {
	if cfg := mustBuild(t, "", "-regtest", "-acceptstalefeeestimates"); !cfg.AcceptStaleFeeEstimates {
		t.Fatal("-acceptstalefeeestimates not mapped")
	}
	if cfg := mustBuild(t, "", "-regtest"); cfg.AcceptStaleFeeEstimates {
		t.Fatal("stale fee estimates accepted by default")
	}
}
