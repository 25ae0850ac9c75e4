package main

import "testing"

// TestCoinStatsIndexOption checks that bitcoind's -coinstatsindex (bare,
// =1, =0 and negated) reaches the node's configuration, and that it is
// accepted with -prune, as in Core 30.
func TestCoinStatsIndexOption(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"-regtest"}, false},
		{[]string{"-regtest", "-coinstatsindex"}, true},
		{[]string{"-regtest", "-coinstatsindex=1"}, true},
		{[]string{"-regtest", "-coinstatsindex=0"}, false},
		{[]string{"-regtest", "-coinstatsindex", "-nocoinstatsindex"}, false},
		{[]string{"-regtest", "-prune=550", "-coinstatsindex"}, true},
	} {
		if got := mustBuild(t, "", c.argv...).CoinStatsIndex; got != c.want {
			t.Errorf("%v: CoinStatsIndex %v, want %v", c.argv, got, c.want)
		}
	}
}
