package node

import (
	"os"
	"path/filepath"
	"testing"
)

// feature_fee_estimation.py: a -blocksonly node keeps no fee estimator,
// and both estimate calls fail as bitcoind's do.
func TestFeeEstimationDisabledBlocksOnly(t *testing.T) {
	n := newTestNode(t, "--blocksonly")
	for _, call := range [][]any{{"estimatesmartfee", 2}, {"estimaterawfee", 2}} {
		_, rerr := n.rpcCall(t, call[0].(string), call[1:]...)
		if rerr == nil || rerr.Code != -32603 || rerr.Message != "Fee estimation disabled" {
			t.Fatalf("%s: %+v", call[0], rerr)
		}
	}
	// Nothing to save either.
	n.s.saveFeeEstimates()
	if _, err := os.Stat(filepath.Join(n.s.cfg.DataDir, feeEstimatesFile)); !os.IsNotExist(err) {
		t.Fatalf("fee estimates written without an estimator: %v", err)
	}
}

// The hourly flush writes the file, and an unchanged estimator rewrites
// the same bytes (the test compares the file across flushes).
func TestFeeEstimatesFlushStable(t *testing.T) {
	n := newTestNode(t)
	path := filepath.Join(n.s.cfg.DataDir, feeEstimatesFile)
	n.s.saveFeeEstimates()
	a, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n.s.saveFeeEstimates()
	if b, _ := os.ReadFile(path); string(a) != string(b) {
		t.Fatal("flush without new blocks changed the file")
	}
}

// -acceptstalefeeestimates is a regtest-only option, as in bitcoind.
func TestAcceptStaleFeeEstimatesRegtestOnly(t *testing.T) {
	if cfg := mustLoad(t, "--regtest", "--acceptstalefeeestimates"); !cfg.AcceptStaleFeeEstimates {
		t.Fatal("option not set")
	}
	_, a := testArgs(t, "--acceptstalefeeestimates")
	if _, err := loadConfig(a); err == nil {
		t.Fatal("accepted on mainnet")
	}
}
