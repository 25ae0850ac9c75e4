package addrmgr

import (
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func TestAddSelfAnnounced(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	m := mustNew(t, Config{Now: func() time.Time { return now }})
	stamp := func(a wire.NetAddressV2) wire.NetAddressV2 {
		a.Timestamp, a.Services = uint32(now.Unix()), wire.SFNodeNetwork|wire.SFNodeWitness
		return a
	}
	a := stamp(ip4(1, 0, 0, 0, 8333))
	if added, moved := m.AddSelfAnnounced(a, false); !added || moved {
		t.Fatalf("new address: added %v moved %v", added, moved)
	}
	// Present already: neither table takes it again.
	for _, tried := range []bool{false, true} {
		if added, _ := m.AddSelfAnnounced(a, tried); added {
			t.Errorf("duplicate added (tried %v)", tried)
		}
	}
	b := stamp(ip4(1, 2, 3, 4, 8333))
	if added, moved := m.AddSelfAnnounced(b, true); !added || !moved {
		t.Fatalf("tried address: added %v moved %v", added, moved)
	}
	if nNew, nTried := m.Counts(); nNew != 1 || nTried != 1 {
		t.Fatalf("counts new %d tried %d", nNew, nTried)
	}
	// Find an address whose tried slot b holds: it stays in new.
	m.mu.Lock()
	kb, _ := keyOf(&b)
	bb, bp := m.triedBucket(&kb), m.bucketPos(false, m.triedBucket(&kb), &kb)
	m.mu.Unlock()
	var c wire.NetAddressV2
	found := false
	for i := 0; i < 1<<16 && !found; i++ {
		c = stamp(ip4(1, 2, byte(i>>8), byte(i), 8333))
		k, _ := keyOf(&c)
		m.mu.Lock()
		tb := m.triedBucket(&k)
		found = k != kb && tb == bb && m.bucketPos(false, tb, &k) == bp
		m.mu.Unlock()
	}
	if !found {
		t.Skip("no colliding address found")
	}
	if added, moved := m.AddSelfAnnounced(c, true); !added || moved {
		t.Fatalf("colliding address: added %v moved %v", added, moved)
	}
	if nNew, nTried := m.Counts(); nNew != 2 || nTried != 1 {
		t.Fatalf("after collision: new %d tried %d", nNew, nTried)
	}
	checkInv(t, m)
	// Unroutable addresses are refused.
	if added, _ := m.AddSelfAnnounced(stamp(ip4(10, 0, 0, 1, 8333)), false); added {
		t.Error("private address added")
	}
}
