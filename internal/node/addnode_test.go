package node

import (
	"strings"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func TestSameNode(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"127.0.0.1:8333", "127.1:8333", true},
		{"127.0.0.1:8333", "127.0.1:8333", true},
		{"10.0.0.1:1", "167772161:1", true},
		{"127.0.0.1:8333", "127.1:8334", false},
		{"127.0.0.1:8333", "127.2:8333", false},
		{"[::ffff:1.2.3.4]:1", "1.2.3.4:1", true},
		{"example.com:1", "example.com:1", true},
		{"example.com:1", "127.0.0.1:1", false},
		{"256.1:1", "0.0.1.0:1", false},
	} {
		if got := sameNode(tc.a, tc.b); got != tc.same {
			t.Errorf("sameNode(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// Service bits are named lowest first, unknown ones as UNKNOWN[2^n].
func TestServiceNamesUnknownBits(t *testing.T) {
	got := serviceNames(wire.SFNodeNetwork | 1<<4 | wire.SFNodeWitness | 1<<63)
	if strings.Join(got, ",") != "NETWORK,WITNESS,UNKNOWN[2^4],UNKNOWN[2^63]" {
		t.Fatalf("serviceNames %q", got)
	}
}
