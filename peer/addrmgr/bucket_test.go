package addrmgr

import (
	"crypto/sha256"
	"net/netip"
	"testing"
)

// Bucket placement is Core's, byte for byte: the figures below are those
// of Core's addrman unit tests (caddrinfo_get_tried_bucket,
// caddrinfo_get_new_bucket, key sha256d(int32 1)) and of rpc_net.py's
// tried-table collision under -test=addrman (key 1).
func TestBucketsMatchCore(t *testing.T) {
	m := &Manager{}
	one := sha256.Sum256([]byte{1, 0, 0, 0})
	m.key = sha256.Sum256(one[:])

	tried := keyFromAddrPort(netip.MustParseAddrPort("250.1.1.1:8333"))
	if b := m.triedBucket(&tried); b != 40 {
		t.Errorf("tried bucket of 250.1.1.1:8333 = %d, want 40", b)
	}
	addr := keyFromAddrPort(netip.MustParseAddrPort("250.1.2.1:8333"))
	src := keyFromAddrPort(netip.MustParseAddrPort("250.1.2.1:0"))
	if b := m.newBucket(&addr, &src); b != 786 {
		t.Errorf("new bucket of 250.1.2.1:8333 = %d, want 786", b)
	}

	m.key = [32]byte{1}
	a := keyFromAddrPort(netip.MustParseAddrPort("1.2.3.4:8333"))
	c := keyFromAddrPort(netip.MustParseAddrPort("1.2.5.45:8333"))
	ba, bc := m.triedBucket(&a), m.triedBucket(&c)
	if ba != bc || m.bucketPos(false, ba, &a) != m.bucketPos(false, bc, &c) {
		t.Errorf("1.2.3.4 and 1.2.5.45 do not collide in the tried table: %d/%d %d/%d",
			ba, m.bucketPos(false, ba, &a), bc, m.bucketPos(false, bc, &c))
	}
}
