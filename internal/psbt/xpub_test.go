package psbt

import (
	"bytes"
	"testing"
)

// TestGlobalXPubs checks the global xpubs of BIP174's xpub vector through
// the roles: Combine takes the other PSBT's xpubs it lacks, once each;
// Encode writes them in Core's order (by fingerprint, shorter paths
// first, then by key) and they decode back; and a second record of an
// xpub that differs only outside its key and chain code is a duplicate.
func TestGlobalXPubs(t *testing.T) {
	v := loadVectors(t)
	full, err := DecodeBase64(v.Valid[8])
	if err != nil || len(full.XPubs) != 2 {
		t.Fatalf("vector: %v %+v", err, full)
	}
	a, b := full.Copy(), full.Copy()
	a.XPubs, b.XPubs = full.XPubs[:1], full.XPubs
	if err := a.Combine(b); err != nil {
		t.Fatal(err)
	}
	if len(a.XPubs) != 2 || !bytes.Equal(a.Encode(), full.Encode()) {
		t.Fatalf("combined xpubs %+v", a.XPubs)
	}

	// An origin with a shorter path sorts first, though its path is
	// greater element by element.
	short := XPub{Key: bytes.Clone(full.XPubs[1].Key), Origin: KeyOrigin{Fingerprint: full.XPubs[1].Origin.Fingerprint, Path: []uint32{0x80000fff}}}
	short.Key[77] ^= 1 // another key (validity is not checked here)
	c := full.Copy()
	c.XPubs = append([]XPub{}, full.XPubs...)
	c.XPubs = append(c.XPubs, short)
	got := c.SortedXPubs()
	if len(got[0].Origin.Path) != 1 || got[1].Origin.Path[1] != 0x80000000 || got[2].Origin.Path[1] != 0x80000001 {
		t.Fatalf("order %+v", got)
	}

	// Encoding decodes back to the same xpubs.
	d, err := Decode(full.Encode())
	if err != nil || len(d.XPubs) != 2 || !bytes.Equal(d.XPubs[0].Key, full.SortedXPubs()[0].Key) {
		t.Fatalf("round trip: %v %+v", err, d)
	}

	// The first xpub again with another depth: Core's duplicate.
	raw := full.Encode()
	rec := raw[90 : 90+93]
	dup := bytes.Clone(rec)
	dup[1+1+4] ^= 1 // the depth byte
	bad := append(append(append([]byte{}, raw[:90+2*93]...), dup...), raw[90+2*93:]...)
	if _, err := Decode(bad); err == nil || err.Error() != "Duplicate key, global xpub already provided" {
		t.Fatalf("duplicate xpub: %v", err)
	}
}
