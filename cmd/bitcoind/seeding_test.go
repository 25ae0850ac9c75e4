package main

import (
	"slices"
	"testing"

	"github.com/btcnode/btcd/internal/node"
)

// bitcoind's seeding options: -dnsseed=1 survives -connect, -forcednsseed
// needs DNS seeding, -seednode is kept unless -connect names peers, and
// -connect=0 soft-disables DNS seeding as -noconnect does.
func TestSeedingOptions(t *testing.T) {
	cfg := mustBuild(t, "", "-regtest", "-connect=127.0.0.1:1", "-dnsseed=1", "-proxy=127.0.0.1:1")
	if cfg.DisableDNSSeed {
		t.Error("-dnsseed=1 with -connect: seeding off")
	}
	if !slices.Contains(cfg.Bitcoind.StartupLog, "-dnsseed is ignored when -connect is used and -proxy is specified") {
		t.Errorf("startup log %q", cfg.Bitcoind.StartupLog)
	}
	cfg = mustBuild(t, "", "-regtest", "-connect=127.0.0.1:1", "-seednode=127.0.0.1:2")
	if !cfg.DisableDNSSeed || len(cfg.SeedNodes) != 0 || !slices.Contains(cfg.Bitcoind.StartupLog, "-seednode is ignored when -connect is used") {
		t.Errorf("-connect with -seednode: dnsseed off %v, seednodes %q", cfg.DisableDNSSeed, cfg.SeedNodes)
	}
	cfg = mustBuild(t, "", "-regtest", "-connect=0", "-seednode=127.0.0.1:2")
	if !cfg.DisableDNSSeed || !slices.Equal(cfg.SeedNodes, []string{"127.0.0.1:2"}) {
		t.Errorf("-connect=0: dnsseed off %v, seednodes %q", cfg.DisableDNSSeed, cfg.SeedNodes)
	}
	cfg = mustBuild(t, "", "-regtest", "-forcednsseed", "-onlynet=ipv4")
	if !cfg.ForceDNSSeed || len(cfg.OnlyNets) != 1 {
		t.Errorf("-forcednsseed %v, -onlynet %q", cfg.ForceDNSSeed, cfg.OnlyNets)
	}
	for _, argv := range [][]string{{"-forcednsseed=1", "-dnsseed=0"}, {"-forcednsseed=1", "-connect=127.0.0.1:1"}} {
		cfg, err := build(t, "", append([]string{"-regtest"}, argv...)...)
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || node.ErrorText(err) != "Cannot set -forcednsseed to true when setting -dnsseed to false." {
			t.Errorf("%v: %v", argv, err)
		}
	}
}
