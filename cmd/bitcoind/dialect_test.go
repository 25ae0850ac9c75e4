package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/rpcclient"
)

// checkDialectVersion checks, on a running front end, the version that
// clients written for bitcoind read: getnetworkinfo's "version" (res is
// its result) passes lnd's thresholds, its "subversion" names the
// bitcoind release followed and then the node itself, and btcd's
// rpcclient, which lnd uses, detects a bitcoind of at least 25.0 (it
// parses "subversion" after finding no getinfo).
func checkDialectVersion(t *testing.T, res json.RawMessage, rpcPort int, netDir string) {
	t.Helper()
	var ni struct {
		Version    int    `json:"version"`
		SubVersion string `json:"subversion"`
	}
	if err := json.Unmarshal(res, &ni); err != nil {
		t.Fatal(err)
	}
	// 240000: lnd asks gettxspendingprevout; 170000 and 150000: its
	// health check and wallet's minimums.
	if ni.Version != 300000 {
		t.Errorf("getnetworkinfo version %d, want 300000 (Core 30's dialect)", ni.Version)
	}
	if !strings.HasPrefix(ni.SubVersion, "/Satoshi:30.0.0/btcd:") || !strings.HasSuffix(ni.SubVersion, "(testnode0)/") {
		t.Errorf("subversion %q: want /Satoshi:30.0.0/ then the node's own name, comments last", ni.SubVersion)
	}
	client, err := rpcclient.New(&rpcclient.ConnConfig{
		Host:         fmt.Sprintf("127.0.0.1:%d", rpcPort),
		CookiePath:   filepath.Join(netDir, ".cookie"),
		HTTPPostMode: true, DisableTLS: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Shutdown()
	v, err := client.BackendVersion()
	if err != nil {
		t.Fatalf("rpcclient BackendVersion: %v", err)
	}
	if bv, ok := v.(*rpcclient.BitcoindVersion); !ok || *bv != rpcclient.BitcoindPost25 {
		t.Errorf("rpcclient detects %v, want a bitcoind of 25.0 or later", v)
	}
}
