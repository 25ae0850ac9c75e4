package connmgr

import (
	"slices"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// protectByUptime keeps half of the candidates, up to half of those
// spots for the disadvantaged networks shared evenly, the networks with
// fewer candidates first, the rest by uptime overall.
func TestProtectByUptime(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	// mk makes n candidates of net, connected age seconds before base
	// for ages starting at from (larger = longer connected).
	var next int32
	mk := func(n int, net wire.NetworkID, local bool, from int) []EvictionCandidate {
		var out []EvictionCandidate
		for i := range n {
			next++
			out = append(out, EvictionCandidate{ID: next, Network: net, Local: local, Connected: base.Add(-time.Duration(from+i) * time.Second), Inbound: true})
		}
		return out
	}
	ids := func(c []EvictionCandidate) []int32 {
		var out []int32
		for _, e := range c {
			out = append(out, e.ID)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name  string
		build func() []EvictionCandidate
		keep  []int32 // the candidates left unprotected
	}{
		{"ip only: the younger half stays", func() []EvictionCandidate {
			return mk(8, wire.NetIPv4, false, 100) // IDs 1..8, 8 the oldest
		}, []int32{1, 2, 3, 4}},
		{"onion peers take up to a quarter", func() []EvictionCandidate {
			// IDs 1..8 IPv4, ages 100..107; 9..12 onion, ages 1..4.
			return append(mk(8, wire.NetIPv4, false, 100), mk(4, wire.NetTorV3, false, 1)...)
		}, []int32{1, 2, 3, 4, 5, 9}}, // 10-12 by network, 6-8 by uptime
		{"shared evenly", func() []EvictionCandidate {
			// 1..12 IPv4, 13-14 onion, 15-16 I2P (young).
			c := mk(12, wire.NetIPv4, false, 100)
			c = append(c, mk(2, wire.NetTorV3, false, 1)...)
			return append(c, mk(2, wire.NetI2P, false, 1)...)
		}, []int32{1, 2, 3, 4, 5, 6, 7, 8}},
		{"a network's unused spots go to another", func() []EvictionCandidate {
			// 1..10 IPv4, 11 CJDNS, 12..16 onion: 4 spots, CJDNS takes 1.
			c := mk(10, wire.NetIPv4, false, 100)
			c = append(c, mk(1, wire.NetCJDNS, false, 1)...)
			return append(c, mk(5, wire.NetTorV3, false, 1)...)
		}, []int32{1, 2, 3, 4, 5, 6, 12, 13}},
		{"local peers", func() []EvictionCandidate {
			return append(mk(6, wire.NetIPv4, false, 100), mk(2, wire.NetIPv4, true, 1)...)
		}, []int32{1, 2, 3, 4}}, // the young locals 7-8 by network, 5-6 by uptime
	} {
		next = 0
		got := ids(protectByUptime(tc.build()))
		if !slices.Equal(got, tc.keep) {
			t.Errorf("%s: unprotected %v, want %v", tc.name, got, tc.keep)
		}
	}
}
